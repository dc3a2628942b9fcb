import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { CUSTOMER_NOT_FOUND } from '../../../server/routes/customerMetrics';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** The customer details drawer's calls (the test clock's today is 2026-03-02). */

interface Customer {
  id: string;
  name: string;
  parent_id: string | null;
  children_ids: string[];
  include_in_calculations_by_default: boolean;
  deleted: boolean;
  segments: { segment: { id: string; name: string; time_sensitive: boolean }; value: string | null }[];
  links: { external_system: string; url: string }[];
  metrics: { kind: string; value: number }[];
  currency: string;
  added_at: string;
}
interface Payment {
  id: string;
  started_at: string;
  ended_at: string | null;
  duration_in_months: number | null;
  total_value: number | null;
  monthly_amount: number;
  currency: string;
  original_currency: string;
  original_total_value: number | null;
  invoice_number: string | null;
  items: { product_key: string; type: string; quantity: number }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function payment(account: string, id: string, customer: string, start: string, months: number, total: number, product = 'pro', type: 'recurring' | 'one_time' = 'recurring') {
  const db = harness.db.kysely;
  await db.insertInto('products').values({ account_id: account, key: product, name: product }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: `INV-${id.slice(-3)}`, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: product, type, quantity: 3 }).execute();
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const account = owner.user.account_id;
  const db = harness.db.kysely;
  await db
    .insertInto('customers')
    .values([
      { account_id: account, id: 'parent', name: 'Holding', public_id: 'cus_H', links: JSON.stringify([{ external_system: 'stripe', url: 'https://example.com/cus_H' }]) },
      { account_id: account, id: 'kid-b', name: 'Bravo', public_id: null, parent_id: 'parent' },
      { account_id: account, id: 'kid-a', name: 'Alpha', public_id: null, parent_id: 'parent' },
      { account_id: account, id: 'gone', name: 'Gone', public_id: null, parent_id: 'parent', deleted_at: '2026-01-01T00:00:00Z' },
    ])
    .execute();
  await db.insertInto('object_attributes').values({ account_id: account, id: 'att-country', name: 'Country', object: 'customer' }).execute();
  await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-country', object_attribute_id: 'att-country', name: 'Country', time_sensitive: true }).execute();
  await db
    .insertInto('customer_segment_values')
    .values([
      { account_id: account, customer_id: 'parent', segment_id: 'seg-country', year: 2025, month: 1, value: 'PL' },
      { account_id: account, customer_id: 'parent', segment_id: 'seg-country', year: 2026, month: 2, value: 'DE' },
      // From a later month on: not the value now.
      { account_id: account, customer_id: 'parent', segment_id: 'seg-country', year: 2026, month: 6, value: 'FR' },
    ])
    .execute();
  // The parent pays $100 a month from 2025-06 for a year, then a $300 one-time fee in 2026-01;
  // Alpha pays $20 a month since 2025-12.
  await payment(account, 'subh00000000p01', 'parent', '2025-06-01', 12, 120_000);
  await payment(account, 'subh00000000p02', 'parent', '2026-01-10', 1, 30_000, 'setup', 'one_time');
  await payment(account, 'subh00000000a01', 'kid-a', '2025-12-01', 6, 12_000);
  await db.insertInto('customers').values({ account_id: stranger.user.account_id, id: 'x1', name: 'Elsewhere', public_id: null }).execute();
});
afterAll(() => harness?.close());

