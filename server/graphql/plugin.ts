import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { GraphQLError } from 'graphql';
import mercurius, { type IResolvers, type MercuriusContext } from 'mercurius';
import { authOf } from '../auth/plugin';
import { ApiError } from '../http/errors';
import {
  createSegmentation,
  deleteSegmentation,
  findSegmentation,
  getSegmentation,
  listSegmentations,
  SEGMENTER_VALUES_LIMIT,
  segmenterTypes,
  segmenterValues,
  updateSegmentation,
} from '../segmentation/definitions';
import type { SegmentationInput, SegmenterTypeName } from '../../models/segmentation';

/**
 * The segmentation definitions service as GraphQL (mercurius) at /api/v11/graphql, beside the
 * REST routes and over the same service (server/segmentation/definitions.ts). It is registered
 * inside the API scope with the same auth as REST: every request needs a full user's token (401
 * without one, 403 for a share-only user), and every field acts for that user's account. The
 * schema is server/graphql/schema.graphql.
 *
 * An operation failing with an ApiError answers that error's HTTP status and
 * `{data: null, errors: [{message, detail, source: {pointer}, status}]}` (one error per entry of
 * a 422); any other failure of a resolver is a 500 that tells nothing of the server's internals.
 */

export const GRAPHQL_SCHEMA = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

declare module 'mercurius' {
  interface MercuriusContext {
    /** The signed-in user's account: every field acts for it. */
    accountId: string;
  }
}

type Context = MercuriusContext;

interface SegmentationInputArgs {
  name: string;
  type_name: string;
  segment_id: string;
  mappings?: SegmentationInput['mappings'] | null;
  buckets?: SegmentationInput['buckets'] | null;
  products?: string[] | null;
}

/** GraphQL leaves an absent list null; the service reads an absent one as empty. */
const inputOf = (input: SegmentationInputArgs): SegmentationInput => ({
  name: input.name,
  // Checked against the account's types: an unknown name is 422 'Attribute is required'.
  type_name: input.type_name as SegmenterTypeName,
  segment_id: input.segment_id,
  mappings: input.mappings ?? [],
  buckets: input.buckets ?? [],
  products: input.products ?? [],
});

function resolvers(app: FastifyInstance): IResolvers {
  const db = app.db.kysely;
  return {
    Query: {
      segmentation_definitions: (_root: unknown, _args: unknown, context: Context) => listSegmentations(db, context.accountId),
      segmentation_definition: async (_root: unknown, args: { id: string }, context: Context) => {
        const found = await findSegmentation(db, context.accountId, args.id);
        if (!found) await getSegmentation(db, context.accountId, args.id);
        return found;
      },
      segmenter_types: (_root: unknown, _args: unknown, context: Context) => segmenterTypes(db, context.accountId),
      segmenter_values: (_root: unknown, args: { type_name: string; segment_id: string; query?: string | null; limit?: number | null }, context: Context) =>
        segmenterValues(db, context.accountId, args.type_name, args.segment_id, args.query ?? '', args.limit ?? SEGMENTER_VALUES_LIMIT),
    },
    Mutation: {
      create_segmentation: (_root: unknown, args: { input: SegmentationInputArgs }, context: Context) => createSegmentation(app, context.accountId, inputOf(args.input)),
      update_segmentation: (_root: unknown, args: { id: string; input: SegmentationInputArgs }, context: Context) => updateSegmentation(app, context.accountId, args.id, inputOf(args.input)),
      delete_segmentation: async (_root: unknown, args: { id: string }, context: Context) => {
        await deleteSegmentation(app, context.accountId, args.id);
        return args.id;
      },
    },
  };
}

type Execution = Parameters<typeof mercurius.defaultErrorFormatter>[0];

/** An error of ours or of mercurius/graphql-js (safe to show), as opposed to an unexpected failure of a resolver. */
function isUnexpected(error: GraphQLError): boolean {
  const original = error.originalError;
  if (!original || original instanceof GraphQLError || original instanceof ApiError) return false;
  const code = (original as { code?: unknown }).code;
  return !(typeof code === 'string' && code.startsWith('MER_ERR_'));
}

function errorFormatter(execution: Execution, context: MercuriusContext) {
  const apiError = execution.errors.map((error) => error.originalError).find((original): original is ApiError => original instanceof ApiError);
  if (apiError) {
    const status = String(apiError.statusCode);
    return {
      statusCode: apiError.statusCode,
      response: {
        data: null,
        errors: apiError.entries.map((entry) => ({ message: entry.detail, detail: entry.detail, ...(entry.source ? { source: entry.source } : {}), status })),
      },
    };
  }
  const unexpected = execution.errors.find(isUnexpected);
  if (unexpected) {
    context.reply.log.error({ err: unexpected.originalError }, 'graphql operation failed');
    return { statusCode: 500, response: { data: null, errors: [{ message: 'Something went wrong', detail: 'Something went wrong', status: '500' }] } };
  }
  return mercurius.defaultErrorFormatter(execution, context);
}

export const graphqlPlugin: FastifyPluginAsync = async (app) => {
  // Only this scope's routes (mercurius's): the OpenAPI document describes REST alone.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  app.addHook('onRequest', app.requireFullUser);
  await app.register(mercurius, {
    schema: GRAPHQL_SCHEMA,
    resolvers: resolvers(app),
    path: '/graphql',
    graphiql: false,
    context: (request) => ({ accountId: authOf(request).accountId }),
    errorFormatter,
  });
};
