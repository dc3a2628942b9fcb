import type { IncomingMessage } from 'node:http';
import { FaultInjector, listenFake } from './server';
import type { FakeProvider } from './types';

/**
 * A fake Chargebee API v2 (https://apidocs.chargebee.com/docs/api): `GET /{site}/api/v2/{customers,
 * subscriptions, invoices, coupons}` as Chargebee answers them: HTTP Basic auth with the API key
 * as the user name, `limit` (at most 100) and `offset` / `next_offset` (opaque), lists of
 * `{customer: {...}}` entries, filters `updated_at[after]`, `id[in]` (a JSON array),
 * `include_deleted`, `sort_by[asc]=updated_at`; errors `{message, type, api_error_code,
 * http_status_code}` (a wrong key is 401 api_authentication_failed). Any site works.
 *
 * Controls (in process) and their HTTP twins for e2e (another process):
 * - `add({customers, subscriptions, invoices, coupons})` / POST /__fake/data (objects in Chargebee's shape; missing fields filled in)
 * - `seed(count)` / POST /__fake/seed {customers}: that many customers, each with a monthly subscription and a paid invoice
 * - `rateLimit(count, retryAfterSeconds)` / POST /__fake/rate_limit {count, retry_after}: the next calls answer 429
 * - `failNext(count, status)` / POST /__fake/fail {count, status}: the next calls answer that 5xx
 * - `delay(ms)` / POST /__fake/delay {ms}: every list answer waits that long (to watch a sync's percent)
 * - `reset()` / POST /__fake/reset
 */

export const CHARGEBEE_API_KEY = 'test_chargebee_key';

type Json = Record<string, unknown>;

export interface FakeChargebeeData {
  customers?: Json[];
  subscriptions?: Json[];
  invoices?: Json[];
  coupons?: Json[];
}

export interface FakeChargebee extends FakeProvider {
  add(data: FakeChargebeeData): void;
  seed(customers: number, options?: { start?: string; amount?: number; currency?: string }): void;
  rateLimit(count: number, retryAfterSeconds?: number): void;
  failNext(count: number, status?: number): void;
  delay(ms: number): void;
  reset(): void;
  /** Every API call received (path and query), oldest first. */
  readonly calls: { path: string; query: URLSearchParams }[];
}

const RESOURCES = { customers: 'customer', subscriptions: 'subscription', invoices: 'invoice', coupons: 'coupon' } as const;
type Resource = keyof typeof RESOURCES;

async function bodyOf(request: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Json);
}

const unix = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);
const addMonths = (day: string, months: number) => {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
};

/** Data shaped as Chargebee's: `seed` and the tests' fixtures. */
export function fakeCustomer(id: string, company: string, updatedAt = unix('2024-01-01')): Json {
  return { id, object: 'customer', first_name: 'Pat', last_name: 'Lee', email: `${id}@example.com`, company, auto_collection: 'on', net_term_days: 0, allow_direct_debit: false, created_at: updatedAt, taxability: 'taxable', updated_at: updatedAt, pii_cleared: 'active', channel: 'web', resource_version: updatedAt * 1000, deleted: false, card_status: 'valid', promotional_credits: 0, refundable_credits: 0, excess_payments: 0, unbilled_charges: 0, preferred_currency_code: 'USD' };
}

export function fakeSubscription(id: string, customerId: string, options: { period?: number; unit?: 'day' | 'week' | 'month' | 'year'; currency?: string; updatedAt?: number } = {}): Json {
  const updatedAt = options.updatedAt ?? unix('2024-01-01');
  return { id, object: 'subscription', customer_id: customerId, billing_period: options.period ?? 1, billing_period_unit: options.unit ?? 'month', status: 'active', currency_code: options.currency ?? 'USD', created_at: updatedAt, started_at: updatedAt, updated_at: updatedAt, resource_version: updatedAt * 1000, deleted: false, subscription_items: [{ item_price_id: 'pro-USD-monthly', item_type: 'plan', quantity: 1, unit_price: 5000, amount: 5000 }] };
}

