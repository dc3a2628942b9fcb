import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { INVITATION_NOT_FOUND_MESSAGE } from '../../../models/auth';
import { renderApp } from '../renderApp';
import { apiErrors, createFakeApi, signedInAnswer } from '../support/fakeApi';
import type { AuthUser } from '../../../models/auth';

const invitee: AuthUser = { id: 'usr_grace', email: 'grace@example.com', name: 'Grace Hopper', account_id: 'acc_1', permission_level: 'user' };

const invitation = {
  invitee: { email: 'grace@example.com', name: 'Grace' },
  account: { name: 'Acme Analytics' },
  inviter: { name: 'Ada Lovelace' },
};

describe('/invitation/:token', () => {
  it('shows who is invited to which account, and accepting signs in at /getting-started', async () => {
    const api = createFakeApi({
      'GET /invitations/:token': () => ({ status: 200, body: invitation }),
      'PUT /invitations/:token': () => signedInAnswer(invitee),
    });
    const { location } = renderApp({ path: '/invitation/inv-123', api });
    const user = userEvent.setup({ delay: null });

    expect(await screen.findByRole('heading', { level: 1, name: 'Join Acme Analytics' })).toBeInTheDocument();
    expect(screen.getByText(/Ada Lovelace invited you/)).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('grace@example.com');
    const name = screen.getByLabelText(/^Your name/);
    expect(name).toHaveValue('Grace');

    await user.clear(name);
    await user.type(name, 'Grace Hopper');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), 'correct horse battery');
    await user.type(screen.getByLabelText(/^Confirm password/, { selector: 'input' }), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/getting-started'));
    expect(api.requestsTo('PUT /invitations/inv-123')[0]?.body).toEqual({
      user: { name: 'Grace Hopper', password: 'correct horse battery', password_confirmation: 'correct horse battery' },
    });
  });

  it('says clearly when the invitation is unknown, used or expired', async () => {
    const api = createFakeApi({ 'GET /invitations/:token': () => apiErrors(404, { detail: 'Not Found' }) });
    renderApp({ path: '/invitation/nope', api });

    expect(await screen.findByRole('heading', { level: 1, name: 'Invitation not found' })).toBeInTheDocument();
    expect(screen.getByText(INVITATION_NOT_FOUND_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/sign_in');
  });
});
