import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { DEFINITION_IDS } from '../../../server/metrics/definitions/catalogue';
import { createAuthTestApp, expectSignInRequired, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** The metrics routes: the section catalogue and the customer figures (the test clock's today is 2026-03-02). */

let app: AuthTestApp;
let owner: SignedUp;
let stranger: SignedUp;

async function addCustomerWithPayment(accountId: string, customer: string, start: string, months: number, total: number): Promise<void> {
  const db = app.db.kysely;
  await db.insertInto('customers').values({ account_id: accountId, id: customer, name: `Customer ${customer}`, public_id: null }).onConflict((c) => c.doNothing()).execute();
  await db.insertInto('products').values({ account_id: accountId, key: 'plan', name: 'Plan' }).onConflict((c) => c.doNothing()).execute();
  const id = `subh${customer.padStart(12, '0').slice(-12)}`;
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: accountId, payment_id: id, product_key: 'plan', type: 'recurring' }).execute();
}

const get = (server: FastifyInstance, url: string, authorization?: string) => server.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

beforeAll(async () => {
  app = await createAuthTestApp();
  owner = await signUp(app.app);
  stranger = await signUp(app.app);
  await app.db.kysely.insertInto('object_attributes').values({ account_id: owner.user.account_id, id: 'att-plan', name: 'Plan', object: 'customer' }).execute();
  await app.db.kysely.insertInto('customer_segments').values({ account_id: owner.user.account_id, id: 'seg-plan', object_attribute_id: 'att-plan', name: 'Plan' }).execute();
  await app.db.kysely.insertInto('object_attributes').values({ account_id: owner.user.account_id, id: 'att-category', name: 'Category', object: 'cost' }).execute();
  await addCustomerWithPayment(owner.user.account_id, 'c1', '2026-01-15', 3, 30_000);
  await addCustomerWithPayment(stranger.user.account_id, 'c9', '2026-01-15', 1, 5_000);
});
afterAll(() => app?.close());

describe(`GET /api/v11/business_report/section_definitions on ${testEngine}`, () => {
  it("answers the catalogue with the caller's segmenters", async () => {
    const response = await get(app.app, '/api/v11/business_report/section_definitions', owner.authorization);
    expect(response.statusCode).toBe(200);
    const { items } = response.json() as { items: { id: string; available: boolean; segmenters: { id: string; type: string }[] }[] };
    expect(items.map((d) => d.id)).toEqual([...DEFINITION_IDS]);
    expect(items.find((d) => d.id === 'mrr')?.segmenters.map((s) => s.id)).toContain('customer_segment:seg-plan');
    expect(items.find((d) => d.id === 'costs')?.segmenters.map((s) => s.id)).toEqual(['total', 'cost_segment:att-category']);
    expect(items.find((d) => d.id === 'deals')?.available).toBe(false);
  });

  it("shows another account none of the caller's attributes", async () => {
    const { items } = (await get(app.app, '/api/v11/business_report/section_definitions', stranger.authorization)).json() as { items: { id: string; segmenters: { id: string }[] }[] };
    expect(items.find((d) => d.id === 'mrr')?.segmenters.map((s) => s.id)).not.toContain('customer_segment:seg-plan');
  });

  it('needs a signed-in user', async () => {
    expectSignInRequired(await get(app.app, '/api/v11/business_report/section_definitions'));
  });
});

describe(`GET /api/v11/customer_metrics/{id} on ${testEngine}`, () => {
  it("answers the customer's MRR, revenue to date and timeline", async () => {
    const response = await get(app.app, '/api/v11/customer_metrics/c1', owner.authorization);
    expect(response.statusCode).toBe(200);
    const body = response.json() as { mrr: number; currency: string; accrued_total: number; timeline: { date: string; metrics: { mrr: number } }[] };
    expect(body).toMatchObject({ customer_id: 'c1', currency: 'USD', included: true, mrr: 10_000, one_time_accrued_total: 0 });
    expect(body.timeline.map((p) => [p.date, p.metrics.mrr])).toEqual([
      ['2026-01-01', 10_000],
      ['2026-02-01', 10_000],
      ['2026-03-01', 10_000],
    ]);
    // Jan 15 - Mar 2 (inclusive) of Jan 15 - Apr 15: 47 of 90 days.
    expect(body.accrued_total).toBe(Math.round((30_000 * 47) / 90));
  });

  it('sees a customer added after the account was loaded', async () => {
    await addCustomerWithPayment(owner.user.account_id, 'c2', '2026-02-20', 1, 7_000);
    const response = await get(app.app, '/api/v11/customer_metrics/c2', owner.authorization);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ mrr: 7_000 });
  });

  it("answers 404 for another account's customer and for an unknown one", async () => {
    for (const id of ['c9', 'nobody']) {
      const response = await get(app.app, `/api/v11/customer_metrics/${id}`, owner.authorization);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ errors: [{ detail: 'Customer not found', title: 'Not Found', status: '404' }] });
    }
  });

  it('refuses a currency that is not an ISO code', async () => {
    expect((await get(app.app, '/api/v11/customer_metrics/c1?currency=dollars', owner.authorization)).statusCode).toBe(400);
  });

  it('needs a signed-in user', async () => {
    expectSignInRequired(await get(app.app, '/api/v11/customer_metrics/c1'));
  });
});
