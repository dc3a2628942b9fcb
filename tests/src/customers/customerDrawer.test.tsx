import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { CustomerDrawer } from '../../../src/customers/CustomerDrawer';
import { createCustomerServices, type Customer, type CustomerPayment, type CustomerServices } from '../../../src/customers/customersApi';
import { apiErrors, createFakeApi, type FakeApi } from '../support/fakeApi';
import { fullAccessUser, renderWithProviders } from '../renderApp';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

function customer(id: string, name: string, extra: Partial<Customer> = {}): Customer {
  return {
    id,
    name,
    public_id: null,
    parent_id: null,
    children_ids: [],
    include_in_calculations_by_default: true,
    deleted: false,
    segments: [],
    links: [],
    metrics: [
      { kind: 'mrr', value: 10_000 },
      { kind: 'total', value: 90_000 },
    ],
    currency: 'USD',
    added_at: '2025-01-01T00:00:00Z',
    ...extra,
  };
}

function payment(k: number, start: string): CustomerPayment {
  return {
    id: `subh${String(k).padStart(12, '0')}`,
    customer_id: 'c1',
    started_at: start,
    ended_at: start,
    duration_in_months: 1,
    total_value: 10_000,
    monthly_amount: 10_000,
    currency: 'USD',
    original_currency: 'USD',
    original_total_value: 10_000,
    invoice_number: `INV-${k}`,
    items: [{ product_key: 'pro', type: 'recurring', quantity: 1 }],
  };
}

const figures = { customer_id: 'c1', currency: 'USD', included: true, mrr: 12_000, accrued_total: 100_000, one_time_accrued_total: 30_000, timeline: [{ date: '2026-01-01', metrics: { mrr: 12_000, recognized_revenue: 12_000, one_time_revenue: 0, accrued_total: 100_000, one_time_accrued_total: 30_000 } }] };

/** A fake API of the drawer's calls over these customers; timelines answer `payments` in the order asked, cut at the limit. */
function drawerApi(customers: Customer[], payments: CustomerPayment[] = [payment(1, '2025-06-01'), payment(2, '2025-12-01')]): FakeApi {
  const byId = new Map(customers.map((c) => [c.id, c]));
  return createFakeApi({
    'GET /customers/:id': ({ params }) => {
      const found = byId.get(params.id ?? '');
      return found ? { status: 200, body: found } : apiErrors(404, { detail: 'Customer not found' });
    },
    'GET /customer_metrics/:id': () => ({ status: 200, body: figures }),
    'GET /customers/:id/timeline': () => ({ status: 200, body: { items: payments, limit: 100 } }),
    'POST /customer/show_batch': ({ body }) => ({ status: 200, body: { items: (body as { ids: string[] }).ids.map((id) => byId.get(id)).filter(Boolean) } }),
  });
}

/** The drawer's payments call with a recorded query (the fake API keeps paths only). */
function recordingServices(api: FakeApi, queries: Record<string, unknown>[]): CustomerServices {
  const services = createCustomerServices(api.client);
  return {
    ...services,
    payments: (id, options) => {
      queries.push({ id, ...options });
      return services.payments(id, options);
    },
  };
}

function renderDrawer(api: FakeApi, customerId: string | null, services?: CustomerServices) {
  return renderWithProviders(<CustomerDrawer customerId={customerId} onClose={() => {}} currency="USD" {...(services ? { services } : {})} />, { user: fullAccessUser, api });
}

