import { describe, expect, it } from 'vitest';
import { isAuthFailure } from '../../../machines/auth/authActors';
import { SERVER_UNAVAILABLE_MESSAGE } from '../../../models/auth';
import { createApiClient } from '../../../src/api/client';
import { bearerToken, createAuthServices, toAuthUser } from '../../../src/session/authServices';
import { fullAccessUser } from '../renderApp';
import { apiUser, createFakeApi, FAKE_API_BASE_URL } from '../support/fakeApi';

function memoryTokens(initial: string | null = null) {
  let token = initial;
  return { get: () => token, set: (value: string) => void (token = value), current: () => token };
}

const signal = new AbortController().signal;

describe('the auth calls over the API', () => {
  it('keep the API token out of the session user', () => {
    const user = toAuthUser({ user: apiUser(fullAccessUser, { api_token: 'sk_secret' }) });
    expect(user).toEqual({ ...fullAccessUser, currency: 'USD' });
    expect(JSON.stringify(user)).not.toContain('sk_secret');
  });

  it('treat an unknown permission level as the restricted one', () => {
    expect(toAuthUser({ user: { ...apiUser(fullAccessUser), permission_level: 'admin' } }).permission_level).toBe('shared_report_only');
  });

  it('read the JWT of an Authorization: Bearer header', () => {
    expect(bearerToken(new Response(null, { headers: { Authorization: 'Bearer a.b.c' } }))).toBe('a.b.c');
    expect(bearerToken(new Response(null))).toBeNull();
  });

  it('do not call the server to restore a session when no token is stored', async () => {
    const api = createFakeApi();
    const services = createAuthServices(api.client, memoryTokens());
    await expect(services.fetchStoredUser(signal)).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(api.requests).toHaveLength(0);
  });

  it('turn a network failure into the server being unavailable', async () => {
    const client = createApiClient({ baseUrl: FAKE_API_BASE_URL, fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    const services = createAuthServices(client, memoryTokens('jwt'));
    const failure: unknown = await services.signIn({ email: 'a@b.co', password: 'x' }, signal).catch((error: unknown) => error);
    expect(isAuthFailure(failure) && failure.kind).toBe('unavailable');
    expect(isAuthFailure(failure) && failure.messages).toEqual([SERVER_UNAVAILABLE_MESSAGE]);
  });

  it('refuse a sign-in answer without a token', async () => {
    const api = createFakeApi({ 'POST /users/sign_in': () => ({ status: 200, body: { user: apiUser(fullAccessUser) } }) });
    const tokens = memoryTokens();
    await expect(createAuthServices(api.client, tokens).signIn({ email: 'a@b.co', password: 'x' }, signal)).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect(tokens.current()).toBeNull();
  });
});
