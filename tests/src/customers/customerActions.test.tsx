import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  ASSIGN_PARENT_FAILURE_MESSAGE,
  CREATE_CUSTOMER_FAILURE_MESSAGE,
  CUSTOMER_NAME_REQUIRED_MESSAGE,
  MERGE_FAILURE_MESSAGE,
  REMOVE_CUSTOMER_FAILURE_MESSAGE,
  SELECT_CUSTOMER_MESSAGE,
} from '../../../models/customers';
import { DEFAULT_SUCCESS_TOAST } from '../../../src/notifications/toast';
import { apiErrors } from '../support/fakeApi';
import { customer, customersApi, renderDrawer } from './drawerFixtures';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

type User = ReturnType<typeof userEvent.setup>;

async function openDrawer(name: string) {
  return screen.findByRole('dialog', { name: new RegExp(`Details: ${name}`) });
}

/** Opens the drawer's actions menu; answers the menu. */
async function openActions(user: User, drawer: HTMLElement) {
  await user.click(await within(drawer).findByRole('button', { name: 'Customer actions' }));
  return screen.findByRole('menu');
}

/** Types into a customer search and picks the suggestion `name`. */
async function pickCustomer(user: User, label: string, name: string) {
  await user.type(screen.getByRole('combobox', { name: label }), name.slice(0, 3));
  await user.click(await screen.findByRole('option', { name }));
}

const acme = () => customer('c1', 'Acme');
const beta = () => customer('c2', 'Beta');

