import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Section editing over the API (the test clock's today is 2026-03-02). */

interface Section {
  id: string;
  definition_id: string;
  title: string;
  summary: string;
  data_type: string;
  use_hierarchy: boolean;
  resolution: string;
  position: number;
  data_categories: string[];
  segment_ids: string[];
  recalculation_status: string;
  unit: string | null;
  periods: { label: string }[];
  segments: { id: string; name: string; series: { segment_value?: string }[] }[];
}

interface Report {
  id: string;
  secret: string;
  recalculation_status: string;
  sections: Section[];
}

const PRODUCT = 'subscription_segment:product';
const CURRENCY = 'subscription_segment:currency';

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function read(secret: string, who: SignedUp = owner): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

async function report(definitions: string[], who: SignedUp = owner): Promise<Report> {
  const created = await api('POST', '/business_reports', who, { title: 'sections', sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(created.statusCode, created.body).toBe(201);
  const { secret } = created.json() as { secret: string };
  await app.reports.settled();
  return read(secret, who);
}

const order = (report: Report) => report.sections.map((section) => [section.definition_id, section.position]);
const segmentPath = (sectionId: string, segmentId: string) => `/business_report/sections/${sectionId}/segments/${encodeURIComponent(segmentId)}`;

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  // Two customers from June 2025 for a year: $100 a month on 'pro', $50 on 'basic'.
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  for (const [customer, payment, value, product] of [
    ['c1', 'subh00000000c1a', 120_000, 'pro'],
    ['c2', 'subh00000000c2a', 60_000, 'basic'],
  ] as const) {
    await db.insertInto('customers').values({ account_id: account, id: customer, name: `Customer ${customer}`, public_id: null }).execute();
    await db
      .insertInto('payments')
      .values({ account_id: account, id: payment, customer_id: customer, started_at: '2025-06-01', ended_at: isoFromDay(addMonths(dayFromIso('2025-06-01'), 12)), duration_in_months: 12, total_value: value, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
      .execute();
    await db.insertInto('products').values({ account_id: account, key: product, name: product }).execute();
    await db.insertInto('payment_items').values({ account_id: account, payment_id: payment, product_key: product, type: 'recurring' }).execute();
  }
});
afterAll(() => harness?.close());
afterEach(() => vi.restoreAllMocks());

/** Counts the recalculations started from now on (each is also awaited, so results are in when read). */
const watchRecalculations = () => vi.spyOn(app.reports, 'start');

describe(`report sections on ${testEngine}`, () => {
  it('adds a chart with a segment at the end, recalculates, and the report page shows it computed', async () => {
    const before = await report(['mrr']);
    const starts = watchRecalculations();
    const added = await api('POST', `/business_report/${before.id}/sections`, owner, { definition_id: 'customers', segment_ids: [PRODUCT] });
    expect(added.statusCode, added.body).toBe(201);
    const section = added.json() as Section;
    expect(section).toMatchObject({ definition_id: 'customers', title: 'Customers', position: 1, segment_ids: [PRODUCT], data_type: 'line_chart', resolution: 'month' });

    expect(starts).toHaveBeenCalledWith(owner.user.account_id, before.id);
    // At once the page sees the new section.
    const during = await read(before.secret);
    expect(order(during)).toEqual([
      ['mrr', 0],
      ['customers', 1],
    ]);

    await app.reports.settled();
    const after = await read(before.secret);
    expect(after.recalculation_status).toBe('recalculated');
    const computed = after.sections[1];
    expect(computed?.segment_ids).toEqual([PRODUCT]);
    const product = computed?.segments.find((segment) => segment.id === PRODUCT);
    expect(product?.name).toBe('Product');
    expect(new Set(product?.series.map((serie) => serie.segment_value))).toEqual(new Set(['basic', 'pro', 'Other']));

    // The grouped segment expands to the values it groups.
    const expanded = await api('GET', segmentPath(section.id, PRODUCT), owner);
    expect(expanded.statusCode, expanded.body).toBe(200);
    const body = expanded.json() as { id: string; name: string; is_total: boolean; grouped_segment_names: string[] };
    expect({ ...body, grouped_segment_names: [...body.grouped_segment_names].sort() }).toEqual({ id: PRODUCT, name: 'Product', is_total: false, grouped_segment_names: ['Other', 'basic', 'pro'] });
    expect((await api('GET', segmentPath(section.id, 'total'), owner)).json()).toMatchObject({ id: 'total', name: 'Total', is_total: true });
    expect((await api('GET', segmentPath(section.id, CURRENCY), owner)).statusCode).toBe(404);
  });

  it('refuses an unknown or unavailable chart and segments it does not accept (422 with pointers)', async () => {
    const { id, secret } = await report(['mrr']);
    const unknown = await api('POST', `/business_report/${id}/sections`, owner, { definition_id: 'nope' });
    expect(unknown.statusCode).toBe(422);
    expect(problemsOf(unknown)).toEqual([{ pointer: '/definition_id', detail: 'There is no chart of this kind' }]);
    // Deals need CRM deals, which this account does not have.
    const definitions = (await api('GET', '/business_report/section_definitions', owner)).json() as { items: { id: string; available: boolean }[] };
    const unavailable = definitions.items.find((definition) => !definition.available);
    if (!unavailable) throw new Error('every definition is available');
    expect(problemsOf(await api('POST', `/business_report/${id}/sections`, owner, { definition_id: unavailable.id }))).toEqual([
      { pointer: '/definition_id', detail: 'This chart is not available for your account' },
    ]);
    const badSegment = await api('POST', `/business_report/${id}/sections`, owner, { definition_id: 'mrr', segment_ids: [PRODUCT, 'customer_segment:missing'] });
    expect(badSegment.statusCode).toBe(422);
    expect(problemsOf(badSegment)).toEqual([{ pointer: '/segment_ids/1', detail: 'This chart cannot be split by this segment' }]);
    const missing = await api('POST', `/business_report/${id}/sections`, owner, {});
    expect(missing.statusCode).toBe(400);
    expect(problemsOf(missing)).toEqual([{ pointer: '/definition_id', detail: 'definition_id is required' }]);
    expect(order(await read(secret))).toEqual([['mrr', 0]]);
  });

  it('moves a section up and down keeping positions 0..n-1, without a recalculation', async () => {
    const { secret, sections } = await report(['mrr', 'customers', 'arpa']);
    const arpa = sections[2];
    if (!arpa) throw new Error('no section');
    const starts = watchRecalculations();
    const moved = await api('PUT', `/business_report/sections/${arpa.id}`, owner, { position: 0 });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((moved.json() as Section).position).toBe(0);
    let page = await read(secret);
    expect(order(page)).toEqual([
      ['arpa', 0],
      ['mrr', 1],
      ['customers', 2],
    ]);
    await api('PUT', `/business_report/sections/${arpa.id}`, owner, { position: 1 });
    page = await read(secret);
    expect(order(page)).toEqual([
      ['mrr', 0],
      ['arpa', 1],
      ['customers', 2],
    ]);
    const outside = await api('PUT', `/business_report/sections/${arpa.id}`, owner, { position: 3 });
    expect(outside.statusCode).toBe(422);
    expect(problemsOf(outside)).toEqual([{ pointer: '/position', detail: 'There is no such position in this report' }]);
    expect((await api('PUT', `/business_report/sections/${arpa.id}`, owner, { position: -1 })).statusCode).toBe(400);
    expect(starts).not.toHaveBeenCalled();
  });

  it('renames a section and edits its description in place; an empty title falls back to the chart’s name', async () => {
    const { secret, sections } = await report(['mrr']);
    const mrr = sections[0];
    if (!mrr) throw new Error('no section');
    const starts = watchRecalculations();
    const cached = await api('GET', `/business_reports/by_secret?secret=${secret}`, owner);
    const etag = cached.headers.etag;
    expect(etag).toBeTruthy();
    expect((await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${secret}`, headers: { authorization: owner.authorization, 'if-none-match': String(etag) } })).statusCode).toBe(304);
    expect((await api('PUT', `/business_report/sections/${mrr.id}`, owner, { title: 'Revenue run rate' })).json()).toMatchObject({ title: 'Revenue run rate' });
    expect((await api('PUT', `/business_report/sections/${mrr.id}`, owner, { summary: 'Grows 5% a month' })).json()).toMatchObject({ summary: 'Grows 5% a month' });
    let page = await read(secret);
    expect(page.sections[0]).toMatchObject({ title: 'Revenue run rate', summary: 'Grows 5% a month' });
    // The browser's cached answer is out of date: the page gets the new one.
    const fresh = await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${secret}`, headers: { authorization: owner.authorization, 'if-none-match': String(etag) } });
    expect(fresh.statusCode).toBe(200);
    expect((fresh.json() as Report).sections[0]?.title).toBe('Revenue run rate');
    expect(starts).not.toHaveBeenCalled();
    await api('PUT', `/business_report/sections/${mrr.id}`, owner, { title: '' });
    page = await read(secret);
    expect(page.sections[0]?.title).toBe('MRR');
    const long = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { title: 'x'.repeat(201) });
    expect(long.statusCode).toBe(400);
    expect(problemsOf(long)[0]?.pointer).toBe('/title');
    const nothing = await api('PUT', `/business_report/sections/${mrr.id}`, owner, {});
    expect(nothing.statusCode).toBe(422);
    expect((await api('PUT', `/business_report/sections/${mrr.id}`, owner, { colour: 'red' })).statusCode).toBe(400);
  });

  it('changes chart type, hierarchy and resolution, then the data category, each recalculating the report', async () => {
    const { secret, sections } = await report(['mrr']);
    const mrr = sections[0];
    if (!mrr) throw new Error('no section');
    const starts = watchRecalculations();
    const changed = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { data_type: 'bar_chart', use_hierarchy: true, resolution: 'quarter' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(starts).toHaveBeenCalledTimes(1);
    await app.reports.settled();
    let page = await read(secret);
    expect(page.sections[0]).toMatchObject({ data_type: 'bar_chart', use_hierarchy: true, resolution: 'quarter', recalculation_status: 'recalculated' });
    // Recomputed by quarter.
    expect(page.sections[0]?.periods.at(-1)?.label).toMatch(/Q1/);

    const category = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { data_categories: ['counts'] });
    expect(category.statusCode, category.body).toBe(200);
    expect(starts).toHaveBeenCalledTimes(2);
    await app.reports.settled();
    page = await read(secret);
    expect(page.sections[0]?.data_categories).toEqual(['counts']);
    // Recomputed as a count of customers.
    expect(page.sections[0]?.unit).toBe('count');

    const unsupported = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { data_type: 'cohort', use_hierarchy: false, resolution: 'month' });
    expect(unsupported.statusCode).toBe(422);
    expect(problemsOf(unsupported)).toEqual([{ pointer: '/data_type', detail: 'This chart cannot be shown this way' }]);
    // A churn rate has no count of units.
    const churn = await api('POST', `/business_report/${page.id}/sections`, owner, { definition_id: 'customer_churn_rate' });
    await app.reports.settled();
    const noUnits = await api('PUT', `/business_report/sections/${(churn.json() as Section).id}`, owner, { data_categories: ['units'] });
    expect(problemsOf(noUnits)).toEqual([{ pointer: '/data_categories/0', detail: 'This chart does not support this data category' }]);
    expect((await api('PUT', `/business_report/sections/${mrr.id}`, owner, { resolution: 'decade' })).statusCode).toBe(400);
    expect((await read(secret)).sections[0]).toMatchObject({ data_type: 'bar_chart', data_categories: ['counts'] });
    expect(starts).toHaveBeenCalledTimes(3);
  });

  it('sets the segments, removes one, and refuses to remove a segment the section does not have', async () => {
    const { secret, sections } = await report(['mrr']);
    const mrr = sections[0];
    if (!mrr) throw new Error('no section');
    const starts = watchRecalculations();
    const set = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { segment_ids: [PRODUCT, CURRENCY] });
    expect(set.statusCode, set.body).toBe(200);
    await app.reports.settled();
    let page = await read(secret);
    expect(page.sections[0]?.segment_ids).toEqual([PRODUCT, CURRENCY]);
    expect(page.sections[0]?.segments.map((segment) => segment.id)).toEqual(['total', PRODUCT, CURRENCY]);

    const removed = await api('DELETE', segmentPath(mrr.id, PRODUCT), owner);
    expect(removed.statusCode, removed.body).toBe(204);
    expect(starts).toHaveBeenCalledTimes(2);
    await app.reports.settled();
    page = await read(secret);
    expect(page.sections[0]?.segment_ids).toEqual([CURRENCY]);
    expect(page.sections[0]?.segments.map((segment) => segment.id)).toEqual(['total', CURRENCY]);

    const again = await api('DELETE', segmentPath(mrr.id, PRODUCT), owner);
    expect(again.statusCode).toBe(404);
    expect(problemsOf(again)).toEqual([{ pointer: undefined, detail: 'Segment not found' }]);
    const bad = await api('PUT', `/business_report/sections/${mrr.id}`, owner, { segment_ids: ['cost_segment:x'] });
    expect(problemsOf(bad)).toEqual([{ pointer: '/segment_ids/0', detail: 'This chart cannot be split by this segment' }]);
  });

  it('deletes a section, closing the gap in the positions', async () => {
    const { secret, sections } = await report(['mrr', 'customers', 'arpa']);
    const customers = sections[1];
    if (!customers) throw new Error('no section');
    const deleted = await api('DELETE', `/business_report/sections/${customers.id}`, owner);
    expect(deleted.statusCode).toBe(204);
    expect(order(await read(secret))).toEqual([
      ['mrr', 0],
      ['arpa', 1],
    ]);
    expect((await api('DELETE', `/business_report/sections/${customers.id}`, owner)).statusCode).toBe(404);
    expect((await api('PUT', `/business_report/sections/${customers.id}`, owner, { title: 'gone' })).statusCode).toBe(404);
    // Appending after a delete takes the next dense position.
    const added = await api('POST', `/business_report/${(await read(secret)).id}/sections`, owner, { definition_id: 'customers' });
    expect((added.json() as Section).position).toBe(2);
    await app.reports.settled();
  });

  it('keeps another account’s sections from the caller (404), asks for a sign-in (401), and lets only editors change them (403)', async () => {
    const { id, secret, sections } = await report(['mrr']);
    const mrr = sections[0];
    if (!mrr) throw new Error('no section');
    await api('PUT', `/business_report/sections/${mrr.id}`, owner, { segment_ids: [PRODUCT] });
    await app.reports.settled();

    const calls: [method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown][] = [
      ['POST', `/business_report/${id}/sections`, { definition_id: 'customers' }],
      ['PUT', `/business_report/sections/${mrr.id}`, { title: 'mine now' }],
      ['PUT', `/business_report/sections/${mrr.id}`, { position: 0 }],
      ['DELETE', segmentPath(mrr.id, PRODUCT)],
      ['GET', segmentPath(mrr.id, PRODUCT)],
      ['DELETE', `/business_report/sections/${mrr.id}`],
    ];
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    for (const [method, url, body] of calls) {
      const foreign = await api(method, url, stranger, body);
      expect(foreign.statusCode, `${method} ${url}`).toBe(404);
      expectSignInRequired(await api(method, url, undefined, body));
      expect((await api(method, url, colleague, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    const page = await read(secret);
    expect(page.sections.map((section) => [section.title, section.segment_ids])).toEqual([['MRR', [PRODUCT]]]);
  });
});
