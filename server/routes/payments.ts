import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ITEM_TYPES } from '../../models/constants';
import { DEFAULT_PAYMENT_SORT, PAYMENT_SEARCH_LIMIT, PAYMENT_SEARCH_MAX_LIMIT, PAYMENT_SORT_FIELDS, PAYMENTS_PAGE_MAX, PAYMENTS_PAGE_SIZE } from '../../models/payments';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { Text } from '../customers/schemas';
import { ApiError } from '../http/errors';
import { decodePaymentCursor, listPayments, parsePaymentSort, paymentAnswers, searchPayments } from '../payments/read';
import { EditBodySchema, PaymentIdParams, PaymentSchema, UpsertBodySchema } from '../payments/schemas';
import { deletePayment, editPayment, PAYMENT_NOT_FOUND, upsertPayment } from '../payments/writes';

/**
 * Payments (subscription histories; docs/payments.md): the account's payments page by page in a
 * chosen order, the search, create-or-replace by a client id, edit (or attribute values), delete.
 * For the full users of the account; a payment of another account is 404.
 */

export const BAD_PAYMENT_SORT = `sort_by is <field>:<asc|desc> with a field of ${PAYMENT_SORT_FIELDS.join(', ')}`;
export const BAD_PAYMENT_CURSOR = 'This page link is not valid for this sort: start from the first page';
export const UNKNOWN_ITEM_TYPE = `item_type is one of ${ITEM_TYPES.join(', ')}`;
const CURSOR_MAX = 2_000;

export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  async function answer(accountId: string, id: string) {
    const [payment] = await paymentAnswers(db, accountId, [id]);
    if (!payment) throw ApiError.of(404, PAYMENT_NOT_FOUND);
    return payment;
  }

  app.get(
    '/subscription_histories',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['payments'],
        operationId: 'listPayments',
        summary: 'The account’s payments, a page at a time, in a chosen order',
        description:
          'Keyset paging: `next` is the opaque cursor of the previous answer. Ties are broken by id in the same direction; payments without the sort value (open-ended ones by total or duration, ones without an invoice number) come last in both directions.',
        security: BEARER,
        querystring: Type.Object({
          currency: Type.Optional(Text(8, { description: 'Only payments in this currency (ISO, any case)' })),
          item_type: Type.Optional(Text(32, { description: `Only payments whose first item has this type (${ITEM_TYPES.join(', ')})` })),
          sort_by: Type.Optional(Text(64, { description: `<field>:<asc|desc>, field one of ${PAYMENT_SORT_FIELDS.join(', ')} (default ${DEFAULT_PAYMENT_SORT})` })),
          next: Type.Optional(Text(CURSOR_MAX, { description: 'The page after this cursor' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAYMENTS_PAGE_MAX, description: `Payments per page (default ${PAYMENTS_PAGE_SIZE})` })),
        }),
        response: { 200: Type.Object({ items: Type.Array(PaymentSchema), next: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { currency, item_type, sort_by, next, limit } = request.query;
      const sort = parsePaymentSort(sort_by ?? DEFAULT_PAYMENT_SORT);
      if (!sort) throw ApiError.of(422, BAD_PAYMENT_SORT, '/querystring/sort_by');
      const itemType = item_type?.trim().toLowerCase() || undefined;
      if (itemType !== undefined && !(ITEM_TYPES as readonly string[]).includes(itemType)) throw ApiError.of(422, UNKNOWN_ITEM_TYPE, '/querystring/item_type');
      const cursor = next === undefined ? null : decodePaymentCursor(sort, next);
      if (next !== undefined && !cursor) throw ApiError.of(422, BAD_PAYMENT_CURSOR, '/querystring/next');
      return listPayments(db, accountId, sort, { currency: currency?.trim().toUpperCase() || undefined, itemType }, cursor, limit ?? PAYMENTS_PAGE_SIZE);
    },
  );

  app.get(
    '/subscriptions/histories/search',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['payments'],
        operationId: 'searchPayments',
        summary: 'Payments by invoice number (prefix), payment id, or customer name (prefix), case-insensitive',
        description: 'Invoice and id matches first, then customer name matches, each newest start first. An empty query finds nothing.',
        security: BEARER,
        querystring: Type.Object({
          query: Type.Optional(Text(200)),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAYMENT_SEARCH_MAX_LIMIT, description: `At most this many (default ${PAYMENT_SEARCH_LIMIT})` })),
        }),
        response: { 200: Type.Object({ items: Type.Array(PaymentSchema) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      return { items: await searchPayments(db, accountId, request.query.query ?? '', request.query.limit ?? PAYMENT_SEARCH_LIMIT) };
    },
  );

  app.put(
    '/subscriptions/history/upsert/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['payments'],
        operationId: 'upsertPayment',
        summary: 'Creates a payment with a client id (subh + 12 letters or digits), or replaces the payment of that id',
        description:
          'Exactly one of customer_id (an existing customer) and customer_name (a new customer, created with the payment). A new payment starts from 60 days ago to tomorrow. Period: duration_in_months (whole months; total_value required), or ended_at (any later day; total_value or monthly_amount), or neither (open-ended; monthly_amount required). A replaced payment keeps its earlier version for the corrections handling.',
        security: BEARER,
        params: PaymentIdParams,
        body: UpsertBodySchema,
        response: { 200: PaymentSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await upsertPayment(app, accountId, request.params.id, request.body);
      return answer(accountId, request.params.id);
    },
  );

  app.put(
    '/subscriptions/history/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['payments'],
        operationId: 'updatePayment',
        summary: 'Edits a payment (the fields given; the rest keep their value), or sets its attribute values ({segments} alone)',
        description: 'An edit records the payment’s previous version (the corrections handling shows the change when it was made, or restates history). Start dates are not held to the new-payment window.',
        security: BEARER,
        params: PaymentIdParams,
        body: EditBodySchema,
        response: { 200: PaymentSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await editPayment(app, accountId, request.params.id, request.body);
      return answer(accountId, request.params.id);
    },
  );

  app.delete(
    '/subscriptions/history/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['payments'],
        operationId: 'deletePayment',
        summary: 'Deletes a payment: it leaves every list and number (its last version is kept for the corrections handling)',
        security: BEARER,
        params: PaymentIdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deletePayment(app, authOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
