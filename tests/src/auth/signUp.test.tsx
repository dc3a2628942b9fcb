import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { readSignUpLink } from '../../../src/session/signUpLink';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, createFakeApi, FAKE_JWT, signedInAnswer } from '../support/fakeApi';

afterEach(() => {
  window.location.hash = '';
});

async function fillSignUp({ name = '', email = '', password = '' }) {
  const user = userEvent.setup({ delay: null });
  if (name) await user.type(await screen.findByLabelText('Name'), name);
  const emailInput = await screen.findByLabelText(/^Email/);
  if (email) {
    await user.clear(emailInput);
    await user.type(emailInput, email);
  }
  if (password) await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), password);
  await user.click(screen.getByRole('button', { name: 'Create account' }));
}

describe('/sign_up', () => {
  it("shows the server's errors as 'field message' lines and keeps what was typed", async () => {
    const api = createFakeApi({
      'POST /users': () =>
        apiErrors(
          422,
          { pointer: '/user/email', detail: 'has already been taken' },
          { pointer: '/user/password', detail: 'is too common' },
        ),
    });
    renderApp({ path: '/sign_up', api });

    await fillSignUp({ name: 'Ada', email: 'ada@example.com', password: 'password1' });

    const alert = await screen.findByRole('alert');
    const lines = [...alert.querySelectorAll('li')].map((item) => item.textContent);
    expect(lines).toEqual(['email has already been taken', 'password is too common']);
    expect(screen.getByLabelText(/^Email/)).toHaveValue('ada@example.com');
    expect(screen.getByLabelText('Name')).toHaveValue('Ada');
  });

  it('prefills the address from ?email= and sends ?ref= as marketing_ref', async () => {
    const api = createFakeApi({ 'POST /users': () => signedInAnswer(fullAccessUser, 201) });
    renderApp({ path: '/sign_up?email=ada%40example.com&ref=newsletter', api });

    expect(await screen.findByLabelText(/^Email/)).toHaveValue('ada@example.com');
    await fillSignUp({ password: 'correct horse battery' });

    await waitFor(() => expect(api.requestsTo('POST /users')).toHaveLength(1));
    expect(api.requestsTo('POST /users')[0]?.body).toEqual({
      user: { email: 'ada@example.com', password: 'correct horse battery', marketing_ref: 'newsletter' },
    });
    expect(api.requestsTo('POST /users')[0]?.headers.has('Authorization')).toBe(false);
  });

  it('sends the #ref= of the link as marketing_ref', async () => {
    window.location.hash = '#ref=podcast';
    const api = createFakeApi({ 'POST /users': () => signedInAnswer(fullAccessUser, 201) });
    renderApp({ path: '/sign_up', api });

    await fillSignUp({ name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery' });

    await waitFor(() => expect(api.requestsTo('POST /users')).toHaveLength(1));
    expect(api.requestsTo('POST /users')[0]?.body).toEqual({
      user: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada Lovelace', marketing_ref: 'podcast' },
    });
  });

  it('signs the new owner in and goes to /getting-started', async () => {
    const api = createFakeApi({ 'POST /users': () => signedInAnswer(fullAccessUser, 201) });
    const { location } = renderApp({ path: '/sign_up', api });

    await fillSignUp({ email: 'ada@example.com', password: 'correct horse battery' });

    await waitFor(() => expect(location.history?.at(-1)).toBe('/getting-started'));
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBe(FAKE_JWT);
    expect(await screen.findByRole('heading', { level: 1, name: 'Getting started' })).toBeInTheDocument();
  });

  it('checks the address and the password length before calling the server', async () => {
    const api = createFakeApi();
    renderApp({ path: '/sign_up', api });

    await fillSignUp({ email: 'ada@example', password: 'short' });

    expect(await screen.findByText('It does not look like a proper email address')).toBeInTheDocument();
    expect(screen.getByText('Password is too short (minimum is 8 characters)')).toBeInTheDocument();
    expect(api.requestsTo('POST /users')).toHaveLength(0);
  });
});

describe('sign-up links', () => {
  it.each([
    ['', '', { email: '', marketingRef: undefined }],
    ['email=a%40b.co', '', { email: 'a@b.co', marketingRef: undefined }],
    ['ref=q', '', { email: '', marketingRef: 'q' }],
    ['ref=q', '#ref=h', { email: '', marketingRef: 'h' }],
    ['', 'ref=h', { email: '', marketingRef: 'h' }],
  ])('search %j and hash %j read as %j', (search, hash, expected) => {
    expect(readSignUpLink(search, hash)).toEqual(expected);
  });
});
