import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { PASSWORD_MISMATCH_MESSAGE, RESET_REQUEST_SENT_MESSAGE, RESET_TOKEN_INVALID_MESSAGE } from '../../../models/auth';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, createFakeApi, FAKE_JWT, signedInAnswer } from '../support/fakeApi';

describe('/reset_password', () => {
  it('keeps the button disabled until the address looks like text@text', async () => {
    renderApp({ path: '/reset_password' });
    const user = userEvent.setup({ delay: null });
    const email = await screen.findByLabelText('Email');
    const button = screen.getByRole('button', { name: 'Send reset link' });

    expect(button).toBeDisabled();
    for (const [typed, enabled] of [
      ['ada', false],
      ['@', false],
      ['example.com', true],
    ] as const) {
      await user.type(email, typed);
      if (enabled) expect(button).toBeEnabled();
      else expect(button).toBeDisabled();
    }
    await user.clear(email);
    await user.type(email, 'ada @x');
    expect(button).toBeDisabled();
  });

  it('sends {user: {email}} and shows the same neutral confirmation whatever the answer', async () => {
    const api = createFakeApi({
      'POST /users/password': () => ({ status: 200, body: { message: 'If the e-mail exists, a link is on its way' } }),
    });
    renderApp({ path: '/reset_password', api });
    const user = userEvent.setup({ delay: null });

    await user.type(await screen.findByLabelText('Email'), 'nobody@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));

    expect(await screen.findByText(RESET_REQUEST_SENT_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('POST /users/password')[0]?.body).toEqual({ user: { email: 'nobody@example.com' } });
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/sign_in');
  });
});

describe('/reset_password/:token', () => {
  async function choosePassword(password: string, confirmation: string) {
    const user = userEvent.setup({ delay: null });
    await user.type(await screen.findByLabelText('New password', { selector: 'input' }), password);
    await user.type(screen.getByLabelText('Confirm new password', { selector: 'input' }), confirmation);
    await user.click(screen.getByRole('button', { name: 'Save password and sign in' }));
  }

  it('asks for a confirmation that matches', async () => {
    const api = createFakeApi();
    renderApp({ path: '/reset_password/tok3n', api });

    await choosePassword('correct horse battery', 'correct horse');

    expect(await screen.findByText(PASSWORD_MISMATCH_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('PUT /users/password')).toHaveLength(0);
  });

  it('saves the password with the token, signs in and goes to /', async () => {
    const api = createFakeApi({ 'PUT /users/password': () => signedInAnswer(fullAccessUser) });
    const { location } = renderApp({ path: '/reset_password/tok3n', api });

    await choosePassword('correct horse battery', 'correct horse battery');

    await waitFor(() => expect(location.history?.at(-1)).toBe('/'));
    expect(api.requestsTo('PUT /users/password')[0]?.body).toEqual({
      user: { password: 'correct horse battery', password_confirmation: 'correct horse battery', reset_password_token: 'tok3n' },
    });
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBe(FAKE_JWT);
  });

  it('says when the link is invalid or expired, with a way to ask for a new one', async () => {
    const api = createFakeApi({
      'PUT /users/password': () => apiErrors(422, { pointer: '/user/reset_password_token', detail: 'is invalid or has expired' }),
    });
    renderApp({ path: '/reset_password/used', api });

    await choosePassword('correct horse battery', 'correct horse battery');

    expect(await screen.findByText(RESET_TOKEN_INVALID_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Request a new link' })).toHaveAttribute('href', '/reset_password');
    expect(screen.getByLabelText('New password', { selector: 'input' })).toHaveValue('correct horse battery');
  });
});
