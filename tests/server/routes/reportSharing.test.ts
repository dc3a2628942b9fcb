import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import type { MetricsService } from '../../../server/metrics/service';
import { makeSuccessor } from '../../../server/reports/schedules';
import { SEGMENT_PAIR_REQUIRED } from '../../../server/reports/sharing';
import { UNKNOWN_FILTER_SEGMENT } from '../../../server/reports/reportFilters';
import { filterQuery, type FilterItem } from '../../../models/reportFilter';
import { createAuthTestApp, errorsOf, expectSignInRequired, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { seedPlanAccount } from '../helpers/planAccount';

/**
 * Report sharing over the API (docs/sharing.md): share links (plain and pinned to a segment
 * value), group links, the public reads by link, revocation, and that a link is never a report
 * secret. The test clock's today is 2026-03-02: reports show 2025-04 to 2026-03.
 */

interface Point {
  time: string;
  value: number | null;
}
interface Section {
  id: string;
  definition_id: string;
  recalculation_status: string;
  segments: { id: string; is_total: boolean; series: { segment_value?: string; data_points: Point[] }[] }[];
  key_number: { value: number | null; time: string | null } | null;
}
interface Report {
  id: string;
  secret: string;
  title: string;
  can_edit: boolean;
  currency: string;
  sections: Section[];
  shared_filter?: { segmenter_id: string; segmenter_name: string | null; segment_value: string } | null;
}
interface ShareLink {
  id: string;
  secret: string;
  segmenter_id: string | null;
  segmenter_name: string | null;
  segment_value: string | null;
  created_at: string;
}
interface GroupLink {
  id: string;
  secret: string;
  created_at: string;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let accountId: string;
let report: { id: string; secret: string };
let strangerReport: { id: string; secret: string };

const PLAN = 'Plan tier';
const SEGMENT = 'segplan';
const SEGMENTER = `customer_segment:${SEGMENT}`;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${API_PREFIX}${url}`, headers: { ...(who ? { authorization: who.authorization } : {}), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });

const metricsOf = (instance: FastifyInstance) => (instance.reports as unknown as { metrics: MetricsService }).metrics;

/** Payments from a CSV import, a customer attribute with values from an attribute import. */
const seedAccount = (who: SignedUp, rows: string[], values: string[], segment: string) => seedPlanAccount(harness, who, { rows, values, segment, attribute: PLAN });

async function createReport(who: SignedUp, title: string): Promise<{ id: string; secret: string }> {
  const created = await api('POST', '/business_reports', who, { title, sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] });
  expect(created.statusCode, created.body).toBe(201);
  await app.reports.settled();
  return created.json() as { id: string; secret: string };
}

async function share(body: object = {}, reportId = report.id): Promise<ShareLink> {
  const response = await api('POST', `/business_reports/${reportId}/share_secret`, owner, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ShareLink;
}

async function shared(secret: string, query = '', who?: SignedUp): Promise<Report> {
  const response = await api('GET', `/business_reports/by_shared_secret?secret=${secret}${query}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

async function bySecret(secret: string): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, owner);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

const segmentItem = (value: string): FilterItem => ({ type: 'segment', id: SEGMENTER, name: '', value, negated: false });

async function filtered(secret: string, item: FilterItem): Promise<Section[]> {
  const query = new URLSearchParams(filterQuery(item) as Record<string, string>).toString();
  const response = await api('GET', `/business_reports/by_secret_filtered?secret=${secret}&${query}`, owner);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { sections: Section[] }).sections;
}

const totalOf = (section: Section | undefined): (number | null)[] => section?.segments.find((s) => s.is_total)?.series[0]?.data_points.map((p) => p.value) ?? [];
const mrrOf = (sections: Section[]) => sections.find((s) => s.definition_id === 'mrr');

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  accountId = owner.user.account_id;
  // c1 $100 from June 2025 (Gold); c2 $50 Sep-Nov (Silver); c3 $30 from October (Gold); c4 $20 from July (no plan).
  await seedAccount(
    owner,
    ['c1,i1,2025-06-01,12,100,One,pro,1', 'c2,i2,2025-09-01,3,50,Two,pro,1', 'c3,i3,2025-10-01,12,30,Three,basic,1', 'c4,i4,2025-07-01,12,20,Four,basic,1'],
    ['c1,Gold', 'c2,Silver', 'c3,Gold'],
    SEGMENT,
  );
  report = await createReport(owner, 'Shared board');
  await seedAccount(stranger, ['s1,j1,2025-06-01,12,70,Alien,pro,1'], ['s1,Gold'], 'segstranger');
  strangerReport = await createReport(stranger, 'Not yours');
});
afterAll(() => harness?.close());

