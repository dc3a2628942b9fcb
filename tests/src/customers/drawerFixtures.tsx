import { useState } from 'react';
import { vi } from 'vitest';
import { CustomerDrawer } from '../../../src/customers/CustomerDrawer';
import type { Customer, CustomerRow } from '../../../src/customers/customersApi';
import { apiErrors, createFakeApi, type FakeApi } from '../support/fakeApi';
import { fullAccessUser, renderWithProviders } from '../renderApp';

/** A customer as `GET /customers/{id}` answers it. */
export function customer(id: string, name: string, extra: Partial<Customer> = {}): Customer {
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

/** The contract's row of a customer (search, create, update and merge answers). */
export function row(c: Customer): CustomerRow & Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    public_id: c.public_id,
    parent_id: c.parent_id,
    children_count: c.children_ids.length,
    include_in_calculations_by_default: c.include_in_calculations_by_default,
    added_at: c.added_at,
    segments: c.segments,
    metrics: c.metrics,
    currency: c.currency,
  };
}

const figures = { customer_id: 'c1', currency: 'USD', included: true, mrr: 12_000, accrued_total: 100_000, one_time_accrued_total: 30_000, timeline: [] };

/**
 * A fake API over these customers that answers the drawer's reads and, as the contract says,
 * its changes: PUT updates the stored customer, DELETE removes it, merge removes the source,
 * search matches names containing the query.
 */
export function customersApi(customers: Customer[]): FakeApi {
  const byId = new Map(customers.map((c) => [c.id, c]));
  const find = (id: string | undefined) => byId.get(id ?? '');
  return createFakeApi({
    'GET /customers/:id': ({ params }) => {
      const found = find(params.id);
      return found ? { status: 200, body: found } : apiErrors(404, { detail: 'Customer not found' });
    },
    'GET /customer_metrics/:id': () => ({ status: 200, body: figures }),
    'GET /customers/:id/timeline': () => ({ status: 200, body: { items: [], limit: 100 } }),
    'GET /customer_segments': () => ({ status: 200, body: { items: [] } }),
    'POST /customer/show_batch': ({ body }) => ({ status: 200, body: { items: (body as { ids: string[] }).ids.map((id) => byId.get(id)).filter(Boolean) } }),
    'GET /customer/search': () => ({ status: 200, body: { items: [...byId.values()].map(row) } }),
    'PUT /customers/:id': ({ params, body }) => {
      const found = find(params.id);
      if (!found) return apiErrors(404, { detail: 'Customer not found' });
      const next = { ...found, ...(body as Partial<Customer>) };
      byId.set(found.id, next);
      return { status: 200, body: row(next) };
    },
    'POST /customers': ({ body }) => {
      const created = customer(`new${byId.size}`, (body as { name: string }).name);
      byId.set(created.id, created);
      return { status: 201, body: row(created) };
    },
    'DELETE /customers/:id': ({ params }) => {
      byId.delete(params.id ?? '');
      return { status: 204 };
    },
    'POST /customers/:id/merge': ({ params, body }) => {
      const target = find(params.id);
      byId.delete((body as { source_id: string }).source_id);
      return target ? { status: 200, body: row(target) } : apiErrors(404, { detail: 'Customer not found' });
    },
  });
}

/** The drawer as a page renders it: closing clears the id (`onClose` is also a spy). */
export function renderDrawer(api: FakeApi, customerId: string) {
  const onClose = vi.fn();
  function Page() {
    const [id, setId] = useState<string | null>(customerId);
    return (
      <CustomerDrawer
        customerId={id}
        onClose={() => {
          onClose();
          setId(null);
        }}
        currency="USD"
      />
    );
  }
  const view = renderWithProviders(<Page />, { user: fullAccessUser, api });
  return { ...view, onClose };
}

/** Every request URL the client sent (the fake API records paths only). */
export function recordUrls(api: FakeApi): URL[] {
  const urls: URL[] = [];
  api.client.use({
    onRequest({ request }) {
      urls.push(new URL(request.url));
      return request;
    },
  });
  return urls;
}
