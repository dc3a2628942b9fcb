import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { JobQueue } from '../jobs/queue';

/** (Stub: being built.) */
export const integrationRoutes: FastifyPluginAsyncTypebox<{ queue?: JobQueue }> = async () => {};