/** A paid invoice of one plan line over [from, to). */
export function fakeInvoice(
  id: string,
  customerId: string,
  options: { from: string; to: string; amount: number; subscriptionId?: string; currency?: string; itemPriceId?: string; entityType?: string; status?: string; couponId?: string; discount?: number; metered?: boolean; updatedAt?: number },
): Json {
  const updatedAt = options.updatedAt ?? unix(options.from);
  const lineId = `li_${id}`;
  const discount = options.discount ?? 0;
  return {
    id,
    object: 'invoice',
    customer_id: customerId,
    subscription_id: options.subscriptionId,
    recurring: true,
    status: options.status ?? 'paid',
    price_type: 'tax_exclusive',
    date: unix(options.from),
    paid_at: unix(options.from),
    total: options.amount - discount,
    amount_paid: options.amount - discount,
    currency_code: options.currency ?? 'USD',
    updated_at: updatedAt,
    resource_version: updatedAt * 1000,
    deleted: false,
    line_items: [
      {
        id: lineId,
        object: 'line_item',
        subscription_id: options.subscriptionId,
        date_from: unix(options.from),
        date_to: unix(options.to),
        unit_amount: options.amount,
        quantity: 1,
        amount: options.amount,
        pricing_model: 'flat_fee',
        is_taxed: false,
        tax_amount: 0,
        discount_amount: discount,
        item_level_discount_amount: discount,
        metered: options.metered ?? false,
        description: options.itemPriceId ?? 'Pro Monthly',
        entity_type: options.entityType ?? 'plan_item_price',
        entity_id: options.itemPriceId ?? 'pro-USD-monthly',
        customer_id: customerId,
      },
    ],
    line_item_discounts: discount > 0 ? [{ line_item_id: lineId, discount_type: 'item_level_coupon', coupon_id: options.couponId, entity_id: options.couponId, discount_amount: discount }] : [],
  };
}

export function fakeCoupon(id: string, durationType: 'one_time' | 'forever' | 'limited_period', options: { name?: string; months?: number } = {}): Json {
  return { id, object: 'coupon', name: options.name ?? id, discount_type: 'percentage', discount_percentage: 10, duration_type: durationType, ...(options.months ? { period: options.months, period_unit: 'month', duration_month: options.months } : {}), status: 'active', apply_on: 'each_specified_item', created_at: unix('2023-01-01'), updated_at: unix('2023-01-01'), resource_version: 1 };
}

