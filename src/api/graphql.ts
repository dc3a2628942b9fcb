import { createContext, createElement, useContext } from 'react';
import type { ReactNode } from 'react';
import { ClientError, GraphQLClient } from 'graphql-request';
import { parse } from 'graphql';
import type { DocumentNode } from 'graphql';
import { createQuerySerializer, defaultBodySerializer, defaultPathSerializer } from 'openapi-fetch';
import type { MiddlewareCallbackParams } from 'openapi-fetch';
import { API_BASE_PATH } from '../../models/constants';
import type { SegmentationDefinition, SegmentationInput, SegmenterTypeInfo } from '../../models/segmentation';
import { authMiddleware } from './client';
import { tokenStore } from './tokenStore';
import type { TokenStore } from './tokenStore';

/**
 * The segmentation definitions service (GraphQL at /api/v11/graphql), called with
 * graphql-request. Requests carry the signed-in user's token and a 401 reaches the same
 * unauthorized handler as the REST client (src/api/client.ts), so a revoked token signs out
 * whichever API noticed it.
 */

export const GRAPHQL_PATH = '/graphql';

/** TanStack Query keys of the service's answers; invalidate `all` after a change. */
export const segmentationKeys = {
  all: ['graphql', 'segmentation'] as const,
  definitions: ['graphql', 'segmentation', 'definitions'] as const,
  types: ['graphql', 'segmentation', 'types'] as const,
  values: (typeName: string, segmentId: string, query: string) => ['graphql', 'segmentation', 'values', typeName, segmentId, query] as const,
};

/** A failed call: the HTTP status (0 when the server was not reached) and the server's first error detail. */
export class GraphqlCallError extends Error {
  override name = 'GraphqlCallError';
  readonly status: number;
  readonly detail: string | null;
  /** Every error the server answered, in its shape (`{detail, source: {pointer}, ...}`), so a form can place each at its field. */
  readonly errors: readonly unknown[];

  constructor(message: string, status: number, detail: string | null, errors: readonly unknown[] = []) {
    super(message);
    this.status = status;
    this.detail = detail;
    this.errors = errors;
  }
}

// ------------------------------------------------------------------ operations

/** A parsed operation that carries its result and variables types (graphql-request infers them from `__apiType`). */
export type TypedDocumentNode<Result, Variables> = DocumentNode & { __apiType?: (variables: Variables) => Result };

const DEFINITION_FIELDS = `
  id
  name
  type_name
  segment_id
  allowed_configuration
  mappings { value name }
  buckets { name from to }
  products
  created_at
  updated_at
`;

export const SEGMENTATION_DEFINITIONS_QUERY: TypedDocumentNode<{ segmentation_definitions: SegmentationDefinition[] }, Record<string, never>> = parse(`
  query SegmentationDefinitions {
    segmentation_definitions { ${DEFINITION_FIELDS} }
  }
`);

export const SEGMENTATION_DEFINITION_QUERY: TypedDocumentNode<{ segmentation_definition: SegmentationDefinition | null }, { id: string }> = parse(`
  query SegmentationDefinition($id: ID!) {
    segmentation_definition(id: $id) { ${DEFINITION_FIELDS} }
  }
`);

export const SEGMENTER_TYPES_QUERY: TypedDocumentNode<{ segmenter_types: SegmenterTypeInfo[] }, Record<string, never>> = parse(`
  query SegmenterTypes {
    segmenter_types { name label group_label segment_id allowed_configuration }
  }
`);

export const SEGMENTER_VALUES_QUERY: TypedDocumentNode<{ segmenter_values: string[] }, { type_name: string; segment_id: string; query?: string | null; limit?: number | null }> = parse(`
  query SegmenterValues($type_name: String!, $segment_id: String!, $query: String, $limit: Int) {
    segmenter_values(type_name: $type_name, segment_id: $segment_id, query: $query, limit: $limit)
  }
`);

export const CREATE_SEGMENTATION_MUTATION: TypedDocumentNode<{ create_segmentation: SegmentationDefinition }, { input: SegmentationInput }> = parse(`
  mutation CreateSegmentation($input: SegmentationInput!) {
    create_segmentation(input: $input) { ${DEFINITION_FIELDS} }
  }
`);

export const UPDATE_SEGMENTATION_MUTATION: TypedDocumentNode<{ update_segmentation: SegmentationDefinition }, { id: string; input: SegmentationInput }> = parse(`
  mutation UpdateSegmentation($id: ID!, $input: SegmentationInput!) {
    update_segmentation(id: $id, input: $input) { ${DEFINITION_FIELDS} }
  }
`);

export const DELETE_SEGMENTATION_MUTATION: TypedDocumentNode<{ delete_segmentation: string }, { id: string }> = parse(`
  mutation DeleteSegmentation($id: ID!) {
    delete_segmentation(id: $id)
  }
`);

/** Every operation the client sends (a test validates each against the server's schema). */
export const SEGMENTATION_OPERATIONS = [
  SEGMENTATION_DEFINITIONS_QUERY,
  SEGMENTATION_DEFINITION_QUERY,
  SEGMENTER_TYPES_QUERY,
  SEGMENTER_VALUES_QUERY,
  CREATE_SEGMENTATION_MUTATION,
  UPDATE_SEGMENTATION_MUTATION,
  DELETE_SEGMENTATION_MUTATION,
] as const;

// ------------------------------------------------------------------ transport

