import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INVALID_DATE_MESSAGE,
  MINIMAL_VALUE_MESSAGE,
  PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE,
  PRODUCT_SEARCH_FAILURE_MESSAGE,
  REMOVE_PAYMENT_FAILURE_MESSAGE,
  TOTAL_VALUE_REQUIRED_MESSAGE,
  VALUE_NOT_NUMBER_MESSAGE,
} from '../../../models/payments';
import { PAYMENTS_FETCH_FAILURE } from '../../../src/payments/paymentsApi';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors } from '../support/fakeApi';
import type { FakeApi } from '../support/fakeApi';
import { isoDay, matchEmptyMediaQuery, paymentsApi, queryOf, sent, typedDay, whole } from './paymentsFixtures';

/** The payments page (/payments and /subscriptions) against a fake API. */

const table = () => screen.getByRole('table', { name: 'Payments' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);
const cellsOf = (row: HTMLElement | undefined) => within(row as HTMLElement).getAllByRole('cell').map((cell) => cell.textContent);
const newDrawer = () => within(screen.getByRole('dialog', { name: 'New payment' }));
const editDrawer = () => within(screen.getByRole('dialog', { name: /^Payment/ }));
const field = (scope: ReturnType<typeof newDrawer>, name: string) => scope.getByRole('textbox', { name });

let originalMatchMedia: typeof window.matchMedia;
beforeEach(() => {
  originalMatchMedia = window.matchMedia;
  matchEmptyMediaQuery();
});
afterEach(() => {
  window.matchMedia = originalMatchMedia;
});

async function openPage(api: FakeApi = paymentsApi(), path = '/payments') {
  const user = userEvent.setup({ delay: null });
  const view = renderApp({ path, user: fullAccessUser, api });
  await within(await screen.findByRole('table', { name: 'Payments' })).findByText('Acme');
  return { user, ...view };
}

async function openNewPayment(api: FakeApi = paymentsApi()) {
  const opened = await openPage(api);
  await opened.user.click(screen.getByRole('button', { name: 'New payment' }));
  await newDrawer().findByRole('textbox', { name: 'Total value' });
  return opened;
}

/** Fills the subscription form validly: a total, months, today, an existing product. */
async function fillSubscription(user: UserEvent, total = '1200.50', months = '12') {
  await user.clear(field(newDrawer(), 'Total value'));
  await user.type(field(newDrawer(), 'Total value'), total);
  await user.clear(field(newDrawer(), 'Months'));
  await user.type(field(newDrawer(), 'Months'), months);
  await user.click(newDrawer().getByRole('combobox', { name: 'Product' }));
  await user.click(await screen.findByRole('option', { name: 'Pro plan' }));
}

describe('the payments table', () => {
  it('shows a skeleton while the first page loads', async () => {
    const api = paymentsApi();
    api.hold('GET /subscription_histories');
    renderApp({ path: '/payments', user: fullAccessUser, api });
    expect(await screen.findByLabelText('Loading payments')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting('GET /subscription_histories')).toBe(1));
    api.release('GET /subscription_histories', { status: 200, body: { items: [whole], next: null } });
    await within(await screen.findByRole('table', { name: 'Payments' })).findByText('Acme');
  });

  it('lists the spec’s columns, money in each payment’s currency: whole months, a 15-day period and an ongoing one', async () => {
    await openPage(paymentsApi(), '/subscriptions');
    const headers = [...table().querySelectorAll('thead th')].map((header) => header.textContent);
    expect(headers).toEqual(['Customer name', 'Invoice number', 'Started at', 'Total value', 'Duration (month)', 'Monthly amount']);
    const [first, second, third] = bodyRows();
    expect(cellsOf(first)).toEqual(['Acme', 'INV-1', 'Jan 5, 2026', '$1,200.50', '12', '$100.04']);
    expect(cellsOf(second)).toEqual(['Globex', 'INV-2', 'Feb 1, 2026', '$300.00', '0.49', '$608.33']);
    expect(cellsOf(third)).toEqual(['Initech', '–', 'Mar 1, 2026', 'ongoing', 'ongoing', '¥5,000']);
  });

  it('asks for the newest first, sorts by a header from the first page and filters by currency and item type', async () => {
    const { user, api, location } = await openPage();
    expect(queryOf(sent(api, 'GET /subscription_histories')[0]!).get('sort_by')).toBe('started_at:desc');
    await user.click(within(table()).getByRole('button', { name: /^Total value/ }));
    await waitFor(() => expect(queryOf(sent(api, 'GET /subscription_histories').at(-1)!).get('sort_by')).toBe('total_value:desc'));
    await user.click(screen.getByRole('combobox', { name: 'Currency' }));
    await user.click(await screen.findByRole('option', { name: 'JPY' }));
    await waitFor(() => expect(queryOf(sent(api, 'GET /subscription_histories').at(-1)!).get('currency')).toBe('JPY'));
    await user.click(screen.getByRole('combobox', { name: 'Item type' }));
    await user.click(await screen.findByRole('option', { name: 'Recurring' }));
    await waitFor(() => expect(queryOf(sent(api, 'GET /subscription_histories').at(-1)!).get('item_type')).toBe('recurring'));
    // The filters live in the URL, so the list can be bookmarked.
    expect(location.history?.at(-1)).toBe('/payments?currency=JPY&item_type=recurring&sort_by=total_value%3Adesc');
  });

  it('pages forward with the answer’s cursor and back again', async () => {
    const api = paymentsApi({ overrides: { 'GET /subscription_histories': (request) => ({ status: 200, body: queryOf(request).get('next') ? { items: [{ ...whole, id: 'subhSECONDPAGE01', customer: { id: 'c9', name: 'Umbrella' } }], next: null } : { items: [whole], next: 'cursor-2' } }) } });
    const { user } = await openPage(api);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await within(table()).findByText('Umbrella');
    expect(queryOf(sent(api, 'GET /subscription_histories').at(-1)!).get('next')).toBe('cursor-2');
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await within(table()).findByText('Acme');
  });

  it('searches once typing stops and shows the matches', async () => {
    const { user, api } = await openPage();
    await user.type(screen.getByRole('textbox', { name: 'Search payments' }), 'glo');
    await waitFor(() => expect(bodyRows()).toHaveLength(1));
    expect(within(table()).getByText('Globex')).toBeInTheDocument();
    expect(sent(api, 'GET /subscriptions/histories/search').map((request) => queryOf(request).get('query'))).toEqual(['glo']);
    expect(screen.getByText('1 match')).toBeInTheDocument();
  });

  it(`says '${PAYMENTS_FETCH_FAILURE}' when the list fails, and Try again asks again`, async () => {
    const api = paymentsApi({ overrides: { 'GET /subscription_histories': () => ({ status: 500 }) } });
    const user = userEvent.setup({ delay: null });
    renderApp({ path: '/payments', user: fullAccessUser, api });
    expect(await screen.findByRole('alert')).toHaveTextContent(PAYMENTS_FETCH_FAILURE);
    api.on('GET /subscription_histories', () => ({ status: 200, body: { items: [whole], next: null } }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await within(table()).findByText('Acme');
  });

  it('says so when there are no payments yet', async () => {
    renderApp({ path: '/payments', user: fullAccessUser, api: paymentsApi({ rows: [] }) });
    expect(await screen.findByText(/No payments yet/)).toBeInTheDocument();
  });
});

describe('the New payment drawer', () => {
  it('starts with the defaults: one month, recurring, one unit, today, the account’s currency; both buttons disabled', async () => {
    await openNewPayment();
    expect(field(newDrawer(), 'Months')).toHaveValue('1');
    expect(newDrawer().getByRole('combobox', { name: 'Item type' })).toHaveValue('Recurring');
    expect(field(newDrawer(), 'Units sold')).toHaveValue('1');
    expect(field(newDrawer(), 'Start date')).toHaveValue(typedDay());
    expect(newDrawer().getByRole('combobox', { name: 'Currency' })).toHaveValue('USD · US Dollar');
    expect(newDrawer().getByRole('button', { name: 'Create' })).toBeDisabled();
    expect(newDrawer().getByRole('button', { name: 'Create and add another' })).toBeDisabled();
  });

  it('shows the spec’s messages on the fields as the user types', async () => {
    const { user } = await openNewPayment();
    await user.click(newDrawer().getByText('New customer'));
    await user.type(field(newDrawer(), 'Customer name'), 'x');
    await user.clear(field(newDrawer(), 'Customer name'));
    expect(await newDrawer().findByText(PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE)).toBeInTheDocument();

    await user.type(field(newDrawer(), 'Total value'), '12');
    await user.clear(field(newDrawer(), 'Total value'));
    expect(await newDrawer().findByText(TOTAL_VALUE_REQUIRED_MESSAGE)).toBeInTheDocument();
    await user.type(field(newDrawer(), 'Total value'), '12x');
    expect(await newDrawer().findByText(VALUE_NOT_NUMBER_MESSAGE)).toBeInTheDocument();

    await user.clear(field(newDrawer(), 'Months'));
    await user.type(field(newDrawer(), 'Months'), '0');
    expect(await newDrawer().findByText(MINIMAL_VALUE_MESSAGE)).toBeInTheDocument();

    // More than 60 days back is outside the window.
    await user.clear(field(newDrawer(), 'Start date'));
    await user.type(field(newDrawer(), 'Start date'), typedDay(-61));
    await user.tab();
    expect(await newDrawer().findByText(INVALID_DATE_MESSAGE)).toBeInTheDocument();
    await user.clear(field(newDrawer(), 'Start date'));
    await user.type(field(newDrawer(), 'Start date'), typedDay(1));
    await user.tab();
    await waitFor(() => expect(newDrawer().queryByText(INVALID_DATE_MESSAGE)).not.toBeInTheDocument());
  });

  it('works out the monthly amount and the end date as the user types', async () => {
    const { user } = await openNewPayment();
    await user.clear(field(newDrawer(), 'Start date'));
    await user.type(field(newDrawer(), 'Start date'), typedDay());
    await user.type(field(newDrawer(), 'Total value'), '1000');
    await user.clear(field(newDrawer(), 'Months'));
    await user.type(field(newDrawer(), 'Months'), '3');
    expect(newDrawer().getByTestId('live-monthly-amount')).toHaveTextContent('$333.33');
    const [year, month, day] = isoDay().split('-').map(Number) as [number, number, number];
    const end = new Date(Date.UTC(year, month - 1 + 3, 1));
    const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
    const expected = `${String(Math.min(day, lastDay)).padStart(2, '0')}-${String(end.getUTCMonth() + 1).padStart(2, '0')}-${end.getUTCFullYear()}`;
    expect(newDrawer().getByTestId('live-end-date')).toHaveTextContent(expected);
  });

  it('creates for a new customer with Create and add another, keeps the customer for the next one, then Create closes the drawer', async () => {
    const { user, api } = await openNewPayment();
    await user.click(newDrawer().getByText('New customer'));
    await user.type(field(newDrawer(), 'Customer name'), 'Zeta Labs');
    await fillSubscription(user);
    await user.type(field(newDrawer(), 'Invoice number'), 'INV-9');
    const another = newDrawer().getByRole('button', { name: 'Create and add another' });
    await waitFor(() => expect(another).toBeEnabled());
    await user.click(another);

    await waitFor(() => expect(sent(api, 'PUT /subscriptions/history/upsert/:id')).toHaveLength(1));
    const [first] = sent(api, 'PUT /subscriptions/history/upsert/:id');
    expect(first!.params.id).toMatch(/^subh[A-Za-z0-9]{12}$/);
    expect(first!.body).toEqual({
      customer_name: 'Zeta Labs',
      started_at: isoDay(),
      duration_in_months: 12,
      total_value: 120_050,
      currency: 'USD',
      invoice_number: 'INV-9',
      items: [{ product_key: 'pro', type: 'recurring', quantity: 1 }],
      discount: null,
    });

    // The customer stays (now an existing one); the rest starts afresh.
    await waitFor(() => expect(field(newDrawer(), 'Total value')).toHaveValue(''));
    expect(newDrawer().getByRole('combobox', { name: 'Customer' })).toHaveValue('Zeta Labs');
    expect(field(newDrawer(), 'Invoice number')).toHaveValue('');
    expect(field(newDrawer(), 'Months')).toHaveValue('1');

    await fillSubscription(user, '300', '1');
    const create = newDrawer().getByRole('button', { name: 'Create' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New payment' })).not.toBeInTheDocument());
    const [, second] = sent(api, 'PUT /subscriptions/history/upsert/:id');
    expect(second!.params.id).not.toBe(first!.params.id);
    expect(second!.body).toMatchObject({ customer_id: 'c_new', total_value: 30_000, duration_in_months: 1 });
    expect(second!.body).not.toHaveProperty('customer_name');
    // The table is read again.
    await waitFor(() => expect(sent(api, 'GET /subscription_histories').length).toBeGreaterThan(1));
  });

  it('puts the server’s 422 messages on their fields and keeps what was typed', async () => {
    const api = paymentsApi({ overrides: { 'PUT /subscriptions/history/upsert/:id': () => apiErrors(422, { pointer: '/body/started_at', detail: INVALID_DATE_MESSAGE }, { pointer: '/body/items/0/quantity', detail: MINIMAL_VALUE_MESSAGE }) } });
    const { user } = await openNewPayment(api);
    await user.click(newDrawer().getByRole('combobox', { name: 'Customer' }));
    await user.type(newDrawer().getByRole('combobox', { name: 'Customer' }), 'Ac');
    await user.click(await screen.findByRole('option', { name: 'Acme' }));
    await fillSubscription(user);
    const create = newDrawer().getByRole('button', { name: 'Create' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);
    expect(await newDrawer().findByText(INVALID_DATE_MESSAGE)).toBeInTheDocument();
    expect(newDrawer().getByText(MINIMAL_VALUE_MESSAGE)).toBeInTheDocument();
    expect(field(newDrawer(), 'Total value')).toHaveValue('1200.50');
    expect(sent(api, 'PUT /subscriptions/history/upsert/:id')[0]!.body).toMatchObject({ customer_id: 'c1' });
  });

  it(`says '${PRODUCT_SEARCH_FAILURE_MESSAGE}' when products cannot be fetched, and a new product can still be named`, async () => {
    const api = paymentsApi({ overrides: { 'GET /product/search': () => ({ status: 500 }) } });
    const { user } = await openNewPayment(api);
    expect((await screen.findAllByText(PRODUCT_SEARCH_FAILURE_MESSAGE)).length).toBeGreaterThan(0);
    await user.type(newDrawer().getByRole('combobox', { name: 'Product' }), 'Enterprise');
    await user.click(await screen.findByRole('option', { name: '+ New product “Enterprise”' }));
    expect(newDrawer().getByRole('combobox', { name: 'Product' })).toHaveValue('Enterprise');
  });
});

describe('the payment edit drawer', () => {
  async function openEdit(api: FakeApi = paymentsApi()) {
    const opened = await openPage(api);
    await opened.user.click(within(table()).getByText('Acme'));
    await editDrawer().findByRole('button', { name: 'Save payment' });
    return opened;
  }

  it('opens a row prefilled and saves an edit with PUT /subscriptions/history/{id}', async () => {
    const { user, api } = await openEdit();
    expect(field(editDrawer(), 'Total value')).toHaveValue('1200.5');
    expect(field(editDrawer(), 'Months')).toHaveValue('12');
    expect(editDrawer().getByRole('combobox', { name: 'Product' })).toHaveValue('Pro plan');
    expect(field(editDrawer(), 'Invoice number')).toHaveValue('INV-1');
    await user.clear(field(editDrawer(), 'Total value'));
    await user.type(field(editDrawer(), 'Total value'), '2400');
    await user.click(editDrawer().getByRole('button', { name: 'Save payment' }));
    await waitFor(() => expect(sent(api, 'PUT /subscriptions/history/:id')).toHaveLength(1));
    const [edit] = sent(api, 'PUT /subscriptions/history/:id');
    expect(edit!.path).toBe(`/subscriptions/history/${whole.id}`);
    expect(edit!.body).toMatchObject({ total_value: 240_000, duration_in_months: 12, started_at: whole.started_at, customer_id: 'c1' });
  });

  it('saves the payment’s attribute values with segments, an emptied one as null', async () => {
    const { user, api } = await openEdit();
    const channel = await editDrawer().findByRole('textbox', { name: 'Sales channel' });
    await user.type(channel, 'Partner');
    await user.click(editDrawer().getByRole('button', { name: 'Save attributes' }));
    await waitFor(() => expect(sent(api, 'PUT /subscriptions/history/:id')).toHaveLength(1));
    expect(sent(api, 'PUT /subscriptions/history/:id')[0]!.body).toEqual({ segments: [{ id: 'oatt_channel', value: 'Partner' }] });
  });

  it('deletes after a confirmation and closes', async () => {
    const { user, api } = await openEdit();
    await user.click(editDrawer().getByRole('button', { name: 'Delete payment' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete payment' })).getByRole('button', { name: 'Delete payment' }));
    await waitFor(() => expect(sent(api, 'DELETE /subscriptions/history/:id')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /^Payment/ })).not.toBeInTheDocument());
  });

  it(`says '${REMOVE_PAYMENT_FAILURE_MESSAGE}' when the delete fails and stays open`, async () => {
    const { user } = await openEdit(paymentsApi({ overrides: { 'DELETE /subscriptions/history/:id': () => ({ status: 500 }) } }));
    await user.click(editDrawer().getByRole('button', { name: 'Delete payment' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete payment' })).getByRole('button', { name: 'Delete payment' }));
    expect(await screen.findByText(REMOVE_PAYMENT_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: /^Payment/ })).toBeInTheDocument();
  });
});