describe(`report sharing on ${testEngine}`, () => {
  it('creates share links, plain and pinned to a segment value, and lists them newest first', async () => {
    const plain = await share();
    expect(plain).toEqual({ id: expect.stringMatching(/^shr/), secret: expect.stringMatching(/^[A-Za-z0-9]{32}$/), segmenter_id: null, segmenter_name: null, segment_value: null, created_at: expect.any(String) });
    expect(Number.isNaN(Date.parse(plain.created_at))).toBe(false);
    const explicitNulls = await share({ segmenter_id: null, segment_value: null });
    expect(explicitNulls.segmenter_id).toBeNull();
    const pinned = await share({ segmenter_id: SEGMENTER, segment_value: 'Gold' });
    expect(pinned).toMatchObject({ segmenter_id: SEGMENTER, segmenter_name: PLAN, segment_value: 'Gold' });
    expect(new Set([plain.secret, explicitNulls.secret, pinned.secret, report.secret]).size).toBe(4);
    const listed = await api('GET', `/business_reports/${report.id}/share_secrets`, owner);
    expect(listed.statusCode).toBe(200);
    const items = (listed.json() as { items: ShareLink[] }).items;
    const ids = items.map((item) => item.id);
    // Newest first.
    expect(ids.indexOf(pinned.id)).toBeLessThan(ids.indexOf(plain.id));
    expect(items.find((item) => item.id === pinned.id)).toEqual(pinned);
  });

  it('refuses a half pin or a segment the account does not have (422 at the field), and creates nothing', async () => {
    const count = async () => ((await api('GET', `/business_reports/${report.id}/share_secrets`, owner)).json() as { items: unknown[] }).items.length;
    const before = await count();
    const cases: [object, string, string][] = [
      [{ segmenter_id: SEGMENTER }, '/segment_value', SEGMENT_PAIR_REQUIRED],
      [{ segmenter_id: SEGMENTER, segment_value: null }, '/segment_value', SEGMENT_PAIR_REQUIRED],
      [{ segment_value: 'Gold' }, '/segmenter_id', SEGMENT_PAIR_REQUIRED],
      [{ segmenter_id: 'customer_segment:segstranger', segment_value: 'Gold' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
      [{ segmenter_id: 'customer_segment:nosuch', segment_value: 'Gold' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
      [{ segmenter_id: 'plan', segment_value: 'Gold' }, '/segmenter_id', UNKNOWN_FILTER_SEGMENT],
    ];
    for (const [body, pointer, detail] of cases) {
      const response = await api('POST', `/business_reports/${report.id}/share_secret`, owner, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(errorsOf(response)[0]).toMatchObject({ detail, source: { pointer } });
    }
    // Wrong types, huge strings, NUL bytes: 400 or 422, never 5xx.
    for (const body of [{ segmenter_id: 5, segment_value: 'Gold' }, { segmenter_id: SEGMENTER, segment_value: 'x'.repeat(100_000) }, { segmenter_id: 'a\u0000b', segment_value: 'Gold' }, { segmenter_id: SEGMENTER, segment_value: { value: 'Gold' } }, { extra: true }]) {
      const response = await api('POST', `/business_reports/${report.id}/share_secret`, owner, body);
      expect([400, 422], JSON.stringify(body).slice(0, 80)).toContain(response.statusCode);
    }
    expect(await count()).toBe(before);
  });

  it('shows a plain link’s report to anyone, read only, with the link’s secret and never the report’s own', async () => {
    const link = await share();
    const own = await bySecret(report.secret);
    for (const who of [undefined, stranger, owner]) {
      const response = await api('GET', `/business_reports/by_shared_secret?secret=${link.secret}`, who);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.body).not.toContain(report.secret);
      const seen = response.json() as Report;
      expect(seen).toMatchObject({ id: report.id, title: 'Shared board', can_edit: false, secret: link.secret, shared_filter: null, currency: 'USD' });
      expect(seen.sections.map(totalOf)).toEqual(own.sections.map(totalOf));
    }
    // Whatever the account's anonymous access says: it is off here, and the report's own secret is 401 signed out.
    expectSignInRequired(await api('GET', `/business_reports/by_secret?secret=${report.secret}`));
    // Its settings and key numbers too, signed out.
    const settings = await api('GET', `/business_reports/settings_by_secret?secret=${link.secret}`);
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json()).toEqual((await api('GET', `/business_reports/${report.id}/settings`, owner)).json());
    expectSignInRequired(await api('GET', `/business_reports/settings_by_secret?secret=${report.secret}`));
  });

  it('computes every section of a pinned link with that segment value only, as by_secret_filtered does, never the whole report', async () => {
    const link = await share({ segmenter_id: SEGMENTER, segment_value: 'Gold' });
    const seen = await shared(link.secret);
    expect(seen.shared_filter).toEqual({ segmenter_id: SEGMENTER, segmenter_name: PLAN, segment_value: 'Gold' });
    const gold = await filtered(report.secret, segmentItem('Gold'));
    expect(seen.sections.map(totalOf)).toEqual(gold.map(totalOf));
    expect(seen.sections.map((s) => s.key_number)).toEqual(gold.map((s) => s.key_number));
    const whole = await bySecret(report.secret);
    expect(totalOf(mrrOf(seen.sections))).not.toEqual(totalOf(mrrOf(whole.sections)));
    // Gold: c1 ($100 from June) and c3 ($30 from October); the whole report has c2 and c4 too.
    expect(totalOf(mrrOf(seen.sections))[6]).toBe(13_000);
    expect(totalOf(mrrOf(whole.sections))[6]).toBe(20_000);
    expect(JSON.stringify(seen)).not.toContain(report.secret);

    // Key numbers: the whole report's numbers are not sent through a pinned link.
    const mrrSection = mrrOf(whole.sections)?.id ?? '';
    expect((await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret: report.secret, section_id: mrrSection, definition_id: 'mrr' })).statusCode).toBe(201);
    const ownNumbers = (await api('GET', `/business_reports/by_secret/key_numbers?secret=${report.secret}`, owner)).json() as { items: { value: number | null; time: string | null }[] };
    // The whole report's MRR at its last complete month (February: c1, c3 and c4).
    expect(ownNumbers.items[0]?.value).toBe(15_000);
    expect(mrrOf(seen.sections)?.key_number?.value).toBe(13_000);
    const pinnedNumbers = await api('GET', `/business_reports/by_secret/key_numbers?secret=${link.secret}`);
    expect(pinnedNumbers.statusCode, pinnedNumbers.body).toBe(200);
    expect((pinnedNumbers.json() as { items: { section_id: string; value: number | null; time: string | null }[] }).items).toEqual([expect.objectContaining({ section_id: mrrSection, value: null, time: null })]);
    const plain = await share();
    expect((await api('GET', `/business_reports/by_secret/key_numbers?secret=${plain.secret}`)).json()).toEqual(ownNumbers);
  });

  it('answers a repeated read from its cache (ETag, 304, gzip) without computing again, in a currency when asked', async () => {
    const link = await share({ segmenter_id: SEGMENTER, segment_value: 'Silver' });
    const metrics = metricsOf(app);
    const spy = vi.spyOn(metrics, 'sections');
    try {
      const url = `${API_PREFIX}/business_reports/by_shared_secret?secret=${link.secret}`;
      const first = await app.inject({ method: 'GET', url });
      expect(first.statusCode).toBe(200);
      const computed = spy.mock.calls.length;
      expect(computed).toBeGreaterThan(0);
      const builds = app.filteredAnswers.builds;
      const second = await app.inject({ method: 'GET', url });
      expect(second.body).toBe(first.body);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(spy.mock.calls.length).toBe(computed);
      expect(app.filteredAnswers.builds).toBe(builds);
      const notModified = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
      expect(notModified.statusCode).toBe(304);
      const zipped = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(zipped.rawPayload).toString()).toBe(first.body);
      expect(spy.mock.calls.length).toBe(computed);
      // by_secret's kept answer is not the link's, nor the other way round.
      const own = await api('GET', `/business_reports/by_secret?secret=${report.secret}`, owner);
      expect(own.headers.etag).not.toBe(first.headers.etag);
      expect((own.json() as Report).secret).toBe(report.secret);
      expect((await app.inject({ method: 'GET', url })).body).toBe(first.body);
    } finally {
      spy.mockRestore();
    }
    // In another currency: computed, not stored.
    await harness.db.kysely
      .insertInto('exchange_rates')
      .values(['2025-03-03', '2025-06-02', '2025-09-01', '2025-12-01', '2026-03-02'].map((day) => ({ day, currency: 'USD', rate_per_eur: '1.25' })))
      .onConflict((c) => c.doNothing())
      .execute();
    const plain = await share();
    const euro = await shared(plain.secret, '&currency=eur');
    expect(euro.currency).toBe('EUR');
    // $100 at 1.25 dollars a euro.
    expect(totalOf(mrrOf(euro.sections))[2]).toBe(8_000);
    expect((await shared(plain.secret)).currency).toBe('USD');
    const unknown = await api('GET', `/business_reports/by_shared_secret?secret=${plain.secret}&currency=XYZ`);
    expect(unknown.statusCode).toBe(422);
  });

  it('revokes a link: 404 at once on every public read, even after a kept answer', async () => {
    const link = await share({ segmenter_id: SEGMENTER, segment_value: 'Gold' });
    await shared(link.secret);
    await shared(link.secret);
    expect((await api('DELETE', `/business_reports/${report.id}/share_secrets/${link.id}`, owner)).statusCode).toBe(204);
    for (const url of [`/business_reports/by_shared_secret?secret=${link.secret}`, `/business_reports/settings_by_secret?secret=${link.secret}`, `/business_reports/by_secret/key_numbers?secret=${link.secret}`]) {
      const response = await api('GET', url, owner);
      expect(response.statusCode, url).toBe(404);
    }
    expect((await api('GET', `/business_reports/by_shared_secret?secret=${link.secret}`)).json()).toMatchObject({ errors: [{ detail: 'Report not found' }] });
    const items = ((await api('GET', `/business_reports/${report.id}/share_secrets`, owner)).json() as { items: ShareLink[] }).items;
    expect(items.map((item) => item.id)).not.toContain(link.id);
    // Again, or another report's link: 404.
    expect((await api('DELETE', `/business_reports/${report.id}/share_secrets/${link.id}`, owner)).statusCode).toBe(404);
    const other = await createReport(owner, 'Other');
    const otherLink = await share({}, other.id);
    expect((await api('DELETE', `/business_reports/${report.id}/share_secrets/${otherLink.id}`, owner)).statusCode).toBe(404);
    await shared(otherLink.secret);
    // Deleting the report takes its links with it.
    expect((await api('DELETE', `/business_reports/${other.id}`, owner)).statusCode).toBe(204);
    expect((await api('GET', `/business_reports/by_shared_secret?secret=${otherLink.secret}`)).statusCode).toBe(404);
  });

  it('never takes a link for a report secret, nor lets it write', async () => {
    const link = await share();
    const item = new URLSearchParams(filterQuery(segmentItem('Gold')) as Record<string, string>).toString();
    for (const url of [
      `/business_reports/by_secret?secret=${link.secret}`,
      `/business_reports/by_secret_filtered?secret=${link.secret}&${item}`,
      `/business_report_segment_values/by_secret?secret=${link.secret}`,
      `/demo?token=${link.secret}`,
    ]) {
      expect((await api('GET', url, owner)).statusCode, url).toBe(404);
      expect((await api('GET', url)).statusCode, url).toBeGreaterThanOrEqual(400);
    }
    // A report secret is not a link either.
    expect((await api('GET', `/business_reports/by_shared_secret?secret=${report.secret}`, owner)).statusCode).toBe(404);
    // Key numbers: writes with a link are refused as with an unknown report secret.
    const mrrSection = mrrOf((await bySecret(report.secret)).sections)?.id ?? '';
    for (const method of ['POST', 'DELETE'] as const) {
      expect((await api(method, '/business_reports/by_secret/key_numbers', owner, { secret: link.secret, section_id: mrrSection, definition_id: 'mrr' })).statusCode).toBe(404);
      expectSignInRequired(await api(method, '/business_reports/by_secret/key_numbers', undefined, { secret: link.secret, section_id: mrrSection, definition_id: 'mrr' }));
    }
    // Every write needs a token of the account: a link holder has none.
    for (const [method, url, body] of [
      ['PUT', `/business_reports/${report.id}`, { title: 'mine' }],
      ['PUT', `/business_reports/${report.id}/settings`, { display_quarters: true }],
      ['POST', '/comments', { commented_id: report.id, content: 'hi' }],
      ['POST', `/business_reports/${report.id}/refresh`, undefined],
      ['POST', `/business_reports/${report.id}/share_secret`, {}],
    ] as const) {
      expectSignInRequired(await api(method, url, undefined, body));
    }
    // The public paths read only: no other method answers 2xx.
    for (const path of [`/business_reports/by_shared_secret?secret=${link.secret}`, `/business_report_groups/by_secret?secret=${link.secret}`, `/business_reports/settings_by_secret?secret=${link.secret}`]) {
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        for (const who of [undefined, owner]) {
          const response = await api(method, path, who, {});
          expect(response.statusCode, `${method} ${path}`).toBeGreaterThanOrEqual(400);
          expect(response.statusCode, `${method} ${path}`).toBeLessThan(500);
        }
      }
    }
    expect((await bySecret(report.secret)).title).toBe('Shared board');
  });

  it('makes group links that open the newest report of the line, its successor once made', async () => {
    const line = await createReport(owner, '2026-03 board pack');
    const db = harness.db.kysely;
    expect((await api('GET', `/business_reports/${line.id}/group_secrets`, owner)).json()).toEqual({ items: [] });
    const created = await api('POST', `/business_reports/${line.id}/group_secret`, owner);
    expect(created.statusCode, created.body).toBe(201);
    const link = created.json() as GroupLink;
    expect(link).toEqual({ id: expect.any(String), secret: expect.stringMatching(/^[A-Za-z0-9]{32}$/), created_at: expect.any(String) });
    const row = await db.selectFrom('business_reports').select('group_id').where('account_id', '=', accountId).where('id', '=', line.id).executeTakeFirstOrThrow();
    expect(row.group_id).toMatch(/^grp[A-Za-z0-9]{12}$/);
    const group = await db.selectFrom('report_groups').select('name').where('account_id', '=', accountId).where('id', '=', row.group_id ?? '').executeTakeFirstOrThrow();
    expect(group.name).toBe('2026-03 board pack');
    // A second link joins the same group.
    const second = (await api('POST', `/business_reports/${line.id}/group_secret`, owner)).json() as GroupLink;
    expect(((await api('GET', `/business_reports/${line.id}/group_secrets`, owner)).json() as { items: GroupLink[] }).items.map((item) => item.id)).toEqual([second.id, link.id]);
    expect((await db.selectFrom('business_reports').select('group_id').where('account_id', '=', accountId).where('id', '=', line.id).executeTakeFirstOrThrow()).group_id).toBe(row.group_id);

    const resolve = (secret: string, query = '', headers: Record<string, string> = {}) => api('GET', `/business_report_groups/by_secret?secret=${secret}${query}`, undefined, undefined, headers);
    const first = await resolve(link.secret, '&currency=eur');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ latest_report: { secret: line.secret, title: '2026-03 board pack' }, currency: 'EUR' });
    expect((await resolve(link.secret)).json()).toMatchObject({ currency: null });
    const etag = String(first.headers.etag);
    expect((await resolve(link.secret, '&currency=eur', { 'if-none-match': etag })).statusCode).toBe(304);

    // Next month the line gets its successor: the link opens it.
    await db.updateTable('business_reports').set({ created_at: new Date('2026-03-02T09:00:00Z') }).where('account_id', '=', accountId).where('id', '=', line.id).execute();
    const successor = await makeSuccessor(db, accountId, line.id, new Date('2026-04-01T00:00:00Z'));
    expect(successor).not.toBeNull();
    const moved = await resolve(link.secret, '&currency=eur', { 'if-none-match': etag });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toEqual({ latest_report: { secret: successor?.secret, title: '2026-04 board pack' }, currency: 'EUR' });
    // The successor's page lists the group's links too.
    expect(((await api('GET', `/business_reports/${successor?.id}/group_secrets`, owner)).json() as { items: GroupLink[] }).items).toHaveLength(2);

    // Revoked: 404 at once; the other link still works.
    expect((await api('DELETE', `/business_reports/${line.id}/group_secrets/${link.id}`, owner)).statusCode).toBe(204);
    expect((await resolve(link.secret)).statusCode).toBe(404);
    expect((await api('DELETE', `/business_reports/${line.id}/group_secrets/${link.id}`, owner)).statusCode).toBe(404);
    expect((await resolve(second.secret)).statusCode).toBe(200);
    expect((await api('DELETE', `/business_reports/${report.id}/group_secrets/${second.id}`, owner)).statusCode).toBe(404);
    // A report secret or a share link is not a group link.
    expect((await resolve(line.secret)).statusCode).toBe(404);
    expect((await resolve((await share()).secret)).statusCode).toBe(404);
  });

  it('makes a successor through the test route, recalculated, and 409 when none is due', async () => {
    const line = await createReport(owner, 'Test route line');
    await harness.db.kysely.updateTable('business_reports').set({ created_at: new Date('2026-03-02T09:00:00Z') }).where('account_id', '=', accountId).where('id', '=', line.id).execute();
    const made = await api('POST', '/test/make_successor', owner, { report_id: line.id, now: '2026-04-01T00:00:00Z' });
    expect(made.statusCode, made.body).toBe(201);
    const successor = made.json() as { id: string; secret: string };
    expect(successor.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    await app.reports.settled();
    expect(await bySecret(successor.secret)).toMatchObject({ id: successor.id, title: 'Test route line' });
    expect((await api('POST', '/test/make_successor', owner, { report_id: line.id, now: '2026-04-01T00:00:00Z' })).statusCode).toBe(409);
    expect((await api('POST', '/test/make_successor', stranger, { report_id: report.id, now: '2026-04-01T00:00:00Z' })).statusCode).toBe(409);
    expect((await api('POST', '/test/make_successor', owner, { report_id: line.id, now: 'soon' })).statusCode).toBe(422);
    expectSignInRequired(await api('POST', '/test/make_successor', undefined, { report_id: line.id, now: '2026-04-01T00:00:00Z' }));
  });

  it('keeps the owner routes to full users of the report’s account: 404 for another account’s report, 401 signed out', async () => {
    const theirs = (await api('POST', `/business_reports/${strangerReport.id}/share_secret`, stranger, {})).json() as ShareLink;
    const theirGroup = (await api('POST', `/business_reports/${strangerReport.id}/group_secret`, stranger)).json() as GroupLink;
    const mine = await share();
    const routes: [string, string, object | undefined][] = [
      ['POST', `/business_reports/${strangerReport.id}/share_secret`, {}],
      ['GET', `/business_reports/${strangerReport.id}/share_secrets`, undefined],
      ['DELETE', `/business_reports/${strangerReport.id}/share_secrets/${theirs.id}`, undefined],
      ['POST', `/business_reports/${strangerReport.id}/group_secret`, undefined],
      ['GET', `/business_reports/${strangerReport.id}/group_secrets`, undefined],
      ['DELETE', `/business_reports/${strangerReport.id}/group_secrets/${theirGroup.id}`, undefined],
      // My own report with their link's id: not this report's link.
      ['DELETE', `/business_reports/${report.id}/share_secrets/${theirs.id}`, undefined],
      ['DELETE', `/business_reports/${report.id}/group_secrets/${theirGroup.id}`, undefined],
      ['GET', '/business_reports/nosuch/share_secrets', undefined],
    ];
    for (const [method, url, body] of routes) {
      const response = await api(method as 'GET', url, owner, body);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.body).not.toContain(theirs.secret);
      expectSignInRequired(await api(method as 'GET', url, undefined, body));
    }
    // Their links still work, as links: public.
    expect((await shared(theirs.secret, '', owner)).title).toBe('Not yours');
    expect((await api('GET', `/business_report_groups/by_secret?secret=${theirGroup.secret}`, owner)).statusCode).toBe(200);
    // A pinned link of theirs cannot name my segment, nor mine theirs.
    expect((await api('POST', `/business_reports/${strangerReport.id}/share_secret`, stranger, { segmenter_id: SEGMENTER, segment_value: 'Gold' })).statusCode).toBe(422);
    expect((await api('DELETE', `/business_reports/${report.id}/share_secrets/${mine.id}`, stranger)).statusCode).toBe(404);
    expect((await shared(mine.secret)).id).toBe(report.id);
  });

  it('refuses bad input to the public reads with 400 or 404, never 5xx', async () => {
    for (const query of ['', 'secret=', `secret=${'x'.repeat(129)}`, 'secret=%00', 'secret=a%00b', `secret=${'a'.repeat(100_000)}`, 'secret=x&currency=EURO', 'secret=x&currency=1', 'secret[]=x']) {
      for (const path of ['/business_reports/by_shared_secret', '/business_report_groups/by_secret', '/business_reports/settings_by_secret', '/business_reports/by_secret/key_numbers']) {
        const response = await api('GET', `${path}?${query}`);
        expect(response.statusCode, `${path}?${query.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `${path}?${query.slice(0, 40)}`).toBeLessThan(500);
      }
    }
    for (const secretId of ['%00', 'x'.repeat(65)]) {
      const response = await api('DELETE', `/business_reports/${report.id}/share_secrets/${secretId}`, owner);
      expect([400, 404]).toContain(response.statusCode);
    }
  });
});
