import { API_BASE_PATH } from '../../../models/constants';
import type { AuthUser } from '../../../models/auth';
import { createApiClient } from '../../../src/api/client';
import type { ApiClient } from '../../../src/api/client';

/**
 * A fake of the HTTP API for view tests: the app's own API client over a fake `fetch` that
 * answers contract-shaped bodies (docs/api-auth.md), records every request, and can hold an
 * answer until the test releases it (to see a call in flight).
 */

export interface FakeRequest {
  method: string;
  /** The path under /api/v11, e.g. '/users/sign_in'. */
  path: string;
  params: Record<string, string>;
  headers: Headers;
  body: unknown;
  /** Aborted when the app gives the request up (a held request then leaves the queue). */
  signal: AbortSignal;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** 'METHOD /path/:param' → answer. */
export type FakeHandler = (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;

export const FAKE_API_BASE_URL = `http://localhost${API_BASE_PATH}`;
export const FAKE_JWT = 'header.payload.signature';
export const FAKE_API_TOKEN = 'sk_live_5f0e8a1c2b7d';

/** A user as the API answers it. */
export function apiUser(user: AuthUser, extra: { invitation_pending?: boolean; api_token?: string } = {}) {
  return {
    ...user,
    currency: user.currency ?? 'USD',
    customer_columns: [],
    invitation_pending: extra.invitation_pending ?? false,
    ...(extra.api_token ? { api_token: extra.api_token } : {}),
  };
}

/** The spec's error body. */
export function apiErrors(status: number, ...items: { pointer?: string; detail: string }[]): FakeAnswer {
  return {
    status,
    body: {
      errors: items.map(({ pointer, detail }) => ({
        ...(pointer ? { source: { pointer } } : {}),
        detail,
        title: detail,
        status: String(status),
      })),
    },
  };
}

/** A signed-in answer: the user and the token in the Authorization header. */
export function signedInAnswer(user: AuthUser, status = 200, token = FAKE_JWT): FakeAnswer {
  return { status, body: { user: apiUser(user) }, headers: { Authorization: `Bearer ${token}` } };
}

function match(pattern: string, path: string): Record<string, string> | null {
  const expected = pattern.split('/').filter(Boolean);
  const actual = path.split('/').filter(Boolean);
  if (expected.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of expected.entries()) {
    const value = actual[index] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(value);
    else if (segment !== value) return null;
  }
  return params;
}

export interface FakeApi {
  client: ApiClient;
  requests: FakeRequest[];
  /** Sets (or replaces) the handler of 'METHOD /pattern'. */
  on(route: string, handler: FakeHandler): void;
  /** From now on, requests to the route wait until `release` answers them. */
  hold(route: string): void;
  /** Answers the oldest held request of the route; throws when none is waiting. */
  release(route: string, answer: FakeAnswer): void;
  /** How many requests of the route are waiting. */
  waiting(route: string): number;
  /** The requests made to 'METHOD /path' (a concrete path). */
  requestsTo(route: string): FakeRequest[];
}

export function createFakeApi(handlers: Record<string, FakeHandler> = {}): FakeApi {
  const routes = new Map<string, FakeHandler>(Object.entries(handlers));
  const held = new Map<string, ((answer: FakeAnswer) => void)[]>();
  const requests: FakeRequest[] = [];

  const fetch = async (request: Request): Promise<Response> => {
    // Like fetch: a request aborted before it goes out fails at once.
    request.signal.throwIfAborted();
    const url = new URL(request.url);
    const path = url.pathname.slice(API_BASE_PATH.length) || '/';
    const text = await request.text();
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    for (const [route, handler] of routes) {
      const [method, pattern = ''] = route.split(' ');
      const params = method === request.method ? match(pattern, path) : null;
      if (!params) continue;
      const fakeRequest: FakeRequest = { method: request.method, path, params, headers: request.headers, body, signal: request.signal };
      requests.push(fakeRequest);
      const answer = await handler(fakeRequest);
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: { ...(answer.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...answer.headers },
      });
    }
    requests.push({ method: request.method, path, params: {}, headers: request.headers, body, signal: request.signal });
    const notFound = apiErrors(404, { detail: `No fake answer for ${request.method} ${path}` });
    return new Response(JSON.stringify(notFound.body), { status: 404, headers: { 'Content-Type': 'application/json' } });
  };

  return {
    client: createApiClient({ baseUrl: FAKE_API_BASE_URL, fetch }),
    requests,
    on(route, handler) {
      routes.set(route, handler);
    },
    hold(route) {
      routes.set(
        route,
        ({ signal }) =>
          new Promise<FakeAnswer>((resolve, reject) => {
            if (signal.aborted) {
              reject(signal.reason);
              return;
            }
            held.set(route, [...(held.get(route) ?? []), resolve]);
            signal.addEventListener('abort', () => {
              held.set(route, (held.get(route) ?? []).filter((waiting) => waiting !== resolve));
              reject(signal.reason);
            });
          }),
      );
    },
    release(route, answer) {
      const [first, ...rest] = held.get(route) ?? [];
      if (!first) throw new Error(`No ${route} request is waiting`);
      held.set(route, rest);
      first(answer);
    },
    waiting(route) {
      return held.get(route)?.length ?? 0;
    },
    requestsTo(route) {
      const [method, path] = route.split(' ');
      return requests.filter((request) => request.method === method && request.path === path);
    },
  };
}
