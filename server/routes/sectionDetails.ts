import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { MissingExchangeRateError } from '../metrics/currency';
import { dayFromInstant, isoFromDay } from '../metrics/days';
import { SectionRequestError, type SectionResult } from '../metrics/definitions/types';
import type { DetailsRequest, DetailsResult } from '../metrics/details';
import { FilterQuerySchema, pickedFilterItem, withPickedItem } from '../reports/reportFilters';
import { mustBeKnownCurrency, SECTION_NOT_FOUND, sectionRequests } from '../reports/reports';
import type { FilterQuery } from '../../models/reportFilter';

/**
 * Drill-down of a data point (second spec document, 2 "Section details dialog", 3 "Details
 * payload", 7): `GET /business_report/sections/{id}/details` and `/cohort_details`. The
 * section is computed again with its own settings (definition, resolution, segments, data
 * category, the report's range, currency and discount settings: `sectionRequests`, as a
 * recalculation does) and, unless another currency is asked for, at the day it was last
 * computed, so the listed rows add up to the point the chart shows. Only the signed-in full
 * users of the report's account (no shared, demo or anonymous viewers); another account's
 * section is 404.
 */

export const NOT_A_COHORT = 'This section is not a cohort table: ask /details';
export const A_COHORT = 'This section is a cohort table: ask /cohort_details';
/** Rows listed before the rest, at most. */
export const DETAILS_MAX_LIMIT = 1_000;

const COHORT_DEFINITIONS = new Set(['customer_cohorts', 'mrr_cohorts']);
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const NamedValue = Type.Object({ name: Type.String(), value: Nullable(Type.Number()) });
const MovementEnd = Type.Object({
  id: Nullable(Type.String({ description: 'The payment carrying most of the MRR at that end' })),
  monthly_amount: Type.Number({ description: 'The customer’s MRR at that end, in minor units of the answer’s currency' }),
});
const TopCustomer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  deleted: Type.Boolean(),
  value: Type.Number({ description: 'Its part of the point, in the section’s unit' }),
  subscriptions: Type.Array(Type.Object({ product_key: Type.String() })),
  movement_from: Nullable(MovementEnd),
  movement_to: Nullable(MovementEnd),
  additional_values: Type.Array(NamedValue),
  quantity: Type.Optional(Type.Number({ description: 'Its units at the point, when the payload counts them (total_quantity)' })),
});
const TopCost = Type.Object({ id: Type.String(), name: Type.String(), value: Type.Number(), date: Type.String(), invoice_number: Nullable(Type.String()) });
const TopDeal = Type.Object({
  id: Type.String(),
  public_id: Nullable(Type.String()),
  name: Type.String(),
  value: Type.Number(),
  stage: Type.String(),
  days_since_moved_on: Type.Integer(),
  owner_name: Nullable(Type.String()),
  external_url: Nullable(Type.String()),
});
const Rest = Type.Object({ count: Type.Integer(), value: Type.Number() }, { description: 'The rows not listed: how many and their sum' });

const DetailsPayloadSchema = Type.Object({
  total_count: Type.Integer({ description: 'Rows behind the point (customers, costs or deals)' }),
  total_value: Type.Number({ description: 'Sum of every row’s value: the point for money and amounts' }),
  total_quantity: Nullable(Type.Number({ description: 'Units sold (revenue sections)' })),
  top_customers: Type.Array(TopCustomer),
  top_costs: Type.Optional(Type.Array(TopCost)),
  top_deals: Type.Optional(Type.Array(TopDeal)),
  rest: Rest,
  calculation_details: Type.Array(NamedValue, { description: 'Each input of the formula (a rate: numerator, denominator, result)' }),
  additional_lists: Type.Array(
    Type.Object({ name: Type.String(), total_count: Type.Integer(), total_value: Type.Number(), top_customers: Type.Array(TopCustomer), rest: Rest }),
  ),
  initial_cohort_value: Type.Optional(Type.Number()),
  initial_cohort_count: Type.Optional(Type.Integer()),
});

