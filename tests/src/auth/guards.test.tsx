import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { SERVER_UNAVAILABLE_MESSAGE, SESSION_EXPIRED_MESSAGE } from '../../../models/auth';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { REDIRECT_AFTER_SIGN_IN_KEY } from '../../../src/session/redirectAfterSignIn';
import { defaultFakeApi, fullAccessUser, renderApp, sharedReportOnlyUser } from '../renderApp';
import { apiErrors, apiUser, createFakeApi, signedInAnswer } from '../support/fakeApi';
import { reportView } from '../reports/page/reportFixtures';

describe('route guards for an anonymous visitor', () => {
  it('sends a full-access route to /sign_in, remembering it, and returns there after sign-in', async () => {
    const api = createFakeApi({ 'POST /users/sign_in': () => signedInAnswer(fullAccessUser) });
    const { location } = renderApp({ path: '/customers?sort=mrr', api });
    const user = userEvent.setup({ delay: null });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/sign_in');
    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBe('/customers?sort=mrr');

    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/customers?sort=mrr'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Customers' })).toBeInTheDocument();
  });

  it('sends the home route to /sign_in', async () => {
    const { location } = renderApp({ path: '/' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/sign_in');
  });

  it('opens public shared reports without signing in', async () => {
    const api = defaultFakeApi(null);
    api.on('GET /business_reports/by_shared_secret', () => ({ status: 200, body: { ...reportView({ can_edit: false }), shared_filter: null } }));
    api.on('GET /business_reports/by_secret/key_numbers', () => ({ status: 200, body: { items: [] } }));
    const { location } = renderApp({ path: '/reports/shared/s3cr3t', api });

    expect(await screen.findByRole('heading', { level: 1, name: 'Board, March' })).toBeInTheDocument();
    expect(screen.getByText('A shared report')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/reports/shared/s3cr3t');
    expect(api.requestsTo('GET /business_reports/by_shared_secret')).toHaveLength(1);
  });
});

describe('route guards for a shared_report_only user', () => {
  it('shows on the home route only that reports open through their share URL', async () => {
    renderApp({ path: '/', user: sharedReportOnlyUser });

    expect(await screen.findByText('Reports are accessible via their share URL')).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create new report' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Import/ })).not.toBeInTheDocument();
    expect(screen.queryByText('Your reports will appear here')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'User menu' })).toBeInTheDocument();
  });

  it('sends a full-access route to /sign_in without remembering it', async () => {
    const { location } = renderApp({ path: '/customers', user: sharedReportOnlyUser });

    expect(await screen.findByRole('heading', { level: 1, name: 'You are signed in' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/sign_in');
    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBeNull();
  });

  it.each(['/settings', '/users', '/reports/library', '/import-subscriptions', '/payments'])('keeps them out of %s', async (path) => {
    const { location } = renderApp({ path, user: sharedReportOnlyUser });
    await screen.findByRole('heading', { level: 1, name: 'You are signed in' });
    expect(location.history?.at(-1)).toBe('/sign_in');
  });
});

describe('route guards for a full-access user', () => {
  it.each(['/', '/customers', '/settings', '/users', '/reports/library', '/getting-started'])('opens %s', async (path) => {
    const { location } = renderApp({ path, user: fullAccessUser });
    await screen.findByRole('heading', { level: 1 });
    expect(location.history?.at(-1)).toBe(path);
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
  });
});

describe('while the stored session is checked', () => {
  it('shows a skeleton, never a flash of the sign-in page, then the page', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'stored.jwt');
    const api = defaultFakeApi();
    api.hold('GET /users/me');
    const { location } = renderApp({ path: '/customers', restore: true, api });

    expect(screen.getByLabelText('Loading page')).toBeInTheDocument();
    expect(screen.getByLabelText('Checking your session')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Sign in' })).not.toBeInTheDocument();

    await waitFor(() => expect(api.waiting('GET /users/me')).toBe(1));
    expect(api.requestsTo('GET /users/me')[0]?.headers.get('Authorization')).toBe('Bearer stored.jwt');
    api.release('GET /users/me', { status: 200, body: { user: apiUser(fullAccessUser) } });

    expect(await screen.findByRole('heading', { level: 1, name: 'Customers' })).toBeInTheDocument();
    expect(location.history).toEqual(['/customers']);
  });

  it('a public page whose lookup is in flight when the session is read still gets its answer (a group link opens its report)', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'stored.jwt');
    const api = defaultFakeApi();
    api.hold('GET /users/me');
    api.hold('GET /business_report_groups/by_secret');
    const { location } = renderApp({ path: '/reports/group/GroupSecretGroupSecretGroupSecre', restore: true, api });

    await waitFor(() => expect(api.waiting('GET /business_report_groups/by_secret')).toBe(1));
    api.release('GET /users/me', { status: 200, body: { user: apiUser(fullAccessUser) } });
    expect(await screen.findByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    api.release('GET /business_report_groups/by_secret', { status: 200, body: { latest_report: { secret: 'NewestReport', title: 'Board pack' }, currency: null } });

    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/NewestReport'));
  });

  it('forgets what the signed-in user read when they sign out: the next visitor asks the server again', async () => {
    const api = defaultFakeApi();
    let asked = 0;
    api.on('GET /business_report_groups/by_secret', () => {
      asked += 1;
      return { status: 200, body: { latest_report: { secret: `Report${asked}`, title: 'Board pack' }, currency: null } };
    });
    const { location, queryClient } = renderApp({ path: '/reports/group/GroupSecretGroupSecretGroupSecre', user: fullAccessUser, api });
    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/Report1'));
    expect(queryClient.getQueryCache().getAll().length).toBeGreaterThan(0);

    await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'User menu' }));
    await userEvent.setup({ delay: null }).click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(location.history?.at(-1)).toBe('/sign_in'));
    expect(queryClient.getQueryCache().getAll().filter((query) => query.state.data !== undefined)).toEqual([]);
  });

  it('offers to try again when the server cannot be reached, keeping the stored token', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'stored.jwt');
    const api = defaultFakeApi();
    api.on('GET /users/me', () => ({ status: 503 }));
    renderApp({ path: '/customers', restore: true, api });
    const user = userEvent.setup({ delay: null });

    expect(await screen.findByRole('heading', { name: 'Subscope is out of reach' })).toBeInTheDocument();
    expect(screen.getByText(SERVER_UNAVAILABLE_MESSAGE)).toBeInTheDocument();
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBe('stored.jwt');

    api.on('GET /users/me', () => ({ status: 200, body: { user: apiUser(fullAccessUser) } }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Customers' })).toBeInTheDocument();
  });

  it('forgets a refused stored token and asks to sign in', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'revoked.jwt');
    const api = createFakeApi({ 'GET /users/me': () => apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' }) });
    renderApp({ path: '/', restore: true, api });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    expect(screen.queryByText(SESSION_EXPIRED_MESSAGE)).not.toBeInTheDocument();
  });
});

