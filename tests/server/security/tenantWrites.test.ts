import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthTestApp, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';

/** The two holes the attack found: a settings write that took key columns from the body, and customer revenue for a report-only colleague. */

let t: AuthTestApp;
let owner: SignedUp;
let victim: SignedUp;
let ownReport: { id: string; secret: string };
let victimReport: { id: string; secret: string };

const call = (method: 'GET' | 'PUT', url: string, who: SignedUp, payload?: object) =>
  t.app.inject({ method, url: `/api/v11${url}`, headers: { authorization: who.authorization }, ...(payload ? { payload } : {}) });

async function reportOf(who: SignedUp): Promise<{ id: string; secret: string }> {
  const created = await t.app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: who.authorization }, payload: { title: 'Settings', sections: [{ definition_id: 'mrr' }] } });
  expect(created.statusCode, created.body).toBe(201);
  await t.app.reports.settled();
  return created.json() as { id: string; secret: string };
}

beforeAll(async () => {
  t = await createAuthTestApp();
  owner = await signUp(t.app);
  victim = await signUp(t.app);
  ownReport = await reportOf(owner);
  victimReport = await reportOf(victim);
});
afterAll(() => t.close());

describe('PUT /business_reports/{id}/settings', () => {
  it("refuses key columns in the body, and the other account's settings stay as they were", async () => {
    const before = (await call('GET', `/business_reports/${victimReport.id}/settings`, victim)).json();
    for (const extra of [{ account_id: victim.user.account_id }, { report_id: victimReport.id }, { account_id: victim.user.account_id, report_id: victimReport.id }]) {
      const response = await call('PUT', `/business_reports/${ownReport.id}/settings`, owner, { display_quarters: !before.display_quarters, ...extra });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().errors[0].detail).toMatch(/is not a known property$/);
    }
    expect((await call('GET', `/business_reports/${victimReport.id}/settings`, victim)).json()).toEqual(before);
  });

  it("answers 404 for another account's report", async () => {
    const response = await call('PUT', `/business_reports/${victimReport.id}/settings`, owner, { display_quarters: true });
    expect(response.statusCode).toBe(404);
    expect((await call('GET', `/business_reports/${victimReport.id}/settings`, victim)).json().display_quarters).toBe(false);
  });

  it('changes only the named settings of the caller’s own report', async () => {
    const response = await call('PUT', `/business_reports/${ownReport.id}/settings`, owner, { display_quarters: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ display_quarters: true, repeatable: true });
    expect((await call('GET', `/business_reports/${ownReport.id}/settings`, owner)).json().display_quarters).toBe(true);
  });
});

describe('GET /customer_metrics/{id}', () => {
  it('refuses a shared_report_only colleague with 403, as /customers/{id} does', async () => {
    await t.db.kysely.insertInto('customers').values({ account_id: owner.user.account_id, id: 'cust-rev', name: 'Revenue Corp', public_id: null }).execute();
    const colleague = await sharedReportOnlyColleague(t.app, t.db, owner);
    const metrics = await call('GET', '/customer_metrics/cust-rev', colleague);
    expect(metrics.statusCode).toBe(403);
    expect(metrics.body).not.toContain('mrr');
    expect((await call('GET', '/customers/cust-rev', colleague)).statusCode).toBe(403);
    expect((await call('GET', '/customer_metrics/cust-rev', owner)).statusCode).toBe(200);
  });
});
