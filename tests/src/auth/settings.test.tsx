import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { API_TOKEN_FETCH_FAILURE_MESSAGE } from '../../../models/auth';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiUser, createFakeApi, FAKE_API_TOKEN } from '../support/fakeApi';

describe('Settings: the API token card', () => {
  it("shows the user's API token and copies it, toasting 'Copied'", async () => {
    const user = userEvent.setup({ delay: null });
    renderApp({ path: '/settings', user: fullAccessUser });

    expect(await screen.findByText(FAKE_API_TOKEN)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy API token' }));

    expect(await navigator.clipboard.readText()).toBe(FAKE_API_TOKEN);
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });

  it('refreshes the signed-in user from the same answer', async () => {
    const api = createFakeApi({
      'GET /users/me': () => ({ status: 200, body: { user: apiUser({ ...fullAccessUser, name: 'Ada King' }, { api_token: FAKE_API_TOKEN }) } }),
    });
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const user = userEvent.setup({ delay: null });

    await screen.findByText(FAKE_API_TOKEN);
    await user.click(screen.getByRole('button', { name: 'User menu' }));
    expect(await screen.findByText('Ada King')).toBeInTheDocument();
  });

  it(`toasts '${API_TOKEN_FETCH_FAILURE_MESSAGE}' when the token cannot be fetched`, async () => {
    const api = createFakeApi({ 'GET /users/me': () => ({ status: 500 }) });
    renderApp({ path: '/settings', user: fullAccessUser, api });

    expect(await screen.findAllByText(API_TOKEN_FETCH_FAILURE_MESSAGE)).not.toHaveLength(0);
  });
});
