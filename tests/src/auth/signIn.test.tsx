import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { REDIRECT_AFTER_SIGN_IN_KEY } from '../../../src/session/redirectAfterSignIn';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, createFakeApi, FAKE_JWT, signedInAnswer } from '../support/fakeApi';

async function fillSignIn(email: string, password: string) {
  const user = userEvent.setup({ delay: null });
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password', { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('/sign_in', () => {
  it("shows exactly 'Email or password is invalid' when the server refuses, keeping what was typed", async () => {
    const api = createFakeApi({
      'POST /users/sign_in': () => apiErrors(401, { pointer: '/user/email', detail: 'Email or password is invalid' }),
    });
    renderApp({ path: '/sign_in', api });

    await fillSignIn('ada@example.com', 'wrong password');

    expect(await screen.findByRole('alert')).toHaveTextContent(/^Email or password is invalid$/);
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
    expect(screen.getByLabelText('Password', { selector: 'input' })).toHaveValue('wrong password');
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
  });

  it("shows the server's detail when there were too many attempts (429)", async () => {
    const detail = 'Too many sign-in attempts. Try again in 12 minutes.';
    const api = createFakeApi({ 'POST /users/sign_in': () => apiErrors(429, { detail }) });
    renderApp({ path: '/sign_in', api });

    await fillSignIn('ada@example.com', 'whatever');

    expect(await screen.findByRole('alert')).toHaveTextContent(detail);
  });

  it("asks for both fields with 'Required' before calling the server", async () => {
    const api = createFakeApi();
    renderApp({ path: '/sign_in', api });
    const user = userEvent.setup({ delay: null });

    await user.click(await screen.findByRole('button', { name: 'Sign in' }));

    expect(screen.getAllByText('Required')).toHaveLength(2);
    expect(api.requestsTo('POST /users/sign_in')).toHaveLength(0);
  });

  it('sends {user: {email, password}}, keeps the returned token and goes to /', async () => {
    const api = createFakeApi({ 'POST /users/sign_in': () => signedInAnswer(fullAccessUser) });
    const { location } = renderApp({ path: '/sign_in', api });

    await fillSignIn('  ada@example.com ', 'correct horse battery');

    await waitFor(() => expect(location.history?.at(-1)).toBe('/'));
    expect(api.requestsTo('POST /users/sign_in')[0]?.body).toEqual({
      user: { email: 'ada@example.com', password: 'correct horse battery' },
    });
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBe(FAKE_JWT);
    expect(await screen.findByRole('heading', { level: 1, name: 'Reports' })).toBeInTheDocument();
  });

  it('goes to the path remembered before the page was loaded, and forgets it', async () => {
    window.localStorage.setItem(REDIRECT_AFTER_SIGN_IN_KEY, '/customers/42?tab=payments');
    const api = createFakeApi({ 'POST /users/sign_in': () => signedInAnswer(fullAccessUser) });
    const { location } = renderApp({ path: '/sign_in', restore: true, api });

    await fillSignIn('ada@example.com', 'correct horse battery');

    await waitFor(() => expect(location.history?.at(-1)).toBe('/customers/42?tab=payments'));
    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBeNull();
  });

  it("returns to the page where the top bar's 'Sign in' was clicked", async () => {
    const api = createFakeApi({ 'POST /users/sign_in': () => signedInAnswer(fullAccessUser) });
    const { location } = renderApp({ path: '/reports/shared/abc?currency=eur', api });
    const user = userEvent.setup({ delay: null });

    await user.click(await screen.findByRole('link', { name: 'Sign in' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await fillSignIn('ada@example.com', 'correct horse battery');

    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/shared/abc?currency=eur'));
  });

  it('links to sign up and to the password reset', async () => {
    renderApp({ path: '/sign_in' });

    expect(await screen.findByRole('link', { name: 'Create an account' })).toHaveAttribute('href', '/sign_up');
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute('href', '/reset_password');
  });

  it('tells a signed-in visitor who they are instead of showing the form', async () => {
    renderApp({ path: '/sign_in', user: fullAccessUser });

    expect(await screen.findByRole('heading', { level: 1, name: 'You are signed in' })).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Continue to Subscope' })).toHaveAttribute('href', '/');
    expect(screen.queryByLabelText('Password', { selector: 'input' })).not.toBeInTheDocument();
  });
});
