import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenFake } from './server';
import type { FakeProvider } from './types';

/**
 * A fake Stripe (API version 2026-10-28 shapes, the `stripe` SDK's own) for tests, e2e and
 * `npm run fakes`. It speaks what the provider and the Connect OAuth flow use:
 *
 * - `GET /v1/{customers,prices,products,coupons,subscriptions,invoices,events}`: lists
 *   `{object:'list', data, has_more, url}` paged by `limit` (1-100, default 10) and
 *   `starting_after`; `include[]=total_count` adds `total_count`; `expand[]=data.discounts`,
 *   `data.latest_invoice` expand those fields; subscriptions take `status=all`, events
 *   `created[gte]` and `types[]`. `GET /v1/{customers,subscriptions,invoices}/{id}` and
 *   `GET /v1/invoices/{id}/lines`, `GET /v1/account`.
 * - Auth: `Authorization: Bearer` the platform key (`sk_test_fake`) with a `Stripe-Account`
 *   header naming the connected account, or an access token the OAuth exchange issued. Errors
 *   are `{error: {type, code, message}}` (401 invalid key, 403 other account, 404 no such
 *   object, 429 `rate_limit` with `Stripe-Should-Retry: true` and `Retry-After`, 500 `api_error`).
 * - Connect OAuth: `GET /oauth/authorize` (client_id `ca_test`) redirects at once to the
 *   redirect_uri with `code` and `state` (or `error=access_denied` after `denyNextAuthorization`);
 *   `POST /oauth/token` (grant_type authorization_code; a code works once) answers the token.
 * - Webhooks: `sendWebhook(url, type, object)` posts an event signed with `whsec_test_fake` in
 *   the `Stripe-Signature: t=…,v1=…` scheme.
 *
 * Controls (in process, and over HTTP under `/__fake/` for e2e): `seed(n)`, `generate(n)` (n
 * subscriptions computed on demand, for the benchmark), `add*`, `rateLimit(n)`, `failNext(n)`,
 * `denyNextAuthorization()`, `sendWebhook`, `requests` (a count per path).
 */

export const FAKE_STRIPE_CLIENT_ID = 'ca_test';
export const FAKE_STRIPE_SECRET_KEY = 'sk_test_fake';
export const FAKE_STRIPE_WEBHOOK_SECRET = 'whsec_test_fake';
export const FAKE_STRIPE_ACCOUNT = 'acct_1FakeConnected';

type Json = Record<string, unknown>;
type Resource = 'customers' | 'prices' | 'products' | 'coupons' | 'subscriptions' | 'invoices' | 'events' | 'discounts';

export interface FakeStripe extends FakeProvider {
  /** Adds a small realistic business: `customers` customers, each with a monthly or yearly subscription and its paid invoices. */
  seed(customers?: number): void;
  /** `count` customers, each with one subscription and two paid invoices, computed on demand (no memory per object). */
  generate(count: number): void;
  add(resource: Exclude<Resource, 'events'>, object: Json): void;
  /** Replaces an object (same id) and records an event `{type}` for it, as Stripe does on a change. */
  change(resource: 'customers' | 'subscriptions' | 'invoices', object: Json, type: string): void;
  /** The next `count` API calls answer 429 (Retry-After `retryAfterSeconds`). */
  rateLimit(count: number, retryAfterSeconds?: number): void;
  /** The next `count` API calls answer 500. */
  failNext(count: number): void;
  denyNextAuthorization(): void;
  /** Posts a signed event to `url`; resolves to the answer's status. */
  sendWebhook(url: string, type: string, object: Json, options?: { account?: string; secret?: string }): Promise<number>;
  /** API calls answered, by path (`/v1/invoices`), 429s and 500s included. */
  requests: Map<string, number>;
  reset(): void;
}

const DAY = 86_400;
/** 2025-01-01T00:00:00Z: generated data starts here. */
const EPOCH = 1_735_689_600;

