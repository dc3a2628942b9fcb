import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { JsonObject } from '../../../server/db/schema';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { providerFetch } from '../../../server/integrations/http';
import { intervalMonths, invoicePayments, stripeProvider, stripeSyncSettings, type StripeCatalogue } from '../../../server/integrations/providers/stripe';
import { CannotConnectError, type SyncBatch, type SyncContext, type SyncPayment } from '../../../server/integrations/types';
import { FAKE_STRIPE_ACCOUNT, startFakeStripe, type FakeStripe } from '../../fakes/stripe';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * The Stripe provider against the fake Stripe (its documented list, paging, error and rate-limit
 * formats), through a SyncContext double that records what the runner would commit.
 */

let fake: FakeStripe;
let db: TestDatabase;
let accessToken: string;

interface Recorded {
  batches: SyncBatch[];
  cursors: (JsonObject | null)[];
  progress: number[];
  log: string[];
}

function contextFor(recorded: Recorded, options: { mode?: 'initial' | 'incremental'; since?: Date | null; cursor?: JsonObject | null; secrets?: Record<string, string>; stopAfter?: number } = {}): SyncContext {
  const controller = new AbortController();
  return {
    accountId: 'acct-test',
    integration: 'stripe',
    db: db.kysely,
    config: { stripe_account_id: FAKE_STRIPE_ACCOUNT },
    secrets: options.secrets ?? { access_token: accessToken, stripe_user_id: FAKE_STRIPE_ACCOUNT },
    urls: { ...DEFAULT_PROVIDER_URLS, stripeApi: fake.url, stripeConnect: fake.url },
    mode: options.mode ?? 'initial',
    since: options.since ?? null,
    cursor: options.cursor ?? null,
    fetch: providerFetch({ signal: controller.signal, baseDelayMs: 1 }),
    accessToken: () => Promise.resolve((options.secrets ?? { access_token: accessToken }).access_token ?? ''),
    signal: controller.signal,
    commit: (batch, next) => {
      recorded.batches.push(batch);
      recorded.cursors.push(next.cursor);
      if (next.progress !== undefined) recorded.progress.push(next.progress);
      if (options.stopAfter !== undefined && recorded.batches.length >= options.stopAfter) return Promise.reject(new Error('killed'));
      return Promise.resolve();
    },
    log: (event) => {
      recorded.log.push(event);
      return Promise.resolve();
    },
  };
}

const fresh = (): Recorded => ({ batches: [], cursors: [], progress: [], log: [] });

/** A whole first sync of 230 generated customers, and the first page of one of its lists (`{list}?{query}`) as a killed sync read it. */
async function wholeSyncAndFirstPage(listQuery: string): Promise<{ whole: Recorded; first: { data: { id: string }[] } }> {
  fake.reset();
  fake.generate(230);
  const whole = fresh();
  await stripeProvider.sync(contextFor(whole));
  const headers = { authorization: `Bearer ${accessToken}`, 'stripe-account': FAKE_STRIPE_ACCOUNT };
  const first = (await (await fetch(`${fake.url}/v1/${listQuery}`, { headers })).json()) as { data: { id: string }[] };
  return { whole, first };
}
const paymentsOf = (recorded: Recorded) => new Map(recorded.batches.flatMap((b) => b.payments ?? []).map((p) => [p.externalId, p]));
const customersOf = (recorded: Recorded) => recorded.batches.flatMap((b) => b.customers ?? []);