export interface GraphqlClientOptions {
  /** Default: the API's GraphQL path under the page's origin. */
  endpoint?: string;
  fetch?: (request: Request) => Promise<Response>;
  tokens?: Pick<TokenStore, 'get'>;
}

/** The values the REST client's middleware expects besides the request (it reads only the request and response). */
function middlewareParams(request: Request, endpoint: string, fetch: typeof globalThis.fetch): MiddlewareCallbackParams {
  return {
    request,
    schemaPath: GRAPHQL_PATH,
    params: {},
    id: 'graphql',
    options: { baseUrl: endpoint, parseAs: 'json', querySerializer: createQuerySerializer(), bodySerializer: defaultBodySerializer, pathSerializer: defaultPathSerializer, fetch },
  };
}

function defaultEndpoint(): string {
  const origin = typeof window !== 'undefined' && window.location ? window.location.origin : 'http://localhost';
  return `${origin}${API_BASE_PATH}${GRAPHQL_PATH}`;
}

/** A graphql-request client that adds the bearer token and reports a 401 like the REST client. */
export function createGraphqlClient({ endpoint = defaultEndpoint(), fetch = (request) => globalThis.fetch(request), tokens = tokenStore }: GraphqlClientOptions = {}): GraphQLClient {
  const auth = authMiddleware(tokens);
  const authedFetch: typeof globalThis.fetch = async (input, init) => {
    let request = new Request(input, init);
    const changed = await auth.onRequest?.(middlewareParams(request, endpoint, authedFetch));
    if (changed instanceof Request) request = changed;
    const response = await fetch(request);
    await auth.onResponse?.({ ...middlewareParams(request, endpoint, authedFetch), response });
    return response;
  };
  return new GraphQLClient(endpoint, { fetch: authedFetch });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The detail of the server's first error: our `detail`, else the GraphQL `message`. */
function firstDetail(errors: unknown): string | null {
  if (!Array.isArray(errors)) return null;
  const first: unknown = errors[0];
  if (!isRecord(first)) return null;
  if (typeof first.detail === 'string') return first.detail;
  return typeof first.message === 'string' ? first.message : null;
}

/** Any failure of a call as a GraphqlCallError (aborts pass through untouched). */
export function toGraphqlCallError(error: unknown): unknown {
  if (error instanceof GraphqlCallError) return error;
  if (error instanceof ClientError) {
    const { status } = error.response;
    // A GraphQL error answered with 200 (a malformed operation) counts as a server failure.
    return new GraphqlCallError(`GraphQL call failed (${status})`, status >= 400 ? status : 500, firstDetail(error.response.errors), Array.isArray(error.response.errors) ? error.response.errors : []);
  }
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new GraphqlCallError(error instanceof Error ? error.message : 'GraphQL call failed', 0, null);
}

// ------------------------------------------------------------------ the service

export interface SegmentationService {
  definitions(signal?: AbortSignal): Promise<SegmentationDefinition[]>;
  definition(id: string, signal?: AbortSignal): Promise<SegmentationDefinition | null>;
  types(signal?: AbortSignal): Promise<SegmenterTypeInfo[]>;
  values(typeName: string, segmentId: string, query: string, signal?: AbortSignal): Promise<string[]>;
  create(input: SegmentationInput): Promise<SegmentationDefinition>;
  update(id: string, input: SegmentationInput): Promise<SegmentationDefinition>;
  remove(id: string): Promise<void>;
}

/** The segmentation calls over a GraphQL client; every failure is a GraphqlCallError. */
export function createSegmentationService(client: GraphQLClient = createGraphqlClient()): SegmentationService {
  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toGraphqlCallError(error);
    }
  }
  return {
    definitions: (signal) => call(async () => (await client.request({ document: SEGMENTATION_DEFINITIONS_QUERY, signal })).segmentation_definitions),
    definition: (id, signal) => call(async () => (await client.request({ document: SEGMENTATION_DEFINITION_QUERY, variables: { id }, signal })).segmentation_definition),
    types: (signal) => call(async () => (await client.request({ document: SEGMENTER_TYPES_QUERY, signal })).segmenter_types),
    values: (typeName, segmentId, query, signal) =>
      call(async () => (await client.request({ document: SEGMENTER_VALUES_QUERY, variables: { type_name: typeName, segment_id: segmentId, query }, signal })).segmenter_values),
    create: (input) => call(async () => (await client.request({ document: CREATE_SEGMENTATION_MUTATION, variables: { input } })).create_segmentation),
    update: (id, input) => call(async () => (await client.request({ document: UPDATE_SEGMENTATION_MUTATION, variables: { id, input } })).update_segmentation),
    remove: (id) =>
      call(async () => {
        await client.request({ document: DELETE_SEGMENTATION_MUTATION, variables: { id } });
      }),
  };
}

let appService: SegmentationService | null = null;

/** The app's one service (made on first use, so a module import sends nothing). */
function defaultService(): SegmentationService {
  appService ??= createSegmentationService();
  return appService;
}

const SegmentationServiceContext = createContext<SegmentationService | null>(null);

/** Gives views a segmentation service: the app's one, or a test's fake. */
export function SegmentationServiceProvider({ service, children }: { service: SegmentationService; children: ReactNode }) {
  return createElement(SegmentationServiceContext, { value: service }, children);
}

export function useSegmentationService(): SegmentationService {
  return useContext(SegmentationServiceContext) ?? defaultService();
}
