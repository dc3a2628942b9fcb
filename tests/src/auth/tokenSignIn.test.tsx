import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TOKEN_SIGN_IN_FAILURE_MESSAGE } from '../../../models/auth';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, apiUser, createFakeApi } from '../support/fakeApi';

describe('/sign_in_via_token/:jwtToken', () => {
  it('shows a spinner while the link is checked, then signs in at /settings', async () => {
    const api = createFakeApi({ 'GET /users': () => ({ status: 200, body: { items: [] } }) });
    api.hold('GET /users/me');
    const { location } = renderApp({ path: '/sign_in_via_token/link.jwt', restore: true, api });

    expect(await screen.findByRole('heading', { level: 1, name: 'Signing you in' })).toBeInTheDocument();
    expect(screen.getByLabelText('Checking your sign-in link')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting('GET /users/me')).toBe(1));
    api.release('GET /users/me', { status: 200, body: { user: apiUser(fullAccessUser) } });

    await waitFor(() => expect(location.history?.at(-1)).toBe('/settings'));
    expect(api.requestsTo('GET /users/me')[0]?.headers.get('Authorization')).toBe('Bearer link.jwt');
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBe('link.jwt');
  });

  it('goes to /sign_in and says why when the link does not work', async () => {
    const api = createFakeApi({ 'GET /users/me': () => apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' }) });
    const { location } = renderApp({ path: '/sign_in_via_token/expired.jwt', restore: true, api });

    await waitFor(() => expect(location.history?.at(-1)).toBe('/sign_in'));
    expect(await screen.findByText(TOKEN_SIGN_IN_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
  });
});
