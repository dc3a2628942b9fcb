import createClient from 'openapi-fetch';
import type { Client, Middleware } from 'openapi-fetch';
import { API_BASE_PATH } from '../../models/constants';
import type { paths } from './schema';
import { tokenStore } from './tokenStore';
import type { TokenStore } from './tokenStore';

/** What the 401 handler learns about the request the server refused. */
export interface UnauthorizedEvent {
  request: Request;
  response: Response;
}

export type UnauthorizedHandler = (event: UnauthorizedEvent) => void;

let unauthorizedHandler: UnauthorizedHandler | null = null;

/**
 * Registers what happens when the API answers 401 (the auth machine registers its
 * sign-out here). Returns a function that unregisters it.
 */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): () => void {
  unauthorizedHandler = handler;
  return () => {
    if (unauthorizedHandler === handler) unauthorizedHandler = null;
  };
}

/**
 * Adds `Authorization: Bearer <token>` to every request that has a token, and reports a
 * 401 answer to the registered handler. The policy (sign out, remember the path) lives in
 * the handler, not here.
 */
export function authMiddleware(tokens: Pick<TokenStore, 'get'>): Middleware {
  return {
    onRequest({ request }) {
      const token = tokens.get();
      if (token && !request.headers.has('Authorization')) {
        request.headers.set('Authorization', `Bearer ${token}`);
      }
      return request;
    },
    onResponse({ request, response }) {
      if (response.status === 401) unauthorizedHandler?.({ request, response });
      return response;
    },
  };
}

export interface ApiClientOptions {
  baseUrl?: string;
  fetch?: (request: Request) => Promise<Response>;
  tokens?: Pick<TokenStore, 'get'>;
}

export type ApiClient = Client<paths>;

export function createApiClient({
  baseUrl = API_BASE_PATH,
  // Resolved per call, so a test's stubbed global fetch is the one used.
  fetch = (request) => globalThis.fetch(request),
  tokens = tokenStore,
}: ApiClientOptions = {}): ApiClient {
  const client = createClient<paths>({ baseUrl, fetch });
  client.use(authMiddleware(tokens));
  return client;
}

/** The one API client of the app (HTTP API v11). */
export const api = createApiClient();
