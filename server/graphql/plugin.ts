import type { FastifyPluginAsync } from 'fastify';

/** Stub (issue 21): the segmentation definitions service (mercurius) at /api/v11/graphql. */
export const graphqlPlugin: FastifyPluginAsync = async () => {};
