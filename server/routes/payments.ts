import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Stub registered by the issue-22 scaffolding; filled in by its owner. */
export const paymentRoutes: FastifyPluginAsyncTypebox = async () => {};