describe('a 401 from any API call', () => {
  it('ends the session: token and user cleared, the path remembered, the sign-in page says why', async () => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'revoked.jwt');
    const api = createFakeApi({
      'GET /users': () => apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' }),
      'POST /users/sign_in': () => signedInAnswer(fullAccessUser),
    });
    const { location } = renderApp({ path: '/users', user: fullAccessUser, api });

    expect(await screen.findByText(SESSION_EXPIRED_MESSAGE)).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/sign_in');
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBe('/users');
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
  });

  it('of the sign-in call itself means wrong credentials, not an expired session', async () => {
    const api = createFakeApi({ 'POST /users/sign_in': () => apiErrors(401, { detail: 'Email or password is invalid' }) });
    renderApp({ path: '/sign_in', api });
    const user = userEvent.setup({ delay: null });

    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'nope');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText('Email or password is invalid')).toBeInTheDocument();
    expect(screen.queryByText(SESSION_EXPIRED_MESSAGE)).not.toBeInTheDocument();
    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBeNull();
  });
});

describe('the top bar follows the session', () => {
  it('shows the navigation and the user menu only to a full-access user', async () => {
    renderApp({ path: '/getting-started', user: sharedReportOnlyUser });
    const banner = within(await screen.findByRole('banner'));

    expect(banner.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(banner.getByRole('button', { name: 'User menu' })).toBeInTheDocument();
  });
});
