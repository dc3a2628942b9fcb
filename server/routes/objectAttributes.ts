import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Stub (issue 21): filled in by its owner. */
export const objectAttributeRoutes: FastifyPluginAsyncTypebox = async () => {};
