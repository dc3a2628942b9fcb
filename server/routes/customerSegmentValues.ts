import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SEGMENT_HISTORY_ENTRIES } from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { afterChange, asChange, segmentOfCustomer, setSegmentValue } from '../customers/changes';
import { CustomerId, Text, VALUE_MAX } from '../customers/schemas';

/**
 * A customer's value of one attribute and its history (first spec document 3 "segment values
 * dialog"): `GET` the last SEGMENT_HISTORY_ENTRIES entries, newest first; `PUT` sets the value
 * from a month on (a time-sensitive attribute) or replaces it (one that is not), and answers as
 * GET. Another account's customer or attribute is 404.
 */

const Params = Type.Object({ customerId: CustomerId(), segmentId: Text(200, { minLength: 1 }) });
const HistorySchema = Type.Object({
  items: Type.Array(Type.Object({ year: Type.Integer(), month: Type.Integer({ description: '1-12' }), value: Type.Union([Type.String(), Type.Null()]) }), {
    description: `The last ${SEGMENT_HISTORY_ENTRIES} entries, newest first: each value holds from its month until the next entry`,
  }),
});

export const customerSegmentValuesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  async function history(accountId: string, customerId: string, segmentId: string) {
    const items = await db
      .selectFrom('customer_segment_values')
      .select(['year', 'month', 'value'])
      .where('account_id', '=', accountId)
      .where('customer_id', '=', customerId)
      .where('segment_id', '=', segmentId)
      .orderBy('year', 'desc')
      .orderBy('month', 'desc')
      .limit(SEGMENT_HISTORY_ENTRIES)
      .execute();
    return { items: items.map((item) => ({ year: Number(item.year), month: Number(item.month), value: item.value })) };
  }

  app.get(
    '/customer_segment_values/:customerId/:segmentId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'getCustomerSegmentValues',
        summary: 'A customer’s values of one attribute, newest first',
        security: BEARER,
        params: Params,
        response: { 200: HistorySchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { customerId, segmentId } = request.params;
      await segmentOfCustomer(db, accountId, customerId, segmentId);
      return history(accountId, customerId, segmentId);
    },
  );

  app.put(
    '/customer_segment_values/:customerId/:segmentId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'setCustomerSegmentValue',
        summary: 'Sets a customer’s value of an attribute from a month on (time-sensitive) or for good',
        security: BEARER,
        params: Params,
        body: Type.Object({
          year: Type.Integer({ minimum: 1900, maximum: 9999 }),
          month: Type.Integer({ minimum: 1, maximum: 12 }),
          value: Type.Union([Text(VALUE_MAX), Type.Null()], { description: 'Empty or null: no value' }),
        }),
        response: { 200: HistorySchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { customerId, segmentId } = request.params;
      const { year, month, value } = request.body;
      await asChange(() =>
        db.transaction().execute(async (trx) => {
          const locked = await trx.selectFrom('customers').select('id').where('account_id', '=', accountId).where('id', '=', customerId).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
          const segment = await segmentOfCustomer(trx, accountId, locked?.id ?? customerId, segmentId);
          await setSegmentValue(trx, accountId, customerId, segment, year, month, value);
        }),
      );
      await afterChange(app, accountId);
      return history(accountId, customerId, segmentId);
    },
  );
};
