import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_BASE_PATH } from '../../models/constants';
import { createApiClient, setUnauthorizedHandler } from '../../src/api/client';
import type { UnauthorizedEvent } from '../../src/api/client';
import { tokenStore } from '../../src/api/tokenStore';

const health = { status: 'ok', version: '0.1.0', api_version: 11, database: 'pglite' };

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A fake fetch that records each request and answers with the given status. */
function fakeFetch(status = 200, body: unknown = health) {
  const requests: Request[] = [];
  const fetch = vi.fn(async (request: Request) => {
    requests.push(request);
    return jsonResponse(body, status);
  });
  return { fetch, requests };
}

const baseUrl = `http://localhost${API_BASE_PATH}`;

afterEach(() => {
  setUnauthorizedHandler(null);
  tokenStore.clear();
  vi.unstubAllGlobals();
});

describe('API client', () => {
  it('calls the versioned API, /api/v11', async () => {
    const { fetch, requests } = fakeFetch();
    const client = createApiClient({ baseUrl, fetch });

    const { data } = await client.GET('/health');

    expect(requests[0]?.url).toBe('http://localhost/api/v11/health');
    expect(data).toEqual(health);
  });

  it('adds Authorization: Bearer <token> from the token store', async () => {
    const { fetch, requests } = fakeFetch();
    const client = createApiClient({ baseUrl, fetch });
    tokenStore.set('header.payload.signature');

    await client.GET('/health');

    expect(requests[0]?.headers.get('Authorization')).toBe('Bearer header.payload.signature');
    expect(window.localStorage.getItem('subscope.token')).toBe('header.payload.signature');
  });

  it('sends no Authorization header without a token', async () => {
    const { fetch, requests } = fakeFetch();
    const client = createApiClient({ baseUrl, fetch });

    await client.GET('/health');

    expect(requests[0]?.headers.has('Authorization')).toBe(false);
  });

  it('reads the token on every request, so a sign-in or sign-out takes effect at once', async () => {
    const { fetch, requests } = fakeFetch();
    const client = createApiClient({ baseUrl, fetch });

    tokenStore.set('first');
    await client.GET('/health');
    tokenStore.clear();
    await client.GET('/health');

    expect(requests[0]?.headers.get('Authorization')).toBe('Bearer first');
    expect(requests[1]?.headers.has('Authorization')).toBe(false);
  });

  it('calls the registered handler on a 401 and still returns the response', async () => {
    const { fetch } = fakeFetch(401, { errors: [{ title: 'Unauthorized', status: '401' }] });
    const client = createApiClient({ baseUrl, fetch });
    const events: UnauthorizedEvent[] = [];
    setUnauthorizedHandler((event) => events.push(event));
    tokenStore.set('revoked');

    const { response, error } = await client.GET('/health');

    expect(events).toHaveLength(1);
    expect(events[0]?.response.status).toBe(401);
    expect(events[0]?.request.url).toBe('http://localhost/api/v11/health');
    expect(response.status).toBe(401);
    expect(error).toEqual({ errors: [{ title: 'Unauthorized', status: '401' }] });
  });

  it('does not call the handler for other errors', async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);

    for (const status of [400, 403, 404, 422, 500]) {
      const { fetch } = fakeFetch(status, { errors: [] });
      await createApiClient({ baseUrl, fetch }).GET('/health');
    }

    expect(handler).not.toHaveBeenCalled();
  });

  it('stops calling a handler once it is unregistered', async () => {
    const handler = vi.fn();
    const unregister = setUnauthorizedHandler(handler);
    unregister();

    const { fetch } = fakeFetch(401, {});
    await createApiClient({ baseUrl, fetch }).GET('/health');

    expect(handler).not.toHaveBeenCalled();
  });

  it('uses the global fetch of the moment by default', async () => {
    const { fetch, requests } = fakeFetch();
    const client = createApiClient({ baseUrl });
    vi.stubGlobal('fetch', fetch);

    await client.GET('/health');

    expect(requests).toHaveLength(1);
  });
});
