import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export interface CostImportRoutesOptions {
  uploadLimitBytes?: number;
}

/** Stub registered by the issue-22 scaffolding; filled in by its owner. */
export const costImportRoutes: FastifyPluginAsyncTypebox<CostImportRoutesOptions> = async () => {};