const DetailsSchema = Type.Object({
  section_id: Type.String(),
  definition_id: Type.String(),
  underlying_data: Type.String({ description: 'subscriptions (customer rows), costs or deals' }),
  period: Type.Object(
    { label: Type.String(), first_day: Type.String(), last_day: Type.String(), measure_day: Type.String(), current: Type.Boolean(), complete: Type.Boolean() },
    { description: "The period of the point, as in a section’s `periods` (label '2025-W01', '2025-01', '2025-Q1' or '2025'; days YYYY-MM-DD)" },
  ),
  currency: Type.String({ description: 'ISO 4217: the currency of money values' }),
  unit: Type.String({ description: 'minor_units (whole minor units of `currency`: cents for USD), fraction (0.05 = 5 %), ratio, count or units' }),
  items: Type.Array(
    Type.Object({
      name: Type.String(),
      segment_value: Type.Optional(Type.String()),
      component: Type.Optional(Type.String({ description: 'As in the section’s series: a movement class, a deal stage, a cohort period label' })),
      underlying_data: Type.String(),
      value: Nullable(Type.Number({ description: 'The number on the chart, in `unit` (mrr_movements: contraction and churn negative)' })),
      details: DetailsPayloadSchema,
    }),
    { description: 'One per series of the point (one when segment_value, or component, names it)' },
  ),
});

