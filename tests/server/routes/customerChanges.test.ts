import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_NAME_REQUIRED_MESSAGE } from '../../../models/customers';
import { DESCENDANT_PARENT, MERGE_ITSELF, OWN_PARENT, PARENT_WITH_CHILDREN, UNKNOWN_SEGMENT } from '../../../server/customers/changes';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * The customer drawer's actions, seen in a report's numbers: merge (a merged customer's MRR
 * counted once, one customer fewer), parent (a child rolled up with use_hierarchy), exclusion
 * (gone from every section), delete (its payments no longer count). The test clock's today is
 * 2026-03-02; every section's last point is the current month.
 */

interface Row {
  id: string;
  name: string;
  parent_id: string | null;
  children_count: number;
  include_in_calculations_by_default: boolean;
  segments: { segment: { id: string; name: string }; value: string | null }[];
  metrics: Array<{ kind?: string; value: number | null }>;
}
interface Section {
  id: string;
  definition_id: string;
  data_type: string;
  resolution: string;
  segments: { is_total: boolean; series: { name: string; data_points: { time: string; value: number | null }[] }[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let account: string;
let report: { id: string; secret: string };

/** `who` null: no token. */
const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const mrrOf = (row: Row) => row.metrics.find((m) => m.kind === 'mrr')?.value;

async function customer(accountId: string, id: string, monthly: number, parent: string | null = null, type: 'recurring' | 'one_time' = 'recurring'): Promise<void> {
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: accountId, id, name: `Name ${id}`, public_id: `pub-${id}`, parent_id: parent }).execute();
  if (monthly === 0) return;
  const payment = `subh${id.padStart(12, '0').slice(-12)}`;
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id: payment, customer_id: id, started_at: '2025-10-01', ended_at: isoFromDay(addMonths(dayFromIso('2025-10-01'), 12)), duration_in_months: 12, total_value: monthly * 12, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: accountId, payment_id: payment, product_key: 'pro', type, quantity: 1 }).execute();
}

/** The report's sections after every recalculation finished: the last point (this month) of each, by definition id. */
async function numbers(): Promise<Record<string, number | null>> {
  await app.reports.settled();
  const response = await api('GET', `/business_reports/by_secret?secret=${report.secret}`);
  expect(response.statusCode, response.body).toBe(200);
  const sections = (response.json() as { sections: Section[] }).sections;
  return Object.fromEntries(sections.map((section) => [section.definition_id, section.segments.find((s) => s.is_total)?.series[0]?.data_points.at(-1)?.value ?? null]));
}

async function row(id: string): Promise<Row> {
  const response = await api('GET', `/customer/search?query=pub-${id}`);
  const [found] = (response.json() as { items: Row[] }).items;
  if (!found) throw new Error(`no row of ${id}`);
  return found;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  account = owner.user.account_id;
  await harness.db.kysely.insertInto('products').values([{ account_id: account, key: 'pro', name: 'Pro' }, { account_id: stranger.user.account_id, key: 'pro', name: 'Pro' }]).execute();
  // $100 + $50 + $30 + $20 (a child of keep) + $7 (excluded later) a month.
  await customer(account, 'keep', 10_000);
  await customer(account, 'twin', 5_000);
  await customer(account, 'solo', 3_000);
  await customer(account, 'kid', 2_000, 'keep');
  await customer(account, 'small', 700);
  await customer(stranger.user.account_id, 'theirs', 9_000);
  const created = await api('POST', '/business_reports', owner, { title: 'Numbers', sections: ['mrr', 'customers', 'recognized_revenue'].map((definition_id) => ({ definition_id })) });
  expect(created.statusCode, created.body).toBe(201);
  report = created.json() as { id: string; secret: string };
}, 60_000);
afterAll(() => harness?.close());

describe(`customer changes on ${testEngine}: who may`, () => {
  it('are for signed-in full users of the customer’s account', async () => {
    expectSignInRequired(await api('PUT', '/customers/keep', null, { name: 'x' }));
    expectSignInRequired(await api('DELETE', '/customers/keep', null));
    expectSignInRequired(await api('POST', '/customers/keep/merge', null, { source_id: 'twin' }));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('PUT', '/customers/keep', colleague, { name: 'x' })).statusCode).toBe(403);
    expect((await api('DELETE', '/customers/keep', colleague)).statusCode).toBe(403);
    expect((await api('POST', '/customers/keep/merge', colleague, { source_id: 'twin' })).statusCode).toBe(403);
    // Another account's customer, in the path or the body: 404, and nothing changes.
    expect((await api('PUT', '/customers/theirs', owner, { name: 'Mine now' })).statusCode).toBe(404);
    expect((await api('DELETE', '/customers/theirs', owner)).statusCode).toBe(404);
    expect((await api('POST', '/customers/theirs/merge', owner, { source_id: 'keep' })).statusCode).toBe(404);
    expect((await api('POST', '/customers/keep/merge', owner, { source_id: 'theirs' })).statusCode).toBe(404);
    expect((await api('PUT', '/customers/keep', owner, { parent_id: 'theirs' })).statusCode).toBe(404);
    const theirs = await harness.db.kysely.selectFrom('customers').selectAll().where('id', '=', 'theirs').executeTakeFirstOrThrow();
    expect(theirs).toMatchObject({ name: 'Name theirs', deleted_at: null, parent_id: null });
    expect(await harness.db.kysely.selectFrom('payments').select('id').where('customer_id', '=', 'theirs').execute()).toHaveLength(1);
  });
});

