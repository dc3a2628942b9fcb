import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import type { MetricsService } from '../../../server/metrics/service';
import { UNKNOWN_FILTER_SEGMENT, TOO_MANY_FILTER_ITEMS } from '../../../server/reports/reportFilters';
import { FILTERED_ANSWERS_KEPT } from '../../../server/reports/answerCache';
import { filterQuery, MAX_VIEW_FILTER_ITEMS, type FilterItem, type ReportViewFilter } from '../../../models/reportFilter';
import { createAuthTestApp, errorsOf, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { seedPlanAccount } from '../helpers/planAccount';

/**
 * Report filters over the API: the picker's lists, `GET /business_reports/by_secret_filtered`
 * (a filtered report equals the matching segment of the unfiltered one; a negated item is the
 * complement), report views (`PUT /business_reports/{id}` filter) and the filtered answers'
 * cache. The test clock's today is 2026-03-02: reports show 2025-04 to 2026-03.
 */

interface Point {
  time: string;
  value: number | null;
}
interface Series {
  name: string;
  segment_value?: string;
  data_points: Point[];
}
interface Section {
  id: string;
  definition_id: string;
  recalculation_status: string;
  error: string | null;
  currency: string | null;
  segments: { id: string; is_total: boolean; series: Series[] }[];
}
interface Report {
  id: string;
  secret: string;
  currency: string;
  filter: ReportViewFilter | null;
  filtered_segmenter_name: string | null;
  filtered_segment_value: string | null;
  sections: Section[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let accountId: string;
let segmentId: string;
let attributeId: string;
let report: { id: string; secret: string };
let mrrSectionId: string;
let strangerSegmentId: string;

const PLAN = 'Plan tier';
const CHANNEL = 'Sales channel';

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${API_PREFIX}${url}`, headers: { ...(who ? { authorization: who.authorization } : {}), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });

const metricsOf = (instance: FastifyInstance) => (instance.reports as unknown as { metrics: MetricsService }).metrics;

/** Payments from a CSV import, a customer attribute with values from an attribute import. */
const seedAccount = (who: SignedUp, rows: string[], values: string[], segment: string) => seedPlanAccount(harness, who, { rows, values, segment, attribute: PLAN });

async function customerId(publicId: string): Promise<string> {
  const row = await harness.db.kysely.selectFrom('customers').select('id').where('account_id', '=', accountId).where((eb) => eb.or([eb('public_id', '=', publicId), eb('id', '=', publicId)])).executeTakeFirstOrThrow();
  return row.id;
}

async function bySecret(secret: string, who: SignedUp | undefined = owner): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

const queryOf = (item: FilterItem, extra: Record<string, string> = {}) => new URLSearchParams({ ...(filterQuery(item) as Record<string, string>), ...extra }).toString();

async function filtered(secret: string, item: FilterItem, who: SignedUp | undefined = owner, extra: Record<string, string> = {}): Promise<{ sections: Section[]; filter: FilterItem }> {
  const response = await api('GET', `/business_reports/by_secret_filtered?secret=${secret}&${queryOf(item, extra)}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { sections: Section[]; filter: FilterItem };
}

const totalOf = (section: Section | undefined): (number | null)[] => section?.segments.find((s) => s.is_total)?.series[0]?.data_points.map((p) => p.value) ?? [];
const seriesOf = (section: Section | undefined, segmenter: string, value: string): (number | null)[] =>
  section?.segments.find((s) => s.id === segmenter)?.series.find((s) => s.segment_value === value)?.data_points.map((p) => p.value) ?? [];
const mrrOf = (sections: Section[]) => sections.find((s) => s.definition_id === 'mrr');
const plus = (a: (number | null)[], b: (number | null)[]) => a.map((v, k) => (v ?? 0) + (b[k] ?? 0));

const segmentItem = (value: string, negated = false): FilterItem => ({ type: 'segment', id: `customer_segment:${segmentId}`, name: '', value, negated });

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  accountId = owner.user.account_id;
  segmentId = 'segplan';
  // c1 pro $100 from June 2025 (Gold, web, deal of Anna); c2 pro $50 Sep-Nov (Silver, deal of Bob);
  // c3 basic $30 from October (Gold, partner); c4 basic $20 from July (no plan).
  await seedAccount(
    owner,
    ['c1,i1,2025-06-01,12,100,One,pro,1', 'c2,i2,2025-09-01,3,50,Two,pro,1', 'c3,i3,2025-10-01,12,30,Three,basic,1', 'c4,i4,2025-07-01,12,20,Four,basic,1'],
    ['c1,Gold', 'c2,Silver', 'c3,Gold'],
    segmentId,
  );
  const db = harness.db.kysely;
  attributeId = 'attchannel';
  await db.insertInto('object_attributes').values({ account_id: accountId, id: attributeId, name: CHANNEL, object: 'subscription_history' }).execute();
  const paymentOf = async (publicId: string) => (await db.selectFrom('payments').select('id').where('account_id', '=', accountId).where('customer_id', '=', await customerId(publicId)).executeTakeFirstOrThrow()).id;
  await db
    .insertInto('payment_segment_values')
    .values([
      { account_id: accountId, payment_id: await paymentOf('c1'), attribute_id: attributeId, value: 'web' },
      { account_id: accountId, payment_id: await paymentOf('c3'), attribute_id: attributeId, value: 'partner' },
    ])
    .execute();
  await db
    .insertInto('deals')
    .values([
      { account_id: accountId, id: 'deal1', customer_id: await customerId('c1'), name: 'Upsell', currency: 'USD', stage: 'won', owner_name: 'Anna' },
      { account_id: accountId, id: 'deal2', customer_id: await customerId('c2'), name: 'Renewal', currency: 'USD', stage: 'open', owner_name: 'Bob' },
      { account_id: accountId, id: 'deal3', customer_id: null, name: 'Lead', currency: 'USD', stage: 'open', owner_name: 'Carla' },
    ])
    .execute();

  const created = await api('POST', '/business_reports', owner, { title: 'Filtered', sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] });
  expect(created.statusCode, created.body).toBe(201);
  report = created.json() as { id: string; secret: string };
  await app.reports.settled();
  mrrSectionId = mrrOf((await bySecret(report.secret)).sections)?.id ?? '';
  const split = await api('PUT', `/business_report/sections/${mrrSectionId}`, owner, { segment_ids: [`customer_segment:${segmentId}`, 'subscription_segment:product', `subscription_segment:attribute:${attributeId}`] });
  expect(split.statusCode, split.body).toBe(200);
  await app.reports.settled();

  strangerSegmentId = 'segstranger';
  await seedAccount(stranger, ['s1,j1,2025-06-01,12,70,Alien,pro,1'], ['s1,Gold'], strangerSegmentId);
});
afterAll(() => harness?.close());

