import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SEGMENT_SUGGESTIONS_FAILURE_MESSAGE, SEGMENT_VALUE_UPDATE_FAILURE_MESSAGE } from '../../../models/customers';
import { DEFAULT_SUCCESS_TOAST } from '../../../src/notifications/toast';
import { apiErrors } from '../support/fakeApi';
import { customer, customersApi, recordUrls, renderDrawer } from './drawerFixtures';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const plan = { id: 's1', name: 'Plan', object_attribute_id: 'oa1', value_source: 'parent_and_children', time_sensitive: true };
const country = { id: 's2', name: 'Country', object_attribute_id: 'oa2', value_source: 'parent_and_children', time_sensitive: false };

/** Acme with a plan now; the account also has a country segment Acme has no value of. */
function segmentsApi() {
  const api = customersApi([customer('c1', 'Acme', { segments: [{ segment: { id: 's1', name: 'Plan', time_sensitive: true }, value: 'Growth' }] })]);
  api.on('GET /customer_segments', () => ({ status: 200, body: { items: [country, plan] } }));
  api.on('GET /customer_segments/:id/search_values', () => ({ status: 200, body: { items: [{ value: 'Growth' }, { value: 'Grow+' }] } }));
  // Deliberately not in order: the dialog shows them newest first.
  const history = [
    { year: 2025, month: 11, value: 'Starter' },
    { year: 2026, month: 2, value: 'Growth' },
    { year: 2025, month: 6, value: null },
  ];
  api.on('GET /customer_segment_values/:customerId/:segmentId', () => ({ status: 200, body: { items: history } }));
  api.on('PUT /customer_segment_values/:customerId/:segmentId', ({ body }) => ({ status: 200, body: { items: [body, ...history] } }));
  return api;
}

async function openEditor(name: string) {
  const user = userEvent.setup({ delay: null });
  const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
  const attributes = await within(drawer).findByRole('table', { name: 'Attributes' });
  await waitFor(() => expect(within(attributes).getAllByRole('row')).toHaveLength(2));
  await user.click(within(attributes).getByRole('button', { name: `Edit ${name}` }));
  return { user, dialog: await screen.findByRole('dialog', { name: `Edit ${name}` }) };
}

describe('the customer’s attributes', () => {
  it('lists every segment of the account with the customer’s value, – where it has none', async () => {
    renderDrawer(segmentsApi(), 'c1');
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    const attributes = await within(drawer).findByRole('table', { name: 'Attributes' });
    await waitFor(() => expect(within(attributes).getAllByRole('row').map((row) => row.textContent)).toEqual(['Country–', 'PlanmonthlyGrowth']));
  });

  it('asks for suggestions once typing stops (one request for the text typed)', async () => {
    const api = segmentsApi();
    const urls = recordUrls(api);
    renderDrawer(api, 'c1');
    const { user, dialog } = await openEditor('Plan');
    const value = within(dialog).getByRole('combobox', { name: 'Value' });
    await user.click(value);
    // Three keystrokes well within the debounce (typed at once, whatever the machine's speed).
    for (const text of ['g', 'gr', 'gro']) fireEvent.change(value, { target: { value: text } });
    const asked = () => urls.filter((url) => url.pathname.endsWith('/customer_segments/s1/search_values')).map((url) => url.searchParams.get('query'));
    await waitFor(() => expect(asked().filter((query) => query === 'gro')).toHaveLength(1));
    expect(await screen.findByRole('option', { name: 'Grow+' }, { timeout: 5_000 })).toBeInTheDocument();
    expect(asked().filter((query) => query === 'g' || query === 'gr')).toEqual([]);
    expect(urls.find((url) => url.searchParams.get('query') === 'gro')?.searchParams.get('limit')).toBe('10');
  });

  it('says when the suggestions cannot be fetched', async () => {
    const api = segmentsApi();
    api.on('GET /customer_segments/:id/search_values', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    await openEditor('Plan');
    expect(await screen.findByText(SEGMENT_SUGGESTIONS_FAILURE_MESSAGE('Plan'))).toBeInTheDocument();
  });

  it('shows a time-sensitive segment’s history newest first and saves the value from the month chosen', async () => {
    const api = segmentsApi();
    renderDrawer(api, 'c1');
    const { user, dialog } = await openEditor('Plan');
    const history = await within(dialog).findByRole('table', { name: 'History' });
    expect(within(history).getAllByRole('row').slice(1).map((row) => row.textContent)).toEqual(['Feb 2026latestGrowth', 'Nov 2025Starter', 'Jun 2025–']);

    const value = within(dialog).getByRole('combobox', { name: 'Value' });
    await user.clear(value);
    await user.type(value, 'Enterprise');
    await user.click(within(dialog).getByRole('combobox', { name: 'From month' }));
    await user.click(await screen.findByRole('option', { name: 'Mar' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'From year' }));
    await user.click(await screen.findByRole('option', { name: '2026' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.requestsTo('PUT /customer_segment_values/c1/s1').map((r) => r.body)).toEqual([{ year: 2026, month: 3, value: 'Enterprise' }]));
    expect(await screen.findByText(DEFAULT_SUCCESS_TOAST)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Plan' })).not.toBeInTheDocument());
  });

  it('saves a segment that is not time-sensitive for the current month, without history', async () => {
    const api = segmentsApi();
    renderDrawer(api, 'c1');
    const { user, dialog } = await openEditor('Country');
    expect(within(dialog).queryByRole('table', { name: 'History' })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('combobox', { name: 'From month' })).not.toBeInTheDocument();
    await user.type(within(dialog).getByRole('combobox', { name: 'Value' }), 'PL');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const now = new Date();
    await waitFor(() => expect(api.requestsTo('PUT /customer_segment_values/c1/s2').map((r) => r.body)).toEqual([{ year: now.getFullYear(), month: now.getMonth() + 1, value: 'PL' }]));
    expect(api.requestsTo('GET /customer_segment_values/c1/s2')).toHaveLength(0);
  });

  it('says the value could not be saved and keeps what was typed', async () => {
    const api = segmentsApi();
    api.on('PUT /customer_segment_values/:customerId/:segmentId', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    const { user, dialog } = await openEditor('Country');
    await user.type(within(dialog).getByRole('combobox', { name: 'Value' }), 'PL');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(SEGMENT_VALUE_UPDATE_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(within(screen.getByRole('dialog', { name: 'Edit Country' })).getByRole('combobox', { name: 'Value' })).toHaveValue('PL');
  });
});
