import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { CHILDREN_FETCH_BATCH_SIZE, TIMELINE_DEFAULT_LIMIT } from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import type { CustomerLink, PaymentVersionItem } from '../db/schema';
import { ApiError } from '../http/errors';
import { createConverter, MissingExchangeRateError } from '../metrics/currency';
import { dayFromIso } from '../metrics/days';
import { resolveMetricsSettings } from '../metrics/settings';
import { mustBeKnownCurrency } from '../reports/reports';
import { customersRepository } from '../repositories/customers';
import { CUSTOMER_NOT_FOUND } from './customerMetrics';

/**
 * The customer details drawer's reads (first spec document 3 "Customer", 7; second document
 * 2 "Customer details drawer"): `GET /customers/{id}`, `GET /customers/{id}/timeline` (its
 * payments, newest or oldest first, at most `limit`) and `POST /customer/show_batch` (the
 * children, 100 ids a call). For the full users of the customer's account; another account's
 * customer, and a deleted one, is 404. Changing customers (merge, parent, exclude, delete):
 * server/routes/customerChanges.ts; the table: server/routes/customerList.ts.
 */

/** A timeline answers TIMELINE_DEFAULT_LIMIT payments when no limit is asked for, at most this many. */
export const TIMELINE_MAX_LIMIT = 10_000;
/** Ids one show_batch call takes: the client's batch of children. */
export const SHOW_BATCH_MAX_IDS = CHILDREN_FETCH_BATCH_SIZE;

const CustomerSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  public_id: Type.Union([Type.String(), Type.Null()], { description: 'Its id in the source system (CSV customer_id, payment provider)' }),
  parent_id: Type.Union([Type.String(), Type.Null()]),
  children_ids: Type.Array(Type.String()),
  include_in_calculations_by_default: Type.Boolean(),
  deleted: Type.Boolean(),
  segments: Type.Array(
    Type.Object({
      segment: Type.Object({ id: Type.String(), name: Type.String(), time_sensitive: Type.Boolean() }),
      value: Type.Union([Type.String(), Type.Null()], { description: 'The value now (a time-sensitive segment: of the current month)' }),
    }),
  ),
  links: Type.Array(Type.Object({ external_system: Type.String(), url: Type.String() })),
  metrics: Type.Array(
    Type.Object({
      kind: Type.Union([Type.Literal('mrr'), Type.Literal('total')]),
      value: Type.Number({ description: 'Minor units of `currency`: mrr today, total = recurring and one-time revenue to date; the customer with its descendants' }),
    }),
  ),
  currency: Type.String({ description: 'The currency of `metrics` (the account’s)' }),
  added_at: Type.String({ format: 'date-time' }),
});
type Customer = Static<typeof CustomerSchema>;

