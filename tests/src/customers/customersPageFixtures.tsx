import { Route } from 'wouter';
import type { ColumnDefinition } from '../../../machines/columnRecalculation/types';
import type { CustomerColumn, CustomerRow, CustomersPageAnswer } from '../../../src/customers/customerListApi';
import { LiveChannelsProvider } from '../../../src/cable/LiveChannelsContext';
import { CustomersPage } from '../../../src/pages/CustomersPage';
import { createFakeLiveChannels } from '../cable/fakeLiveChannels';
import { apiUser, createFakeApi, FAKE_API_TOKEN, type FakeApi, type FakeRequest } from '../support/fakeApi';
import { fullAccessUser, renderWithProviders } from '../renderApp';

/** Contract-shaped answers of the customers page's calls (docs: the issue 20 contract). */

export const DEFINITION_ID = 'crmd_1';

export function definition(status: ColumnDefinition['recalculation_status'], extra: Partial<ColumnDefinition> = {}): ColumnDefinition {
  return {
    id: DEFINITION_ID,
    name: 'Bookings per MRR',
    formula: 'tcv / mrr',
    variables: [
      { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: 2025, end_month: 12, end_year: 2025 },
      { fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: 12, end_year: 2025 },
    ],
    recalculation_status: status,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
    ...extra,
  };
}

export function columns(calculated: ColumnDefinition | null = definition('finished')): CustomerColumn[] {
  return [
    { id: 'name', name: 'Name', source: 'static', visible: true, sortable: true, data_type: 'string' },
    { id: 'public_id', name: 'Customer ID', source: 'static', visible: true, sortable: true, data_type: 'string' },
    { id: 'added_at', name: 'Added at', source: 'static', visible: true, sortable: true, data_type: 'date' },
    { id: 'mrr', name: 'MRR', source: 'definition', visible: true, sortable: true, data_type: 'money' },
    { id: 'total', name: 'Total', source: 'definition', visible: true, sortable: true, data_type: 'money' },
    { id: 'customer_segment:seg_country', name: 'Country', source: 'customer_segment', visible: true, sortable: true, data_type: 'string' },
    ...(calculated ? [{ id: `definition:${calculated.id}`, name: calculated.name, source: 'definition' as const, visible: true, sortable: true, data_type: 'number' as const, definition: calculated }] : []),
  ];
}

export function row(id: string, name: string, extra: { mrr?: number; calculated?: number | null; country?: string | null } = {}): CustomerRow {
  return {
    id,
    name,
    public_id: `pub_${id}`,
    parent_id: null,
    children_count: 0,
    include_in_calculations_by_default: true,
    added_at: '2025-01-05T09:00:00.000Z',
    segments: [{ segment: { id: 'seg_country', name: 'Country', time_sensitive: false }, value: extra.country === undefined ? 'PL' : extra.country }],
    metrics: [
      { kind: 'mrr', value: extra.mrr ?? 12_000 },
      { kind: 'total', value: 90_000 },
      { definition_id: DEFINITION_ID, value: extra.calculated === undefined ? null : extra.calculated },
    ],
    currency: 'USD',
  };
}

export function page(items: CustomerRow[], extra: Partial<CustomersPageAnswer> = {}): CustomersPageAnswer {
  return { items, total_count: items.length, current_range: items.length ? { from: 1, to: items.length } : { from: 0, to: 0 }, next: null, prev: null, ...extra };
}

/** The query of a request (the fake API keeps paths; the test client adds the URL as a header). */
export function queryOf(request: FakeRequest): URLSearchParams {
  return new URL(request.headers.get('x-test-url') ?? 'http://localhost/').searchParams;
}

/** A fake API of the page's calls: the user's columns, one page of customers, the search. */
export function customersApi(options: { columns?: CustomerColumn[]; rows?: CustomerRow[] } = {}): FakeApi {
  const userColumns = options.columns ?? columns();
  const rows = options.rows ?? [row('c1', 'Acme', { calculated: 1.5 }), row('c2', 'Globex', { mrr: 5_000, country: null })];
  const api = createFakeApi({
    'GET /users/me': () => ({ status: 200, body: { user: { ...apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }), customer_columns: userColumns } } }),
    'GET /customers': () => ({ status: 200, body: page(rows) }),
    'GET /customer/search': (request) => ({ status: 200, body: { items: rows.filter((r) => r.name.toLowerCase().includes((queryOf(request).get('query') ?? '').toLowerCase())) } }),
    'GET /customers/:id': ({ params }) => {
      const found = rows.find((r) => r.id === params.id);
      return found
        ? { status: 200, body: { ...found, children_ids: [], deleted: false, links: [] } }
        : { status: 404, body: { errors: [{ detail: 'Customer not found', status: '404' }] } };
    },
    'GET /customer_metrics/:id': () => ({ status: 200, body: { customer_id: 'c1', currency: 'USD', included: true, mrr: 12_000, accrued_total: 90_000, one_time_accrued_total: 0, timeline: [] } }),
    'GET /customers/:id/timeline': () => ({ status: 200, body: { items: [], limit: 100 } }),
    'GET /customer_related_metric_definitions': () => ({ status: 200, body: { items: [] } }),
  });
  api.client.use({
    onRequest({ request }) {
      request.headers.set('x-test-url', request.url);
      return request;
    },
  });
  return api;
}

/** The customers page at a path, over the fake API and fake live channels. */
export function renderCustomersPage(api: FakeApi = customersApi(), path = '/customers') {
  const live = createFakeLiveChannels();
  const view = renderWithProviders(
    <LiveChannelsProvider channels={live.channels}>
      <Route path="/customers/:customerId?" component={CustomersPage} />
    </LiveChannelsProvider>,
    { user: fullAccessUser, api, path },
  );
  return { ...view, live };
}

/** The requests of a route that were not given up (StrictMode and superseded reads abort some). */
export function sent(api: FakeApi, route: string): FakeRequest[] {
  return api.requestsTo(route).filter((request) => !request.signal.aborted);
}

/**
 * mantine-datatable shows a column while `matchMedia(column.visibleMediaQuery ?? '')` matches;
 * the empty query matches every screen in a browser, but the test setup's matchMedia matches
 * nothing. Call in `beforeEach`: the empty query matches, the rest (colour scheme, breakpoints) still do not.
 */
export function matchEmptyMediaQuery(): void {
  const original = window.matchMedia;
  window.matchMedia = ((query: string) => ({ ...original(query), matches: query.trim() === '', media: query })) as typeof window.matchMedia;
}
