import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { API_VERSION, APP_VERSION } from '../version';

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    version: Type.String({ description: 'Subscope release' }),
    api_version: Type.Integer({ description: 'HTTP API version' }),
    database: Type.Union([Type.Literal('pglite'), Type.Literal('postgresql')]),
  },
  { $id: 'Health' },
);

/** Liveness and readiness in one: answers only once the database answers a query. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Service health',
        operationId: 'getHealth',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const database = app.db.kind;
      try {
        await sql`select 1`.execute(app.db.kysely);
        return { status: 'ok' as const, version: APP_VERSION, api_version: API_VERSION, database };
      } catch (error) {
        app.log.error({ err: error }, 'health check: database did not answer');
        return reply.status(503).send({ status: 'degraded' as const, version: APP_VERSION, api_version: API_VERSION, database });
      }
    },
  );
};
