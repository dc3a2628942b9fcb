import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder: the issue-20 routes of this file are being written. */
export const customerListRoutes: FastifyPluginAsyncTypebox = async () => {};
