import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { REPORT_TEMPLATES } from '../../../server/reports/templates';
import { RANGE_FROM_AFTER_TO, RANGE_TOO_LONG, RANGE_TOO_SHORT } from '../../../models/reportRange';
import { createAuthTestApp, errorsOf, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Business reports over the API (the test clock's today is 2026-03-02: a new report shows 2025-04 to 2026-03). */

interface Point {
  time: string;
  value: number | null;
}
interface Section {
  id: string;
  definition_id: string;
  title: string;
  recalculation_status: string;
  error: string | null;
  currency: string | null;
  segments: { is_total: boolean; series: { name: string; data_points: Point[] }[] }[];
  key_number: { value: number | null } | null;
}
interface Report {
  id: string;
  secret: string;
  title: string;
  summary: string;
  tags: string[];
  owner: { name: string } | null;
  period: { start_year: number; start_month: number; end_year: number; end_month: number };
  refreshed_at: string | null;
  recalculation_status: string;
  freshness_status: string;
  can_edit: boolean;
  currency: string;
  settings: { auto_refresh: boolean; currency: string | null };
  sections: Section[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function addPayment(accountId: string, customer: string, start: string, months: number, total: number): Promise<void> {
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: accountId, id: customer, name: `Customer ${customer}`, public_id: null }).onConflict((c) => c.doNothing()).execute();
  const id = `subh${`${customer}${start.replaceAll('-', '')}`.padStart(12, '0').slice(-12)}`;
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
}

async function createFrom(who: SignedUp, title: string, definitions: string[]): Promise<{ id: string; secret: string }> {
  const response = await api('POST', '/business_reports', who, { title, sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; secret: string };
}

async function bySecret(secret: string, who?: SignedUp, currency?: string): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}${currency ? `&currency=${currency}` : ''}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

const total = (section: Section | undefined) => section?.segments.find((segment) => segment.is_total)?.series[0]?.data_points ?? [];
const valueAt = (section: Section | undefined, time: string) => total(section).find((point) => point.time === time)?.value;

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  // $100 a month from June 2025 for a year; $50 a month from September 2025 for three months.
  await addPayment(owner.user.account_id, 'c1', '2025-06-01', 12, 120_000);
  await addPayment(owner.user.account_id, 'c2', '2025-09-01', 3, 15_000);
});
afterAll(() => harness?.close());

