import type { Payment } from '../../../models/payments';
import { fullAccessUser } from '../renderApp';
import { apiUser, createFakeApi, FAKE_API_TOKEN } from '../support/fakeApi';
import type { FakeApi, FakeHandler, FakeRequest } from '../support/fakeApi';

/** Contract-shaped answers of the payments page's calls (the issue 22 wire formats). */

export function payment(id: string, extra: Partial<Payment> = {}): Payment {
  return {
    id,
    customer: { id: 'c1', name: 'Acme' },
    customer_id: 'c1',
    invoice_number: 'INV-1',
    started_at: '2026-01-05',
    ended_at: '2027-01-05',
    duration_in_months: 12,
    total_value: 120_050,
    monthly_amount: 120_050 / 12,
    currency: 'USD',
    items: [{ product_key: 'pro', product_name: 'Pro plan', type: 'recurring', quantity: 1 }],
    discount: null,
    segments: [],
    latest_history_id: id,
    version: 1,
    source: 'manual',
    ...extra,
  };
}

/** A 15-day payment (about half a month) and an open-ended one. */
export const fractional = payment('subhFRACTIONAL01', {
  customer: { id: 'c2', name: 'Globex' },
  customer_id: 'c2',
  invoice_number: 'INV-2',
  started_at: '2026-02-01',
  ended_at: '2026-02-16',
  duration_in_months: 15 / (365 / 12),
  total_value: 30_000,
  monthly_amount: 30_000 / (15 / (365 / 12)),
});
export const ongoing = payment('subhONGOING00001', {
  customer: { id: 'c3', name: 'Initech' },
  customer_id: 'c3',
  invoice_number: null,
  started_at: '2026-03-01',
  ended_at: null,
  duration_in_months: null,
  total_value: null,
  monthly_amount: 5_000,
  currency: 'JPY',
});
export const whole = payment('subhWHOLEMONTHS1');

/** The query of a request (the fake API keeps paths; the client adds the URL as a header). */
export function queryOf(request: FakeRequest): URLSearchParams {
  return new URL(request.headers.get('x-test-url') ?? 'http://localhost/').searchParams;
}

/** Requests of a route ('PUT /subscriptions/history/:id' matches any id) that were not given up. */
export function sent(api: FakeApi, route: string): FakeRequest[] {
  const [method, pattern = ''] = route.split(' ');
  const path = new RegExp(`^${pattern.replace(/:[a-z_]+/gi, '[^/]+')}$`);
  return api.requests.filter((request) => request.method === method && path.test(request.path) && !request.signal.aborted);
}

export const PAYMENT_ATTRIBUTE = { id: 'oatt_channel', name: 'Sales channel', object: 'subscription_history', segment_id: null, created_at: '2026-01-01T00:00:00.000Z' };

/** The echo of a write: the body applied to the payment it names (or a new one). */
function written(id: string, body: Record<string, unknown>, before?: Payment): Payment {
  const base = before ?? payment(id, { customer: { id: 'c_new', name: String(body.customer_name ?? 'Acme') }, customer_id: String(body.customer_id ?? 'c_new') });
  const customerId = typeof body.customer_id === 'string' ? body.customer_id : base.customer_id;
  const segments = Array.isArray(body.segments) ? (body.segments as { id: string; value: string | null }[]).map((segment) => ({ ...segment, name: PAYMENT_ATTRIBUTE.name })) : base.segments;
  return { ...base, id, customer_id: customerId, customer: { ...base.customer, id: customerId }, segments, version: before ? before.version + 1 : 1 };
}

/** A fake API of the payments page: a page of payments, search, products, customers, writes. */
export function paymentsApi(options: { rows?: Payment[]; overrides?: Record<string, FakeHandler> } = {}): FakeApi {
  const rows = options.rows ?? [whole, fractional, ongoing];
  const api = createFakeApi({
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }),
    'GET /users': () => ({ status: 200, body: { items: [apiUser(fullAccessUser)] } }),
    'GET /business_reports/latest': () => ({ status: 200, body: { items: [] } }),
    'GET /account_settings': () => ({
      status: 200,
      body: {
        currency: 'USD',
        anonymous_access_allowed: false,
        churn_window_seconds: 0,
        take_exchange_rates_from: 'subscription_started_at',
        match_movements_by_currency: false,
        corrections_handling: 'change_original',
        used_currencies: ['USD', 'JPY'],
        account_exchange_rates: [],
      },
    }),
    'GET /subscription_histories': () => ({ status: 200, body: { items: rows, next: null } }),
    'GET /subscriptions/histories/search': (request) => {
      const query = (queryOf(request).get('query') ?? '').toLowerCase();
      return { status: 200, body: { items: rows.filter((row) => row.id.toLowerCase() === query || row.customer.name.toLowerCase().includes(query) || (row.invoice_number ?? '').toLowerCase().startsWith(query)) } };
    },
    'GET /product/search': () => ({ status: 200, body: { items: [{ key: 'pro', name: 'Pro plan' }, { key: 'basic', name: 'Basic plan' }] } }),
    'GET /customer/search': () => ({ status: 200, body: { items: [{ id: 'c1', name: 'Acme', public_id: null, parent_id: null, children_count: 0, include_in_calculations_by_default: true }] } }),
    'GET /object_attributes': () => ({ status: 200, body: { items: [PAYMENT_ATTRIBUTE] } }),
    'PUT /subscriptions/history/upsert/:id': ({ params, body }) => ({ status: 200, body: written(params.id ?? '', body as Record<string, unknown>) }),
    'PUT /subscriptions/history/:id': ({ params, body }) => ({ status: 200, body: written(params.id ?? '', body as Record<string, unknown>, rows.find((row) => row.id === params.id)) }),
    'DELETE /subscriptions/history/:id': () => ({ status: 204 }),
    ...options.overrides,
  });
  api.client.use({
    onRequest({ request }) {
      request.headers.set('x-test-url', request.url);
      return request;
    },
  });
  return api;
}

/**
 * mantine-datatable shows a column while `matchMedia(column.visibleMediaQuery ?? '')` matches;
 * the test setup's matchMedia matches nothing. Call in `beforeEach`: the empty query matches.
 */
export function matchEmptyMediaQuery(): void {
  const original = window.matchMedia;
  window.matchMedia = ((query: string) => ({ ...original(query), matches: query.trim() === '', media: query })) as typeof window.matchMedia;
}

/** Today in UTC as the form's date input takes it, DD-MM-YYYY, moved by `days`. */
export function typedDay(days = 0): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${String(date.getUTCDate()).padStart(2, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${date.getUTCFullYear()}`;
}

/** The same day as YYYY-MM-DD. */
export function isoDay(days = 0): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