describe(`GET /customers/{id} on ${testEngine}`, () => {
  it('answers the customer with its children, segments, links and figures', async () => {
    const response = await api('GET', '/customers/parent', owner);
    expect(response.statusCode, response.body).toBe(200);
    const customer = response.json() as Customer;
    expect(customer).toMatchObject({
      id: 'parent',
      name: 'Holding',
      parent_id: null,
      // Alphabetical; the deleted child is left out.
      children_ids: ['kid-a', 'kid-b'],
      include_in_calculations_by_default: true,
      deleted: false,
      segments: [{ segment: { id: 'seg-country', name: 'Country', time_sensitive: true }, value: 'DE' }],
      links: [{ external_system: 'stripe', url: 'https://example.com/cus_H' }],
      currency: 'USD',
    });
    // MRR today: its $100 and Alpha's $20 (a parent shows its group); total: the recurring
    // revenue recognized to date plus the one-time $300.
    expect(customer.metrics.find((m) => m.kind === 'mrr')?.value).toBe(12_000);
    const metrics = (await api('GET', '/customer_metrics/parent', owner)).json() as { accrued_total: number; one_time_accrued_total: number };
    expect(metrics.one_time_accrued_total).toBe(30_000);
    expect(customer.metrics.find((m) => m.kind === 'total')?.value).toBe(metrics.accrued_total + metrics.one_time_accrued_total);
    expect(Date.parse(customer.added_at)).not.toBeNaN();

    const child = (await api('GET', '/customers/kid-a', owner)).json() as Customer;
    expect(child).toMatchObject({ parent_id: 'parent', children_ids: [], segments: [] });
    expect(child.metrics).toEqual([
      { kind: 'mrr', value: 2_000 },
      { kind: 'total', value: expect.any(Number) },
    ]);
  });

  it('is 404 for another account’s customer or an unknown id, 401 without a token, 403 for shared-report users', async () => {
    const other = await api('GET', '/customers/x1', owner);
    expect(other.statusCode).toBe(404);
    expect(problemsOf(other)).toEqual([{ pointer: undefined, detail: CUSTOMER_NOT_FOUND }]);
    expect((await api('GET', '/customers/parent', stranger)).statusCode).toBe(404);
    expect((await api('GET', '/customers/nobody', owner)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', '/customers/parent'));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/customers/parent', colleague)).statusCode).toBe(403);
  });
});

