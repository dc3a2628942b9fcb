import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENCY_UNKNOWN_MESSAGE,
  DISCOUNT_MONTHS_ONLY_FINITE_MESSAGE,
  INVALID_DATE_MESSAGE,
  START_DATE_REQUIRED_MESSAGE,
  ITEM_TYPE_UNKNOWN_MESSAGE,
  MINIMAL_VALUE_MESSAGE,
  MONTHLY_AMOUNT_REQUIRED_MESSAGE,
  newPaymentId,
  ONE_ITEM_MESSAGE,
  PAYMENT_CUSTOMER_BOTH_MESSAGE,
  PAYMENT_CUSTOMER_REQUIRED_MESSAGE,
  PAYMENT_ID_MESSAGE,
  PRODUCT_NAME_REQUIRED_MESSAGE,
  TOTAL_VALUE_REQUIRED_MESSAGE,
  UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE,
  VALUE_NOT_NUMBER_MESSAGE,
  type Payment,
} from '../../../models/payments';
import { PAYMENT_NOT_FOUND } from '../../../server/payments/writes';
import { BAD_PAYMENT_CURSOR, BAD_PAYMENT_SORT, UNKNOWN_ITEM_TYPE } from '../../../server/routes/payments';
import { createAuthTestApp, expectSignInRequired, problemsOf, signUp, type AuthTestApp, type SignedUp } from '../auth/support';

/**
 * The payment calls (docs/payments.md) as an API client sees them, and what an edit does to a
 * report's numbers under each corrections handling. The test clock's today is 2026-03-02, so a
 * new payment may start from 2026-01-01 to 2026-03-03.
 */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let account: string;
let report: { id: string; secret: string };
const customerId = 'cus_pay_1';
const attributeId = 'att_channel';

const api = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: unknown, who: SignedUp | null = owner) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const body = (extra: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  started_at: '2026-02-01',
  duration_in_months: 12,
  total_value: 120_000,
  currency: 'usd',
  invoice_number: 'INV-100',
  items: [{ product_key: 'pro', type: 'recurring', quantity: 1 }],
  ...extra,
});

async function upsert(id: string, payload: unknown, who: SignedUp = owner) {
  return api('PUT', `/subscriptions/history/upsert/${id}`, payload, who);
}

async function created(payload: Record<string, unknown>, who: SignedUp = owner): Promise<Payment> {
  const response = await upsert(newPaymentId(), payload, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Payment;
}

interface Section {
  definition_id: string;
  segments: { is_total: boolean; series: { data_points: { time: string; value: number | null }[] }[] }[];
}

/** The MRR of the report's months by 'YYYY-MM', after every recalculation finished. */
async function mrrByMonth(): Promise<Record<string, number | null>> {
  await app.reports.settled();
  const response = await api('GET', `/business_reports/by_secret?secret=${report.secret}`);
  expect(response.statusCode, response.body).toBe(200);
  const section = (response.json() as { sections: Section[] }).sections.find((s) => s.definition_id === 'mrr');
  const points = section?.segments.find((s) => s.is_total)?.series[0]?.data_points ?? [];
  return Object.fromEntries(points.map((point) => [point.time.slice(0, 7), point.value]));
}

/** An old payment written as an import would have, a year before the test's today. */
async function oldPayment(id: string, monthly: number): Promise<void> {
  const db = harness.db.kysely;
  const at = new Date('2025-06-01T00:00:00Z');
  await db.insertInto('customers').values({ account_id: account, id: `c-${id}`, name: `Old ${id}`, created_at: at }).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: `c-${id}`, started_at: '2025-06-01', ended_at: '2026-06-01', duration_in_months: 12, total_value: monthly * 12, monthly_amount: null, currency: 'USD', invoice_number: `OLD-${id}`, external_id: null, import_id: null, created_at: at, updated_at: at })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: 'pro', type: 'recurring', quantity: 1 }).execute();
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  account = owner.user.account_id;
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: account, id: customerId, name: 'Acme Corp' }).execute();
  await db.insertInto('customers').values({ account_id: stranger.user.account_id, id: 'cus_theirs', name: 'Theirs' }).execute();
  await db.insertInto('products').values({ account_id: account, key: 'pro', name: 'Pro plan' }).execute();
  await db.insertInto('object_attributes').values({ account_id: account, id: attributeId, name: 'Channel', object: 'subscription_history' }).execute();
  await db.insertInto('object_attributes').values({ account_id: account, id: 'att_customer', name: 'Plan', object: 'customer' }).execute();
  const response = await api('POST', '/business_reports', { title: 'Numbers', sections: [{ definition_id: 'mrr' }] });
  expect(response.statusCode, response.body).toBe(201);
  report = response.json() as { id: string; secret: string };
}, 60_000);

