import { QueryCache, QueryClient } from '@tanstack/react-query';
import { toastError } from '../notifications/toast';
import type { paths } from './schema';

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: {
      /** Toasted (danger) once per failed read of the query, after its retries. */
      failureToast?: string;
    };
  }
}

/**
 * Server state of the SPA (TanStack Query). Every answer is cached under the key of the API
 * path it came from and the parameters it was asked with:
 *
 *   apiKey('/customers/{id}', { id })        → ['/customers/{id}', { id }]
 *   apiKey('/business_reports/latest')       → ['/business_reports/latest']
 *
 * A key without parameters is also the prefix of every key of that path, so
 * `queryClient.invalidateQueries({ queryKey: apiKey('/customers/{id}') })` reads every cached
 * customer again. Query functions pass TanStack's `signal` to the API client, so a request
 * nobody waits for any more (the parameters changed, the view went away) is aborted. A query
 * whose failure the spec toasts says so in `meta: { failureToast }`: the cache toasts it once
 * per failed read (never for an aborted one), however many views show the query.
 */

/** A path of the API (as the generated schema names it). */
export type ApiPath = keyof paths;

/** The parameters a cached answer was asked with (path and query parameters together). */
export type ApiKeyParams = Readonly<Record<string, string | number | boolean | null | undefined | readonly string[]>>;

export type ApiKey = readonly [ApiPath] | readonly [ApiPath, ApiKeyParams];

/** The query key of an API path and its parameters. */
export function apiKey(path: ApiPath, params?: ApiKeyParams): ApiKey {
  return params === undefined ? [path] : [path, params];
}

/** The status a failed call carries (the `status` of the call errors of src/), if any. */
export function errorStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

/** A 4xx answer: asking again gets the same answer. */
export function isClientError(error: unknown): boolean {
  const status = errorStatus(error);
  return status !== undefined && status >= 400 && status < 500;
}

/** A failed call with the status the server answered (0: no answer). */
export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

export interface QueryClientOptions {
  /** Ask again after a failure that may pass (a 5xx or no answer); default true. Tests turn it off. */
  retry?: boolean;
}

/**
 * The app's QueryClient: a failed read is asked again once after a second unless the server
 * answered 4xx (never for writes); nothing is read again because the window got the focus or
 * the network came back (live channels and Try again do that). A view that mounts shows the
 * cached answer at once and reads it again behind it.
 */
export function createQueryClient({ retry = true }: QueryClientOptions = {}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (_error, query) => {
        if (query.meta?.failureToast) toastError(query.meta.failureToast);
      },
    }),
    defaultOptions: {
      queries: {
        retry: retry ? (failures, error) => failures < 1 && !isClientError(error) : false,
        retryDelay: 1_000,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
      },
      mutations: { retry: false },
    },
  });
}

/** What a view shows of a query: loading (also while a failed read is tried again), the answer, or the failure. */
export type QueryState<T> = { status: 'loading' } | { status: 'loaded'; data: T } | { status: 'failed'; error: unknown };

export function queryState<Q extends { data: unknown; error: unknown; isError: boolean; isFetching: boolean }>(query: Q): QueryState<Exclude<Q['data'], undefined>> {
  if (query.data !== undefined) return { status: 'loaded', data: query.data as Exclude<Q['data'], undefined> };
  if (query.isError && !query.isFetching) return { status: 'failed', error: query.error };
  return { status: 'loading' };
}
