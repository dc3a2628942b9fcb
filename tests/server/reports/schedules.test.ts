import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../server/db/database';
import { startQueue } from '../../../server/jobs/queue';
import { registerWorkers } from '../../../server/jobs/workers';
import {
  DAILY_REFRESH_CRON,
  makeMonthlySuccessors,
  movedTitle,
  refreshDaily,
  REPORT_JOBS,
  successorPeriod,
} from '../../../server/reports/schedules';
import { monthIndex } from '../../../models/reportRange';
import { createAuthTestApp, signIn, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * Scheduled reports: the monthly successors and the daily refresh, driven by a clock the test
 * sets (the jobs' `now`), read back over the API as a user sees them.
 */

interface Period {
  start_year: number;
  start_month: number;
  end_year: number;
  end_month: number;
}
interface Section {
  id: string;
  definition_id: string;
  title: string;
  data_type: string;
  resolution: string;
  position: number;
  segment_ids: string[];
  recalculation_status: string;
  segments: { is_total: boolean; series: { data_points: { time: string; value: number | null }[] }[] }[];
}
interface Report {
  id: string;
  secret: string;
  title: string;
  summary: string;
  tags: string[];
  owner: { name: string } | null;
  period: Period;
  created_at: string;
  refreshed_at: string | null;
  recalculation_status: string;
  freshness_status: string;
  settings: { repeatable: boolean; auto_refresh: boolean; display_quarters: boolean; subtract_forever_discount_from_mrr: boolean; subtract_finite_discount_from_mrr: boolean; currency: string | null };
  sections: Section[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let other: SignedUp;

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: { authorization: who.authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

/** Moves the app's clock (what "today" is for the routes) on to an instant; both users sign in again then. */
async function setAppClock(iso: string): Promise<void> {
  const by = Date.parse(iso) - harness.clock.now().getTime();
  expect(by).toBeGreaterThanOrEqual(0);
  if (by === 0) return;
  harness.clock.advance(by);
  for (const who of [owner, other]) {
    const response = await signIn(app, who.email, who.password);
    expect(response.statusCode, response.body).toBe(200);
    who.authorization = response.headers.authorization as string;
  }
}

const at = (iso: string) => () => new Date(iso);

async function read(secret: string, who: SignedUp = owner): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

async function list(who: SignedUp = owner): Promise<Report[]> {
  const response = await api('GET', '/business_reports/latest', who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: Report[] }).items;
}

/** A report made through the API on `day` (the app's clock; the row's created_at set to match). */
async function createReport(who: SignedUp, day: string, title: string, definitions: string[], settings: Partial<Report['settings']> = {}): Promise<Report> {
  await setAppClock(day);
  const created = await api('POST', '/business_reports', who, { title, sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(created.statusCode, created.body).toBe(201);
  const { id, secret } = created.json() as { id: string; secret: string };
  await harness.db.kysely.updateTable('business_reports').set({ created_at: new Date(day) }).where('account_id', '=', who.user.account_id).where('id', '=', id).execute();
  if (Object.keys(settings).length > 0) {
    const changed = await api('PUT', `/business_reports/${id}/settings`, who, settings);
    expect(changed.statusCode, changed.body).toBe(200);
  }
  await app.reports.settled();
  return read(secret, who);
}

/** The total's value at `time` ('YYYY-MM-01') of a section, as the report page reads it. */
function valueAt(section: Section | undefined, time: string): number | null | undefined {
  const total = section?.segments.find((segment) => segment.is_total) ?? section?.segments[0];
  return total?.series[0]?.data_points.find((point) => point.time === time)?.value;
}

async function successorsOf(accountId: string, reportId: string) {
  return harness.db.kysely.selectFrom('business_reports').select(['id', 'secret', 'group_id']).where('account_id', '=', accountId).where('predecessor_id', '=', reportId).execute();
}

async function addPayment(accountId: string, customer: string, startedAt: string, months: number, monthly: number): Promise<void> {
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: accountId, id: customer, name: `Customer ${customer}`, public_id: null }).onConflict((c) => c.doNothing()).execute();
  const [year, month] = startedAt.split('-').map(Number) as [number, number];
  const end = monthIndex(year, month) + months;
  const endedAt = `${Math.floor(end / 12)}-${String((end % 12) + 1).padStart(2, '0')}-01`;
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id: `subh${customer}${startedAt.replaceAll('-', '')}`.slice(0, 24), customer_id: customer, started_at: startedAt, ended_at: endedAt, duration_in_months: months, total_value: monthly * months, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
    .execute();
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  other = await signUp(app, { name: 'Otto Other' });
  // $100 a month from January 2026 for two years; a second customer from December 2026 at $50.
  await addPayment(owner.user.account_id, 'c1', '2026-01-01', 24, 10_000);
  await addPayment(owner.user.account_id, 'c2', '2026-12-01', 12, 5_000);
  await addPayment(other.user.account_id, 'o1', '2026-01-01', 24, 7_000);
});
afterAll(() => harness?.close());

describe('successor ranges and titles', () => {
  const nov = monthIndex(2026, 11);
  const dec = monthIndex(2026, 12);
  it('moves a range on by the month since the report was made, keeping its length, never past the current month', () => {
    const year = { start_year: 2025, start_month: 12, end_year: 2026, end_month: 11 };
    expect(successorPeriod(year, nov, dec)).toEqual({ period: { start_year: 2026, start_month: 1, end_year: 2026, end_month: 12 }, shift: 1 });
    // Across a year: a report of December gets January.
    expect(successorPeriod({ start_year: 2026, start_month: 10, end_year: 2026, end_month: 12 }, dec, dec + 1)).toEqual({ period: { start_year: 2026, start_month: 11, end_year: 2027, end_month: 1 }, shift: 1 });
    // A report of the last complete month stays one behind.
    expect(successorPeriod({ start_year: 2025, start_month: 11, end_year: 2026, end_month: 10 }, nov, dec)).toEqual({ period: { start_year: 2025, start_month: 12, end_year: 2026, end_month: 11 }, shift: 1 });
    // Three months missed: straight to the current month.
    expect(successorPeriod(year, nov, monthIndex(2027, 2))).toEqual({ period: { start_year: 2026, start_month: 3, end_year: 2027, end_month: 2 }, shift: 3 });
    // A range longer than a report may show is cut to 72 months.
    const long = successorPeriod({ start_year: 2019, start_month: 1, end_year: 2026, end_month: 11 }, nov, dec);
    expect(long?.period).toEqual({ start_year: 2021, start_month: 1, end_year: 2026, end_month: 12 });
  });

  it('gives no successor in the month a report was made, or to a range that shows the current month', () => {
    expect(successorPeriod({ start_year: 2025, start_month: 12, end_year: 2026, end_month: 11 }, nov, nov)).toBeNull();
    expect(successorPeriod({ start_year: 2026, start_month: 1, end_year: 2026, end_month: 12 }, nov, dec)).toBeNull();
  });

  it('moves the months a title names, in their own style, and keeps any other title', () => {
    expect(movedTitle('2026-11 business overview', 1)).toBe('2026-12 business overview');
    expect(movedTitle('2026-12 business overview', 1)).toBe('2027-01 business overview');
    expect(movedTitle('Board pack November 2026', 3)).toBe('Board pack February 2027');
    expect(movedTitle('Numbers for Dec. 2026 (dec 2026)', 1)).toBe('Numbers for Jan. 2027 (jan 2027)');
    expect(movedTitle('Weekly numbers', 1)).toBe('Weekly numbers');
    expect(movedTitle('Snapshot of 2026-11-30', 1)).toBe('Snapshot of 2026-11-30');
  });
});

describe(`monthly successors on ${testEngine}`, () => {
  it('makes the successor on the first of the month: same sections, segments, key numbers and settings, range moved on', async () => {
    const account = owner.user.account_id;
    const report = await createReport(owner, '2026-11-10T09:00:00Z', '2026-11 business overview', ['mrr', 'customers', 'arpa'], {
      display_quarters: true,
      subtract_forever_discount_from_mrr: false,
    });
    expect(report.period).toEqual({ start_year: 2025, start_month: 12, end_year: 2026, end_month: 11 });
    const db = harness.db.kysely;
    const [mrr, customers, arpa] = report.sections;
    if (!mrr || !customers || !arpa) throw new Error('sections missing');
    // A section edited in every way a user can: title, summary, chart, resolution, position, config, segments.
    await db
      .updateTable('report_sections')
      .set({ title: 'Revenue', summary: 'Our MRR', data_type: 'bar_chart', resolution: 'quarter', position: 5, config: JSON.stringify({ groups: [], series: [{ name: 's' }] }) })
      .where('account_id', '=', account)
      .where('id', '=', mrr.id)
      .execute();
    await db.insertInto('report_section_segments').values([
      { account_id: account, section_id: customers.id, segmenter_id: 'subscription_segment:currency', position: 0 },
      { account_id: account, section_id: customers.id, segmenter_id: 'subscription_segment:product', position: 1 },
    ]).execute();
    // A report view too (nobody owns a deal here: everyone is "not Anna's", so the numbers stay).
    const view = { operator: 'and', arguments: [{ type: 'deal_owner', owner_name: 'Anna', negated: true }] };
    const saved = await api('PUT', `/business_reports/${report.id}`, owner, { summary: 'Monthly board pack', tags: ['board', 'monthly'], filter: view });
    expect(saved.statusCode, saved.body).toBe(200);
    for (const section of [arpa, customers]) {
      const added = await api('POST', '/business_reports/by_secret/key_numbers', owner, { secret: report.secret, section_id: section.id, definition_id: section.definition_id });
      expect(added.statusCode, added.body).toBe(201);
    }
    const once = await createReport(owner, '2026-11-11T09:00:00Z', 'One-off', ['mrr'], { repeatable: false });
    await app.reports.settled();
    const before = await read(report.secret);

    // The evening before: nothing yet.
    expect(await makeMonthlySuccessors(harness.db, { now: at('2026-11-30T23:59:00Z') })).toEqual([]);

    const made = await makeMonthlySuccessors(harness.db, { now: at('2026-12-01T00:00:00Z') });
    const mine = made.filter((entry) => entry.accountId === account);
    expect(mine.map((entry) => entry.predecessorId)).toEqual([report.id]);
    expect(await successorsOf(account, once.id)).toEqual([]);

    const successor = await read(mine[0]!.secret);
    expect(successor).toMatchObject({
      title: '2026-12 business overview',
      summary: 'Monthly board pack',
      tags: ['board', 'monthly'],
      owner: { name: 'Ada Owner' },
      period: { start_year: 2026, start_month: 1, end_year: 2026, end_month: 12 },
      created_at: '2026-12-01T00:00:00.000Z',
      recalculation_status: 'recalculated',
      refreshed_at: '2026-12-01T00:00:00.000Z',
      settings: { repeatable: true, auto_refresh: true, display_quarters: true, subtract_forever_discount_from_mrr: false, subtract_finite_discount_from_mrr: true, currency: null },
      filter: view,
    });
    const shape = (sections: Section[]) => sections.map(({ definition_id, title, data_type, resolution, position, segment_ids }) => ({ definition_id, title, data_type, resolution, position, segment_ids }));
    expect(shape(successor.sections)).toEqual(shape(before.sections));
    expect(shape(successor.sections).map((s) => [s.definition_id, s.title, s.position, s.segment_ids])).toEqual([
      ['customers', 'Customers', 1, ['subscription_segment:currency', 'subscription_segment:product']],
      ['arpa', 'ARPA', 2, []],
      ['mrr', 'Revenue', 5, []],
    ]);
    // New sections, not the predecessor's.
    expect(successor.sections.map((s) => s.id).filter((id) => before.sections.some((s) => s.id === id))).toEqual([]);
    const config = await db.selectFrom('report_sections').select(['config', 'summary']).where('account_id', '=', account).where('report_id', '=', successor.id).where('definition_id', '=', 'mrr').executeTakeFirstOrThrow();
    expect(config).toEqual({ config: { groups: [], series: [{ name: 's' }] }, summary: 'Our MRR' });

    // Recomputed for the moved range: December 2026, with the second customer's $50.
    const successorCustomers = successor.sections.find((s) => s.definition_id === 'customers');
    expect(successor.sections.map((s) => s.recalculation_status)).toEqual(['recalculated', 'recalculated', 'recalculated']);
    expect(valueAt(successorCustomers, '2026-12-01')).toBe(2);
    expect(valueAt(before.sections.find((s) => s.definition_id === 'customers'), '2026-12-01')).toBeUndefined();

    // Key numbers point at the successor's own sections, in the same order.
    const keys = await api('GET', `/business_reports/by_secret/key_numbers?secret=${successor.secret}`, owner);
    const items = (keys.json() as { items: { section_id: string; definition_id: string; time: string }[] }).items;
    expect(items.map((item) => [item.definition_id, successor.sections.find((s) => s.id === item.section_id)?.definition_id])).toEqual([
      ['arpa', 'arpa'],
      ['customers', 'customers'],
    ]);
    expect(items[0]?.time).toBe('2026-11-01');

    // The predecessor: auto refresh off (it no longer shows the current month), one group with its successor.
    const predecessor = await read(report.secret);
    expect(predecessor.settings.auto_refresh).toBe(false);
    expect(predecessor.period).toEqual(report.period);
    const [line] = await successorsOf(account, report.id);
    const predecessorRow = await db.selectFrom('business_reports').select('group_id').where('account_id', '=', account).where('id', '=', report.id).executeTakeFirstOrThrow();
    expect(line?.group_id).toBeTruthy();
    expect(predecessorRow.group_id).toBe(line?.group_id);
    const group = await db.selectFrom('business_reports').select('secret').where('account_id', '=', account).where('group_id', '=', line!.group_id).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(group.secret).toBe(successor.secret);
    // The list shows it first.
    expect((await list())[0]?.id).toBe(successor.id);

    // Again the same day, and the next day: nothing more.
    expect((await makeMonthlySuccessors(harness.db, { now: at('2026-12-01T00:00:30Z') })).filter((e) => e.accountId === account)).toEqual([]);
    expect((await makeMonthlySuccessors(harness.db, { now: at('2026-12-02T00:00:00Z') })).filter((e) => e.accountId === account)).toEqual([]);

    // A month on (across the year), the line goes on from its newest report only.
    const january = (await makeMonthlySuccessors(harness.db, { now: at('2027-01-01T00:00:00Z') })).filter((e) => e.accountId === account);
    expect(january.map((e) => [e.predecessorId, e.title, e.period])).toEqual([[successor.id, '2027-01 business overview', { start_year: 2026, start_month: 2, end_year: 2027, end_month: 1 }]]);
    expect(await successorsOf(account, report.id)).toHaveLength(1);
    const third = await db.selectFrom('business_reports').select('group_id').where('account_id', '=', account).where('id', '=', january[0]!.id).executeTakeFirstOrThrow();
    expect(third.group_id).toBe(line?.group_id);
  });

  it('makes each account’s successors in that account', async () => {
    const theirs = await createReport(other, '2026-11-12T09:00:00Z', 'Their numbers', ['mrr']);
    const made = await makeMonthlySuccessors(harness.db, { now: at('2026-12-01T00:00:00Z') });
    const entry = made.find((e) => e.predecessorId === theirs.id);
    expect(entry?.accountId).toBe(other.user.account_id);
    expect((await list(other)).map((r) => r.id)).toContain(entry?.id);
    expect((await list(owner)).map((r) => r.id)).not.toContain(entry?.id);
    expect((await api('GET', `/business_reports/by_secret?secret=${entry!.secret}`, owner)).statusCode).toBe(404);
  });

  it('catches up months the job missed with one successor that shows the current month', async () => {
    const account = owner.user.account_id;
    const report = await createReport(owner, '2026-11-13T09:00:00Z', 'Quarter view', ['mrr']);
    await harness.db.kysely.updateTable('business_reports').set({ start_year: 2026, start_month: 9 }).where('account_id', '=', account).where('id', '=', report.id).execute();
    // First run in March 2027: four months on, across a year.
    const made = (await makeMonthlySuccessors(harness.db, { now: at('2027-03-01T00:05:00Z') })).filter((e) => e.predecessorId === report.id);
    expect(made.map((e) => [e.title, e.period])).toEqual([['Quarter view', { start_year: 2027, start_month: 1, end_year: 2027, end_month: 3 }]]);
    const successor = await read(made[0]!.secret);
    expect(successor.period).toEqual({ start_year: 2027, start_month: 1, end_year: 2027, end_month: 3 });
    expect(valueAt(successor.sections[0], '2027-03-01')).toBe(15_000);

    // The predecessor deleted: the successor stays, and its line goes on.
    expect((await api('DELETE', `/business_reports/${report.id}`, owner)).statusCode).toBe(204);
    expect((await read(successor.secret)).period).toEqual(successor.period);
    const april = (await makeMonthlySuccessors(harness.db, { now: at('2027-04-01T00:00:00Z') })).filter((e) => e.predecessorId === successor.id);
    expect(april.map((e) => e.period)).toEqual([{ start_year: 2027, start_month: 2, end_year: 2027, end_month: 4 }]);
  });

  it('does not make a deleted successor again', async () => {
    const account = owner.user.account_id;
    const report = await createReport(owner, '2027-03-03T09:00:00Z', 'Deleted later', ['customers']);
    const [first] = (await makeMonthlySuccessors(harness.db, { now: at('2027-04-01T00:00:00Z') })).filter((e) => e.predecessorId === report.id);
    expect((await api('DELETE', `/business_reports/${first!.id}`, owner)).statusCode).toBe(204);
    expect((await makeMonthlySuccessors(harness.db, { now: at('2027-04-02T00:00:00Z') })).filter((e) => e.predecessorId === report.id)).toEqual([]);
    expect(await successorsOf(account, report.id)).toEqual([]);
  });

  it('makes exactly one successor when two workers run the same tick at once', async () => {
    const account = owner.user.account_id;
    const report = await createReport(owner, '2027-05-20T09:00:00Z', 'Race', ['mrr']);
    // On PostgreSQL the second worker has its own pool: truly concurrent transactions.
    const second: Database = testEngine === 'postgresql' ? await openDatabase({ kind: 'postgresql', url: harness.db.url!, poolSize: 2 }) : harness.db;
    try {
      const now = at('2027-06-01T00:00:00Z');
      const [a, b] = await Promise.all([makeMonthlySuccessors(harness.db, { now }), makeMonthlySuccessors(second, { now })]);
      const mine = [...a, ...b].filter((e) => e.predecessorId === report.id);
      expect(mine).toHaveLength(1);
      expect(await successorsOf(account, report.id)).toHaveLength(1);
    } finally {
      if (second !== harness.db) await second.close();
    }
  });
});

describe(`daily refresh on ${testEngine}`, () => {
  it('recalculates once a day exactly the reports with auto refresh that show the current month', async () => {
    const account = owner.user.account_id;
    const db = harness.db.kysely;
    const day = '2027-08-10T09:00:00Z';
    // Made in July, showing July, not repeatable: its auto refresh goes off in August.
    const july = await createReport(owner, '2027-07-15T09:00:00Z', 'July', ['mrr'], { repeatable: false });
    expect(july.settings.auto_refresh).toBe(true);
    const auto = await createReport(owner, day, 'Auto', ['mrr']);
    const manual = await createReport(owner, day, 'Manual', ['mrr'], { auto_refresh: false });
    // Reports earlier tests left behind are not this test's business: only these three count.
    const ours = new Set([auto.id, manual.id, july.id]);
    const refreshedIds = (entries: { reportId: string }[]) => entries.map((e) => e.reportId).filter((id) => ours.has(id));

    // New data after they were computed: a customer from August 2027 at $20.
    await addPayment(account, 'c3', '2027-08-01', 12, 2_000);
    expect((await read(auto.secret)).freshness_status).toBe('stale');

    const first = await refreshDaily(harness.db, { now: at('2027-08-11T01:00:00Z') });
    expect(refreshedIds(first)).toEqual([auto.id]);
    const refreshed = await read(auto.secret);
    expect(refreshed).toMatchObject({ refreshed_at: '2027-08-11T01:00:00.000Z', recalculation_status: 'recalculated', freshness_status: 'fresh' });
    // $100 + $50 + the new $20.
    expect(valueAt(refreshed.sections[0], '2027-08-01')).toBe(10_000 + 5_000 + 2_000);
    expect(valueAt((await read(manual.secret)).sections[0], '2027-08-01')).toBe(15_000);
    expect((await read(manual.secret)).freshness_status).toBe('stale');
    const julyNow = await read(july.secret);
    expect(julyNow.settings.auto_refresh).toBe(false);
    expect(julyNow.refreshed_at).not.toBe('2027-08-11T01:00:00.000Z');

    // Again the same day (a retry, a second worker): nothing.
    expect(refreshedIds(await refreshDaily(harness.db, { now: at('2027-08-11T13:00:00Z') }))).toEqual([]);
    expect((await read(auto.secret)).refreshed_at).toBe('2027-08-11T01:00:00.000Z');
    // The next day: again, once, even with two at the same time.
    const second: Database = testEngine === 'postgresql' ? await openDatabase({ kind: 'postgresql', url: harness.db.url!, poolSize: 2 }) : harness.db;
    try {
      const now = at('2027-08-12T01:00:00Z');
      const [a, b] = await Promise.all([refreshDaily(harness.db, { now }), refreshDaily(second, { now })]);
      expect([...refreshedIds(a), ...refreshedIds(b)]).toEqual([auto.id]);
    } finally {
      if (second !== harness.db) await second.close();
    }
    expect((await read(auto.secret)).refreshed_at).toBe('2027-08-12T01:00:00.000Z');
    const row = await db.selectFrom('business_reports').select('auto_refreshed_on').where('account_id', '=', account).where('id', '=', auto.id).executeTakeFirstOrThrow();
    expect(row.auto_refreshed_on).toBe('2027-08-12');
  });

  it('makes a missed successor before it turns the predecessor’s auto refresh off', async () => {
    const report = await createReport(owner, '2027-09-09T09:00:00Z', '2027-09 numbers', ['mrr']);
    // The 1st of October passed without the monthly job; the daily one runs on the 2nd.
    const refreshed = await refreshDaily(harness.db, { now: at('2027-10-02T01:00:00Z') });
    const [line] = await successorsOf(owner.user.account_id, report.id);
    expect(line).toBeDefined();
    const successor = await read(line!.secret);
    expect(successor).toMatchObject({ title: '2027-10 numbers', settings: { auto_refresh: true }, refreshed_at: '2027-10-02T01:00:00.000Z' });
    expect((await read(report.secret)).settings.auto_refresh).toBe(false);
    // Computed once when made: the day's refresh leaves it.
    expect(refreshed.map((e) => e.reportId)).not.toContain(successor.id);
  });
});

describe(`the jobs on the queue on ${testEngine}`, () => {
  it('registers both crons (UTC) with the workers and runs a job sent to the queue', async () => {
    const queue = await startQueue(harness.db, { pollingIntervalSeconds: 0.5 });
    try {
      const log = { info: () => {}, warn: () => {}, error: () => {} };
      // As a version that lost the long expiry left it: the queue there, with pg-boss's default.
      await queue.ensureQueue(REPORT_JOBS.dailyRefresh);
      await registerWorkers(queue, harness.db, { ecbFeedUrl: undefined }, log);
      const schedules = await queue.boss.getSchedules();
      const ours = schedules.filter((s) => s.name.startsWith('reports.')).map((s) => ({ name: s.name, cron: s.cron, tz: s.options?.tz ?? (s as { timezone?: string }).timezone }));
      expect(ours.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { name: REPORT_JOBS.dailyRefresh, cron: DAILY_REFRESH_CRON, tz: 'UTC' },
        { name: REPORT_JOBS.monthlySuccessors, cron: '0 0 1 * *', tz: 'UTC' },
      ]);
      // Every account, one after another: a job may run for hours before it counts as failed.
      for (const name of [REPORT_JOBS.dailyRefresh, REPORT_JOBS.monthlySuccessors]) expect(await queue.boss.getQueue(name), name).toMatchObject({ expireInSeconds: 4 * 3600, retryLimit: 3 });
      const id = await queue.send(REPORT_JOBS.monthlySuccessors, {});
      await expect.poll(async () => (await queue.boss.getJobById(REPORT_JOBS.monthlySuccessors, id!))?.state, { timeout: 20_000 }).toBe('completed');
    } finally {
      await queue.stop();
    }
  });
});