afterAll(async () => {
  await harness.close();
});

describe('PUT /api/v11/subscriptions/history/upsert/:id', () => {
  it('creates a payment of whole months: end = start + months, monthly = total / months', async () => {
    const id = newPaymentId();
    const response = await upsert(id, body({ total_value: 10_000, duration_in_months: 3, started_at: '2026-01-31' }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      id,
      customer: { id: customerId, name: 'Acme Corp' },
      customer_id: customerId,
      invoice_number: 'INV-100',
      started_at: '2026-01-31',
      ended_at: '2026-04-30',
      duration_in_months: 3,
      total_value: 10_000,
      monthly_amount: 10_000 / 3,
      currency: 'USD',
      items: [{ product_key: 'pro', product_name: 'Pro plan', type: 'recurring', quantity: 1 }],
      discount: null,
      segments: [{ id: attributeId, name: 'Channel', value: null }],
      latest_history_id: id,
      version: 1,
      source: 'manual',
    });
  });

  it('creates a fractional payment (an end date that is not whole months) and the product it names', async () => {
    const payment = await created(body({ duration_in_months: undefined, ended_at: '2026-02-16', total_value: 5_000, items: [{ product_key: 'brand-new', type: 'one_time', quantity: 2 }] }));
    expect(payment).toMatchObject({ ended_at: '2026-02-16', total_value: 5_000, items: [{ product_key: 'brand-new', product_name: 'brand-new', type: 'one_time', quantity: 2 }] });
    expect(payment.duration_in_months).toBeCloseTo(15 / (365 / 12), 10);
    expect(payment.monthly_amount).toBeCloseTo(5_000 / (15 / (365 / 12)), 6);
    // Only the monthly amount: total = monthly x duration.
    const byMonthly = await created(body({ duration_in_months: undefined, total_value: undefined, ended_at: '2026-02-16', monthly_amount: 3_041 }));
    expect(byMonthly.total_value).toBe(Math.round(3_041 * (15 / (365 / 12))));
    expect(byMonthly.monthly_amount).toBe(3_041);
  });

  it('creates an open-ended payment (neither months nor an end) with its monthly amount', async () => {
    const payment = await created(body({ duration_in_months: undefined, total_value: undefined, monthly_amount: 2_500.5 }));
    expect(payment).toMatchObject({ ended_at: null, duration_in_months: null, total_value: null, monthly_amount: 2_500.5 });
  });

  it('creates a new customer in the same call, with a discount and attribute values', async () => {
    const payment = await created(
      body({ customer_id: undefined, customer_name: '  Brand New Ltd ', discount: { kind: 'finite', monthly_amount: 1_000, months: 3 }, segments: [{ id: attributeId, value: 'web' }] }),
    );
    expect(payment.customer.name).toBe('Brand New Ltd');
    expect(payment.customer_id).toMatch(/^cus/);
    expect(payment.discount).toEqual({ kind: 'finite', monthly_amount: 1_000, months: 3 });
    expect(payment.segments).toEqual([{ id: attributeId, name: 'Channel', value: 'web' }]);
    const customer = await harness.db.kysely.selectFrom('customers').select('account_id').where('id', '=', payment.customer_id).executeTakeFirstOrThrow();
    expect(customer.account_id).toBe(account);
  });

  it('replaces the payment of an existing id as a new version (not held to the window)', async () => {
    const id = newPaymentId();
    expect((await upsert(id, body())).statusCode).toBe(200);
    const response = await upsert(id, body({ started_at: '2025-01-01', total_value: 240_000, discount: { kind: 'forever', monthly_amount: 500 } }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ version: 2, started_at: '2025-01-01', total_value: 240_000, monthly_amount: 20_000, discount: { kind: 'forever', monthly_amount: 500, months: null } });
    const versions = await harness.db.kysely.selectFrom('payment_versions').select(['version', 'total_value', 'valid_to']).where('account_id', '=', account).where('payment_id', '=', id).execute();
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ version: 1, total_value: 120_000 });
  });

  it('answers 401 without a token', async () => {
    expectSignInRequired(await upsert(newPaymentId(), body(), null as unknown as SignedUp));
  });

  it('answers 404 for an id that is not subh + 12 letters or digits (no payment of the account can have it)', async () => {
    const response = await upsert('subh123', body());
    expect(response.statusCode).toBe(404);
    expect(problemsOf(response)).toEqual([{ pointer: '/params/id', detail: PAYMENT_ID_MESSAGE }]);
  });

  it('answers 404 for an id another account holds, and leaves its payment as it was', async () => {
    const id = newPaymentId();
    expect((await upsert(id, body())).statusCode).toBe(200);
    const theirs = await upsert(id, body({ customer_id: 'cus_theirs' }), stranger);
    expect(theirs.statusCode, theirs.body).toBe(404);
    expect(problemsOf(theirs)).toEqual([{ pointer: undefined, detail: PAYMENT_NOT_FOUND }]);
    const mine = await api('GET', `/subscriptions/histories/search?query=${id}`);
    expect((mine.json() as { items: Payment[] }).items.map((p) => [p.customer_id, p.version])).toEqual([[customerId, 1]]);
  });

  it('answers 404 for a customer of another account', async () => {
    const response = await upsert(newPaymentId(), body({ customer_id: 'cus_theirs' }));
    expect(response.statusCode).toBe(404);
    expect(problemsOf(response)[0]?.pointer).toBe('/body/customer_id');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no total', { total_value: undefined }, '/body/total_value', TOTAL_VALUE_REQUIRED_MESSAGE],
    ['a fractional total', { total_value: 1200.2 }, '/body/total_value', VALUE_NOT_NUMBER_MESSAGE],
    ['a negative total', { total_value: -1 }, '/body/total_value', VALUE_NOT_NUMBER_MESSAGE],
    ['zero months', { duration_in_months: 0 }, '/body/duration_in_months', MINIMAL_VALUE_MESSAGE],
    ['a total without a period', { duration_in_months: undefined }, '/body/duration_in_months', MINIMAL_VALUE_MESSAGE],
    ['a start before the window', { started_at: '2025-12-31' }, '/body/started_at', INVALID_DATE_MESSAGE],
    ['a start after the window', { started_at: '2026-03-04' }, '/body/started_at', INVALID_DATE_MESSAGE],
    ['a start that is no day', { started_at: '2026-02-30' }, '/body/started_at', INVALID_DATE_MESSAGE],
    ['an empty start', { started_at: '' }, '/body/started_at', START_DATE_REQUIRED_MESSAGE],
    ['an end before the start', { duration_in_months: undefined, ended_at: '2026-01-15' }, '/body/ended_at', INVALID_DATE_MESSAGE],
    ['an end that contradicts the months', { ended_at: '2026-05-01' }, '/body/ended_at', INVALID_DATE_MESSAGE],
    ['open-ended without a monthly amount', { duration_in_months: undefined, total_value: undefined, ended_at: null }, '/body/monthly_amount', MONTHLY_AMOUNT_REQUIRED_MESSAGE],
    ['a blank product', { items: [{ product_key: ' ', type: 'recurring', quantity: 1 }] }, '/body/items/0/product_key', PRODUCT_NAME_REQUIRED_MESSAGE],
    ['zero units', { items: [{ product_key: 'pro', type: 'recurring', quantity: 0 }] }, '/body/items/0/quantity', MINIMAL_VALUE_MESSAGE],
    ['an unknown item type', { items: [{ product_key: 'pro', type: 'weekly', quantity: 1 }] }, '/body/items/0/type', ITEM_TYPE_UNKNOWN_MESSAGE],
    ['two items', { items: [{ product_key: 'a', type: 'recurring', quantity: 1 }, { product_key: 'b', type: 'recurring', quantity: 1 }] }, '/body/items', ONE_ITEM_MESSAGE],
    ['an unknown currency', { currency: 'XXQ' }, '/body/currency', CURRENCY_UNKNOWN_MESSAGE],
    ['no customer', { customer_id: undefined }, '/body/customer_id', PAYMENT_CUSTOMER_REQUIRED_MESSAGE],
    ['a blank new customer name', { customer_id: undefined, customer_name: ' ' }, '/body/customer_name', 'This field is required'],
    ['both customers', { customer_name: 'X' }, '/body/customer_name', PAYMENT_CUSTOMER_BOTH_MESSAGE],
    ['months of a forever discount', { discount: { kind: 'forever', monthly_amount: 5, months: 2 } }, '/body/discount/months', DISCOUNT_MONTHS_ONLY_FINITE_MESSAGE],
    ['zero months of a finite discount', { discount: { kind: 'finite', monthly_amount: 5, months: 0 } }, '/body/discount/months', MINIMAL_VALUE_MESSAGE],
    ['an unknown attribute', { segments: [{ id: 'att_customer', value: 'x' }] }, '/body/segments/0/id', UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE],
  ])('refuses %s with the message on its field', async (_case, extra, pointer, detail) => {
    const response = await upsert(newPaymentId(), body(extra));
    expect(response.statusCode, response.body).toBe(422);
    expect(problemsOf(response)).toContainEqual({ pointer, detail });
  });

  it('lists every problem at once and writes nothing', async () => {
    const id = newPaymentId();
    const response = await upsert(id, body({ total_value: undefined, started_at: '2020-01-01', items: [{ product_key: '', type: 'recurring', quantity: 0 }] }));
    expect(problemsOf(response)).toEqual([
      { pointer: '/body/started_at', detail: INVALID_DATE_MESSAGE },
      { pointer: '/body/total_value', detail: TOTAL_VALUE_REQUIRED_MESSAGE },
      { pointer: '/body/items/0/product_key', detail: PRODUCT_NAME_REQUIRED_MESSAGE },
      { pointer: '/body/items/0/quantity', detail: MINIMAL_VALUE_MESSAGE },
    ]);
    expect(await harness.db.kysely.selectFrom('payments').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it.each([
    ['a NUL byte', body({ invoice_number: 'a\u0000b' })],
    ['a huge string', body({ customer_id: undefined, customer_name: 'x'.repeat(100_000) })],
    ['a wrong type', body({ total_value: 'lots' })],
    ['a huge number', body({ total_value: 1e300 })],
    ['not an object', [1, 2]],
  ])('answers %s with a 4xx, never a 500', async (_case, payload) => {
    const response = await upsert(newPaymentId(), payload);
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
  });
});

describe('PUT /api/v11/subscriptions/history/:id', () => {
  it('changes the fields given and keeps the rest, as a new version', async () => {
    const payment = await created(body({ discount: { kind: 'forever', monthly_amount: 100 } }));
    const response = await api('PUT', `/subscriptions/history/${payment.id}`, { total_value: 60_000 });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ version: 2, total_value: 60_000, monthly_amount: 5_000, duration_in_months: 12, ended_at: '2027-02-01', invoice_number: 'INV-100', discount: { kind: 'forever', monthly_amount: 100 } });
    const moved = await api('PUT', `/subscriptions/history/${payment.id}`, { started_at: '2024-01-10', ended_at: '2024-02-01', discount: null });
    expect(moved.json()).toMatchObject({ version: 3, started_at: '2024-01-10', ended_at: '2024-02-01', total_value: 60_000, discount: null });
    const open = await api('PUT', `/subscriptions/history/${payment.id}`, { ended_at: null, monthly_amount: 700 });
    expect(open.json()).toMatchObject({ version: 4, ended_at: null, total_value: null, duration_in_months: null, monthly_amount: 700 });
    const versions = await harness.db.kysely.selectFrom('payment_versions').select(['version', 'total_value', 'discounts']).where('payment_id', '=', payment.id).orderBy('version').execute();
    expect(versions.map((v) => [v.version, v.total_value])).toEqual([
      [1, 120_000],
      [2, 60_000],
      [3, 60_000],
    ]);
    expect(versions[0]?.discounts).toEqual([{ kind: 'forever', monthly_amount: 100, name: null, months: null }]);
  });

  it('sets payment attribute values alone ({segments}), without a new version', async () => {
    const payment = await created(body());
    const set = await api('PUT', `/subscriptions/history/${payment.latest_history_id}`, { segments: [{ id: attributeId, value: 'partner' }] });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ version: 1, segments: [{ id: attributeId, name: 'Channel', value: 'partner' }] });
    const cleared = await api('PUT', `/subscriptions/history/${payment.id}`, { segments: [{ id: attributeId, value: null }] });
    expect((cleared.json() as Payment).segments).toEqual([{ id: attributeId, name: 'Channel', value: null }]);
    const unknown = await api('PUT', `/subscriptions/history/${payment.id}`, { segments: [{ id: 'nope', value: 'x' }] });
    expect(problemsOf(unknown)).toEqual([{ pointer: '/body/segments/0/id', detail: UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE }]);
  });

  it('checks an edit with the same messages', async () => {
    const payment = await created(body());
    const response = await api('PUT', `/subscriptions/history/${payment.id}`, { duration_in_months: 0, items: [{ product_key: '', type: 'recurring', quantity: 1 }] });
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([
      { pointer: '/body/duration_in_months', detail: MINIMAL_VALUE_MESSAGE },
      { pointer: '/body/items/0/product_key', detail: PRODUCT_NAME_REQUIRED_MESSAGE },
    ]);
  });

  it('answers 401 without a token and 404 for another account’s, an unknown or a deleted payment', async () => {
    const payment = await created(body());
    expectSignInRequired(await api('PUT', `/subscriptions/history/${payment.id}`, { total_value: 1 }, null));
    const theirs = await api('PUT', `/subscriptions/history/${payment.id}`, { total_value: 1 }, stranger);
    expect(theirs.statusCode).toBe(404);
    expect(problemsOf(theirs)).toEqual([{ pointer: undefined, detail: PAYMENT_NOT_FOUND }]);
    expect((await api('PUT', '/subscriptions/history/subhNOSUCHPAYMNT', { total_value: 1 })).statusCode).toBe(404);
    expect((await api('DELETE', `/subscriptions/history/${payment.id}`)).statusCode).toBe(204);
    expect((await api('PUT', `/subscriptions/history/${payment.id}`, { total_value: 1 })).statusCode).toBe(404);
  });
});

