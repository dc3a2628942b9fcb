import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** (Stub: being built.) */
export const oauthRoutes: FastifyPluginAsyncTypebox = async () => {};