describe(`report filters on ${testEngine}`, () => {
  it('lists the report account’s segment values by secret, matched on value or name, ordered by name then value', async () => {
    const all = await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}`, owner);
    expect(all.statusCode, all.body).toBe(200);
    expect((all.json() as { items: unknown[] }).items).toEqual([
      { id: `customer_segment:${segmentId}`, name: PLAN, value: 'Gold' },
      { id: `customer_segment:${segmentId}`, name: PLAN, value: 'Silver' },
      { id: `subscription_segment:attribute:${attributeId}`, name: CHANNEL, value: 'partner' },
      { id: `subscription_segment:attribute:${attributeId}`, name: CHANNEL, value: 'web' },
    ]);
    const gold = (await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}&query=GOL`, owner)).json() as { items: { value: string }[] };
    expect(gold.items.map((i) => i.value)).toEqual(['Gold']);
    const byName = (await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}&query=channel`, owner)).json() as { items: { value: string }[] };
    expect(byName.items.map((i) => i.value)).toEqual(['partner', 'web']);
    const limited = (await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}&limit=1`, owner)).json() as { items: unknown[] };
    expect(limited.items).toHaveLength(1);
    expect((await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}&limit=101`, owner)).statusCode).toBe(400);
    expect((await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}`, stranger)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}`));
  });

  it('searches a customer segment’s values, lists deal owners and searches products; each for the account only', async () => {
    const values = await api('GET', `/customer_segments/${segmentId}/search_values?query=l`, owner);
    expect(values.statusCode, values.body).toBe(200);
    expect(values.json()).toEqual({ items: [{ value: 'Gold' }, { value: 'Silver' }] });
    expect((await api('GET', `/customer_segments/${segmentId}/search_values?query=SIL&limit=1`, owner)).json()).toEqual({ items: [{ value: 'Silver' }] });
    expect((await api('GET', `/customer_segments/${segmentId}/search_values?limit=0`, owner)).statusCode).toBe(400);
    expect((await api('GET', `/customer_segments/${strangerSegmentId}/search_values`, owner)).statusCode).toBe(404);
    expect((await api('GET', `/customer_segments/${segmentId}/search_values`, stranger)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/customer_segments/${segmentId}/search_values`));

    expect((await api('GET', '/deal_owners', owner)).json()).toEqual({ items: [{ owner_name: 'Anna' }, { owner_name: 'Bob' }, { owner_name: 'Carla' }] });
    expect((await api('GET', '/deal_owners', stranger)).json()).toEqual({ items: [] });
    expectSignInRequired(await api('GET', '/deal_owners'));

    const products = (await api('GET', '/product/search', owner)).json() as { items: { key: string }[] };
    expect(products.items.map((p) => p.key).sort()).toEqual(['basic', 'pro']);
    expect(((await api('GET', '/product/search?query=PR', owner)).json() as { items: { key: string }[] }).items.map((p) => p.key)).toEqual(['pro']);
    expect(((await api('GET', '/product/search?limit=1', owner)).json() as { items: unknown[] }).items).toHaveLength(1);
    expect((await api('GET', '/product/search?limit=500', owner)).statusCode).toBe(400);
    expect(((await api('GET', '/product/search', stranger)).json() as { items: { key: string }[] }).items.map((p) => p.key)).toEqual(['pro']);
    expectSignInRequired(await api('GET', '/product/search'));
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/deal_owners', viewer)).statusCode).toBe(403);
  });

  it('filters by a customer segment value: the sections equal that segment’s series, and the negation is the complement', async () => {
    const plain = await bySecret(report.secret);
    const mrr = mrrOf(plain.sections);
    const segmenter = `customer_segment:${segmentId}`;
    const gold = await filtered(report.secret, segmentItem('Gold'));
    expect(gold.filter).toEqual({ type: 'segment', id: segmenter, name: PLAN, value: 'Gold', negated: false });
    expect(gold.sections.map((s) => s.id)).toEqual(plain.sections.map((s) => s.id));
    const goldMrr = totalOf(mrrOf(gold.sections));
    expect(goldMrr).toEqual(seriesOf(mrr, segmenter, 'Gold'));
    // Gold: c1 ($100 from June) and c3 ($30 from October).
    expect(goldMrr[2]).toBe(10_000);
    expect(goldMrr[6]).toBe(13_000);
    const notGold = totalOf(mrrOf((await filtered(report.secret, segmentItem('Gold', true))).sections));
    expect(plus(goldMrr, notGold)).toEqual(totalOf(mrr));
    expect(totalOf(mrrOf((await filtered(report.secret, segmentItem('Silver'))).sections))).toEqual(seriesOf(mrr, segmenter, 'Silver'));
    // The customers section is filtered too: Gold customers in October are c1 and c3.
    const customers = gold.sections.find((s) => s.definition_id === 'customers');
    expect(totalOf(customers)[6]).toBe(2);
  });

  it('lists the details of a filtered chart: the rows of the filtered point, adding up to it; a bad filter parameter is a 422', async () => {
    const gold = mrrOf((await filtered(report.secret, segmentItem('Gold'))).sections);
    const octoberGold = totalOf(gold)[6];
    const details = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01&${queryOf(segmentItem('Gold'))}`, owner);
    expect(details.statusCode, details.body).toBe(200);
    const payload = (details.json() as { items: { value: number; details: { total_value: number; total_count: number } }[] }).items[0];
    expect(payload?.value).toBe(octoberGold);
    expect(payload?.details).toMatchObject({ total_value: octoberGold, total_count: 2 });
    // Negated: the other customers, and the two add up to the unfiltered point.
    const rest = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01&${queryOf(segmentItem('Gold', true))}`, owner);
    const plain = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01`, owner);
    const valueOf = (response: typeof rest) => (response.json() as { items: { details: { total_value: number } }[] }).items[0]?.details.total_value ?? NaN;
    expect(valueOf(rest) + valueOf(details)).toBe(valueOf(plain));
    const unknown = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01&filter_segmenter_id=customer_segment:nope&filter_segment_value=Gold`, owner);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ errors: [{ source: { pointer: '/querystring/filter_segmenter_id' } }] });
  });

  it('filters by a payment attribute value, a product and a deal owner, each negatable', async () => {
    const mrr = mrrOf((await bySecret(report.secret)).sections);
    const channel = `subscription_segment:attribute:${attributeId}`;
    const web = await filtered(report.secret, { type: 'segment', id: channel, name: '', value: 'web', negated: false });
    expect(web.filter).toMatchObject({ name: CHANNEL, value: 'web' });
    expect(totalOf(mrrOf(web.sections))).toEqual(seriesOf(mrr, channel, 'web'));

    const pro = await filtered(report.secret, { type: 'product', product_key: 'pro', negated: false });
    expect(pro.filter).toMatchObject({ type: 'product', product_key: 'pro', negated: false });
    const proMrr = totalOf(mrrOf(pro.sections));
    expect(proMrr).toEqual(seriesOf(mrr, 'subscription_segment:product', 'pro'));
    expect(proMrr[6]).toBe(15_000);
    const notPro = totalOf(mrrOf((await filtered(report.secret, { type: 'product', product_key: 'pro', negated: true })).sections));
    expect(plus(proMrr, notPro)).toEqual(totalOf(mrr));

    const anna = totalOf(mrrOf((await filtered(report.secret, { type: 'deal_owner', owner_name: 'Anna', negated: false })).sections));
    // Anna owns c1's deal only: $100 from June 2025.
    expect(anna.slice(0, 4)).toEqual([0, 0, 10_000, 10_000]);
    expect(anna[6]).toBe(10_000);
    const notAnna = totalOf(mrrOf((await filtered(report.secret, { type: 'deal_owner', owner_name: 'Anna', negated: true })).sections));
    expect(plus(anna, notAnna)).toEqual(totalOf(mrr));
    // Carla's deal has no customer; nobody's deal: nothing.
    expect(totalOf(mrrOf((await filtered(report.secret, { type: 'deal_owner', owner_name: 'Carla', negated: false })).sections)).every((v) => v === 0)).toBe(true);
  });

  it('answers in another currency when asked', async () => {
    await harness.db.kysely
      .insertInto('exchange_rates')
      .values(['2025-03-03', '2025-06-02', '2025-09-01', '2025-12-01', '2026-03-02'].map((day) => ({ day, currency: 'USD', rate_per_eur: '1.25' })))
      .onConflict((c) => c.doNothing())
      .execute();
    const euro = await filtered(report.secret, segmentItem('Gold'), owner, { currency: 'eur' });
    expect(mrrOf(euro.sections)).toMatchObject({ error: null, currency: 'EUR' });
    // $100 at 1.25 dollars a euro: 80 euros.
    expect(totalOf(mrrOf(euro.sections))[2]).toBe(8_000);
    expect((await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf(segmentItem('Gold'), { currency: 'XYZ' })}`, owner)).statusCode).toBe(422);
  });

  it('refuses bad filter values with a clear 400 or 422 naming the parameter', async () => {
    const get = (query: string, who: SignedUp | undefined = owner) => api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${query}`, who);
    const missing = await get('filter_segment_value=Gold');
    expect(missing.statusCode).toBe(422);
    expect(errorsOf(missing)[0]).toMatchObject({ detail: 'filter_segmenter_id is required', source: { pointer: '/querystring/filter_segmenter_id' } });
    const noValue = await get(`filter_segmenter_id=customer_segment:${segmentId}`);
    expect(noValue.statusCode).toBe(422);
    expect(errorsOf(noValue)[0]?.source).toEqual({ pointer: '/querystring/filter_segment_value' });
    for (const id of ['customer_segment:nosuch', `customer_segment:${strangerSegmentId}`, 'subscription_segment:attribute:nosuch', `subscription_segment:attribute:${segmentId}-att`, 'plan', 'customer_segment:']) {
      const unknown = await get(`filter_segmenter_id=${encodeURIComponent(id)}&filter_segment_value=Gold`);
      expect(unknown.statusCode, id).toBe(422);
      expect(errorsOf(unknown)[0], id).toMatchObject({ detail: UNKNOWN_FILTER_SEGMENT, source: { pointer: '/querystring/filter_segmenter_id' } });
    }
    expect(errorsOf(await get('filter_type=deal_owner'))[0]?.source).toEqual({ pointer: '/querystring/filter_owner_name' });
    expect(errorsOf(await get('filter_type=product&filter_product_key='))[0]?.source).toEqual({ pointer: '/querystring/filter_product_key' });
    expect((await get('filter_type=color&filter_segment_value=x')).statusCode).toBe(400);
    expect((await get(`filter_segmenter_id=customer_segment:${segmentId}&filter_segment_value=Gold&filter_negated=maybe`)).statusCode).toBe(400);
    expect((await get(`filter_segmenter_id=customer_segment:${segmentId}&filter_segment_value=${'x'.repeat(300)}`)).statusCode).toBe(400);
  });

  it('is readable like by_secret: 404 for another account, 401 without a token, anyone with anonymous access or on the demo account', async () => {
    const query = queryOf(segmentItem('Gold'));
    expect((await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${query}`, stranger)).statusCode).toBe(404);
    expect((await api('GET', `/business_reports/by_secret_filtered?secret=nosuchsecret&${query}`, owner)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${query}`));
    const db = harness.db.kysely;
    await db.updateTable('accounts').set({ anonymous_access_allowed: true }).where('id', '=', accountId).execute();
    try {
      await filtered(report.secret, segmentItem('Gold'), undefined);
      expect((await api('GET', `/business_report_segment_values/by_secret?secret=${report.secret}`)).statusCode).toBe(200);
    } finally {
      await db.updateTable('accounts').set({ anonymous_access_allowed: false }).where('id', '=', accountId).execute();
    }
    const demo = await signUp(app);
    await seedAccount(demo, ['d1,k1,2025-06-01,12,40,Demo,pro,1'], ['d1,Gold'], 'segdemo');
    const demoReport = (await api('POST', '/business_reports', demo, { title: 'Demo', sections: [{ definition_id: 'mrr' }] })).json() as { secret: string };
    await app.reports.settled();
    await db.updateTable('accounts').set({ is_demo: true }).where('id', '=', demo.user.account_id).execute();
    const anonymous = await api('GET', `/business_reports/by_secret_filtered?secret=${demoReport.secret}&${queryOf({ type: 'segment', id: 'customer_segment:segdemo', name: '', value: 'Gold', negated: false })}`);
    expect(anonymous.statusCode, anonymous.body).toBe(200);
    expect(totalOf(mrrOf((anonymous.json() as { sections: Section[] }).sections))[6]).toBe(4_000);
    expect((await api('GET', `/business_report_segment_values/by_secret?secret=${demoReport.secret}`, stranger)).json()).toEqual({ items: [{ id: 'customer_segment:segdemo', name: PLAN, value: 'Gold' }] });
  });

  it('answers a repeated filter from its cache (ETag, 304), and computes again after a data change', async () => {
    const metrics = metricsOf(app);
    const spy = vi.spyOn(metrics, 'sections');
    try {
      const item: FilterItem = { type: 'segment', id: `customer_segment:${segmentId}`, name: '', value: 'Silver', negated: true };
      const url = `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf(item)}`;
      const first = await api('GET', url, owner);
      expect(first.statusCode).toBe(200);
      const computed = spy.mock.calls.length;
      expect(computed).toBeGreaterThan(0);
      const builds = app.filteredAnswers.builds;
      const second = await api('GET', url, owner);
      expect(app.filteredAnswers.builds).toBe(builds);
      expect(second.body).toBe(first.body);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(spy.mock.calls.length).toBe(computed);
      const notModified = await api('GET', url, owner, undefined, { 'if-none-match': String(first.headers.etag) });
      expect(notModified.statusCode).toBe(304);
      expect(spy.mock.calls.length).toBe(computed);
      // Another item, or another currency, is another answer.
      await api('GET', `/business_reports/by_secret_filtered?secret=${report.secret}&${queryOf({ ...item, negated: false })}`, owner);
      expect(spy.mock.calls.length).toBeGreaterThan(computed);
      const afterOther = spy.mock.calls.length;
      await api('GET', url, owner);
      expect(spy.mock.calls.length).toBe(afterOther);
      // A data change (a new deal) moves the account's data version: the answer is computed again.
      await harness.db.kysely.insertInto('deals').values({ account_id: accountId, id: 'deal4', customer_id: await customerId('c3'), name: 'More', currency: 'USD', stage: 'open', owner_name: 'Dora' }).execute();
      const third = await api('GET', url, owner);
      expect(third.statusCode).toBe(200);
      expect(spy.mock.calls.length).toBe(afterOther + 1);
      expect(app.filteredAnswers.size).toBeLessThanOrEqual(FILTERED_ANSWERS_KEPT);
    } finally {
      spy.mockRestore();
    }
  });

  it('saves a report view: GET and by_secret carry it, the sections are recomputed with it, and a filter item adds to it', async () => {
    const before = await bySecret(report.secret);
    expect(before).toMatchObject({ filter: null, filtered_segmenter_name: null, filtered_segment_value: null });
    const etagBefore = (await api('GET', `/business_reports/by_secret?secret=${report.secret}`, owner)).headers.etag;
    const mrr = mrrOf(before.sections);
    const segmenter = `customer_segment:${segmentId}`;
    const view: ReportViewFilter = { operator: 'and', arguments: [segmentItem('Gold')] };
    const saved = await api('PUT', `/business_reports/${report.id}`, owner, { filter: view });
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = { operator: 'and', arguments: [{ ...segmentItem('Gold'), name: PLAN }] };
    expect(saved.json()).toMatchObject({ id: report.id, filter: expected, filtered_segmenter_name: PLAN, filtered_segment_value: 'Gold' });
    // The state when the answer was read: the recomputation the view started may have ended already.
    expect(['recalculating', 'recalculated']).toContain((saved.json() as { recalculation_status: string }).recalculation_status);
    await app.reports.settled();
    const got = await api('GET', `/business_reports/${report.id}`, owner);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id: report.id, secret: report.secret, can_edit: true, filter: expected, filtered_segmenter_name: PLAN, filtered_segment_value: 'Gold' });
    // Saving the view moved the report's stamp: by_secret's kept answer is not served again.
    const fresh = await api('GET', `/business_reports/by_secret?secret=${report.secret}`, owner, undefined, { 'if-none-match': String(etagBefore) });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers.etag).not.toBe(etagBefore);
    const after = fresh.json() as Report;
    expect(after).toMatchObject({ filter: expected, filtered_segmenter_name: PLAN, filtered_segment_value: 'Gold' });
    expect(totalOf(mrrOf(after.sections))).toEqual(seriesOf(mrr, segmenter, 'Gold'));

    // The details follow the view: October's MRR is Gold's c1 and c3 only.
    const details = await api('GET', `/business_report/sections/${mrrSectionId}/details?date=2025-10-01`, owner);
    expect(details.statusCode, details.body).toBe(200);
    const calculation = (details.json() as { items: { details: { calculation_details: { name: string; value: number }[] } }[] }).items[0]?.details.calculation_details;
    expect(calculation).toEqual([
      { name: 'MRR at the end of 2025-10', value: 13_000 },
      { name: 'Paying customers', value: 2 },
    ]);

    // The view AND an item: Gold customers paying for pro: c1 only.
    const both = await filtered(report.secret, { type: 'product', product_key: 'pro', negated: false });
    const goldPro = totalOf(mrrOf(both.sections));
    expect(goldPro[6]).toBe(10_000);
    expect(goldPro[2]).toBe(10_000);

    // An `or` view: Silver or the deal owner Anna (c2 and c1).
    const either = await api('PUT', `/business_reports/${report.id}`, owner, { filter: { operator: 'or', arguments: [segmentItem('Silver'), { type: 'deal_owner', owner_name: 'Anna', negated: false }] } });
    expect(either.statusCode, either.body).toBe(200);
    await app.reports.settled();
    expect(totalOf(mrrOf((await bySecret(report.secret)).sections))[6]).toBe(15_000);

    const cleared = await api('PUT', `/business_reports/${report.id}`, owner, { filter: null });
    expect(cleared.json()).toMatchObject({ filter: null, filtered_segmenter_name: null, filtered_segment_value: null });
    await app.reports.settled();
    expect(totalOf(mrrOf((await bySecret(report.secret)).sections))).toEqual(totalOf(mrr));
  });

  it('refuses a view with too many items or a segment the account does not have (422 with the field pointer), and guards the report', async () => {
    const put = (filter: unknown, who: SignedUp | undefined = owner) => api('PUT', `/business_reports/${report.id}`, who, { filter });
    const many = await put({ operator: 'and', arguments: Array.from({ length: MAX_VIEW_FILTER_ITEMS + 1 }, (_, k) => ({ type: 'deal_owner', owner_name: `o${k}`, negated: false })) });
    expect(many.statusCode).toBe(422);
    expect(errorsOf(many)[0]).toMatchObject({ detail: TOO_MANY_FILTER_ITEMS, source: { pointer: '/filter/arguments' } });
    const unknown = await put({ operator: 'and', arguments: [{ type: 'deal_owner', owner_name: 'Anna', negated: false }, { ...segmentItem('Gold'), id: `customer_segment:${strangerSegmentId}` }] });
    expect(unknown.statusCode).toBe(422);
    expect(errorsOf(unknown)[0]).toMatchObject({ detail: UNKNOWN_FILTER_SEGMENT, source: { pointer: '/filter/arguments/1/id' } });
    expect((await put({ operator: 'xor', arguments: [] })).statusCode).toBe(400);
    expect((await put({ operator: 'and', arguments: [{ type: 'color', value: 'red', negated: false }] })).statusCode).toBe(400);
    expect((await bySecret(report.secret)).filter).toBeNull();
    expect((await put({ operator: 'and', arguments: [] }, stranger)).statusCode).toBe(404);
    expectSignInRequired(await api('PUT', `/business_reports/${report.id}`, undefined, { filter: null }));
    expect((await api('GET', `/business_reports/${report.id}`, stranger)).statusCode).toBe(404);
    expect((await api('GET', '/business_reports/nosuch', owner)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/business_reports/${report.id}`));
  });
});