describe('DELETE /api/v11/subscriptions/history/:id', () => {
  it('removes the payment from lists and search, keeping its last version', async () => {
    const payment = await created(body({ invoice_number: 'DEL-1' }));
    expectSignInRequired(await api('DELETE', `/subscriptions/history/${payment.id}`, undefined, null));
    expect((await api('DELETE', `/subscriptions/history/${payment.id}`, undefined, stranger)).statusCode).toBe(404);
    const response = await api('DELETE', `/subscriptions/history/${payment.id}`);
    expect(response.statusCode).toBe(204);
    expect((await api('GET', '/subscriptions/histories/search?query=DEL-1')).json()).toEqual({ items: [] });
    const row = await harness.db.kysely.selectFrom('payments').select(['deleted_at', 'version']).where('id', '=', payment.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.version).toBe(2);
    expect((await api('DELETE', `/subscriptions/history/${payment.id}`)).statusCode).toBe(404);
  });
});

describe('GET /api/v11/subscription_histories and /subscriptions/histories/search', () => {
  let listed: Payment[];
  let lister: SignedUp;
  beforeAll(async () => {
    // An account of its own: the list holds exactly these five payments.
    lister = await signUp(app);
    const listerAccount = lister.user.account_id;
    const db = harness.db.kysely;
    await db.insertInto('customers').values({ account_id: listerAccount, id: customerId, name: 'Acme Corp' }).execute();
    await db.insertInto('customers').values({ account_id: listerAccount, id: 'cus_b', name: 'beta' }).execute();
    await db.insertInto('products').values({ account_id: listerAccount, key: 'pro', name: 'Pro plan' }).execute();
    const rows: Record<string, unknown>[] = [
      body({ started_at: '2026-01-05', total_value: 3_000, invoice_number: 'A-1' }),
      body({ started_at: '2026-01-05', total_value: 1_000, invoice_number: 'a-2', currency: 'EUR' }),
      body({ started_at: '2026-02-10', total_value: 2_000, invoice_number: null, customer_id: 'cus_b' }),
      body({ started_at: '2026-03-01', duration_in_months: undefined, total_value: undefined, monthly_amount: 50, invoice_number: 'B-7' }),
      body({ started_at: '2026-01-20', total_value: 2_000, invoice_number: 'C-3', items: [{ product_key: 'pro', type: 'one_time', quantity: 1 }] }),
    ];
    listed = [];
    for (const row of rows) listed.push(await created(row, lister));
  });

  async function all(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let next: string | null = null;
    do {
      const response = await api('GET', `/subscription_histories?${query}&limit=${limit}${next ? `&next=${encodeURIComponent(next)}` : ''}`, undefined, lister);
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json() as { items: Payment[]; next: string | null };
      expect(page.items.length).toBeLessThanOrEqual(limit);
      ids.push(...page.items.map((p) => p.id));
      next = page.next;
    } while (next);
    return ids;
  }
  const ids = (...k: number[]) => k.map((i) => listed[i]?.id);
  const tie = (a: number, b: number) => ((listed[a]?.id ?? '') < (listed[b]?.id ?? '') ? [a, b] : [b, a]);

  it('pages newest start first by default, ties by id', async () => {
    const first = await api('GET', '/subscription_histories?limit=2', undefined, lister);
    const page = first.json() as { items: Payment[]; next: string | null };
    expect(page.items.map((p) => p.id)).toEqual(ids(3, 2));
    expect(page.next).toEqual(expect.any(String));
    const [x, y] = tie(0, 1) as [number, number];
    expect(await all('', 2)).toEqual(ids(3, 2, 4, y, x));
    expect(await all('sort_by=started_at:asc', 1)).toEqual(ids(x, y, 4, 2, 3));
  });

  it('sorts by total with open-ended payments last in both directions', async () => {
    const [x, y] = tie(2, 4) as [number, number];
    expect(await all('sort_by=total_value:asc', 2)).toEqual(ids(1, x, y, 0, 3));
    expect(await all('sort_by=total_value:desc', 3)).toEqual(ids(0, y, x, 1, 3));
  });

  it('sorts by monthly amount, duration, invoice number and customer name', async () => {
    expect((await all('sort_by=monthly_amount:desc', 2))[0]).toBe(listed[0]?.id);
    expect((await all('sort_by=monthly_amount:asc', 2))[0]).toBe(listed[3]?.id);
    expect((await all('sort_by=duration_in_months:asc', 2)).at(-1)).toBe(listed[3]?.id);
    expect(await all('sort_by=invoice_number:asc', 2)).toEqual(ids(0, 1, 3, 4, 2));
    expect((await all('sort_by=customer_name:desc', 10))[0]).toBe(listed[2]?.id);
  });

  it('filters by currency (any case) and by the first item’s type', async () => {
    expect(await all('currency=eur', 10)).toEqual(ids(1));
    expect(await all('item_type=one_time', 10)).toEqual(ids(4));
    expect((await all('item_type=recurring&currency=USD', 10)).length).toBe(3);
  });

  it('refuses a bad sort, a foreign cursor and an unknown item type', async () => {
    const badSort = await api('GET', '/subscription_histories?sort_by=amount:up', undefined, lister);
    expect(problemsOf(badSort)).toEqual([{ pointer: '/querystring/sort_by', detail: BAD_PAYMENT_SORT }]);
    const first = (await api('GET', '/subscription_histories?limit=1', undefined, lister)).json() as { next: string };
    const foreign = await api('GET', `/subscription_histories?sort_by=total_value:asc&next=${first.next}`, undefined, lister);
    expect(problemsOf(foreign)).toEqual([{ pointer: '/querystring/next', detail: BAD_PAYMENT_CURSOR }]);
    expect(problemsOf(await api('GET', '/subscription_histories?next=garbage'))).toEqual([{ pointer: '/querystring/next', detail: BAD_PAYMENT_CURSOR }]);
    expect(problemsOf(await api('GET', '/subscription_histories?item_type=weekly'))).toEqual([{ pointer: '/querystring/item_type', detail: UNKNOWN_ITEM_TYPE }]);
    expect((await api('GET', '/subscription_histories?limit=201')).statusCode).toBe(400);
  });

  it('answers 401 without a token and lists only the account’s own payments', async () => {
    expectSignInRequired(await api('GET', '/subscription_histories', undefined, null));
    expectSignInRequired(await api('GET', '/subscriptions/histories/search?query=A', undefined, null));
    const theirs = await api('GET', '/subscription_histories?limit=200', undefined, stranger);
    expect((theirs.json() as { items: Payment[] }).items.some((p) => listed.some((mine) => mine.id === p.id))).toBe(false);
    const search = await api('GET', '/subscriptions/histories/search?query=a-', undefined, stranger);
    expect((search.json() as { items: Payment[] }).items).toEqual([]);
  });

  it('searches invoice numbers by prefix, ids, and customer names by prefix', async () => {
    const search = async (query: string) => ((await api('GET', `/subscriptions/histories/search?query=${encodeURIComponent(query)}`, undefined, lister)).json() as { items: Payment[] }).items.map((p) => p.id);
    expect(new Set(await search('a-'))).toEqual(new Set(ids(0, 1)));
    expect(await search('-1')).toEqual([]);
    expect(await search(listed[4]?.id ?? '')).toEqual(ids(4));
    expect(await search('BET')).toEqual(ids(2));
    expect(await search('ETA')).toEqual([]);
    expect(await search('  ')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect((await api('GET', '/subscriptions/histories/search?query=a&limit=1', undefined, lister)).json()).toMatchObject({ items: [expect.any(Object)] });
  });
});

describe('corrections: what an edit does to the report', () => {
  it('with when_occurred shows the difference in the month of the correction; with change_original restates history', async () => {
    const db = harness.db.kysely;
    await oldPayment('subhOLDPAYMENT01', 1_000);
    const refresh = async () => expect((await api('POST', `/business_reports/${report.id}/refresh`)).statusCode).toBe(202);
    await refresh();
    const original = await mrrByMonth();
    await db.updateTable('accounts').set({ corrections_handling: 'when_occurred' }).where('id', '=', account).execute();
    await refresh();
    const before = await mrrByMonth();
    const version = await db.selectFrom('accounts').select('data_version').where('id', '=', account).executeTakeFirstOrThrow();
    // Doubled today (2026-03-02): months before March keep $10, March shows $20.
    const edit = await app.inject({ method: 'PUT', url: '/api/v11/subscriptions/history/subhOLDPAYMENT01', headers: { authorization: owner.authorization }, payload: { total_value: 24_000 } });
    expect(edit.statusCode, edit.body).toBe(200);
    const raised = await db.selectFrom('accounts').select('data_version').where('id', '=', account).executeTakeFirstOrThrow();
    expect(Number(raised.data_version)).toBeGreaterThan(Number(version.data_version));
    const occurred = await mrrByMonth();
    expect((occurred['2026-02'] ?? 0) - (before['2026-02'] ?? 0)).toBe(0);
    expect((occurred['2026-03'] ?? 0) - (before['2026-03'] ?? 0)).toBe(1_000);

    await db.updateTable('accounts').set({ corrections_handling: 'change_original' }).where('id', '=', account).execute();
    await refresh();
    const restated = await mrrByMonth();
    expect((restated['2025-06'] ?? 0) - (original['2025-06'] ?? 0)).toBe(1_000);
    expect((restated['2026-02'] ?? 0) - (original['2026-02'] ?? 0)).toBe(1_000);

    // A delete is recorded the same way: with when_occurred the months before it keep the payment.
    await db.updateTable('accounts').set({ corrections_handling: 'when_occurred' }).where('id', '=', account).execute();
    const removed = await app.inject({ method: 'DELETE', url: '/api/v11/subscriptions/history/subhOLDPAYMENT01', headers: { authorization: owner.authorization } });
    expect(removed.statusCode).toBe(204);
    const afterDelete = await mrrByMonth();
    expect((afterDelete['2026-02'] ?? 0) - (before['2026-02'] ?? 0)).toBe(0);
    expect((afterDelete['2026-03'] ?? 0) - (before['2026-03'] ?? 0)).toBe(-1_000);
  });
});
