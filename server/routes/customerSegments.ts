import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';

/** `GET /customer_segments`: the account's customer attributes (segments), for Settings and the attribute values import. */
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
};