function stripeError(response: ServerResponse, status: number, type: string, message: string, code?: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}`, ...headers });
  response.end(JSON.stringify({ error: { type, ...(code ? { code } : {}), message } }));
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Every value of an array parameter, written `name[]=` or `name[0]=` (the SDKs write indices). */
function arrayParam(query: URLSearchParams, name: string): string[] {
  const values: string[] = [];
  for (const [key, value] of query) if (key === `${name}[]` || new RegExp(`^${name}\\[\\d+\\]$`).test(key)) values.push(value);
  return values;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Adds whole calendar months to a unix time (UTC, the day clamped), as Stripe's monthly billing does. */
function addMonths(unix: number, months: number): number {
  const date = new Date(unix * 1000);
  const day = date.getUTCDate();
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, last));
  return Math.floor(target.getTime() / 1000);
}

const pad = (n: number) => String(n).padStart(7, '0');

export function stripeSignatureHeader(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const store: Record<Resource, Json[]> = { customers: [], prices: [], products: [], coupons: [], subscriptions: [], invoices: [], events: [], discounts: [] };
  let generated = 0;
  let rateLimited = 0;
  let retryAfter = 0;
  let failing = 0;
  let deny = false;
  let sequence = 0;
  const codes = new Map<string, { account: string }>();
  const tokens = new Map<string, string>();
  const requests = new Map<string, number>();

  const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(sequence += 1).toString(36).padStart(4, '0')}`;

  // ---------------------------------------------------------------- generated business (bench)
  const genPrices: Json[] = [
    { id: 'price_gen_monthly', object: 'price', active: true, currency: 'usd', product: 'prod_gen_pro', type: 'recurring', unit_amount: 4900, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' } },
    { id: 'price_gen_yearly', object: 'price', active: true, currency: 'eur', product: 'prod_gen_pro', type: 'recurring', unit_amount: 49_000, recurring: { interval: 'year', interval_count: 1, usage_type: 'licensed' } },
  ];
  const genProducts: Json[] = [{ id: 'prod_gen_pro', object: 'product', name: 'Pro', active: true }];
  const genCoupons: Json[] = [{ id: 'gen_forever10', object: 'coupon', duration: 'forever', duration_in_months: null, percent_off: 10, amount_off: null, currency: null, name: '10% forever' }];
  const genDiscount = (i: number): Json => ({ id: `di_g${pad(i)}`, object: 'discount', source: { type: 'coupon', coupon: 'gen_forever10' }, customer: `cus_g${pad(i)}`, subscription: `sub_g${pad(i)}`, start: EPOCH, end: null });
  const genCustomer = (i: number): Json => ({ id: `cus_g${pad(i)}`, object: 'customer', created: EPOCH + i, email: `customer${i}@example.com`, name: `Customer ${i}`, currency: 'usd', metadata: {} });
  const genSubscription = (i: number): Json => {
    const yearly = i % 5 === 0;
    const price = (yearly ? genPrices[1] : genPrices[0]) as Json;
    const start = EPOCH + (i % 28) * DAY;
    const periods = yearly ? 0 : 1;
    const periodStart = addMonths(start, periods);
    return {
      id: `sub_g${pad(i)}`,
      object: 'subscription',
      customer: `cus_g${pad(i)}`,
      status: 'active',
      created: start,
      start_date: start,
      currency: price.currency,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      discounts: i % 4 === 0 ? [`di_g${pad(i)}`] : [],
      latest_invoice: `in_g${pad(i)}_${periods}`,
      items: { object: 'list', data: [{ id: `si_g${pad(i)}`, object: 'subscription_item', price, quantity: 1 + (i % 3), current_period_start: periodStart, current_period_end: addMonths(periodStart, yearly ? 12 : 1) }], has_more: false, url: `/v1/subscription_items?subscription=sub_g${pad(i)}` },
      metadata: {},
    };
  };
  /** Invoice k (0 or 1) of generated subscription i; a yearly one has only invoice 0. */
  const genInvoice = (i: number, k: number): Json => {
    const subscription = genSubscription(i);
    const item = (subscription.items as { data: Json[] }).data[0] as Json;
    const price = item.price as Json;
    const yearly = (price.recurring as Json).interval === 'year';
    const start = addMonths(subscription.start_date as number, k);
    const end = addMonths(start, yearly ? 12 : 1);
    const amount = (price.unit_amount as number) * (item.quantity as number);
    const discounted = i % 4 === 0;
    const off = discounted ? Math.round(amount / 10) : 0;
    const id = `in_g${pad(i)}_${k}`;
    return invoiceShape({
      id,
      number: `G-${pad(i)}-${k}`,
      customer: subscription.customer,
      customerName: `Customer ${i}`,
      subscription: subscription.id,
      status: 'paid',
      currency: price.currency as string,
      created: start,
      discounts: discounted ? [`di_g${pad(i)}`] : [],
      lines: [{ id: `il_g${pad(i)}_${k}`, amount, price: price.id as string, product: price.product as string, quantity: item.quantity as number, start, end, subscriptionItem: item.id as string, discount: discounted ? { amount: off, discount: `di_g${pad(i)}` } : null }],
    });
  };
  const genInvoiceCount = (i: number) => (i % 5 === 0 ? 1 : 2);

  function invoiceShape(input: {
    id: string;
    number: string | null;
    customer: unknown;
    customerName: string | null;
    subscription: unknown;
    status: string;
    currency: string;
    created: number;
    discounts: string[];
    lines: { id: string; amount: number; price: string | null; product: string | null; quantity: number; start: number; end: number; subscriptionItem: string | null; discount: { amount: number; discount: string } | null; proration?: boolean }[];
  }): Json {
    const total = input.lines.reduce((sum, line) => sum + line.amount - (line.discount?.amount ?? 0), 0);
    return {
      id: input.id,
      object: 'invoice',
      number: input.number,
      customer: input.customer,
      customer_name: input.customerName,
      customer_email: null,
      status: input.status,
      currency: input.currency,
      created: input.created,
      period_start: input.created,
      period_end: input.created,
      total,
      amount_paid: input.status === 'paid' ? total : 0,
      status_transitions: { paid_at: input.status === 'paid' ? input.created : null, voided_at: input.status === 'void' ? input.created : null },
      discounts: input.discounts,
      parent: input.subscription ? { type: 'subscription_details', subscription_details: { subscription: input.subscription, metadata: {} }, quote_details: null } : null,
      lines: {
        object: 'list',
        url: `/v1/invoices/${input.id}/lines`,
        has_more: false,
        data: input.lines.map((line) => ({
          id: line.id,
          object: 'line_item',
          amount: line.amount,
          currency: input.currency,
          description: null,
          discount_amounts: line.discount ? [line.discount] : [],
          discountable: true,
          discounts: line.discount ? [line.discount.discount] : [],
          invoice: input.id,
          livemode: false,
          metadata: {},
          period: { start: line.start, end: line.end },
          pricing: line.price ? { type: 'price_details', price_details: { price: line.price, product: line.product }, unit_amount_decimal: String(line.amount / Math.max(1, line.quantity)) } : null,
          quantity: line.quantity,
          parent: line.subscriptionItem
            ? { type: 'subscription_item_details', subscription_item_details: { subscription_item: line.subscriptionItem, subscription: input.subscription, proration: line.proration ?? false, invoice_item: null, proration_details: null }, invoice_item_details: null }
            : { type: 'invoice_item_details', invoice_item_details: { invoice_item: `ii_${line.id}`, proration: false, proration_details: null, subscription: null }, subscription_item_details: null },
          subtotal: line.amount,
          taxes: [],
        })),
      },
    };
  }

  // ---------------------------------------------------------------- seeded business (tests, e2e)
  function seed(customers = 3): void {
    const now = Math.floor(Date.now() / 1000);
    if (!store.products.some((p) => p.id === 'prod_basic')) {
      store.products.push({ id: 'prod_basic', object: 'product', name: 'Basic', active: true }, { id: 'prod_setup', object: 'product', name: 'Setup', active: true });
      store.prices.push(
        { id: 'price_basic_monthly', object: 'price', active: true, currency: 'usd', product: 'prod_basic', type: 'recurring', unit_amount: 2000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' } },
        { id: 'price_basic_yearly', object: 'price', active: true, currency: 'usd', product: 'prod_basic', type: 'recurring', unit_amount: 24_000, recurring: { interval: 'year', interval_count: 1, usage_type: 'licensed' } },
        { id: 'price_setup', object: 'price', active: true, currency: 'usd', product: 'prod_setup', type: 'one_time', unit_amount: 5000, recurring: null },
      );
      store.coupons.push({ id: 'HALF3', object: 'coupon', duration: 'repeating', duration_in_months: 3, percent_off: 50, amount_off: null, currency: null, name: 'Half for 3 months' });
    }
    const offset = store.customers.length;
    for (let n = 0; n < customers; n += 1) {
      const index = offset + n + 1;
      const customer = `cus_seed${index}`;
      const yearly = index % 3 === 0;
      const price = store.prices.find((p) => p.id === (yearly ? 'price_basic_yearly' : 'price_basic_monthly')) as Json;
      const start = addMonths(now, yearly ? -2 : -2);
      const periodStart = yearly ? start : addMonths(start, 2);
      const item = `si_seed${index}`;
      store.customers.unshift({ id: customer, object: 'customer', created: start, email: `seed${index}@example.com`, name: `Seed customer ${index}`, currency: 'usd', metadata: {} });
      const invoices: Json[] = [];
      for (let k = 0; k < (yearly ? 1 : 3); k += 1) {
        const from = addMonths(start, k);
        invoices.push(
          invoiceShape({
            id: `in_seed${index}_${k}`,
            number: `SEED-${index}-${k + 1}`,
            customer,
            customerName: `Seed customer ${index}`,
            subscription: `sub_seed${index}`,
            status: 'paid',
            currency: 'usd',
            created: from,
            discounts: [],
            lines: [{ id: `il_seed${index}_${k}`, amount: price.unit_amount as number, price: price.id as string, product: 'prod_basic', quantity: 1, start: from, end: addMonths(from, yearly ? 12 : 1), subscriptionItem: item, discount: null }],
          }),
        );
      }
      store.invoices.unshift(...invoices.reverse());
      store.subscriptions.unshift({
        id: `sub_seed${index}`,
        object: 'subscription',
        customer,
        status: 'active',
        created: start,
        start_date: start,
        currency: 'usd',
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        discounts: [],
        latest_invoice: invoices[0]?.id,
        items: { object: 'list', data: [{ id: item, object: 'subscription_item', price, quantity: 1, current_period_start: periodStart, current_period_end: addMonths(periodStart, yearly ? 12 : 1) }], has_more: false, url: '/v1/subscription_items' },
        metadata: {},
      });
    }
  }

  // ---------------------------------------------------------------- lists
  function find(resource: Resource, id: string): Json | undefined {
    const stored = store[resource].find((object) => object.id === id);
    if (stored) return stored;
    const match = /^(cus|sub|in|di)_g(\d{7})(?:_(\d))?$/.exec(id);
    if (!match) return undefined;
    const i = Number(match[2]);
    if (i >= generated) return undefined;
    if (resource === 'customers' && match[1] === 'cus') return genCustomer(i);
    if (resource === 'subscriptions' && match[1] === 'sub') return genSubscription(i);
    if (resource === 'discounts' && match[1] === 'di' && i % 4 === 0) return genDiscount(i);
    if (resource === 'invoices' && match[1] === 'in' && Number(match[3]) < genInvoiceCount(i)) return genInvoice(i, Number(match[3]));
    return undefined;
  }

  /** Generated objects of a list, by position; invoices of subscription i are at positions [2i - skipped, ...]. */
  const generatedLength = (resource: Resource): number => {
    if (generated === 0) return 0;
    if (resource === 'customers' || resource === 'subscriptions') return generated;
    if (resource === 'invoices') return generated * 2 - Math.ceil(generated / 5);
    if (resource === 'prices') return genPrices.length;
    if (resource === 'products') return genProducts.length;
    if (resource === 'coupons') return genCoupons.length;
    return 0;
  };
  // Invoice position p -> (i, k): each block of 5 subscriptions has 9 invoices (one yearly with 1).
  const invoiceAt = (p: number): Json => {
    const block = Math.floor(p / 9);
    const rest = p % 9;
    const i = block * 5 + (rest === 0 ? 0 : Math.floor((rest - 1) / 2) + 1);
    const k = rest === 0 ? 0 : (rest - 1) % 2;
    return genInvoice(i, k);
  };
  const invoicePosition = (i: number, k: number): number => Math.floor(i / 5) * 9 + (i % 5 === 0 ? 0 : 1 + ((i % 5) - 1) * 2 + k);
  const generatedAt = (resource: Resource, p: number): Json => {
    if (resource === 'customers') return genCustomer(p);
    if (resource === 'subscriptions') return genSubscription(p);
    if (resource === 'invoices') return invoiceAt(p);
    if (resource === 'prices') return genPrices[p] as Json;
    if (resource === 'products') return genProducts[p] as Json;
    return genCoupons[p] as Json;
  };
  const generatedPosition = (resource: Resource, id: string): number => {
    const match = /_g(\d{7})(?:_(\d))?$/.exec(id);
    if (resource === 'invoices' && match) return invoicePosition(Number(match[1]), Number(match[2]));
    if (match) return Number(match[1]);
    const list = resource === 'prices' ? genPrices : resource === 'products' ? genProducts : genCoupons;
    return list.findIndex((object) => object.id === id);
  };

  function expand(object: Json, paths: string[]): Json {
    let result = object;
    if (paths.includes('data.discounts') || paths.includes('discounts')) {
      const discounts = (object.discounts as unknown[] | undefined)?.map((id) => (typeof id === 'string' ? (find('discounts', id) ?? id) : id));
      result = { ...result, discounts };
    }
    if ((paths.includes('data.latest_invoice') || paths.includes('latest_invoice')) && typeof object.latest_invoice === 'string') {
      result = { ...result, latest_invoice: find('invoices', object.latest_invoice) ?? object.latest_invoice };
    }
    return result;
  }

  function list(resource: Resource, query: URLSearchParams, response: ServerResponse, path: string): void {
    const limitText = query.get('limit');
    const limit = limitText === null ? 10 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      stripeError(response, 400, 'invalid_request_error', 'Invalid integer: limit must be between 1 and 100', 'parameter_invalid_integer');
      return;
    }
    let explicit = store[resource];
    if (resource === 'subscriptions' && query.get('status') !== 'all') explicit = explicit.filter((s) => s.status !== 'canceled' && s.status !== 'incomplete_expired');
    if (resource === 'events') {
      const gte = Number(query.get('created[gte]') ?? 0);
      const types = arrayParam(query, 'types');
      explicit = explicit.filter((event) => (event.created as number) >= gte && (types.length === 0 || types.some((t) => (t.endsWith('*') ? (event.type as string).startsWith(t.slice(0, -1)) : event.type === t))));
    }
    const generatedCount = resource === 'events' ? 0 : generatedLength(resource);
    const total = explicit.length + generatedCount;
    let start = 0;
    const after = query.get('starting_after');
    if (after) {
      const index = explicit.findIndex((object) => object.id === after);
      const position = index >= 0 ? index : generatedCount > 0 ? explicit.length + generatedPosition(resource, after) : -1;
      if (position < 0 || (index < 0 && position - explicit.length >= generatedCount)) {
        stripeError(response, 400, 'invalid_request_error', `No such object: '${after}'`, 'resource_missing');
        return;
      }
      start = position + 1;
    }
    const end = Math.min(total, start + limit);
    const data: Json[] = [];
    const paths = arrayParam(query, 'expand');
    for (let p = start; p < end; p += 1) data.push(expand(p < explicit.length ? (explicit[p] as Json) : generatedAt(resource, p - explicit.length), paths));
    const body: Json = { object: 'list', data, has_more: end < total, url: path };
    if (arrayParam(query, 'include').includes('total_count')) body.total_count = total;
    send(response, 200, body);
  }

  // ---------------------------------------------------------------- HTTP
  function authorised(request: IncomingMessage, response: ServerResponse): boolean {
    const match = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '');
    const key = match?.[1];
    const account = request.headers['stripe-account'];
    if (!key || (key !== FAKE_STRIPE_SECRET_KEY && !tokens.has(key))) {
      stripeError(response, 401, 'invalid_request_error', `Invalid API Key provided: ${key ? `${key.slice(0, 8)}***` : '(none)'}`, 'api_key_invalid');
      return false;
    }
    const tokenAccount = tokens.get(key);
    if (account !== undefined && account !== FAKE_STRIPE_ACCOUNT && account !== tokenAccount) {
      stripeError(response, 403, 'invalid_request_error', 'The provided key does not have access to account (or that account does not exist). Application access may have been revoked.', 'account_invalid');
      return false;
    }
    return true;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname;
    if (path.startsWith('/__fake/')) return control(path, request, response);
    if (path === '/oauth/authorize' && request.method === 'GET') return authorize(url, response);
    if (path === '/oauth/token' && request.method === 'POST') return token(request, response);
    if (!path.startsWith('/v1/')) return stripeError(response, 404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${path}).`);

    const counted = path.replace(/\/(cus|sub|in)_[\w]+/, '/{id}');
    requests.set(counted, (requests.get(counted) ?? 0) + 1);
    if (rateLimited > 0) {
      rateLimited -= 1;
      return stripeError(response, 429, 'invalid_request_error', 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.', 'rate_limit', {
        'stripe-should-retry': 'true',
        'retry-after': String(retryAfter),
      });
    }
    if (failing > 0) {
      failing -= 1;
      return stripeError(response, 500, 'api_error', 'An unknown error occurred', undefined, { 'stripe-should-retry': 'true' });
    }
    if (!authorised(request, response)) return;
    if (request.method !== 'GET') return stripeError(response, 405, 'invalid_request_error', 'The fake answers GET only');

    if (path === '/v1/account') return send(response, 200, { id: FAKE_STRIPE_ACCOUNT, object: 'account', business_profile: { name: 'Fake business' }, default_currency: 'usd' });
    const lines = /^\/v1\/invoices\/([\w]+)\/lines$/.exec(path);
    if (lines) {
      const invoice = find('invoices', lines[1] as string);
      if (!invoice) return stripeError(response, 404, 'invalid_request_error', `No such invoice: '${lines[1]}'`, 'resource_missing');
      const data = (invoice.lines as { data: Json[] }).data;
      return send(response, 200, { object: 'list', data, has_more: false, url: path });
    }
    const one = /^\/v1\/(customers|subscriptions|invoices)\/([\w]+)$/.exec(path);
    if (one) {
      const object = find(one[1] as Resource, one[2] as string);
      if (!object) return stripeError(response, 404, 'invalid_request_error', `No such ${one[1]?.replace(/s$/, '')}: '${one[2]}'`, 'resource_missing');
      return send(response, 200, expand(object, arrayParam(url.searchParams, 'expand').map((p) => `data.${p}`)));
    }
    const resource = /^\/v1\/(customers|prices|products|coupons|subscriptions|invoices|events)$/.exec(path)?.[1] as Resource | undefined;
    if (resource) return list(resource, url.searchParams, response, path);
    return stripeError(response, 404, 'invalid_request_error', `Unrecognized request URL (GET: ${path}).`);
  }

  function authorize(url: URL, response: ServerResponse): void {
    const redirect = url.searchParams.get('redirect_uri');
    const state = url.searchParams.get('state') ?? '';
    if (url.searchParams.get('client_id') !== FAKE_STRIPE_CLIENT_ID || !redirect) {
      response.writeHead(400, { 'content-type': 'text/html' }).end('<h1>Invalid client_id or redirect_uri</h1>');
      return;
    }
    const target = new URL(redirect);
    if (deny) {
      deny = false;
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'The user denied your request');
    } else {
      const code = `ac_${randomBytes(12).toString('hex')}`;
      codes.set(code, { account: FAKE_STRIPE_ACCOUNT });
      target.searchParams.set('code', code);
      target.searchParams.set('scope', url.searchParams.get('scope') ?? 'read_only');
    }
    target.searchParams.set('state', state);
    response.writeHead(302, { location: target.toString() }).end();
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const key = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? form.get('client_secret');
    if (key !== FAKE_STRIPE_SECRET_KEY) return send(response, 401, { error: 'invalid_client', error_description: 'No such API key' });
    if (form.get('grant_type') !== 'authorization_code') return send(response, 400, { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${form.get('grant_type') ?? ''}` });
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    if (!grant) return send(response, 400, { error: 'invalid_grant', error_description: `Authorization code does not exist: ${code}` });
    codes.delete(code);
    const access = `sk_test_oauth_${randomBytes(12).toString('hex')}`;
    tokens.set(access, grant.account);
    send(response, 200, {
      access_token: access,
      livemode: false,
      refresh_token: `rt_${randomBytes(12).toString('hex')}`,
      token_type: 'bearer',
      stripe_publishable_key: 'pk_test_fake',
      stripe_user_id: grant.account,
      scope: 'read_only',
    });
  }

  async function control(path: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = request.method === 'POST' ? ((JSON.parse((await readBody(request)) || '{}') as Json) ?? {}) : {};
    if (path === '/__fake/seed') seed(Number(body.customers ?? 3));
    else if (path === '/__fake/generate') generate(Number(body.count ?? 0));
    else if (path === '/__fake/rate_limit') rateLimit(Number(body.count ?? 1), Number(body.retry_after ?? 0));
    else if (path === '/__fake/fail') failNext(Number(body.count ?? 1));
    else if (path === '/__fake/deny') denyNextAuthorization();
    else if (path === '/__fake/reset') reset();
    else if (path === '/__fake/webhooks') {
      const status = await sendWebhook(String(body.url), String(body.type), (body.object as Json) ?? {});
      return send(response, 200, { status });
    } else return send(response, 404, { error: 'unknown control' });
    send(response, 200, { ok: true });
  }

  function rateLimit(count: number, retryAfterSeconds = 0): void {
    rateLimited = count;
    retryAfter = retryAfterSeconds;
  }
  function failNext(count: number): void {
    failing = count;
  }
  function denyNextAuthorization(): void {
    deny = true;
  }
  function generate(count: number): void {
    generated = count;
  }
  function add(resource: Exclude<Resource, 'events'>, object: Json): void {
    store[resource].unshift(object);
  }
  function change(resource: 'customers' | 'subscriptions' | 'invoices', object: Json, type: string): void {
    const index = store[resource].findIndex((o) => o.id === object.id);
    if (index >= 0) store[resource][index] = object;
    else store[resource].unshift(object);
    store.events.unshift({ id: nextId('evt'), object: 'event', type, created: Math.floor(Date.now() / 1000), account: FAKE_STRIPE_ACCOUNT, data: { object } });
  }
  function reset(): void {
    for (const key of Object.keys(store) as Resource[]) store[key] = [];
    generated = 0;
    rateLimited = 0;
    failing = 0;
    deny = false;
    requests.clear();
  }

  async function sendWebhook(url: string, type: string, object: Json, options: { account?: string; secret?: string } = {}): Promise<number> {
    const event = { id: nextId('evt'), object: 'event', api_version: '2026-10-28.endive', account: options.account ?? FAKE_STRIPE_ACCOUNT, created: Math.floor(Date.now() / 1000), type, livemode: false, pending_webhooks: 1, data: { object } };
    const payload = JSON.stringify(event);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripeSignatureHeader(payload, options.secret ?? FAKE_STRIPE_WEBHOOK_SECRET) },
      body: payload,
    });
    await answer.arrayBuffer();
    return answer.status;
  }

  const server = await listenFake(handle);
  return { ...server, seed, generate, add, change, rateLimit, failNext, denyNextAuthorization, sendWebhook, requests, reset };
}
