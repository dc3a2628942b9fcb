import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** (Stub: being built.) */
export const stripeWebhookRoutes: FastifyPluginAsyncTypebox = async () => {};
