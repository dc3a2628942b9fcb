import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BEARER, errorResponses } from '../auth/schemas';

/** `GET /currencies`: every currency the product knows (ISO 4217), for currency pickers. */
export const currencyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/currencies',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['currencies'],
        operationId: 'listCurrencies',
        summary: 'Every known currency, by ISO code',
        security: BEARER,
        response: {
          200: Type.Object({
            items: Type.Array(Type.Object({ iso: Type.String(), name: Type.String(), minor_unit_digits: Type.Integer({ description: 'Digits of its minor unit (2 for USD, 0 for JPY)' }) })),
          }),
          ...errorResponses(401),
        },
      },
    },
    async () => ({ items: await app.db.kysely.selectFrom('currencies').select(['iso', 'name', 'minor_unit_digits']).orderBy('iso').execute() }),
  );
};