export async function startFakeChargebee(): Promise<FakeChargebee> {
  const data: Record<Resource, Json[]> = { customers: [], subscriptions: [], invoices: [], coupons: [] };
  const faults = new FaultInjector();
  const calls: { path: string; query: URLSearchParams }[] = [];

  const add = (input: FakeChargebeeData) => {
    for (const resource of Object.keys(RESOURCES) as Resource[]) {
      for (const object of input[resource] ?? []) {
        const index = data[resource].findIndex((existing) => existing.id === object.id);
        if (index >= 0) data[resource][index] = object;
        else data[resource].push(object);
      }
    }
  };

  const seed = (count: number, options: { start?: string; amount?: number; currency?: string } = {}) => {
    const start = options.start ?? '2024-01-01';
    const customers: Json[] = [];
    const subscriptions: Json[] = [];
    const invoices: Json[] = [];
    const base = data.customers.length;
    for (let k = 0; k < count; k++) {
      const id = `cust_${base + k + 1}`;
      customers.push(fakeCustomer(id, `Company ${base + k + 1}`, unix(start) + k));
      subscriptions.push(fakeSubscription(`sub_${base + k + 1}`, id, { currency: options.currency }));
      invoices.push(fakeInvoice(`inv_${base + k + 1}`, id, { from: start, to: addMonths(start, 1), amount: options.amount ?? 5000, subscriptionId: `sub_${base + k + 1}`, currency: options.currency, updatedAt: unix(start) + k }));
    }
    add({ customers, subscriptions, invoices });
  };

  const reset = () => {
    for (const resource of Object.keys(RESOURCES) as Resource[]) data[resource] = [];
    faults.reset();
    calls.length = 0;
  };

  const fake = await listenFake(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers }).end(JSON.stringify(body));
    };
    const error = (status: number, type: string, code: string, message: string) => send(status, { message, type, api_error_code: code, http_status_code: status });
    if (request.method === 'POST' && url.pathname.startsWith('/__fake/')) {
      const body = await bodyOf(request);
      if (url.pathname === '/__fake/data') add(body as FakeChargebeeData);
      else if (url.pathname === '/__fake/seed') seed(Number(body.customers ?? 1), { start: body.start as string | undefined, amount: body.amount as number | undefined, currency: body.currency as string | undefined });
      else if (faults.control(url.pathname, body)) {
        // a fault injected
      } else if (url.pathname === '/__fake/reset') reset();
      else return send(404, { message: 'Not found' });
      return send(200, { ok: true });
    }
    const match = /^\/([^/]+)\/api\/v2\/(customers|subscriptions|invoices|coupons)$/.exec(url.pathname);
    if (!match) return error(404, 'invalid_request', 'resource_not_found', 'Sorry, we couldn\'t find that resource');
    if (request.method !== 'GET') return error(405, 'invalid_request', 'method_not_supported', 'This method is not supported');
    calls.push({ path: url.pathname, query: url.searchParams });
    const fault = faults.next();
    if (fault?.status === 429) {
      return send(429, { message: 'Sorry, access has been blocked temporarily due to request count exceeding acceptable limits.', type: 'operation_failed', api_error_code: 'api_request_limit_exceeded', http_status_code: 429 }, { 'retry-after': String(fault.retryAfter) });
    }
    if (fault) return error(fault.status, 'internal_temporary_error', 'internal_temporary_error', 'Sorry, the server is currently unable to handle the request.');
    const authorization = request.headers.authorization ?? '';
    const user = authorization.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0] : '';
    if (user !== CHARGEBEE_API_KEY) return error(401, 'invalid_request', 'api_authentication_failed', 'Sorry, authentication failed. Invalid api key');
    await faults.wait();

    const resource = match[2] as Resource;
    const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 10) || 10));
    const offset = Number(Buffer.from(url.searchParams.get('offset') ?? '', 'base64').toString('utf8') || 0);
    let rows = data[resource];
    const after = url.searchParams.get('updated_at[after]');
    if (after !== null) rows = rows.filter((row) => Number(row.updated_at ?? 0) > Number(after));
    const ids = url.searchParams.get('id[in]');
    if (ids !== null) {
      const wanted = new Set(JSON.parse(ids) as string[]);
      rows = rows.filter((row) => wanted.has(String(row.id)));
    }
    if (url.searchParams.get('include_deleted') !== 'true') rows = rows.filter((row) => row.deleted !== true);
    if (url.searchParams.get('sort_by[asc]') === 'updated_at') rows = [...rows].sort((a, b) => Number(a.updated_at ?? 0) - Number(b.updated_at ?? 0) || String(a.id).localeCompare(String(b.id)));
    const page = rows.slice(offset, offset + limit);
    const next = offset + limit < rows.length ? Buffer.from(String(offset + limit)).toString('base64') : undefined;
    const key = RESOURCES[resource];
    return send(200, { list: page.map((row) => ({ [key]: row, ...(resource === 'subscriptions' ? { customer: data.customers.find((c) => c.id === row.customer_id) } : {}) })), ...(next ? { next_offset: next } : {}) });
  });

  return {
    ...fake,
    add,
    seed,
    rateLimit: (count, retryAfterSeconds) => faults.rateLimit(count, retryAfterSeconds),
    failNext: (count, status) => faults.failNext(count, status),
    delay: (ms) => faults.delay(ms),
    reset,
    calls,
  };
}