const ItemTypeSchema = Type.Union([Type.Literal('recurring'), Type.Literal('metered'), Type.Literal('one_time'), Type.Literal('freemium')]);
const PaymentSchema = Type.Object({
  id: Type.String(),
  customer_id: Type.String(),
  started_at: Type.String({ description: 'YYYY-MM-DD' }),
  ended_at: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD, the first day after the service period [started_at, ended_at); null for an open-ended payment' }),
  duration_in_months: Type.Union([Type.Number(), Type.Null()], { description: 'Whole months, or days / (365 / 12) for another period; null when open-ended' }),
  total_value: Type.Union([Type.Number(), Type.Null()], { description: 'Minor units of `currency` (converted at the rates of its start day); null when open-ended' }),
  monthly_amount: Type.Number({ description: 'Minor units of `currency` a month, exact (may have a fraction of a minor unit): the payment’s monthly amount, else total_value / duration_in_months' }),
  currency: Type.String(),
  original_currency: Type.String(),
  original_total_value: Type.Union([Type.Number(), Type.Null()], { description: 'Minor units of `original_currency`; null when open-ended' }),
  invoice_number: Type.Union([Type.String(), Type.Null()]),
  items: Type.Array(Type.Object({ product_key: Type.String(), type: ItemTypeSchema, quantity: Type.Number() })),
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  /** The customers of these ids in the account (in the order asked; unknown ids left out). */
  async function customers(accountId: string, ids: readonly string[]): Promise<Customer[]> {
    if (ids.length === 0) return [];
    const repository = customersRepository(db, accountId);
    const rows = await repository.rows(ids);
    if (rows.length === 0) return [];
    const found = rows.map((row) => row.id);
    const children = await repository.children(found);
    const now = app.now();
    const month = now.getUTCFullYear() * 12 + now.getUTCMonth();
    // The value of each segment now: the latest row not after this month (a time-sensitive
    // value holds from its month on); a value set only for later months counts for a segment
    // that is not time sensitive.
    const values = await repository.segmentValues(found, month);
    const segments = new Map<string, Customer['segments']>();
    for (const value of values) {
      const list = segments.get(value.customer_id) ?? [];
      if (list.some((entry) => entry.segment.id === value.id)) continue;
      if (value.time_sensitive && value.year * 12 + value.month - 1 > month) continue;
      list.push({ segment: { id: value.id, name: value.name, time_sensitive: value.time_sensitive }, value: value.value });
      segments.set(value.customer_id, list);
    }
    const snapshot = await app.metrics.getSnapshot(accountId);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const out: Customer[] = [];
    for (const id of new Set(ids)) {
      const row = byId.get(id);
      if (!row) continue;
      const metrics = await app.metrics.customerMetrics(accountId, id);
      out.push({
        id: row.id,
        name: row.name,
        public_id: row.public_id,
        parent_id: row.parent_id,
        children_ids: children.filter((child) => child.parent_id === id).map((child) => child.id),
        include_in_calculations_by_default: row.include_in_calculations_by_default,
        deleted: row.deleted_at !== null,
        segments: segments.get(id) ?? [],
        links: (row.links as CustomerLink[] | null) ?? [],
        metrics: metrics
          ? [
              { kind: 'mrr', value: metrics.mrr },
              { kind: 'total', value: metrics.accrued_total + metrics.one_time_accrued_total },
            ]
          : [],
        currency: metrics?.currency ?? snapshot.account.currency,
        added_at: row.added_at.toISOString(),
      });
    }
    return out;
  }

  app.get(
    '/customers/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'getCustomer',
        summary: 'A customer: parent, children, segments, links and its MRR and total',
        security: BEARER,
        params: IdParams,
        response: { 200: CustomerSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const [customer] = await customers(authOf(request).accountId, [request.params.id]);
      if (!customer) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
      return customer;
    },
  );

  app.post(
    '/customer/show_batch',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'showCustomerBatch',
        summary: 'Several customers at once (the drawer’s children list), in the order asked; ids not of the account are left out',
        security: BEARER,
        body: Type.Object({ ids: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: SHOW_BATCH_MAX_IDS }) }),
        response: { 200: Type.Object({ items: Type.Array(CustomerSchema) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ items: await customers(authOf(request).accountId, request.body.ids) }),
  );

  app.get(
    '/customers/:id/timeline',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'getCustomerTimeline',
        summary: 'A customer’s payments by start date (not its children’s; deleted ones left out)',
        security: BEARER,
        params: IdParams,
        querystring: Type.Object({
          currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'Amounts in this currency; default the account’s' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TIMELINE_MAX_LIMIT, description: `At most this many payments (default ${TIMELINE_DEFAULT_LIMIT})` })),
          sort_by: Type.Optional(Type.Union([Type.Literal('started_at:asc'), Type.Literal('started_at:desc')], { description: 'Default started_at:desc' })),
        }),
        response: {
          200: Type.Object({ items: Type.Array(PaymentSchema), limit: Type.Integer({ description: 'The limit applied: as many items as this means there may be more' }) }),
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { id } = request.params;
      const limit = request.query.limit ?? TIMELINE_DEFAULT_LIMIT;
      const direction = request.query.sort_by === 'started_at:asc' ? 'asc' : 'desc';
      const repository = customersRepository(db, accountId);
      if (!(await repository.exists(id))) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
      const payments = await repository.payments(id, direction, limit);
      const items = await repository.paymentItems(payments.map((p) => p.id));
      const convert = await converterTo(accountId, request.query.currency?.toUpperCase());
      try {
        return {
          limit,
          items: payments.map((payment) => {
            const started = String(payment.started_at);
            const factor = convert.factor(payment.currency, started);
            const originalTotal = payment.total_value === null ? null : Number(payment.total_value);
            const duration = payment.duration_in_months === null ? null : Number(payment.duration_in_months);
            const originalMonthly = payment.monthly_amount !== null ? Number(payment.monthly_amount) : originalTotal !== null && duration ? originalTotal / duration : 0;
            return {
              id: payment.id,
              customer_id: payment.customer_id,
              started_at: started,
              ended_at: payment.ended_at === null ? null : String(payment.ended_at),
              duration_in_months: duration,
              total_value: originalTotal === null ? null : factor === 1 ? originalTotal : Math.round(originalTotal * factor),
              monthly_amount: originalMonthly * factor,
              currency: convert.currency,
              original_currency: payment.currency,
              original_total_value: originalTotal,
              invoice_number: payment.invoice_number,
              items: items.filter((item) => item.payment_id === payment.id).map((item): PaymentVersionItem => ({ product_key: item.product_key, type: item.type, quantity: Number(item.quantity) })),
            };
          }),
        };
      } catch (error) {
        if (error instanceof MissingExchangeRateError) throw ApiError.of(422, error.message, '/querystring/currency');
        throw error;
      }
    },
  );

  /** Converts a payment's amounts into `currency` (default the account's) at the rates of its start day, as reports do by default. */
  async function converterTo(accountId: string, currency: string | undefined) {
    if (currency) await mustBeKnownCurrency(db, currency);
    const snapshot = await app.metrics.getSnapshot(accountId, { currencies: [currency] });
    const settings = resolveMetricsSettings(snapshot.account, { currency: currency ?? null });
    const target = settings.reportCurrency;
    let converter: ReturnType<typeof createConverter> | null = null;
    return {
      currency: target,
      /** Units of the target currency per unit of `from` on the start day (1 for the same currency). */
      factor(from: string, startedAt: string): number {
        if (from === target) return 1;
        const k = snapshot.currencies.index.get(from);
        if (k === undefined) throw new MissingExchangeRateError(from, startedAt, 'ECB');
        converter ??= createConverter(snapshot, settings);
        const day = dayFromIso(startedAt);
        return converter.factor(k, converter.rateDay(day, day));
      },
    };
  }
};