describe(`business reports on ${testEngine}`, () => {
  it('lists the library’s templates', async () => {
    const response = await api('GET', '/business_report/templates', owner);
    expect(response.statusCode).toBe(200);
    const { items } = response.json() as { items: { id: string; name: string; name_suffix: string; definitions: string[] }[] };
    expect(items.map((t) => t.id)).toEqual(['business_overview', 'customer_success_overview', 'saas_metrics', 'cohorts']);
    expect(items[0]).toMatchObject({ name: 'Business overview', name_suffix: 'business overview' });
    expect(items[0]?.definitions.slice(0, 2)).toEqual(['mrr', 'mrr_movements']);
    expectSignInRequired(await api('GET', '/business_report/templates'));
  });

  it('creates a report from a template, lists it, and computes its sections in the background', async () => {
    const definitions = [...(REPORT_TEMPLATES[0]?.definitions ?? [])];
    const { id, secret } = await createFrom(owner, '2026-03 business overview', definitions);
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    const listed = (await api('GET', '/business_reports/latest', owner)).json() as { items: Report[] };
    expect(listed.items.find((r) => r.id === id)).toMatchObject({
      title: '2026-03 business overview',
      owner: { name: 'Ada Owner' },
      period: { start_year: 2025, start_month: 4, end_year: 2026, end_month: 3 },
      can_edit: true,
    });
    await app.reports.settled();
    const report = await bySecret(secret, owner);
    expect(report).toMatchObject({ recalculation_status: 'recalculated', freshness_status: 'fresh', currency: 'USD', can_edit: true });
    expect(report.refreshed_at).not.toBeNull();
    expect(report.sections.map((s) => s.definition_id)).toEqual(definitions);
    expect(report.sections.every((s) => s.recalculation_status === 'recalculated')).toBe(true);
    const mrr = report.sections[0];
    expect(mrr?.title).toBe('MRR');
    // MRR in cents: c1 from June, c2 on top from September to November.
    expect(valueAt(mrr, '2025-05-01')).toBe(0);
    expect(valueAt(mrr, '2025-06-01')).toBe(10_000);
    expect(valueAt(mrr, '2025-10-01')).toBe(15_000);
    expect(valueAt(mrr, '2026-01-01')).toBe(10_000);
    expect(total(mrr)).toHaveLength(12);
  });

  it('refuses an unknown chart with a pointer to it, and creates nothing', async () => {
    const before = ((await api('GET', '/business_reports/latest', owner)).json() as { items: unknown[] }).items.length;
    const response = await api('POST', '/business_reports', owner, { title: 'x', sections: [{ definition_id: 'mrr' }, { definition_id: 'happiness' }] });
    expect(response.statusCode).toBe(422);
    expect(errorsOf(response)).toEqual([expect.objectContaining({ detail: 'There is no chart of this kind', source: { pointer: '/sections/1/definition_id' } })]);
    expect(((await api('GET', '/business_reports/latest', owner)).json() as { items: unknown[] }).items).toHaveLength(before);
  });

  it("keeps another account's report and every call on it from the caller: 404, and 401 without a token", async () => {
    const { id, secret } = await createFrom(owner, 'private', ['mrr']);
    await app.reports.settled();
    expect((await api('GET', `/business_reports/by_secret?secret=${secret}`, stranger)).statusCode).toBe(404);
    expectSignInRequired(await api('GET', `/business_reports/by_secret?secret=${secret}`));
    for (const [method, url, body] of [
      ['GET', `/business_reports/${id}/can_edit`],
      ['PUT', `/business_reports/${id}`, { title: 'mine' }],
      ['GET', `/business_reports/${id}/settings`],
      ['PUT', `/business_reports/${id}/settings`, { display_quarters: true }],
      ['POST', `/business_reports/${id}/refresh`],
      ['DELETE', `/business_reports/${id}`],
    ] as const) {
      const response = await api(method, url, stranger, body);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(((await api('GET', '/business_reports/latest', stranger)).json() as { items: unknown[] }).items).toEqual([]);
    expect((await bySecret(secret, owner)).title).toBe('private');
  });

  it('lets anyone read a report by its secret when the account allows anonymous access, without editing', async () => {
    const { secret } = await createFrom(owner, 'public', ['mrr']);
    await app.reports.settled();
    await harness.db.kysely.updateTable('accounts').set({ anonymous_access_allowed: true }).where('id', '=', owner.user.account_id).execute();
    try {
      const anonymous = await bySecret(secret);
      expect(anonymous).toMatchObject({ title: 'public', can_edit: false });
      expect(valueAt(anonymous.sections[0], '2025-06-01')).toBe(10_000);
      expect((await bySecret(secret, stranger)).can_edit).toBe(false);
      const settings = await api('GET', `/business_reports/settings_by_secret?secret=${secret}`);
      expect(settings.statusCode).toBe(200);
    } finally {
      await harness.db.kysely.updateTable('accounts').set({ anonymous_access_allowed: false }).where('id', '=', owner.user.account_id).execute();
    }
  });

  it('answers can_edit false to a shared_report_only colleague, who may not list or change reports', async () => {
    const { id, secret } = await createFrom(owner, 'team', ['mrr']);
    await app.reports.settled();
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', `/business_reports/${id}/can_edit`, viewer)).json()).toEqual({ allowed: false });
    expect((await api('GET', `/business_reports/${id}/can_edit`, owner)).json()).toEqual({ allowed: true });
    expect((await bySecret(secret, viewer)).can_edit).toBe(false);
    expect((await api('GET', '/business_reports/latest', viewer)).statusCode).toBe(403);
    expect((await api('PUT', `/business_reports/${id}`, viewer, { title: 'x' })).statusCode).toBe(403);
    expect((await api('POST', `/business_reports/${id}/refresh`, viewer)).statusCode).toBe(403);
  });

  it('changes title, summary and tags', async () => {
    const { id, secret } = await createFrom(owner, 'draft', ['mrr']);
    const response = await api('PUT', `/business_reports/${id}`, owner, { title: 'Board, March', summary: 'Growth is back.', tags: ['board', 'monthly'] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ title: 'Board, March', summary: 'Growth is back.', tags: ['board', 'monthly'] });
    await app.reports.settled();
    expect(await bySecret(secret, owner)).toMatchObject({ title: 'Board, March', summary: 'Growth is back.', tags: ['board', 'monthly'] });
  });

  it('refuses each invalid range with the range picker’s message, and recomputes a valid one', async () => {
    const { id, secret } = await createFrom(owner, 'range', ['mrr']);
    await app.reports.settled();
    const put = (period: object) => api('PUT', `/business_reports/${id}`, owner, { period });
    const cases: [object, string][] = [
      [{ start_year: 2025, start_month: 6, end_year: 2026, end_month: 4 }, 'Can not extend range beyound current date.'],
      [{ start_year: 2025, start_month: 12, end_year: 2025, end_month: 10 }, RANGE_FROM_AFTER_TO],
      [{ start_year: 2025, start_month: 10, end_year: 2025, end_month: 11 }, RANGE_TOO_SHORT],
      [{ start_year: 2019, start_month: 12, end_year: 2026, end_month: 1 }, RANGE_TOO_LONG],
    ];
    for (const [period, message] of cases) {
      const response = await put(period);
      expect(response.statusCode).toBe(422);
      expect(errorsOf(response)).toEqual([expect.objectContaining({ detail: message, source: { pointer: '/period' } })]);
    }
    // This one ends before the current month: auto refresh turns off.
    const valid = await put({ start_year: 2025, start_month: 7, end_year: 2025, end_month: 12 });
    expect(valid.statusCode, valid.body).toBe(200);
    // The answer tells the state when it was read: the recomputation started by the change may
    // already have ended on an idle machine (a small report), or not yet on a busy one.
    expect(['recalculating', 'recalculated']).toContain((valid.json() as Report).recalculation_status);
    await app.reports.settled();
    const report = await bySecret(secret, owner);
    expect(report.recalculation_status).toBe('recalculated');
    expect(report.period).toEqual({ start_year: 2025, start_month: 7, end_year: 2025, end_month: 12 });
    expect(report.settings.auto_refresh).toBe(false);
    expect(total(report.sections[0]).map((p) => p.time)).toEqual(['2025-07-01', '2025-08-01', '2025-09-01', '2025-10-01', '2025-11-01', '2025-12-01']);
    // Auto refresh stays off while the range does not show the current month, whatever is asked.
    const refused = await api('PUT', `/business_reports/${id}/settings`, owner, { auto_refresh: true });
    expect((refused.json() as { auto_refresh: boolean }).auto_refresh).toBe(false);
    // Six years exactly, to the current month: allowed, and auto refresh may be on again.
    expect((await put({ start_year: 2020, start_month: 4, end_year: 2026, end_month: 3 })).statusCode).toBe(200);
    const settings = await api('PUT', `/business_reports/${id}/settings`, owner, { auto_refresh: true });
    expect((settings.json() as { auto_refresh: boolean }).auto_refresh).toBe(true);
  });

  it('creates a report over the range asked, validated as a re-range is, and creates nothing for an invalid one', async () => {
    const count = async () => ((await api('GET', '/business_reports/latest', owner)).json() as { items: unknown[] }).items.length;
    const before = await count();
    const create = (period: unknown) => api('POST', '/business_reports', owner, { title: 'ranged', sections: [{ definition_id: 'mrr' }], period });
    const cases: [object, string][] = [
      [{ start_year: 2025, start_month: 6, end_year: 2026, end_month: 4 }, 'Can not extend range beyound current date.'],
      [{ start_year: 2025, start_month: 12, end_year: 2025, end_month: 10 }, RANGE_FROM_AFTER_TO],
      [{ start_year: 2025, start_month: 10, end_year: 2025, end_month: 11 }, RANGE_TOO_SHORT],
      [{ start_year: 2019, start_month: 12, end_year: 2026, end_month: 1 }, RANGE_TOO_LONG],
    ];
    for (const [period, message] of cases) {
      const response = await create(period);
      expect(response.statusCode, response.body).toBe(422);
      expect(errorsOf(response)).toEqual([expect.objectContaining({ detail: message, source: { pointer: '/period' } })]);
    }
    // Not the period's shape: the schema's 400.
    for (const period of [{ start_year: 2025, start_month: 13, end_year: 2025, end_month: 12 }, { start_year: 2025, start_month: 1 }, 'last year']) {
      expect((await create(period)).statusCode).toBe(400);
    }
    // An unknown chart and a bad range: both reported.
    const both = await api('POST', '/business_reports', owner, { title: 'x', sections: [{ definition_id: 'happiness' }], period: cases[1]?.[0] });
    expect(both.statusCode).toBe(422);
    expect(errorsOf(both).map((error) => error.source?.pointer)).toEqual(['/sections/0/definition_id', '/period']);
    expect(await count()).toBe(before);

    // A range that ends before the current month: computed over it, with auto refresh off.
    const created = await create({ start_year: 2025, start_month: 7, end_year: 2025, end_month: 12 });
    expect(created.statusCode, created.body).toBe(201);
    await app.reports.settled();
    const report = await bySecret((created.json() as { secret: string }).secret, owner);
    expect(report.period).toEqual({ start_year: 2025, start_month: 7, end_year: 2025, end_month: 12 });
    expect(report.settings.auto_refresh).toBe(false);
    expect(total(report.sections[0]).map((p) => p.time)).toEqual(['2025-07-01', '2025-08-01', '2025-09-01', '2025-10-01', '2025-11-01', '2025-12-01']);
    // Without a period: the last 12 months, auto refresh on.
    const plain = await bySecret((await createFrom(owner, 'plain', ['mrr'])).secret, owner);
    expect(plain.period).toEqual({ start_year: 2025, start_month: 4, end_year: 2026, end_month: 3 });
    expect(plain.settings.auto_refresh).toBe(true);
  });

  it('keeps settings, refuses an unknown currency, and recomputes in a new currency', async () => {
    await harness.db.kysely
      .insertInto('exchange_rates')
      .values(['2025-03-03', '2025-06-02', '2025-09-01', '2025-12-01', '2026-03-02'].flatMap((day) => [{ day, currency: 'USD', rate_per_eur: '1.25' }]))
      .onConflict((c) => c.doNothing())
      .execute();
    const { id, secret } = await createFrom(owner, 'currency', ['mrr']);
    await app.reports.settled();
    expect((await api('GET', `/business_reports/${id}/settings`, owner)).json()).toEqual({
      repeatable: true,
      auto_refresh: true,
      display_quarters: false,
      subtract_forever_discount_from_mrr: true,
      subtract_finite_discount_from_mrr: true,
      currency: null,
    });
    const unknown = await api('PUT', `/business_reports/${id}/settings`, owner, { currency: 'XYZ' });
    expect(unknown.statusCode).toBe(422);
    expect(errorsOf(unknown)[0]?.detail).toBe('Unknown currency');
    const quarters = await api('PUT', `/business_reports/${id}/settings`, owner, { display_quarters: true });
    expect(quarters.json()).toMatchObject({ display_quarters: true, currency: null });
    const eur = await api('PUT', `/business_reports/${id}/settings`, owner, { currency: 'EUR' });
    expect(eur.statusCode, eur.body).toBe(200);
    await app.reports.settled();
    const report = await bySecret(secret, owner);
    expect(report).toMatchObject({ currency: 'EUR', recalculation_status: 'recalculated', settings: { currency: 'EUR' } });
    expect(report.sections[0]?.currency).toBe('EUR');
    // $100 at 1.25 dollars a euro.
    expect(valueAt(report.sections[0], '2026-01-01')).toBe(8_000);
    // Another currency for one answer only: computed, not stored.
    const inUsd = await bySecret(secret, owner, 'usd');
    expect(inUsd.currency).toBe('USD');
    expect(valueAt(inUsd.sections[0], '2026-01-01')).toBe(10_000);
    expect((await bySecret(secret, owner)).currency).toBe('EUR');
  });

  it('turns stale when the account’s data changes, and fresh again after a refresh', async () => {
    const { id, secret } = await createFrom(owner, 'fresh', ['mrr']);
    await app.reports.settled();
    expect((await bySecret(secret, owner)).freshness_status).toBe('fresh');
    await addPayment(owner.user.account_id, 'c3', '2026-02-01', 1, 7_000);
    const stale = await bySecret(secret, owner);
    expect(stale.freshness_status).toBe('stale');
    expect(valueAt(stale.sections[0], '2026-02-01')).toBe(10_000);
    const refresh = await api('POST', `/business_reports/${id}/refresh`, owner);
    expect(refresh.statusCode).toBe(202);
    expect(refresh.json()).toEqual({ recalculation_status: 'recalculating' });
    await app.reports.settled();
    const fresh = await bySecret(secret, owner);
    expect(fresh.freshness_status).toBe('fresh');
    expect(valueAt(fresh.sections[0], '2026-02-01')).toBe(17_000);
  });

  it('answers by_secret from its last serialisation while nothing changed (ETag, 304, gzip), and anew after any write, whoever writes', async () => {
    const { id, secret } = await createFrom(owner, 'cached', ['mrr', 'customers']);
    await app.reports.settled();
    const url = `/api/v11/business_reports/by_secret?secret=${secret}`;
    const read = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { authorization: owner.authorization, ...headers } });
    const first = await read();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const again = await read();
    expect(again.headers.etag).toBe(etag);
    expect(again.body).toBe(first.body);
    const notModified = await read({ 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    const zipped = await read({ 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(first.body);
    expect((await read({ 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();

    // Writes made straight in the database (as another server process or a job would make
    // them) change the answer at once: the triggers raise the report's revision.
    const db = harness.db.kysely;
    const account = owner.user.account_id;
    const changes: [string, () => Promise<unknown>, (report: Report) => unknown, unknown][] = [
      ['the report', () => db.updateTable('business_reports').set({ title: 'cached, renamed' }).where('account_id', '=', account).where('id', '=', id).execute(), (r) => r.title, 'cached, renamed'],
      ['its settings', () => db.updateTable('report_settings').set({ auto_refresh: false }).where('account_id', '=', account).where('report_id', '=', id).execute(), (r) => r.settings.auto_refresh, false],
      ['a section', () => db.updateTable('report_sections').set({ title: 'Paying customers' }).where('account_id', '=', account).where('report_id', '=', id).where('definition_id', '=', 'customers').execute(), (r) => r.sections[1]?.title, 'Paying customers'],
      ['a section’s segments', async () => {
        const section = await db.selectFrom('report_sections').select('id').where('account_id', '=', account).where('report_id', '=', id).where('definition_id', '=', 'mrr').executeTakeFirstOrThrow();
        await db.insertInto('report_section_segments').values({ account_id: account, section_id: section.id, segmenter_id: 'product', position: 1 }).execute();
      }, (r) => (r.sections[0] as unknown as { segment_ids: string[] }).segment_ids, ['product']],
      ['the account’s data', () => addPayment(account, 'c9', '2026-01-01', 1, 1_000), (r) => r.freshness_status, 'stale'],
      ['the owner’s name', () => db.updateTable('users').set({ name: 'Ada Renamed' }).where('account_id', '=', account).where('id', '=', owner.user.id).execute(), (r) => r.owner?.name, 'Ada Renamed'],
    ];
    let previous = etag;
    for (const [what, write, seen, expected] of changes) {
      await write();
      const response = await read({ 'if-none-match': previous });
      expect(response.statusCode, what).toBe(200);
      expect(seen(response.json() as Report), what).toEqual(expected);
      expect(response.headers.etag, what).not.toBe(previous);
      previous = response.headers.etag as string;
    }
    await db.updateTable('users').set({ name: 'Ada Owner' }).where('account_id', '=', account).where('id', '=', owner.user.id).execute();

    // Each reader gets its own can_edit from the same report.
    await db.updateTable('accounts').set({ anonymous_access_allowed: true }).where('id', '=', account).execute();
    try {
      expect((await bySecret(secret)).can_edit).toBe(false);
      expect((await bySecret(secret, owner)).can_edit).toBe(true);
      expect((await bySecret(secret)).can_edit).toBe(false);
    } finally {
      await db.updateTable('accounts').set({ anonymous_access_allowed: false }).where('id', '=', account).execute();
    }
    // And the answer is gone with access: a closed account's report is 401 to the anonymous again.
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(401);
  });

  it('shows a report of the demo account to anyone at GET /demo, read only, and nothing else', async () => {
    const { secret } = await createFrom(owner, 'demo', ['mrr']);
    await app.reports.settled();
    const demo = (token: string) => app.inject({ method: 'GET', url: `/api/v11/demo?token=${token}` });
    // Not a demo account's report: not found, as any unknown token.
    expect((await demo(secret)).statusCode).toBe(404);
    expect((await demo('x'.repeat(32))).statusCode).toBe(404);
    await harness.db.kysely.updateTable('accounts').set({ is_demo: true }).where('id', '=', owner.user.account_id).execute();
    try {
      const response = await demo(secret);
      expect(response.statusCode).toBe(200);
      const report = response.json() as Report;
      expect(report).toMatchObject({ title: 'demo', can_edit: false, recalculation_status: 'recalculated' });
      expect(valueAt(report.sections[0], '2025-06-01')).toBe(10_000);
      // Read only: the demo visitor has no token, so every change is refused.
      expectSignInRequired(await api('PUT', `/business_reports/${report.id}`, undefined, { title: 'mine' }));
    } finally {
      await harness.db.kysely.updateTable('accounts').set({ is_demo: false }).where('id', '=', owner.user.account_id).execute();
    }
    expect((await demo(secret)).statusCode).toBe(404);
  });

  it('tells anyone which report the public demo shows (GET /demo/report), and 404 without a demo account', async () => {
    await createFrom(owner, 'demo link', ['mrr']);
    const link = () => app.inject({ method: 'GET', url: '/api/v11/demo/report' });
    const none = await link();
    expect(none.statusCode).toBe(404);
    expect(none.json()).toMatchObject({ errors: [{ detail: 'There is no demo report on this server' }] });
    const db = harness.db.kysely;
    await db.updateTable('accounts').set({ is_demo: true }).where('id', '=', owner.user.account_id).execute();
    try {
      const response = await link();
      expect(response.statusCode).toBe(200);
      const first = await db.selectFrom('business_reports').select(['secret', 'title']).where('account_id', '=', owner.user.account_id).orderBy('created_at').orderBy('id').limit(1).executeTakeFirstOrThrow();
      expect(response.json()).toEqual(first);
      // The public demo page reads it by that secret, with no token.
      expect((await app.inject({ method: 'GET', url: `/api/v11/demo?token=${first.secret}` })).statusCode).toBe(200);
    } finally {
      await db.updateTable('accounts').set({ is_demo: false }).where('id', '=', owner.user.account_id).execute();
    }
  });

  it('runs again, at start, a recalculation a stopped process left', async () => {
    const { id, secret } = await createFrom(owner, 'resumed', ['customers']);
    await app.reports.settled();
    await harness.db.kysely.updateTable('business_reports').set({ recalculation_status: 'recalculating', computed_data_version: null }).where('id', '=', id).execute();
    expect(await app.reports.resume()).toContain(id);
    await app.reports.settled();
    expect(await bySecret(secret, owner)).toMatchObject({ recalculation_status: 'recalculated', freshness_status: 'fresh' });
  });

  it('says whether the account has finance data', async () => {
    expect((await api('GET', '/data_existence', owner)).json()).toEqual({ finance: true });
    expect((await api('GET', '/data_existence', stranger)).json()).toEqual({ finance: false });
    expectSignInRequired(await api('GET', '/data_existence'));
  });

  it('lists the known currencies for the currency switcher', async () => {
    const response = await api('GET', '/currencies', owner);
    expect(response.statusCode).toBe(200);
    const { items } = response.json() as { items: { iso: string; name: string; minor_unit_digits: number }[] };
    expect(items.find((c) => c.iso === 'USD')).toMatchObject({ minor_unit_digits: 2 });
    expect(items.find((c) => c.iso === 'JPY')).toMatchObject({ minor_unit_digits: 0 });
    expect(items.map((c) => c.iso)).toEqual([...items.map((c) => c.iso)].sort());
    expectSignInRequired(await api('GET', '/currencies'));
  });

  it('deletes a report with its sections', async () => {
    const { id, secret } = await createFrom(owner, 'gone', ['mrr', 'customers']);
    await app.reports.settled();
    expect((await api('DELETE', `/business_reports/${id}`, owner)).statusCode).toBe(204);
    expect((await api('GET', `/business_reports/by_secret?secret=${secret}`, owner)).statusCode).toBe(404);
    expect((await api('DELETE', `/business_reports/${id}`, owner)).statusCode).toBe(404);
    const sections = await harness.db.kysely.selectFrom('report_sections').select('id').where('report_id', '=', id).execute();
    expect(sections).toEqual([]);
  });
});
