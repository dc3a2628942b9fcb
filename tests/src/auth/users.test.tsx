import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { INVITATION_SEND_FAILURE_MESSAGE, INVALID_EMAIL_MESSAGE, USERS_FETCH_FAILURE_MESSAGE } from '../../../models/auth';
import type { AuthUser } from '../../../models/auth';
import { ADD_USER_DRAWER_WIDTH } from '../../../models/constants';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, apiUser, createFakeApi } from '../support/fakeApi';
import type { FakeApi } from '../support/fakeApi';

const grace: AuthUser = { id: 'usr_grace', email: 'grace@example.com', name: 'Grace Hopper', account_id: 'acc_1', permission_level: 'user' };

function usersApi(items = [apiUser(fullAccessUser), apiUser(grace, { invitation_pending: true })]): FakeApi {
  return createFakeApi({ 'GET /users': () => ({ status: 200, body: { items } }) });
}

async function openDrawer() {
  const user = userEvent.setup({ delay: null });
  await user.click(await screen.findByRole('button', { name: 'Add user' }));
  const drawer = within(await screen.findByRole('dialog', { name: 'Add user' }));
  return { user, drawer };
}

describe('/users', () => {
  it("lists the account's users with their e-mail and an 'Invitation pending' badge", async () => {
    renderApp({ path: '/users', user: fullAccessUser, api: usersApi() });

    const table = within(await screen.findByRole('table', { name: 'Users of your account' }));
    const rows = table.getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0] as HTMLElement).getByText('Ada Lovelace')).toBeInTheDocument();
    expect(within(rows[0] as HTMLElement).getByText('You')).toBeInTheDocument();
    expect(within(rows[0] as HTMLElement).queryByText('Invitation pending')).not.toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByText('grace@example.com')).toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByText('Invitation pending')).toBeInTheDocument();
  });

  it('shows a skeleton while the list loads', async () => {
    const api = usersApi();
    api.hold('GET /users');
    renderApp({ path: '/users', user: fullAccessUser, api });

    expect(await screen.findByLabelText('Loading users')).toBeInTheDocument();
  });

  it('shows an empty state when there are no users', async () => {
    renderApp({ path: '/users', user: fullAccessUser, api: usersApi([]) });

    expect(await screen.findByText('No users yet')).toBeInTheDocument();
  });

  it(`toasts '${USERS_FETCH_FAILURE_MESSAGE}' when the list cannot be fetched`, async () => {
    const api = createFakeApi({ 'GET /users': () => ({ status: 500 }) });
    renderApp({ path: '/users', user: fullAccessUser, api });

    const toast = await screen.findByRole('alert', { name: '' });
    expect(toast).toHaveTextContent(USERS_FETCH_FAILURE_MESSAGE);
  });

  it(`opens 'Add user' in a drawer ${ADD_USER_DRAWER_WIDTH} wide`, async () => {
    renderApp({ path: '/users', user: fullAccessUser, api: usersApi() });
    await openDrawer();

    const root = screen.getByRole('dialog', { name: 'Add user' }).closest('.mantine-Drawer-root');
    expect(root?.getAttribute('style')).toContain(`--drawer-size: ${ADD_USER_DRAWER_WIDTH}`);
  });

  it("validates the name and the e-mail with the spec's messages", async () => {
    const api = usersApi();
    renderApp({ path: '/users', user: fullAccessUser, api });
    const { user, drawer } = await openDrawer();

    await user.click(drawer.getByRole('button', { name: 'Send invite' }));
    expect(drawer.getAllByText('Required')).toHaveLength(2);

    await user.type(drawer.getByLabelText(/^Name/), 'Grace Hopper');
    await user.type(drawer.getByLabelText(/^Email/), 'grace@example');
    await user.click(drawer.getByRole('button', { name: 'Send invite' }));
    expect(drawer.getByText(INVALID_EMAIL_MESSAGE)).toBeInTheDocument();
    expect(drawer.queryByText('Required')).not.toBeInTheDocument();
    expect(api.requestsTo('POST /users')).toHaveLength(0);
  });

  it(`toasts '${INVITATION_SEND_FAILURE_MESSAGE}' on failure and keeps the drawer with what was typed`, async () => {
    const api = usersApi();
    api.on('POST /users', () => apiErrors(422, { pointer: '/email', detail: 'has already been taken' }));
    renderApp({ path: '/users', user: fullAccessUser, api });
    const { user, drawer } = await openDrawer();

    await user.type(drawer.getByLabelText(/^Name/), 'Grace Hopper');
    await user.type(drawer.getByLabelText(/^Email/), 'grace@example.com');
    await user.click(drawer.getByRole('button', { name: 'Send invite' }));

    expect(await screen.findByText(INVITATION_SEND_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(drawer.getByText('has already been taken')).toBeInTheDocument();
    expect(drawer.getByLabelText(/^Email/)).toHaveValue('grace@example.com');
    expect(screen.getByRole('dialog', { name: 'Add user' })).toBeInTheDocument();
  });

  it('sends {email, name}, closes the drawer, confirms with a success toast and refreshes the list', async () => {
    let items = [apiUser(fullAccessUser)];
    const api = createFakeApi({ 'GET /users': () => ({ status: 200, body: { items } }) });
    api.on('POST /users', ({ body }) => {
      items = [...items, apiUser(grace, { invitation_pending: true })];
      return { status: 201, body: { user: { ...apiUser(grace, { invitation_pending: true }), ...(body as object) } } };
    });
    window.localStorage.setItem(TOKEN_STORAGE_KEY, 'ada.jwt');
    renderApp({ path: '/users', user: fullAccessUser, api });
    const { user, drawer } = await openDrawer();

    await user.type(drawer.getByLabelText(/^Name/), 'Grace Hopper');
    await user.type(drawer.getByLabelText(/^Email/), 'grace@example.com');
    await user.click(drawer.getByRole('button', { name: 'Send invite' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Invitation sent to grace@example.com');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add user' })).not.toBeInTheDocument());
    expect(api.requestsTo('POST /users')[0]?.body).toEqual({ email: 'grace@example.com', name: 'Grace Hopper' });
    expect(api.requestsTo('POST /users')[0]?.headers.get('Authorization')).toBe('Bearer ada.jwt');
    expect(await screen.findByText('grace@example.com')).toBeInTheDocument();
    expect(api.requestsTo('GET /users')).toHaveLength(2);
  });

  it('is reachable from Settings', async () => {
    renderApp({ path: '/settings', user: fullAccessUser });
    expect(await screen.findByRole('link', { name: 'Manage users' })).toHaveAttribute('href', '/users');
  });
});