describe(`GET /customers/{id}/timeline on ${testEngine}`, () => {
  it('lists the customer’s own payments newest first by default, oldest first when asked', async () => {
    const response = await api('GET', '/customers/parent/timeline', owner);
    expect(response.statusCode, response.body).toBe(200);
    const { items, limit } = response.json() as { items: Payment[]; limit: number };
    expect(limit).toBe(100);
    expect(items).toEqual([
      {
        id: 'subh00000000p02',
        customer_id: 'parent',
        started_at: '2026-01-10',
        ended_at: '2026-02-10',
        duration_in_months: 1,
        total_value: 30_000,
        monthly_amount: 30_000,
        currency: 'USD',
        original_currency: 'USD',
        original_total_value: 30_000,
        invoice_number: 'INV-p02',
        items: [{ product_key: 'setup', type: 'one_time', quantity: 3 }],
      },
      {
        id: 'subh00000000p01',
        customer_id: 'parent',
        started_at: '2025-06-01',
        ended_at: '2026-06-01',
        duration_in_months: 12,
        total_value: 120_000,
        monthly_amount: 10_000,
        currency: 'USD',
        original_currency: 'USD',
        original_total_value: 120_000,
        invoice_number: 'INV-p01',
        items: [{ product_key: 'pro', type: 'recurring', quantity: 3 }],
      },
    ]);
    const ascending = (await api('GET', '/customers/parent/timeline?sort_by=started_at:asc', owner)).json() as { items: Payment[] };
    expect(ascending.items.map((p) => p.id)).toEqual(['subh00000000p01', 'subh00000000p02']);
    const limited = (await api('GET', '/customers/parent/timeline?limit=1&sort_by=started_at:desc', owner)).json() as { items: Payment[]; limit: number };
    expect(limited).toMatchObject({ limit: 1, items: [{ id: 'subh00000000p02' }] });
  });

  it('leaves deleted payments out and validates the query', async () => {
    await harness.db.kysely.updateTable('payments').set({ deleted_at: '2026-03-01T00:00:00Z' }).where('account_id', '=', owner.user.account_id).where('id', '=', 'subh00000000a01').execute();
    try {
      expect(((await api('GET', '/customers/kid-a/timeline', owner)).json() as { items: Payment[] }).items).toEqual([]);
    } finally {
      await harness.db.kysely.updateTable('payments').set({ deleted_at: null }).where('account_id', '=', owner.user.account_id).where('id', '=', 'subh00000000a01').execute();
    }
    expect((await api('GET', '/customers/parent/timeline?sort_by=name', owner)).statusCode).toBe(400);
    expect((await api('GET', '/customers/parent/timeline?limit=0', owner)).statusCode).toBe(400);
    const unknown = await api('GET', '/customers/parent/timeline?currency=XYZ', owner);
    expect(unknown.statusCode).toBe(422);
    expect(problemsOf(unknown)[0]?.pointer).toBe('/currency');
  });

  it('shows open-ended and prorated payments with their exact monthly amount, and the customer’s figures stay numbers', async () => {
    const account = owner.user.account_id;
    const db = harness.db.kysely;
    await db.insertInto('customers').values({ account_id: account, id: 'periods', name: 'Periods' }).execute();
    const prorated = 36 / (365 / 12);
    await db
      .insertInto('payments')
      .values([
        { account_id: account, id: 'subh00000000o01', customer_id: 'periods', started_at: '2025-11-15', ended_at: null, duration_in_months: null, total_value: null, monthly_amount: 10_000 / 3, currency: 'USD' },
        { account_id: account, id: 'subh00000000r01', customer_id: 'periods', started_at: '2025-10-15', ended_at: '2025-11-20', duration_in_months: prorated, total_value: 6_000, currency: 'USD' },
      ])
      .execute();
    const { items } = (await api('GET', '/customers/periods/timeline', owner)).json() as { items: Payment[] };
    expect(items).toMatchObject([
      { id: 'subh00000000o01', ended_at: null, duration_in_months: null, total_value: null, original_total_value: null, monthly_amount: 10_000 / 3 },
      { id: 'subh00000000r01', ended_at: '2025-11-20', duration_in_months: prorated, total_value: 6_000, original_total_value: 6_000, monthly_amount: 6_000 / prorated },
    ]);
    const customer = (await api('GET', '/customers/periods', owner)).json() as { metrics: { kind: string; value: number }[] };
    expect(customer.metrics.find((m) => m.kind === 'mrr')?.value).toBe(3_333);
    for (const metric of customer.metrics) expect(Number.isFinite(metric.value)).toBe(true);
  });

  it('is 404 for another account’s customer and 401 without a token', async () => {
    expect((await api('GET', '/customers/x1/timeline', owner)).statusCode).toBe(404);
    expect((await api('GET', '/customers/parent/timeline', stranger)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', '/customers/parent/timeline'));
  });
});

describe(`POST /customer/show_batch on ${testEngine}`, () => {
  it('answers the customers asked for, in that order, leaving out ids of other accounts', async () => {
    const response = await api('POST', '/customer/show_batch', owner, { ids: ['kid-b', 'x1', 'kid-a', 'nobody'] });
    expect(response.statusCode, response.body).toBe(200);
    const { items } = response.json() as { items: Customer[] };
    expect(items.map((c) => [c.id, c.name, c.parent_id])).toEqual([
      ['kid-b', 'Bravo', 'parent'],
      ['kid-a', 'Alpha', 'parent'],
    ]);
    expect(((await api('POST', '/customer/show_batch', owner, { ids: [] })).json() as { items: Customer[] }).items).toEqual([]);
  });

  it('takes at most 100 ids and needs a token', async () => {
    const tooMany = await api('POST', '/customer/show_batch', owner, { ids: Array.from({ length: 101 }, (_, k) => `c${k}`) });
    expect(tooMany.statusCode).toBe(400);
    expect((await api('POST', '/customer/show_batch', owner, {})).statusCode).toBe(400);
    expectSignInRequired(await api('POST', '/customer/show_batch', undefined, { ids: ['kid-a'] }));
    expect(((await api('POST', '/customer/show_batch', stranger, { ids: ['kid-a'] })).json() as { items: Customer[] }).items).toEqual([]);
  });
});