beforeAll(async () => {
  fake = await startFakeStripe();
  db = await createTestDatabase();
  // The access token an OAuth exchange gives.
  const authorize = await fetch(`${fake.url}/oauth/authorize?response_type=code&client_id=ca_test&scope=read_only&state=s&redirect_uri=${encodeURIComponent('http://localhost/cb')}`, { redirect: 'manual' });
  const code = new URL(authorize.headers.get('location') as string).searchParams.get('code') as string;
  const token = await fetch(`${fake.url}/oauth/token`, { method: 'POST', headers: { authorization: 'Bearer sk_test_fake', 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=authorization_code&code=${code}` });
  accessToken = ((await token.json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(async () => {
  await fake?.close();
  await db?.close();
});
beforeEach(() => fake.reset());

describe(`Stripe provider on ${testEngine}: an initial sync`, () => {
  it('reads customers, subscriptions and paid invoices page by page into customers and payments, progress never going back', async () => {
    fake.generate(230);
    const recorded = fresh();
    await stripeProvider.sync(contextFor(recorded));

    expect(customersOf(recorded)).toHaveLength(230);
    expect(customersOf(recorded)[0]).toEqual({ externalId: 'cus_g0000000', name: 'Customer 0' });
    const payments = paymentsOf(recorded);
    // 230 subscriptions: 46 yearly with one invoice, 184 monthly with two.
    expect(payments.size).toBe(46 + 184 * 2);
    // Pages of 100: 3 customer pages, 3 subscription pages, 5 invoice pages (414 invoices).
    expect(fake.requests.get('/v1/customers')).toBe(3);
    expect(fake.requests.get('/v1/invoices')).toBe(5);
    expect(recorded.progress).toEqual([...recorded.progress].sort((a, b) => a - b));
    expect(recorded.progress.at(-1)).toBe(99);
    expect(recorded.log).toEqual(['stripe_customers_read', 'stripe_subscriptions_read', 'stripe_invoices_read']);

    const yearly = payments.get('si_g0000000@2025-01-01') as SyncPayment;
    // Subscription 0: yearly in EUR, quantity 1, a 10% forever coupon.
    expect(yearly).toEqual({
      externalId: 'si_g0000000@2025-01-01',
      customerExternalId: 'cus_g0000000',
      startedAt: '2025-01-01',
      endedAt: '2026-01-01',
      totalValue: 49_000,
      monthlyAmount: 49_000 / 12,
      currency: 'EUR',
      invoiceNumber: 'G-0000000-0',
      productKey: 'Pro',
      itemType: 'recurring',
      quantity: 1,
      discount: { kind: 'forever', monthlyAmount: 4900 / 12, months: null, name: '10% forever' },
    });
    const monthly = payments.get('si_g0000002@2025-02-03') as SyncPayment;
    expect(monthly).toMatchObject({ startedAt: '2025-02-03', endedAt: '2025-03-03', totalValue: 4900 * 3, monthlyAmount: 4900 * 3, currency: 'USD', quantity: 3, discount: null });
  });

  it('resumes from the last committed cursor with nothing lost', async () => {
    const pagesPerCommit = stripeSyncSettings.pagesPerCommit;
    stripeSyncSettings.pagesPerCommit = 1;
    onTestFinished(() => {
      stripeSyncSettings.pagesPerCommit = pagesPerCommit;
    });
    fake.generate(230);
    const whole = fresh();
    await stripeProvider.sync(contextFor(whole));

    fake.reset();
    fake.generate(230);
    const first = fresh();
    await expect(stripeProvider.sync(contextFor(first, { stopAfter: 5 }))).rejects.toThrow('killed');
    // The runner keeps the cursor of the last commit that succeeded: the fourth.
    const rest = fresh();
    await stripeProvider.sync(contextFor(rest, { cursor: first.cursors[3] as JsonObject }));
    const combined = new Map([...paymentsOf({ ...first, batches: first.batches.slice(0, 4) }), ...paymentsOf(rest)]);
    expect([...combined.keys()].sort()).toEqual([...paymentsOf(whole).keys()].sort());
    expect(rest.progress[0]).toBeGreaterThanOrEqual(first.progress[3] as number);
  });

  it('reads customers, subscriptions and invoices side by side while the database writes, up to the queued batches, and commits in order', async () => {
    const { pagesPerCommit, commitsQueued } = stripeSyncSettings;
    Object.assign(stripeSyncSettings, { pagesPerCommit: 1, commitsQueued: 2 });
    onTestFinished(() => void Object.assign(stripeSyncSettings, { pagesPerCommit, commitsQueued }));
    fake.reset();
    // Five pages each of customers and subscriptions, and the invoices.
    fake.generate(450);
    const listPages = () => (fake.requests.get('/v1/customers') ?? 0) + (fake.requests.get('/v1/subscriptions') ?? 0) + (fake.requests.get('/v1/invoices') ?? 0);
    const recorded = fresh();
    const context = contextFor(recorded);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    type Lanes = { lanes: { phase: string; read: number; done: boolean }[] };
    const cursors: Lanes[] = [];
    let writing = 0;
    const sync = stripeProvider.sync({
      ...context,
      commit: async (batch, next) => {
        writing += 1;
        // One write at a time.
        expect(writing).toBe(1);
        cursors.push(next.cursor as unknown as Lanes);
        if (cursors.length === 1) await held;
        await context.commit(batch, next);
        writing -= 1;
      },
    });
    // The first page's commit is held and the second waits behind it (two queued); the next
    // page of each of the three lanes waits for room, and each lane has asked for the page after
    // it: eight pages (two handed over, three waiting, three asked for), and no more until the
    // database moves.
    await expect.poll(listPages).toBe(8);
    for (const list of ['/v1/customers', '/v1/subscriptions', '/v1/invoices']) expect(fake.requests.get(list), list).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listPages()).toBe(8);
    expect(cursors).toHaveLength(1);
    release();
    await sync;
    // Each lane only moves forward from one commit to the next, and the last has read all whole.
    const rank = (position: { phase: string; read: number; done: boolean }) => [['customers', 'subscriptions', 'invoices'].indexOf(position.phase), position.read, Number(position.done)];
    for (let k = 1; k < cursors.length; k++) {
      for (const lane of [0, 1, 2]) {
        const [before, now] = [rank((cursors[k - 1] as Lanes).lanes[lane]!), rank((cursors[k] as Lanes).lanes[lane]!)];
        expect(now[0]! > before[0]! || (now[0] === before[0] && now[1]! >= before[1]!), `commit ${k}, lane ${lane}`).toBe(true);
      }
    }
    expect((cursors.at(-1) as Lanes).lanes).toEqual([
      { phase: 'customers', after: expect.any(String), read: 450, done: true },
      { phase: 'subscriptions', after: expect.any(String), read: 450, done: true },
      { phase: 'invoices', after: expect.any(String), read: expect.any(Number), done: true },
    ]);
    expect(recorded.progress.at(-1)).toBe(99);
    expect(customersOf(recorded)).toHaveLength(450);
    expect([...recorded.log].sort()).toEqual(['stripe_customers_read', 'stripe_invoices_read', 'stripe_subscriptions_read']);
  });

  it('resumes a cursor of the phase-by-phase sync (a sync killed across the upgrade) with nothing lost', async () => {
    // That sync stopped after the first page of subscriptions: customers were read whole.
    const { whole, first } = await wholeSyncAndFirstPage('subscriptions?limit=100&status=all');
    const customerPages = fake.requests.get('/v1/customers') ?? 0;
    const rest = fresh();
    await stripeProvider.sync(contextFor(rest, { cursor: { phase: 'subscriptions', after: (first.data.at(-1) as { id: string }).id, read: 100, totals: { customers: 230, subscriptions: 230 } } }));
    expect(fake.requests.get('/v1/customers') ?? 0).toBe(customerPages);
    const restKeys = new Set(paymentsOf(rest).keys());
    // Every paid invoice's payment is written, and nothing the whole sync did not write.
    const invoiced = [...paymentsOf(whole).values()].filter((payment) => payment.invoiceNumber !== null).map((payment) => payment.externalId);
    expect(invoiced.length).toBeGreaterThan(0);
    expect(invoiced.filter((key) => !restKeys.has(key))).toEqual([]);
    expect([...restKeys].filter((key) => !paymentsOf(whole).has(key))).toEqual([]);
    // Customers counted as read: the percent starts past their share.
    expect(rest.progress[0]).toBeGreaterThanOrEqual(15);
  });

  it('resumes a cursor of the two lanes the sync had before (customers; subscriptions then invoices) with nothing lost', async () => {
    const { whole, first: firstInvoices } = await wholeSyncAndFirstPage('invoices?limit=100');
    const before = { customers: fake.requests.get('/v1/customers') ?? 0, subscriptions: fake.requests.get('/v1/subscriptions') ?? 0 };
    // Killed in the invoices, after their first page: customers and subscriptions were read whole.
    const rest = fresh();
    const lanes = [
      { phase: 'customers', after: 'cus_x', read: 230, done: true },
      { phase: 'invoices', after: (firstInvoices.data.at(-1) as { id: string }).id, read: 100, done: false },
    ];
    await stripeProvider.sync(contextFor(rest, { cursor: { phase: 'lanes', lanes, totals: { customers: 230, subscriptions: 230 } } }));
    expect({ customers: fake.requests.get('/v1/customers') ?? 0, subscriptions: fake.requests.get('/v1/subscriptions') ?? 0 }).toEqual(before);
    const restKeys = [...paymentsOf(rest).keys()];
    const invoiced = [...paymentsOf(whole).values()].filter((payment) => payment.invoiceNumber !== null).map((payment) => payment.externalId);
    // The invoices after the cursor are written (each generated invoice is one paid line), none before it.
    expect(restKeys.filter((key) => !invoiced.includes(key))).toEqual([]);
    expect(restKeys).toHaveLength(invoiced.length - firstInvoices.data.length);
    expect((rest.cursors.at(-1) as { lanes: unknown[] }).lanes).toEqual([
      { phase: 'customers', after: 'cus_x', read: 230, done: true },
      { phase: 'subscriptions', after: null, read: 230, done: true },
      { phase: 'invoices', after: expect.any(String), read: expect.any(Number), done: true },
    ]);
    expect(rest.progress[0]).toBeGreaterThanOrEqual(15 + 30);
  });

  it('waits out 429 (Retry-After, Stripe-Should-Retry) and 500 answers and finishes', async () => {
    fake.seed(2);
    fake.rateLimit(2);
    const recorded = fresh();
    await stripeProvider.sync(contextFor(recorded));
    expect(customersOf(recorded).map((c) => c.externalId).sort()).toEqual(['cus_seed1', 'cus_seed2']);
    fake.failNext(2);
    await stripeProvider.sync(contextFor(fresh()));
  });

  it('fails with a sentence naming the refusal, never the key, when the token is revoked', async () => {
    fake.seed(1);
    const error = await stripeProvider.sync(contextFor(fresh(), { secrets: { access_token: 'sk_test_revoked_secret', stripe_user_id: FAKE_STRIPE_ACCOUNT } })).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Stripe refused the connection; connect Stripe again in Settings');
    await expect(
      stripeProvider.verify({ config: {}, secrets: { access_token: 'sk_test_revoked_secret' } }, { urls: { ...DEFAULT_PROVIDER_URLS, stripeApi: fake.url }, fetch: providerFetch({ baseDelayMs: 1 }) }),
    ).rejects.toBeInstanceOf(CannotConnectError);
    await stripeProvider.verify({ config: {}, secrets: { access_token: accessToken, stripe_user_id: FAKE_STRIPE_ACCOUNT } }, { urls: { ...DEFAULT_PROVIDER_URLS, stripeApi: fake.url }, fetch: providerFetch({ baseDelayMs: 1 }) });
  });

  it('gives an unpaid current period of an active subscription the key its paid invoice will have', async () => {
    fake.seed(1);
    const now = Math.floor(Date.now() / 1000);
    const price = { id: 'price_basic_monthly', object: 'price', currency: 'usd', product: 'prod_basic', unit_amount: 2000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' } };
    fake.add('discounts', { id: 'di_half', object: 'discount', source: { type: 'coupon', coupon: 'HALF3' } });
    fake.add('subscriptions', {
      id: 'sub_open',
      object: 'subscription',
      customer: 'cus_seed1',
      status: 'past_due',
      discounts: ['di_half'],
      latest_invoice: null,
      items: { object: 'list', has_more: false, data: [{ id: 'si_open', price, quantity: 2, current_period_start: now, current_period_end: now + 30 * 86_400 }] },
    });
    const recorded = fresh();
    await stripeProvider.sync(contextFor(recorded));
    const today = new Date(now * 1000).toISOString().slice(0, 10);
    const open = paymentsOf(recorded).get(`si_open@${today}`) as SyncPayment;
    expect(open).toMatchObject({ customerExternalId: 'cus_seed1', totalValue: 4000, invoiceNumber: null, quantity: 2, productKey: 'Basic', discount: { kind: 'finite', months: 3, name: 'Half for 3 months' } });
    // The seeded active subscription's current period is paid: only its invoice line is there.
    expect([...paymentsOf(recorded).values()].filter((p) => p.customerExternalId === 'cus_seed1' && p.invoiceNumber === null)).toHaveLength(1);
  });

  it('marks an unpaid term a stand-in, and leaves out the term a void invoice read earlier removed', async () => {
    fake.seed(1);
    const now = Math.floor(Date.now() / 1000);
    const today = new Date(now * 1000).toISOString().slice(0, 10);
    const price = { id: 'price_basic_monthly', object: 'price', currency: 'usd', product: 'prod_basic', unit_amount: 2000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' } };
    const subscription = (id: string, item: string) => ({
      id,
      object: 'subscription',
      customer: 'cus_seed1',
      status: 'active',
      latest_invoice: null,
      items: { object: 'list', has_more: false, data: [{ id: item, price, quantity: 1, current_period_start: now, current_period_end: now + 30 * 86_400 }] },
    });
    fake.add('subscriptions', subscription('sub_voided', 'si_voided'));
    fake.add('subscriptions', subscription('sub_kept', 'si_kept'));
    // Three pages of ended subscriptions before them: the invoices' first page, with the void
    // invoice, is read while the subscriptions lane is still on its first pages.
    for (let k = 0; k < 300; k++) fake.add('subscriptions', { id: `sub_ended${k}`, object: 'subscription', customer: 'cus_seed1', status: 'canceled', latest_invoice: null, items: { object: 'list', has_more: false, data: [] } });
    fake.add('invoices', {
      id: 'in_void',
      object: 'invoice',
      customer: 'cus_seed1',
      status: 'void',
      number: 'V-1',
      created: now,
      discounts: [],
      lines: { object: 'list', has_more: false, data: [{ id: 'il_void', amount: 2000, currency: 'usd', period: { start: now, end: now + 30 * 86_400 }, parent: { subscription_item_details: { subscription_item: 'si_voided', proration: false } } }] },
    });
    const recorded = fresh();
    await stripeProvider.sync(contextFor(recorded));
    expect(recorded.batches.flatMap((batch) => batch.deletedPayments ?? [])).toContain(`si_voided@${today}`);
    const payments = paymentsOf(recorded);
    expect(payments.has(`si_voided@${today}`)).toBe(false);
    expect(payments.get(`si_kept@${today}`)).toMatchObject({ standIn: true, invoiceNumber: null, totalValue: 2000 });
    // An invoice's payment is never a stand-in.
    expect([...payments.values()].filter((payment) => payment.invoiceNumber !== null && payment.standIn)).toEqual([]);
  });
});

describe('Stripe provider: an incremental sync', () => {
  it('re-reads what the events since the last sync name: a voided invoice deletes its payments, a new customer arrives', async () => {
    fake.seed(2);
    const invoice = (await (await fetch(`${fake.url}/v1/invoices/in_seed1_0`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as Record<string, unknown>;
    fake.change('invoices', { ...invoice, status: 'void' }, 'invoice.voided');
    fake.change('customers', { id: 'cus_new', object: 'customer', name: null, email: 'new@example.com' }, 'customer.created');
    const recorded = fresh();
    await stripeProvider.sync(contextFor(recorded, { mode: 'incremental', since: new Date(Date.now() - 60_000) }));
    expect(customersOf(recorded)).toEqual([{ externalId: 'cus_new', name: 'new@example.com' }]);
    expect(recorded.batches.flatMap((b) => b.deletedPayments ?? [])).toHaveLength(1);
    expect(recorded.cursors.at(-1)).toEqual({ phase: 'events', done: 2 });
    expect(fake.requests.get('/v1/events')).toBe(1);
    expect(fake.requests.get('/v1/customers')).toBeUndefined();
  });
});

describe('Stripe mapping', () => {
  const catalogue: StripeCatalogue = {
    prices: new Map([
      ['price_w', { id: 'price_w', product: 'prod_a', unit_amount: 1000, currency: 'usd', recurring: { interval: 'week', interval_count: 2, usage_type: 'licensed' } }],
      ['price_m', { id: 'price_m', product: 'prod_a', unit_amount: null, currency: 'usd', recurring: { interval: 'month', interval_count: 1, usage_type: 'metered' } }],
      ['price_o', { id: 'price_o', product: 'prod_b', unit_amount: 5000, currency: 'jpy', recurring: null }],
    ]),
    productNames: new Map([['prod_a', 'Analytics']]),
    coupons: new Map([['once', { id: 'once', name: null, duration: 'once', duration_in_months: null, percent_off: null, amount_off: 100 }]]),
  };
  const line = (id: string, price: string, amount: number, start: string, end: string, extra: object = {}) => ({
    id,
    amount,
    currency: price === 'price_o' ? 'jpy' : 'usd',
    description: null,
    quantity: 1,
    period: { start: Date.parse(start) / 1000, end: Date.parse(end) / 1000 },
    discount_amounts: [],
    pricing: { price_details: { price, product: catalogue.prices.get(price)?.product as string } },
    parent: null,
    ...extra,
  });

  it('normalises intervals to months and types metered and one-time prices', () => {
    expect(intervalMonths({ interval: 'year', interval_count: 2 })).toBe(24);
    expect(intervalMonths({ interval: 'week', interval_count: 1 })).toBeCloseTo(12 / 52);
    expect(intervalMonths({ interval: 'day', interval_count: 30 })).toBeCloseTo(360 / 365);
    const invoice = { id: 'in_1', number: 'A-1', customer: 'cus_1', customer_name: null, customer_email: null, status: 'paid' as const, created: Date.parse('2026-01-05') / 1000, discounts: [{ id: 'di_1', source: { coupon: 'once' } }], lines: { data: [], has_more: false } };
    const { payments } = invoicePayments(catalogue, invoice, [
      line('il_w', 'price_w', 1000, '2026-01-05', '2026-01-19', { discount_amounts: [{ amount: 100, discount: 'di_1' }] }),
      line('il_m', 'price_m', 730, '2026-01-01', '2026-02-01'),
      line('il_o', 'price_o', 5000, '2026-01-05', '2026-01-05'),
      line('il_trial', 'price_w', 0, '2026-01-05', '2026-01-19'),
    ]);
    expect(payments.map((p) => [p.externalId, p.itemType, p.productKey, p.startedAt, p.endedAt, p.currency])).toEqual([
      ['il_w', 'recurring', 'Analytics', '2026-01-05', '2026-01-19', 'USD'],
      ['il_m', 'metered', 'Analytics', '2026-01-01', '2026-02-01', 'USD'],
      ['il_o', 'one_time', 'prod_b', '2026-01-05', '2026-02-05', 'JPY'],
    ]);
    // Fourteen days are 14 / (365/12) months.
    expect(payments[0]?.monthlyAmount).toBeCloseTo(1000 / (14 / (365 / 12)));
    expect(payments[0]?.discount).toEqual({ kind: 'finite', monthlyAmount: 100 / (14 / (365 / 12)), months: 1, name: 'once' });
    expect(invoicePayments(catalogue, { ...invoice, status: 'void' }, [line('il_w', 'price_w', 1000, '2026-01-05', '2026-01-19')])).toEqual({ payments: [], deleted: ['il_w'] });
    expect(invoicePayments(catalogue, { ...invoice, status: 'open' }, [line('il_w', 'price_w', 1000, '2026-01-05', '2026-01-19')])).toEqual({ payments: [], deleted: [] });
  });
});