describe(`PUT /customers/{id} on ${testEngine}`, () => {
  it('renames, refusing a blank name', async () => {
    const renamed = await api('PUT', '/customers/solo', owner, { name: ' Solo Ltd ' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((renamed.json() as Row).name).toBe('Solo Ltd');
    const blank = await api('PUT', '/customers/solo', owner, { name: '  ' });
    expect(blank.statusCode).toBe(422);
    expect(problemsOf(blank)).toEqual([{ pointer: '/body/name', detail: CUSTOMER_NAME_REQUIRED_MESSAGE }]);
  });

  it('sets a parent: a child rolled up with use_hierarchy, and refuses cycles and parents of parents', async () => {
    const before = await numbers();
    expect(before).toMatchObject({ mrr: 20_700, customers: 5 });
    // With use_hierarchy the customers section counts top-most parents: keep (with kid), twin, solo, small.
    const sections = (await api('GET', `/business_reports/by_secret?secret=${report.secret}`)).json() as { sections: Section[] };
    const counts = sections.sections.find((s) => s.definition_id === 'customers') as Section;
    const hierarchy = await api('PUT', `/business_report/sections/${counts.id}`, owner, { data_type: counts.data_type, use_hierarchy: true, resolution: counts.resolution });
    expect(hierarchy.statusCode, hierarchy.body).toBe(200);
    expect(await numbers()).toMatchObject({ mrr: 20_700, customers: 4 });
    const set = await api('PUT', '/customers/solo', owner, { parent_id: 'twin' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ id: 'solo', parent_id: 'twin' });
    expect((await row('twin')).children_count).toBe(1);
    expect(mrrOf(await row('twin'))).toBe(8_000);
    expect(await numbers()).toMatchObject({ mrr: 20_700, customers: 3 });

    for (const [id, body, status, detail] of [
      ['solo', { parent_id: 'solo' }, 422, OWN_PARENT],
      ['twin', { parent_id: 'solo' }, 422, DESCENDANT_PARENT],
      ['twin', { parent_id: 'small' }, 422, PARENT_WITH_CHILDREN],
      ['solo', { parent_id: 'nobody' }, 404, undefined],
    ] as const) {
      const response = await api('PUT', `/customers/${id}`, owner, body);
      expect(response.statusCode, `${id} ${JSON.stringify(body)}`).toBe(status);
      if (detail) expect(problemsOf(response)).toEqual([{ pointer: '/body/parent_id', detail }]);
    }
    const removed = await api('PUT', '/customers/solo', owner, { parent_id: null });
    expect(removed.json()).toMatchObject({ parent_id: null });
    expect(await numbers()).toMatchObject({ mrr: 20_700, customers: 4 });
    await api('PUT', `/business_report/sections/${counts.id}`, owner, { data_type: counts.data_type, use_hierarchy: false, resolution: counts.resolution });
  });

  it('excludes a customer (and its children) from every section, and includes it again', async () => {
    const before = await numbers();
    const excluded = await api('PUT', '/customers/keep', owner, { include_in_calculations_by_default: false });
    expect(excluded.statusCode, excluded.body).toBe(200);
    expect(excluded.json()).toMatchObject({ include_in_calculations_by_default: false });
    expect(mrrOf(excluded.json() as Row)).toBe(0);
    const after = await numbers();
    // keep's $100 and its child's $20 leave MRR, customers and recognized revenue.
    expect(after.mrr).toBe((before.mrr as number) - 12_000);
    expect(after.customers).toBe((before.customers as number) - 2);
    expect(after.recognized_revenue).toBeLessThan(before.recognized_revenue as number);
    await api('PUT', '/customers/keep', owner, { include_in_calculations_by_default: true });
    expect(await numbers()).toEqual(before);
  });

  it('sets attribute values now by attribute name', async () => {
    const db = harness.db.kysely;
    await db.insertInto('object_attributes').values({ account_id: account, id: 'att-plan', name: 'Plan', object: 'customer' }).execute();
    await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-plan', object_attribute_id: 'att-plan', name: 'Plan', time_sensitive: true }).execute();
    const set = await api('PUT', '/customers/solo', owner, { segments: [{ name: 'Plan', value: 'Gold' }] });
    expect(set.statusCode, set.body).toBe(200);
    expect((set.json() as Row).segments).toEqual([{ segment: { id: 'seg-plan', name: 'Plan', time_sensitive: true }, value: 'Gold' }]);
    const unknown = await api('PUT', '/customers/solo', owner, { segments: [{ name: 'Nope', value: 'x' }] });
    expect(unknown.statusCode).toBe(422);
    expect(problemsOf(unknown)).toEqual([{ pointer: '/body/segments/0/name', detail: UNKNOWN_SEGMENT }]);
  });
});

describe(`POST /customers/{id}/merge on ${testEngine}`, () => {
  it('moves the source’s payments, children and attribute values: its MRR counted once, one customer fewer, the source gone', async () => {
    const db = harness.db.kysely;
    await customer(account, 'dup', 4_000);
    await customer(account, 'dupkid', 1_000, 'dup');
    await db.insertInto('customer_segment_values').values({ account_id: account, customer_id: 'dup', segment_id: 'seg-plan', year: 2025, month: 5, value: 'Silver' }).execute();
    // Written behind the API's back: the report is recomputed with them first.
    expect((await api('POST', `/business_reports/${report.id}/refresh`)).statusCode).toBe(202);
    const before = await numbers();
    const merged = await api('POST', '/customers/twin/merge', owner, { source_id: 'dup' });
    expect(merged.statusCode, merged.body).toBe(200);
    const target = merged.json() as Row;
    expect(target).toMatchObject({ id: 'twin', children_count: 1 });
    expect(mrrOf(target)).toBe(5_000 + 4_000 + 1_000);
    const after = await numbers();
    expect(after.mrr).toBe(before.mrr);
    expect(after.customers).toBe((before.customers as number) - 1);
    expect(after.recognized_revenue).toBe(before.recognized_revenue);
    expect((await api('GET', '/customers/dup')).statusCode).toBe(404);
    expect((await api('GET', '/customers/dupkid')).json()).toMatchObject({ parent_id: 'twin' });
    const values = await db.selectFrom('customer_segment_values').select(['year', 'month', 'value']).where('account_id', '=', account).where('customer_id', '=', 'twin').execute();
    expect(values).toEqual([{ year: 2025, month: 5, value: 'Silver' }]);
    expect((await api('POST', '/customers/twin/merge', owner, { source_id: 'dup' })).statusCode).toBe(404);
  });

  it('merges a parent into its own child without a cycle', async () => {
    const merged = await api('POST', '/customers/dupkid/merge', owner, { source_id: 'twin' });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(merged.json()).toMatchObject({ id: 'dupkid', parent_id: null });
    expect(mrrOf(merged.json() as Row)).toBe(10_000);
  });

  it('refuses merging a customer into itself', async () => {
    const self = await api('POST', '/customers/solo/merge', owner, { source_id: 'solo' });
    expect(self.statusCode).toBe(422);
    expect(problemsOf(self)).toEqual([{ pointer: '/body/source_id', detail: MERGE_ITSELF }]);
    expect((await api('POST', '/customers/solo/merge', owner, { source_id: 'nobody' })).statusCode).toBe(404);
  });
});

describe(`DELETE /customers/{id} on ${testEngine}`, () => {
  it('removes the customer from every list and number; its children lose their parent', async () => {
    const before = await numbers();
    const response = await api('DELETE', '/customers/keep');
    expect(response.statusCode, response.body).toBe(204);
    const after = await numbers();
    expect(after.mrr).toBe((before.mrr as number) - 10_000);
    expect(after.customers).toBe((before.customers as number) - 1);
    expect(after.recognized_revenue).toBeLessThan(before.recognized_revenue as number);
    expect((await api('GET', '/customers/keep')).statusCode).toBe(404);
    expect((await api('GET', '/customer/search?query=pub-keep')).json()).toEqual({ items: [] });
    const list = (await api('GET', '/customers?sort_by=name:asc')).json() as { items: Row[] };
    expect(list.items.map((r) => r.id)).not.toContain('keep');
    expect((await api('GET', '/customers/kid')).json()).toMatchObject({ parent_id: null });
    expect(await harness.db.kysely.selectFrom('payments').select('id').where('account_id', '=', account).where('customer_id', '=', 'keep').execute()).toEqual([]);
    expect((await harness.db.kysely.selectFrom('customers').select('deleted_at').where('account_id', '=', account).where('id', '=', 'keep').executeTakeFirstOrThrow()).deleted_at).not.toBeNull();
    expect((await api('DELETE', '/customers/keep')).statusCode).toBe(404);
    expect((await api('PUT', '/customers/keep', owner, { name: 'back' })).statusCode).toBe(404);
  });

  it('marks the account’s reports recalculated after a change', async () => {
    await api('PUT', '/customers/small', owner, { include_in_calculations_by_default: false });
    await app.reports.settled();
    const view = (await api('GET', `/business_reports/by_secret?secret=${report.secret}`)).json() as { recalculation_status: string; freshness_status: string };
    expect(view).toMatchObject({ recalculation_status: 'recalculated', freshness_status: 'fresh' });
  });
});
