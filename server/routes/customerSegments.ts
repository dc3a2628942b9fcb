import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { MAX_FILTER_VALUE_LENGTH } from '../../models/reportFilter';

export const SEGMENT_NOT_FOUND = 'Segment not found';

/**
 * `GET /customer_segments`: the account's customer attributes (segments), for Settings and the
 * attribute values import; `GET /customer_segments/{id}/search_values`: a segment's values, for
 * the report view's filter.
 */
export const customerSegmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/customer_segments',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segments'],
        operationId: 'listCustomerSegments',
        summary: "The account's customer segments (customer attributes)",
        security: BEARER,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Type.String(),
                name: Type.String(),
                object_attribute_id: Type.String(),
                value_source: Type.String({ description: 'parent_and_children, parent or children' }),
                time_sensitive: Type.Boolean({ description: 'Values have a history by month' }),
              }),
            ),
          }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const items = await app.db.kysely
        .selectFrom('customer_segments')
        .select(['id', 'name', 'object_attribute_id', 'value_source', 'time_sensitive'])
        .where('account_id', '=', accountId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return { items };
    },
  );

  app.get(
    '/customer_segments/:id/search_values',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segments'],
        operationId: 'searchCustomerSegmentValues',
        summary: 'The distinct values of one of the account’s customer segments containing the text (case-insensitive), sorted',
        description: 'A segment of another account, or of none, is 404.',
        security: BEARER,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          query: Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'Text the value contains; empty: every value' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'At most this many (default 10)' })),
        }),
        response: { 200: Type.Object({ items: Type.Array(Type.Object({ value: Type.String() })) }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const db = app.db.kysely;
      const segment = await db.selectFrom('customer_segments').select('id').where('account_id', '=', accountId).where('id', '=', request.params.id).executeTakeFirst();
      if (!segment) throw ApiError.of(404, SEGMENT_NOT_FOUND);
      const text = (request.query.query ?? '').trim().toLowerCase();
      const rows = await db
        .selectFrom('customer_segment_values')
        .select('value')
        .distinct()
        .where('account_id', '=', accountId)
        .where('segment_id', '=', segment.id)
        .where('value', 'is not', null)
        .$if(text !== '', (q) => q.where(sql<boolean>`strpos(lower(value), ${text}) > 0`))
        .orderBy('value')
        .limit(request.query.limit ?? 10)
        .execute();
      return { items: rows.map((row) => ({ value: row.value as string })) };
    },
  );
};