describe('the customer drawer’s actions menu', () => {
  it('offers merge, assign parent, the exclusion toggle and delete to a customer without parent or children', async () => {
    const user = userEvent.setup({ delay: null });
    renderDrawer(customersApi([acme(), beta()]), 'c1');
    const menu = await openActions(user, await openDrawer('Acme'));
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['Merge customer', 'Assign parent', 'Exclude from metrics calculation', 'Delete customer']);
    // Not ticked while the customer counts.
    expect(within(menu).getByRole('menuitem', { name: 'Exclude from metrics calculation' })).not.toHaveAttribute('data-checked');
  });

  it('hides Assign parent from a customer with children', async () => {
    const user = userEvent.setup({ delay: null });
    renderDrawer(customersApi([customer('c1', 'Acme', { children_ids: ['c2'] }), customer('c2', 'Beta', { parent_id: 'c1' })]), 'c1');
    const menu = await openActions(user, await openDrawer('Acme'));
    expect(within(menu).queryByRole('menuitem', { name: 'Assign parent' })).not.toBeInTheDocument();
    expect(within(menu).queryByRole('menuitem', { name: 'Remove parent' })).not.toBeInTheDocument();
  });

  it('offers Remove parent only with a parent, and removes it with parent_id null', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([customer('c1', 'Acme', { parent_id: 'p1' }), customer('p1', 'Holding', { children_ids: ['c1'] })]);
    renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    expect(await within(drawer).findByRole('button', { name: 'Holding' })).toBeInTheDocument();
    const menu = await openActions(user, drawer);
    await user.click(within(menu).getByRole('menuitem', { name: 'Remove parent' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1').map((r) => r.body)).toEqual([{ parent_id: null }]));
    expect(await screen.findByText(DEFAULT_SUCCESS_TOAST)).toBeInTheDocument();
    // Read again: no parent any more.
    await waitFor(() => expect(within(drawer).queryByRole('button', { name: 'Holding' })).not.toBeInTheDocument());
  });

  it('excludes from metrics calculation, then shows the item ticked and the customer marked', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    await user.click(within(await openActions(user, drawer)).getByRole('menuitem', { name: 'Exclude from metrics calculation' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1').map((r) => r.body)).toEqual([{ include_in_calculations_by_default: false }]));
    expect(await within(drawer).findByText('Excluded from metrics calculation')).toBeInTheDocument();
    const menu = await openActions(user, drawer);
    // Ticked.
    const ticked = within(menu).getByRole('menuitem', { name: /^Exclude from metrics calculation\s*\(on\)$/ });
    expect(ticked).toHaveAttribute('data-checked', 'true');
    expect(ticked.querySelector('svg')).not.toBeNull();
    // And back.
    await user.click(ticked);
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1').at(-1)?.body).toEqual({ include_in_calculations_by_default: true }));
  });
});

describe('Merge customer', () => {
  it('asks to select a customer, then merges the chosen one into the open one', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme(), beta()]);
    renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    await user.click(within(await openActions(user, drawer)).getByRole('menuitem', { name: 'Merge customer' }));
    const merge = await screen.findByRole('dialog', { name: 'Merge customer' });
    await user.click(within(merge).getByRole('button', { name: 'Merge' }));
    expect(await within(merge).findByText(SELECT_CUSTOMER_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('POST /customers/c1/merge')).toHaveLength(0);

    await user.type(within(merge).getByRole('combobox', { name: 'Customer to merge' }), 'Bet');
    // The open customer is never offered.
    expect(await screen.findByRole('option', { name: 'Beta' })).toBeInTheDocument();
    expect(screen.queryByRole('option', { name: 'Acme' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'Beta' }));
    expect(within(merge).queryByText(SELECT_CUSTOMER_MESSAGE)).not.toBeInTheDocument();
    await user.click(within(merge).getByRole('button', { name: 'Merge' }));

    await waitFor(() => expect(api.requestsTo('POST /customers/c1/merge').map((r) => r.body)).toEqual([{ source_id: 'c2' }]));
    expect(await screen.findByText(DEFAULT_SUCCESS_TOAST)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Merge customer' })).not.toBeInTheDocument());
    // The drawer still shows the target.
    expect(screen.getByRole('dialog', { name: /Details: Acme/ })).toBeInTheDocument();
  });

  it('says the merge failed and keeps the choice', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme(), beta()]);
    api.on('POST /customers/:id/merge', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    await user.click(within(await openActions(user, await openDrawer('Acme'))).getByRole('menuitem', { name: 'Merge customer' }));
    const merge = await screen.findByRole('dialog', { name: 'Merge customer' });
    await pickCustomer(user, 'Customer to merge', 'Beta');
    await user.click(within(merge).getByRole('button', { name: 'Merge' }));
    expect(await screen.findByText(MERGE_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(within(merge).getByRole('combobox', { name: 'Customer to merge' })).toHaveValue('Beta');
  });
});

describe('Assign parent', () => {
  async function openAssign(user: User) {
    await user.click(within(await openActions(user, await openDrawer('Acme'))).getByRole('menuitem', { name: 'Assign parent' }));
    return screen.findByRole('dialog', { name: 'Assign parent' });
  }

  it('asks to select a customer, then assigns the chosen parent', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme(), beta()]);
    renderDrawer(api, 'c1');
    const assign = await openAssign(user);
    await user.click(within(assign).getByRole('button', { name: 'Assign parent' }));
    expect(await within(assign).findByText(SELECT_CUSTOMER_MESSAGE)).toBeInTheDocument();
    await pickCustomer(user, 'Parent customer', 'Beta');
    await user.click(within(assign).getByRole('button', { name: 'Assign parent' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1').map((r) => r.body)).toEqual([{ parent_id: 'c2' }]));
    expect(await screen.findByText(DEFAULT_SUCCESS_TOAST)).toBeInTheDocument();
    expect(await within(await openDrawer('Acme')).findByRole('button', { name: 'Beta' })).toBeInTheDocument();
  });

  it('says the assignment failed', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme(), beta()]);
    api.on('PUT /customers/:id', () => apiErrors(422, { pointer: '/body/parent_id', detail: 'A customer with children cannot have a parent' }));
    renderDrawer(api, 'c1');
    const assign = await openAssign(user);
    await pickCustomer(user, 'Parent customer', 'Beta');
    await user.click(within(assign).getByRole('button', { name: 'Assign parent' }));
    expect(await screen.findByText(ASSIGN_PARENT_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Assign parent' })).toBeInTheDocument();
  });

  it('creates a new parent by name and assigns it; a blank name is required', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    renderDrawer(api, 'c1');
    const assign = await openAssign(user);
    await user.click(within(assign).getByRole('button', { name: 'Create new parent' }));
    expect(await within(assign).findByText(CUSTOMER_NAME_REQUIRED_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('POST /customers')).toHaveLength(0);

    await user.type(within(assign).getByRole('textbox', { name: 'New parent name' }), 'Holding');
    await user.click(within(assign).getByRole('button', { name: 'Create new parent' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1')).toHaveLength(1));
    expect(api.requestsTo('POST /customers').map((r) => r.body)).toEqual([{ name: 'Holding' }]);
    expect(api.requestsTo('PUT /customers/c1')[0]?.body).toEqual({ parent_id: 'new1' });
  });

  it('says a new parent could not be created, and assigns nothing', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    api.on('POST /customers', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    const assign = await openAssign(user);
    await user.type(within(assign).getByRole('textbox', { name: 'New parent name' }), 'Holding');
    await user.click(within(assign).getByRole('button', { name: 'Create new parent' }));
    expect(await screen.findByText(CREATE_CUSTOMER_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('PUT /customers/c1')).toHaveLength(0);
    expect(within(assign).getByRole('textbox', { name: 'New parent name' })).toHaveValue('Holding');
  });
});

describe('Delete customer', () => {
  it('asks for confirmation, deletes, and closes the drawer', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    const { onClose } = renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    await user.click(within(await openActions(user, drawer)).getByRole('menuitem', { name: 'Delete customer' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete customer' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete customer' })).not.toBeInTheDocument());
    expect(api.requestsTo('DELETE /customers/c1')).toHaveLength(0);

    await user.click(within(await openActions(user, drawer)).getByRole('menuitem', { name: 'Delete customer' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete customer' })).getByRole('button', { name: 'Delete customer' }));
    await waitFor(() => expect(api.requestsTo('DELETE /customers/c1')).toHaveLength(1));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /Details:/ })).not.toBeInTheDocument());
    // The deleted customer is not asked for again.
    expect(api.requestsTo('GET /customers/c1').filter((r) => r.signal.aborted === false).length).toBeLessThanOrEqual(2);
  });

  it('says the customer could not be removed and stays open', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    api.on('DELETE /customers/:id', () => apiErrors(500, { detail: 'boom' }));
    const { onClose } = renderDrawer(api, 'c1');
    await user.click(within(await openActions(user, await openDrawer('Acme'))).getByRole('menuitem', { name: 'Delete customer' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete customer' })).getByRole('button', { name: 'Delete customer' }));
    expect(await screen.findByText(REMOVE_CUSTOMER_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog', { name: /Details: Acme/ })).toBeInTheDocument();
  });
});

describe('the name edit', () => {
  it('requires a name, then saves it', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    await user.click(within(drawer).getByRole('button', { name: 'Edit name' }));
    const field = within(drawer).getByRole('textbox', { name: 'Name' });
    await user.clear(field);
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    expect(await within(drawer).findByText(CUSTOMER_NAME_REQUIRED_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('PUT /customers/c1')).toHaveLength(0);

    await user.type(field, 'Acme Corp');
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1').map((r) => r.body)).toEqual([{ name: 'Acme Corp' }]));
    expect(await screen.findByRole('dialog', { name: /Details: Acme Corp/ })).toBeInTheDocument();
    expect(within(drawer).queryByRole('textbox', { name: 'Name' })).not.toBeInTheDocument();
  });

  it('keeps what was typed when the server refuses it', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi([acme()]);
    api.on('PUT /customers/:id', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    const drawer = await openDrawer('Acme');
    await user.click(within(drawer).getByRole('button', { name: 'Edit name' }));
    const field = within(drawer).getByRole('textbox', { name: 'Name' });
    await user.clear(field);
    await user.type(field, 'Acme Corp');
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.requestsTo('PUT /customers/c1')).toHaveLength(1));
    expect(await screen.findByText('Something went wrong')).toBeInTheDocument();
    expect(within(drawer).getByRole('textbox', { name: 'Name' })).toHaveValue('Acme Corp');
  });
});
