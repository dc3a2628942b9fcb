import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_ID, PLANS } from '../../../server/plans/catalogue';
import { PLAN_NOT_FOUND } from '../../../server/routes/plans';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, uniqueEmail, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Plans over the API: the catalogue, the account's plan, and what the account uses of it. */

interface Plan {
  id: string;
  name: string;
  description: string;
  monthly_price: number;
  currency: string;
  limits: { customers: number | null; users: number | null; integrations: number | null };
}
type PlanDetails = Plan & { current: boolean; usage?: { customers: number; users: number; integrations: number } };

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let colleague: SignedUp;

const get = (url: string, who?: SignedUp) => app.inject({ method: 'GET', url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {} });

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  await db
    .insertInto('customers')
    .values([
      { account_id: account, id: 'cus1', name: 'Acme', public_id: null },
      { account_id: account, id: 'cus2', name: 'Beta', public_id: null },
      { account_id: account, id: 'cus3', name: 'Gone', public_id: null, deleted_at: new Date('2026-01-01T00:00:00Z') },
      { account_id: stranger.user.account_id, id: 'cus1', name: 'Other', public_id: null },
    ])
    .execute();
  await db
    .insertInto('integrations')
    .values([
      { account_id: account, name: 'stripe', configured: true },
      { account_id: account, name: 'hubspot', configured: false },
      { account_id: stranger.user.account_id, name: 'chargebee', configured: true },
    ])
    .execute();
  const invited = await app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email: uniqueEmail('invited'), name: 'Invited' } });
  expect(invited.statusCode, invited.body).toBeLessThan(300);
  colleague = await sharedReportOnlyColleague(app, harness.db, owner);
  await db.updateTable('accounts').set({ plan_id: 'growth' }).where('id', '=', stranger.user.account_id).execute();
});
afterAll(() => harness?.close());

describe(`GET /api/v11/plans on ${testEngine}`, () => {
  it('lists every plan, cheapest first, with the account’s plan: a new sign-up is on the default plan', async () => {
    const response = await get('/plans', owner);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: Plan[]; current_plan_id: string };
    expect(body.current_plan_id).toBe(DEFAULT_PLAN_ID);
    expect(body.items.map((plan) => plan.id)).toEqual(['starter', 'growth', 'scale', 'enterprise']);
    const prices = body.items.map((plan) => plan.monthly_price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    for (const plan of body.items) {
      expect(plan.currency).toBe('USD');
      expect(Number.isInteger(plan.monthly_price)).toBe(true);
    }
    expect(body.items.find((plan) => plan.id === 'enterprise')?.limits).toEqual({ customers: null, users: null, integrations: null });
  });

  it('answers each account its own plan', async () => {
    expect((await get('/plans', stranger)).json()).toMatchObject({ current_plan_id: 'growth' });
  });

  it('is open to any signed-in user of the account', async () => {
    const response = await get('/plans', colleague);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ current_plan_id: DEFAULT_PLAN_ID });
  });

  it('needs a signed-in user', async () => {
    expectSignInRequired(await get('/plans'));
    expectSignInRequired(await get('/plans', { ...owner, authorization: 'Bearer not-a-token' }));
  });
});

describe(`GET /api/v11/plans/:id on ${testEngine}`, () => {
  it('answers the account’s plan with its usage: non-deleted customers, users (the invited too, every permission level) and configured integrations', async () => {
    const response = await get(`/plans/${DEFAULT_PLAN_ID}`, owner);
    expect(response.statusCode, response.body).toBe(200);
    const plan = response.json() as PlanDetails;
    expect(plan).toEqual({ ...PLANS.find((candidate) => candidate.id === DEFAULT_PLAN_ID), current: true, usage: { customers: 2, users: 3, integrations: 1 } });
  });

  it('answers another plan without usage', async () => {
    const response = await get('/plans/enterprise', owner);
    expect(response.statusCode, response.body).toBe(200);
    const plan = response.json() as PlanDetails;
    expect(plan).toMatchObject({ id: 'enterprise', name: 'Enterprise', current: false });
    expect(plan.usage).toBeUndefined();
  });

  it('counts only the account’s own customers, users and integrations', async () => {
    const plan = (await get('/plans/growth', stranger)).json() as PlanDetails;
    expect(plan).toMatchObject({ id: 'growth', current: true, usage: { customers: 1, users: 1, integrations: 1 } });
  });

  it('answers 404 for an id that is no plan', async () => {
    const response = await get('/plans/platinum', owner);
    expect(response.statusCode).toBe(404);
    expect(problemsOf(response)).toEqual([{ pointer: undefined, detail: PLAN_NOT_FOUND }]);
  });

  it.each([
    ['upper case', 'STARTER'],
    ['a quote', "starter'--"],
    ['spaces', 'star%20ter'],
    ['an encoded slash', 'starter%2Fgrowth'],
    ['dots', '..'],
    ['unicode', '%C5%BC%C3%B3%C5%82w'],
    ['a very long id', 'a'.repeat(2_000)],
    ['a NUL byte', 'starter%00'],
  ])('answers an odd id (%s) with 400 or 404, never 500', async (_label, id) => {
    const response = await get(`/plans/${id}`, owner);
    expect([400, 404]).toContain(response.statusCode);
  });

  it('needs a signed-in user', async () => {
    expectSignInRequired(await get('/plans/starter'));
  });
});

describe(`accounts.plan_id on ${testEngine}`, () => {
  it('holds each plan of the catalogue and nothing else', async () => {
    const db = harness.db.kysely;
    const account = stranger.user.account_id;
    for (const plan of PLANS) {
      await db.updateTable('accounts').set({ plan_id: plan.id }).where('id', '=', account).execute();
      expect((await get('/plans', stranger)).json()).toMatchObject({ current_plan_id: plan.id });
    }
    await expect(sql`update accounts set plan_id = 'platinum' where id = ${account}`.execute(db)).rejects.toThrow(/accounts_plan_id_check/);
  });
});