describe('CustomerDrawer', () => {
  it('shows the customer’s summary numbers, revenue chart and payments, newest first by default', async () => {
    const queries: Record<string, unknown>[] = [];
    const api = drawerApi([customer('c1', 'Acme', { segments: [{ segment: { id: 's1', name: 'Country', time_sensitive: false }, value: 'PL' }] })]);
    renderDrawer(api, 'c1', recordingServices(api, queries));
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    expect(await within(drawer).findByRole('group', { name: 'MRR' })).toHaveTextContent('$120');
    expect(within(drawer).getByRole('group', { name: 'Total revenue' })).toHaveTextContent('$1,300');
    const attributes = await within(drawer).findByRole('table', { name: 'Attributes' });
    expect(within(attributes).getByRole('row', { name: /Country PL/ })).toBeInTheDocument();
    expect(within(drawer).getByRole('figure', { name: 'Revenue timeline' })).toBeInTheDocument();
    const table = await within(drawer).findByRole('table', { name: 'Payments' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    // (StrictMode runs the effect twice: the same call each time.)
    expect(new Set(queries.map((query) => JSON.stringify(query)))).toEqual(new Set([JSON.stringify({ id: 'c1', order: 'desc', limit: 100, currency: 'USD' })]));
    // No more than the two there are: nothing to show all of.
    expect(within(drawer).queryByRole('button', { name: 'Show all payments' })).not.toBeInTheDocument();
  });

  it('remembers the payments order in this browser', async () => {
    const user = userEvent.setup({ delay: null });
    const queries: Record<string, unknown>[] = [];
    const api = drawerApi([customer('c1', 'Acme')]);
    const view = renderDrawer(api, 'c1', recordingServices(api, queries));
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    const sort = await within(drawer).findByRole('button', { name: 'Started at, newest first: show oldest first' });
    await user.click(sort);
    await waitFor(() => expect(queries.at(-1)).toMatchObject({ order: 'asc' }));
    expect(await within(drawer).findByRole('columnheader', { name: /Started at/ })).toHaveAttribute('aria-sort', 'ascending');
    view.unmount();

    const again: Record<string, unknown>[] = [];
    renderDrawer(api, 'c1', recordingServices(api, again));
    await screen.findByRole('button', { name: 'Started at, oldest first: show newest first' });
    expect(again[0]).toMatchObject({ order: 'asc' });
  });

  it('offers “Show all payments” when as many payments came as the limit, and asks for all', async () => {
    const user = userEvent.setup({ delay: null });
    const queries: Record<string, unknown>[] = [];
    const hundred = Array.from({ length: 100 }, (_, k) => payment(k, `2025-01-${String((k % 28) + 1).padStart(2, '0')}`));
    const api = drawerApi([customer('c1', 'Acme')], hundred);
    renderDrawer(api, 'c1', recordingServices(api, queries));
    const button = await screen.findByRole('button', { name: 'Show all payments' });
    await user.click(button);
    await waitFor(() => expect(queries.at(-1)).toMatchObject({ limit: 10_000 }));
  });

  it('links the parent, which opens in the drawer, and lists the children', async () => {
    const user = userEvent.setup({ delay: null });
    const kids = Array.from({ length: 150 }, (_, k) => customer(`kid${k}`, `Kid ${k}`, { parent_id: 'p' }));
    const api = drawerApi([customer('c1', 'Acme', { parent_id: 'p' }), customer('p', 'Holding', { children_ids: kids.map((kid) => kid.id) }), ...kids]);
    renderDrawer(api, 'c1');
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    await user.click(await within(drawer).findByRole('button', { name: 'Holding' }));
    const parent = await screen.findByRole('dialog', { name: /Details: Holding/ });
    expect(await within(parent).findByRole('heading', { name: '150 children' })).toBeInTheDocument();
    const children = await within(parent).findByRole('table', { name: 'Children' });
    expect(within(children).getAllByRole('row')).toHaveLength(151);
    // In batches of 100 ids (StrictMode asks twice).
    const batches = api.requestsTo('POST /customer/show_batch').map((r) => (r.body as { ids: string[] }).ids);
    expect(new Set(batches.map((ids) => ids.length))).toEqual(new Set([100, 50]));
    expect(new Set(batches.flat())).toEqual(new Set(kids.map((kid) => kid.id)));
    await user.click(within(children).getByRole('button', { name: 'Kid 7' }));
    expect(await screen.findByRole('dialog', { name: /Details: Kid 7/ })).toBeInTheDocument();
  });

  it('tells when the parent or the children cannot be fetched', async () => {
    const api = drawerApi([customer('c1', 'Acme', { parent_id: 'gone', children_ids: ['k1'] })]);
    api.on('POST /customer/show_batch', () => apiErrors(500, { detail: 'boom' }));
    renderDrawer(api, 'c1');
    expect(await screen.findByText('We could not fetch parent customer')).toBeInTheDocument();
    expect(await screen.findByText('We could not fetch children customers.')).toBeInTheDocument();
  });

  it('maximises and restores', async () => {
    const user = userEvent.setup({ delay: null });
    renderDrawer(drawerApi([customer('c1', 'Acme')]), 'c1');
    const maximise = await screen.findByRole('button', { name: 'Maximise drawer' });
    expect(maximise).toHaveAttribute('aria-pressed', 'false');
    await user.click(maximise);
    expect(screen.getByRole('button', { name: 'Restore drawer' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('is closed without a customer', () => {
    function Closed() {
      const [id] = useState<string | null>(null);
      return <CustomerDrawer customerId={id} onClose={() => {}} />;
    }
    renderWithProviders(<Closed />, { user: fullAccessUser, api: drawerApi([]) });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('CustomerDrawer requests', () => {
  it('aborts the payments request of an order the user left before it answered, and shows the order asked last', async () => {
    const user = userEvent.setup({ delay: null });
    const api = drawerApi([customer('c1', 'Acme')]);
    renderDrawer(api, 'c1');
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    await within(drawer).findByRole('table', { name: 'Payments' });

    api.hold('GET /customers/:id/timeline');
    await user.click(within(drawer).getByRole('button', { name: 'Started at, newest first: show oldest first' }));
    await waitFor(() => expect(api.waiting('GET /customers/:id/timeline')).toBe(1));
    const oldestFirst = api.requestsTo('GET /customers/c1/timeline').at(-1);
    // Back to newest first before the oldest-first answer came: that request is given up.
    await user.click(within(drawer).getByRole('button', { name: 'Started at, oldest first: show newest first' }));
    await waitFor(() => expect(oldestFirst?.signal.aborted).toBe(true));
    await waitFor(() => expect(api.waiting('GET /customers/:id/timeline')).toBe(1));
    act(() => api.release('GET /customers/:id/timeline', { status: 200, body: { items: [payment(3, '2026-01-01')], limit: 100 } }));

    const table = within(drawer).getByRole('table', { name: 'Payments' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
    expect(within(table).getByText('INV-3')).toBeInTheDocument();
    expect(within(drawer).getByRole('columnheader', { name: /Started at/ })).toHaveAttribute('aria-sort', 'descending');
    expect(api.waiting('GET /customers/:id/timeline')).toBe(0);
  });
});
