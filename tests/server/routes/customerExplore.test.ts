import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Explore: GET /customer_metrics, the customers behind one data point of a section (the test clock's today is 2026-03-02). */

interface Point {
  customer: { id: string; name: string; deleted: boolean };
  months_being_customer: number;
  new_mrr_when_occurred: number;
  mrr: number;
  accrued_total: number;
  growth_since_start: number | null;
  growth_bucket: string;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let sectionId: string;
let theirSection: string;

const api = (url: string, who: SignedUp | null = owner) => app.inject({ method: 'GET', url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {} });

async function pay(account: string, customer: string, start: string, months: number, monthly: number) {
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: account, id: customer, name: `Name ${customer}`, public_id: null }).onConflict((c) => c.doNothing()).execute();
  const id = `subh${`${customer}${start.replaceAll('-', '')}`.padStart(12, '0').slice(-12)}`;
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: monthly * months, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: 'pro', type: 'recurring', quantity: 1 }).execute();
}

async function mrrSection(who: SignedUp): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: who.authorization }, payload: { title: 'R', sections: [{ definition_id: 'mrr' }] } });
  expect(created.statusCode, created.body).toBe(201);
  await app.reports.settled();
  const read = await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${(created.json() as { secret: string }).secret}`, headers: { authorization: who.authorization } });
  return (read.json() as { sections: Array<{ id: string }> }).sections[0]?.id ?? '';
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const account = owner.user.account_id;
  await harness.db.kysely.insertInto('products').values([{ account_id: account, key: 'pro', name: 'Pro' }, { account_id: stranger.user.account_id, key: 'pro', name: 'Pro' }]).execute();
  // grower: $100 from 2025-01, $250 from 2026-01; flat: $50 since 2025-09; late: $40 since 2026-02.
  await pay(account, 'grower', '2025-01-01', 12, 10_000);
  await pay(account, 'grower', '2026-01-01', 12, 25_000);
  await pay(account, 'flat', '2025-09-01', 12, 5_000);
  await pay(account, 'late', '2026-02-01', 12, 4_000);
  await pay(stranger.user.account_id, 'theirs', '2025-01-01', 24, 7_000);
  sectionId = await mrrSection(owner);
  theirSection = await mrrSection(stranger);
});
afterAll(() => harness?.close());

describe(`GET /customer_metrics on ${testEngine}`, () => {
  it('lists the customers behind a point with their explore figures', async () => {
    const response = await api(`/customer_metrics?section_id=${sectionId}&date=2026-02-01`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: Point[]; currency: string; title: string };
    expect(body.currency).toBe('USD');
    expect(body.title).toContain('2026-02');
    const byId = Object.fromEntries(body.items.map((item) => [item.customer.id, item]));
    expect(Object.keys(byId).sort()).toEqual(['flat', 'grower', 'late']);
    expect(byId.grower).toMatchObject({ customer: { id: 'grower', name: 'Name grower', deleted: false }, new_mrr_when_occurred: 10_000, mrr: 25_000, growth_since_start: 1.5, growth_bucket: '> 100%', months_being_customer: 13 });
    expect(byId.flat).toMatchObject({ mrr: 5_000, new_mrr_when_occurred: 5_000, growth_since_start: 0, growth_bucket: '0 %' });
    expect(byId.late?.months_being_customer).toBe(0);
    expect(byId.grower?.accrued_total).toBeGreaterThan(0);
  });

  it('takes the segment and its value as details do, and refuses a bad request', async () => {
    const total = await api(`/customer_metrics?section_id=${sectionId}&segment_id=total&date=2026-02-01`);
    expect(total.statusCode, total.body).toBe(200);
    expect((await api(`/customer_metrics?section_id=${sectionId}&segment_id=nope&date=2026-02-01`)).statusCode).toBe(422);
    expect((await api(`/customer_metrics?section_id=${sectionId}&date=2026-02-30`)).statusCode).toBeLessThan(500);
    expect((await api(`/customer_metrics?section_id=${sectionId}`)).statusCode).toBe(400);
  });

  it('is for full users; another account’s section is 404', async () => {
    expectSignInRequired(await api(`/customer_metrics?section_id=${sectionId}&date=2026-02-01`, null));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api(`/customer_metrics?section_id=${sectionId}&date=2026-02-01`, colleague)).statusCode).toBe(403);
    const theirs = await api(`/customer_metrics?section_id=${theirSection}&date=2026-02-01`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).not.toContain('theirs');
  });
});