const CommonQuery = {
  segment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The segment (segmenter) shown; default total' })),
  segment_value: Type.Optional(Type.String({ maxLength: 500, description: 'Only the series of this segment value' })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'The report shown in another currency' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: DETAILS_MAX_LIMIT, description: 'Rows listed before the rest (default 20)' })),
};
const DetailsQuery = Type.Composite([Type.Object({
  date: Type.String({ pattern: DAY, description: 'A day of the point’s period (its `time`), YYYY-MM-DD' }),
  component: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the series of this component (an MRR movement, a deal stage)' })),
  ...CommonQuery,
}), FilterQuerySchema]);
const CohortQuery = Type.Composite([Type.Object({
  cohort_date: Type.String({ pattern: DAY, description: 'A day of the cohort’s period' }),
  date: Type.Optional(Type.String({ pattern: DAY, description: 'The cell’s `time` (cohort + k); gives k when `column` is absent' })),
  column: Type.Optional(Type.Union([Type.Literal('initial'), Type.Integer({ minimum: 0, maximum: 1000 })], { description: "'initial' or k; default: from date, else 0" })),
  ...CommonQuery,
}), FilterQuerySchema]);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const sectionDetailsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  /** The section's request as its report computes it, and what it last computed. */
  async function sectionOf(request: FastifyRequest, sectionId: string, currency: string | undefined, filterQuery: FilterQuery) {
    const { accountId } = authOf(request);
    const row = await db
      .selectFrom('report_sections')
      .select(['report_id', 'definition_id', 'computed_at', 'result'])
      .where('account_id', '=', accountId)
      .where('id', '=', sectionId)
      .executeTakeFirst();
    if (!row) throw ApiError.of(404, SECTION_NOT_FOUND);
    const own = await sectionRequests(db, accountId, row.report_id);
    const account = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
    // The report's own currency asked for: as without one.
    const other = currency && currency !== (own?.requests[0]?.currency ?? account.currency) ? currency : undefined;
    if (other) await mustBeKnownCurrency(db, other);
    const input = other ? await sectionRequests(db, accountId, row.report_id, other) : own;
    const k = input?.sections.findIndex((section) => section.id === sectionId) ?? -1;
    const ownRequest = input?.requests[k];
    if (!ownRequest) throw ApiError.of(404, SECTION_NOT_FOUND);
    // A chart shown filtered (the picker's item): its rows are the filtered ones.
    const item = await pickedFilterItem(db, accountId, filterQuery);
    const sectionRequest = item ? { ...ownRequest, filter: withPickedItem(ownRequest.filter, item) } : ownRequest;
    // The day its numbers were computed at: the current period's point is measured then (a
    // report shown in another currency is computed for the answer, today).
    // A filtered chart is computed for its answer, today, too.
    const today = !other && !item && row.computed_at ? isoFromDay(dayFromInstant(row.computed_at)) : undefined;
    return { accountId, definitionId: row.definition_id, request: sectionRequest, today, result: row.result as SectionResult | null };
  }

  async function compute(accountId: string, sectionId: string, request: Omit<DetailsRequest, 'today'> & { today?: string }): Promise<Static<typeof DetailsSchema>> {
    let result: DetailsResult;
    try {
      result = await app.metrics.details(accountId, request);
    } catch (error) {
      if (error instanceof SectionRequestError) throw ApiError.of(422, error.message, `/querystring${error.pointer}`);
      if (error instanceof MissingExchangeRateError) throw ApiError.of(422, error.message, '/querystring/currency');
      throw error;
    }
    return { section_id: sectionId, underlying_data: result.items[0]?.underlying_data ?? underlyingOf(result), ...result };
  }

  app.get(
    '/business_report/sections/:id/details',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'getSectionDetails',
        summary: 'The customers, costs or deals behind a data point of a chart section',
        description:
          'Computed with the section’s own settings, so the rows add up to the point: `total_value` for money (and amounts), `total_count` for counts; for a rate the rows are its numerator and `calculation_details` name numerator, denominator and result. Only for the full users of the report’s account.',
        security: BEARER,
        params: IdParams,
        querystring: DetailsQuery,
        response: { 200: DetailsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { date, segment_id, segment_value, component, currency, limit, ...filterQuery } = request.query;
      const section = await sectionOf(request, request.params.id, currency?.toUpperCase(), filterQuery);
      if (COHORT_DEFINITIONS.has(section.definitionId)) throw ApiError.of(422, A_COHORT, '/params/id');
      return compute(section.accountId, request.params.id, {
        ...section.request,
        ...(section.today ? { today: section.today } : {}),
        date,
        ...(segment_id !== undefined && { segment_id }),
        ...(segment_value !== undefined && { segment_value }),
        ...(component !== undefined && { component }),
        ...(limit !== undefined && { limit }),
      });
    },
  );

  app.get(
    '/business_report/sections/:id/cohort_details',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'getSectionCohortDetails',
        summary: 'The customers behind a cell of a cohort table',
        description:
          "A cohort's 'initial' cell lists its customers with their new MRR when it occurred; cell k those still paying at the end of cohort + k with their MRR then (`initial_cohort_value` and `initial_cohort_count` give the base of the share). Only for the full users of the report’s account.",
        security: BEARER,
        params: IdParams,
        querystring: CohortQuery,
        response: { 200: DetailsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { date, cohort_date, column, segment_id, segment_value, currency, limit, ...filterQuery } = request.query;
      const section = await sectionOf(request, request.params.id, currency?.toUpperCase(), filterQuery);
      if (!COHORT_DEFINITIONS.has(section.definitionId)) throw ApiError.of(422, NOT_A_COHORT, '/params/id');
      const k = column ?? (date ? columnOfCell(section.result, segment_id ?? 'total', cohort_date, date) : 0);
      return compute(section.accountId, request.params.id, {
        ...section.request,
        ...(section.today ? { today: section.today } : {}),
        date: cohort_date,
        cohort_date,
        column: k,
        ...(segment_id !== undefined && { segment_id }),
        ...(segment_value !== undefined && { segment_value }),
        ...(limit !== undefined && { limit }),
      });
    },
  );
};

function underlyingOf(result: DetailsResult): string {
  return result.definition_id === 'costs' || result.definition_id === 'cac' ? 'costs' : result.definition_id === 'deals' ? 'deals' : 'subscriptions';
}

/** k of the cohort cell at `date` of the cohort starting on `cohortDate` in the section's last result (0 when not found). */
function columnOfCell(result: SectionResult | null, segmentId: string, cohortDate: string, date: string): number {
  const segment = result?.segments.find((s) => s.id === segmentId);
  for (const series of segment?.series ?? []) {
    const initial = series.data_points.find((p) => p.column === 'initial');
    if (initial?.time !== cohortDate) continue;
    const cell = series.data_points.find((p) => typeof p.column === 'number' && p.time === date);
    if (cell && typeof cell.column === 'number') return cell.column;
  }
  return 0;
}
