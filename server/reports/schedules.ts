import { sql, type Kysely } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import type { Database } from '../db/database';
import type { DB } from '../db/schema';
import type { JobQueue } from '../jobs/queue';
import { createMetricsService } from '../metrics/service';
import { REPORT_RANGE_MAX_MONTHS } from '../../models/constants';
import { MONTH_LABELS, monthIndex, periodMonths, showsCurrentMonth, type ReportPeriod } from '../../models/reportRange';
import { ReportRecalculations } from './recalculations';
import { newReportId, newReportSecret, newSectionId } from './reports';

/**
 * Scheduled reports (docs/scheduled-reports.md): on the first day of each month a repeatable
 * report gets its successor (same sections and settings, range moved on by a month), and once a
 * day the reports with auto refresh that show the current month are recalculated. Both are
 * pg-boss cron jobs (UTC), so one worker takes each tick; each job is also safe to run twice or
 * at once on two workers: a successor is claimed under its predecessor's row lock (and
 * `business_reports(account_id, predecessor_id)` is unique), a daily refresh claims each report
 * for the day with one conditional UPDATE (migration 0011). Every query is scoped by account.
 */

export const REPORT_JOBS = {
  monthlySuccessors: 'reports.monthly_successors',
  dailyRefresh: 'reports.daily_refresh',
} as const;

/** Midnight UTC on the first day of each month. */
export const MONTHLY_SUCCESSORS_CRON = '0 0 1 * *';
/** 01:00 UTC every day: after the successors of the 1st, so they are not refreshed twice. */
export const DAILY_REFRESH_CRON = '0 1 * * *';

/** The longest a job may run before pg-boss takes it for failed and retries it (every account, one after another). */
const JOB_EXPIRY_HOURS = 4;

type Log = { info: (message: string) => void; warn: (message: string) => void; error: (message: string) => void };

/** What starts and awaits recalculations: the job's own ReportRecalculations. */
type Recalculator = Pick<ReportRecalculations, 'start' | 'settled'>;

export interface ScheduleOptions {
  /** The clock ("today", created_at and refreshed_at of what the job writes); tests drive it. */
  now: () => Date;
  log?: Pick<Log, 'error'>;
}

export interface SuccessorMade {
  accountId: string;
  predecessorId: string;
  id: string;
  secret: string;
  period: ReportPeriod;
  title: string;
}

// --------------------------------------------------------------------------- periods and titles

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

const fromIndex = (index: number) => ({ year: Math.floor(index / 12), month: (index % 12) + 1 });

function currentMonthOf(now: Date): { year: number; month: number } {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
}

/**
 * The successor's range of a report made in month `createdIndex` (monthIndex) with `period`, when
 * the current month is `currentIndex`; null when it gets none yet. A report gets a successor
 * once a month has begun since it was made and its range ends before the current month. The
 * range moves on by the months since the report was made (one, normally; more when the job
 * could not run for a while: the successor then catches up at once), never beyond the current
 * month, keeping its length (at most the 72 months a report may show).
 */
export function successorPeriod(period: ReportPeriod, createdIndex: number, currentIndex: number): { period: ReportPeriod; shift: number } | null {
  const end = monthIndex(period.end_year, period.end_month);
  if (createdIndex >= currentIndex || end >= currentIndex) return null;
  const shift = Math.min(currentIndex - createdIndex, currentIndex - end);
  const newEnd = end + shift;
  const length = Math.min(periodMonths(period), REPORT_RANGE_MAX_MONTHS);
  const start = fromIndex(newEnd - length + 1);
  const last = fromIndex(newEnd);
  return { period: { start_year: start.year, start_month: start.month, end_year: last.year, end_month: last.month }, shift };
}

const MONTH_WORDS = [...MONTH_NAMES, ...MONTH_LABELS].join('|');
const TITLE_DATES = new RegExp(`(?<![\\d-])(\\d{4})-(0[1-9]|1[0-2])(?![\\d-])|\\b(${MONTH_WORDS})\\.? (\\d{4})\\b`, 'gi');

function sameCase(word: string, like: string): string {
  if (like === like.toUpperCase()) return word.toUpperCase();
  if (like === like.toLowerCase()) return word.toLowerCase();
  return word;
}

/**
 * A successor's title: every month the title names ('2026-11 business overview', 'Board pack
 * November 2026', 'Nov 2026 numbers') moved on by `months`, in the same style; a title naming
 * no month stays as it is.
 */
export function movedTitle(title: string, months: number): string {
  return title.replace(TITLE_DATES, (match, isoYear: string | undefined, isoMonth: string | undefined, word: string | undefined, year: string | undefined) => {
    if (isoYear !== undefined && isoMonth !== undefined) {
      const moved = fromIndex(monthIndex(Number(isoYear), Number(isoMonth)) + months);
      return `${String(moved.year).padStart(4, '0')}-${String(moved.month).padStart(2, '0')}`;
    }
    if (word === undefined || year === undefined) return match;
    const lower = word.toLowerCase();
    const full = MONTH_NAMES.findIndex((name) => name.toLowerCase() === lower);
    const short = MONTH_LABELS.findIndex((name) => name.toLowerCase() === lower);
    const month = full >= 0 ? full : short;
    const moved = fromIndex(monthIndex(Number(year), month + 1) + months);
    const name = full >= 0 ? MONTH_NAMES[moved.month - 1]! : MONTH_LABELS[moved.month - 1]!;
    return `${sameCase(name, word)}${match.includes('.') ? '.' : ''} ${moved.year}`;
  });
}

// --------------------------------------------------------------------------- recalculations

/** Runs `work` with a recalculator, and waits until what it started has finished. */
async function withRecalculations<T>(db: Database, options: ScheduleOptions, work: (recalculations: Recalculator) => Promise<T>): Promise<T> {
  // Its own ReportRecalculations over a metrics service that lives for the run, so the job works
  // the same in the HTTP process and in a worker-only process (`npm run worker`), which has none.
  // One account's snapshot at a time: the job recalculates account by account and settles each.
  const metrics = createMetricsService(db, { now: options.now, capacity: 1 });
  await metrics.start();
  const recalculations = new ReportRecalculations(db, options.log ?? console);
  recalculations.attach(metrics, options.now);
  try {
    return await work(recalculations);
  } finally {
    await recalculations.settled();
    await metrics.close();
  }
}

/**
 * Runs `work` for every account (with or without the demo one), one after another. An account
 * that fails does not stop the others; the job then fails as a whole, so pg-boss retries it
 * (harmless: what was done is claimed).
 */
async function eachAccount(db: Kysely<DB>, which: { demo: boolean }, options: ScheduleOptions, work: (accountId: string) => Promise<void>): Promise<void> {
  let query = db.selectFrom('accounts').select('id').orderBy('id');
  if (!which.demo) query = query.where('is_demo', '=', false);
  const failed: string[] = [];
  for (const { id } of await query.execute()) {
    try {
      await work(id);
    } catch (error) {
      failed.push(id);
      (options.log ?? console).error(`scheduled reports of account ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failed.length > 0) throw new Error(`scheduled reports failed for ${failed.length} account(s): ${failed.join(', ')}`);
}

// --------------------------------------------------------------------------- successors

/**
 * Makes the successor of one report, in one transaction under the report's row lock: answers
 * null when it gets none (not repeatable, already succeeded, range not behind, gone).
 */
export async function makeSuccessor(db: Kysely<DB>, accountId: string, reportId: string, now: Date): Promise<SuccessorMade | null> {
  const current = currentMonthOf(now);
  const currentIndex = monthIndex(current.year, current.month);
  return db.transaction().execute(async (trx) => {
    // The row lock makes a second worker wait here and then find `succeeded_at` set.
    const report = await trx.selectFrom('business_reports').selectAll().where('account_id', '=', accountId).where('id', '=', reportId).forUpdate().executeTakeFirst();
    if (!report || report.succeeded_at !== null) return null;
    const settings = await trx.selectFrom('report_settings').selectAll().where('account_id', '=', accountId).where('report_id', '=', reportId).executeTakeFirst();
    // No settings row reads as the defaults, where repeatable is on (reports.ts reportSettings).
    if (settings && !settings.repeatable) return null;
    const made = currentMonthOf(report.created_at);
    const next = successorPeriod(report, monthIndex(made.year, made.month), currentIndex);
    if (!next) return null;

    const id = newReportId();
    const secret = newReportSecret();
    const title = movedTitle(report.title, next.shift);
    const inserted = await trx
      .insertInto('business_reports')
      .values({
        account_id: accountId,
        id,
        secret,
        owner_user_id: report.owner_user_id,
        title,
        summary: report.summary,
        tags: report.tags,
        ...next.period,
        currency: report.currency,
        filter: report.filter === null ? null : JSON.stringify(report.filter),
        recalculation_status: 'recalculating',
        predecessor_id: reportId,
        // Its first recalculation (right after) is the day's: the daily refresh leaves it until tomorrow.
        auto_refreshed_on: now.toISOString().slice(0, 10),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.columns(['account_id', 'predecessor_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return null;

    // One group for the line, so its group link resolves to the newest report.
    let groupId = report.group_id;
    if (groupId === null) {
      groupId = `grp${randomAlphanumeric(12)}`;
      await trx.insertInto('report_groups').values({ account_id: accountId, id: groupId, name: report.title }).execute();
    }
    await trx.updateTable('business_reports').set({ group_id: groupId }).where('account_id', '=', accountId).where('id', '=', id).execute();
    await trx.updateTable('business_reports').set({ group_id: groupId, succeeded_at: now }).where('account_id', '=', accountId).where('id', '=', reportId).execute();

    await trx
      .insertInto('report_settings')
      .values({
        account_id: accountId,
        report_id: id,
        repeatable: true,
        auto_refresh: (settings?.auto_refresh ?? true) && showsCurrentMonth(next.period, current),
        display_quarters: settings?.display_quarters ?? false,
        subtract_forever_discount_from_mrr: settings?.subtract_forever_discount_from_mrr ?? true,
        subtract_finite_discount_from_mrr: settings?.subtract_finite_discount_from_mrr ?? true,
        currency: settings?.currency ?? null,
        updated_at: now,
      })
      .execute();
    // Auto refresh goes off for a report that no longer shows the current month (the spec's rule).
    if (!showsCurrentMonth(report, current)) {
      await trx.updateTable('report_settings').set({ auto_refresh: false, updated_at: now }).where('account_id', '=', accountId).where('report_id', '=', reportId).where('auto_refresh', '=', true).execute();
    }

    const sections = await trx.selectFrom('report_sections').selectAll().where('account_id', '=', accountId).where('report_id', '=', reportId).execute();
    const sectionIds = new Map(sections.map((section) => [section.id, newSectionId()]));
    if (sections.length > 0) {
      await trx
        .insertInto('report_sections')
        .values(
          sections.map((section) => ({
            account_id: accountId,
            id: sectionIds.get(section.id)!,
            report_id: id,
            definition_id: section.definition_id,
            title: section.title,
            summary: section.summary,
            data_type: section.data_type,
            use_hierarchy: section.use_hierarchy,
            resolution: section.resolution,
            position: section.position,
            data_categories: section.data_categories,
            decimal: section.decimal,
            reference_value: section.reference_value,
            config: section.config === null ? null : JSON.stringify(section.config),
            recalculation_status: 'recalculating' as const,
            // Same order among sections of one position as in the predecessor (position, created_at).
            created_at: section.created_at,
            updated_at: now,
          })),
        )
        .execute();
      const segments = await trx
        .selectFrom('report_section_segments')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('section_id', 'in', [...sectionIds.keys()])
        .execute();
      if (segments.length > 0) {
        await trx
          .insertInto('report_section_segments')
          .values(segments.map((segment) => ({ account_id: accountId, section_id: sectionIds.get(segment.section_id)!, segmenter_id: segment.segmenter_id, position: segment.position })))
          .execute();
      }
    }
    const keyNumbers = await trx.selectFrom('key_numbers').selectAll().where('account_id', '=', accountId).where('report_id', '=', reportId).execute();
    const copied = keyNumbers.filter((key) => sectionIds.has(key.section_id));
    if (copied.length > 0) {
      await trx
        .insertInto('key_numbers')
        .values(copied.map((key) => ({ account_id: accountId, report_id: id, section_id: sectionIds.get(key.section_id)!, definition_id: key.definition_id, position: key.position, created_at: key.created_at })))
        .execute();
    }
    return { accountId, predecessorId: reportId, id, secret, period: next.period, title };
  });
}

/** Reports of the account that may get a successor now (checked again under the lock). */
async function successorCandidates(db: Kysely<DB>, accountId: string, currentIndex: number): Promise<string[]> {
  const rows = await db
    .selectFrom('business_reports as r')
    .leftJoin('report_settings as s', (join) => join.onRef('s.account_id', '=', 'r.account_id').onRef('s.report_id', '=', 'r.id'))
    .select('r.id')
    .where('r.account_id', '=', accountId)
    .where('r.succeeded_at', 'is', null)
    .where((eb) => eb.or([eb('s.repeatable', 'is', null), eb('s.repeatable', '=', true)]))
    .where(sql<boolean>`r.end_year * 12 + r.end_month - 1 < ${currentIndex}`)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The monthly job: every account's repeatable reports that are the newest of their line and
 * whose range ends before the current month get their successor, which is then recalculated.
 * The demo account is left alone (its reports are a fixed showcase). Answers what it made.
 */
export async function makeMonthlySuccessors(db: Database, options: ScheduleOptions): Promise<SuccessorMade[]> {
  const now = options.now();
  const current = currentMonthOf(now);
  const currentIndex = monthIndex(current.year, current.month);
  return withRecalculations(db, options, async (recalculations) => {
    const made: SuccessorMade[] = [];
    await eachAccount(db.kysely, { demo: false }, options, async (accountId) => {
      const mine: SuccessorMade[] = [];
      for (const reportId of await successorCandidates(db.kysely, accountId, currentIndex)) {
        const successor = await makeSuccessor(db.kysely, accountId, reportId, now);
        if (successor) mine.push(successor);
      }
      for (const successor of mine) await recalculations.start(accountId, successor.id);
      await recalculations.settled();
      made.push(...mine);
    });
    return made;
  });
}

// --------------------------------------------------------------------------- daily refresh

/** The month (monthIndex) a report `r` was made in, in SQL. */
const CREATED_MONTH_INDEX = sql`(extract(year from r.created_at at time zone 'UTC') * 12 + extract(month from r.created_at at time zone 'UTC') - 1)`;

/**
 * The daily job: auto refresh goes off for reports whose range no longer shows the current
 * month, and each report with auto refresh that shows it is recalculated once this (UTC) day.
 * Missed successors are made first (a first of the month the queue did not run); a report whose
 * successor is due keeps its auto refresh until the successor has copied it. Answers the
 * reports it recalculated.
 */
export async function refreshDaily(db: Database, options: ScheduleOptions): Promise<{ accountId: string; reportId: string }[]> {
  // A failure here fails the job (retried) after the refresh below has run.
  const catchUp = await makeMonthlySuccessors(db, options).then(
    () => null,
    (error: unknown) => error,
  );
  const now = options.now();
  const current = currentMonthOf(now);
  const currentIndex = monthIndex(current.year, current.month);
  const today = now.toISOString().slice(0, 10);
  return withRecalculations(db, options, async (recalculations) => {
    const refreshed: { accountId: string; reportId: string }[] = [];
    await eachAccount(db.kysely, { demo: true }, options, async (accountId) => {
      // Rows locked in one order (by id), so two workers at once wait for each other instead of deadlocking;
      // a row the other claimed meanwhile is checked again after the wait and left out.
      await sql`update report_settings set auto_refresh = false, updated_at = ${now}
                 where account_id = ${accountId} and report_id in (
                   select s.report_id from report_settings s
                     join business_reports r on r.account_id = s.account_id and r.id = s.report_id
                    where s.account_id = ${accountId} and s.auto_refresh and r.end_year * 12 + r.end_month - 1 < ${currentIndex}
                      -- A report whose successor is due keeps it until makeSuccessor has copied it (and turns it off then).
                      and not (s.repeatable and r.succeeded_at is null and ${CREATED_MONTH_INDEX} < ${currentIndex})
                    order by s.report_id for update of s)`.execute(db.kysely);
      // The claim: a report is taken once a day, whichever worker (or retry) runs the job.
      const claimed = await db.kysely.transaction().execute(async (trx) => {
        const rows = await sql<{ id: string }>`update business_reports set auto_refreshed_on = ${today}::date, recalculation_status = 'recalculating', updated_at = ${now}
                                                where account_id = ${accountId} and id in (
                                                  select r.id from business_reports r
                                                    join report_settings s on s.account_id = r.account_id and s.report_id = r.id
                                                   where r.account_id = ${accountId} and s.auto_refresh and r.end_year * 12 + r.end_month - 1 >= ${currentIndex}
                                                     and (r.auto_refreshed_on is null or r.auto_refreshed_on < ${today}::date)
                                                   order by r.id for update of r)
                                            returning id`.execute(trx);
        const ids = rows.rows.map((row) => row.id).sort();
        if (ids.length > 0) {
          await trx.updateTable('report_sections').set({ recalculation_status: 'recalculating' }).where('account_id', '=', accountId).where('report_id', 'in', ids).execute();
        }
        return ids;
      });
      for (const reportId of claimed) await recalculations.start(accountId, reportId);
      await recalculations.settled();
      refreshed.push(...claimed.map((reportId) => ({ accountId, reportId })));
    });
    if (catchUp !== null) throw catchUp;
    return refreshed;
  });
}

// --------------------------------------------------------------------------- registration

/**
 * Creates the job's queue with a long expiry (before queue.ts would create it with pg-boss's 15
 * minutes), as queue.ts creates every queue: beside other processes creating queues at once.
 */
async function ensureLongQueue(queue: JobQueue, name: string): Promise<void> {
  const options = { retryLimit: 3, retryBackoff: true, expireInSeconds: JOB_EXPIRY_HOURS * 3600 };
  await queue.ensureQueue(name, options);
  // Queues made before this expiry reached pg-boss (it dropped an expiry given in hours) get it now.
  if ((await queue.boss.getQueue(name))?.expireInSeconds !== options.expireInSeconds) await queue.boss.updateQueue(name, { name, ...options });
}

/**
 * Registers both jobs and their crons (UTC) on this worker process (server/jobs/workers.ts).
 * pg-boss hands each cron tick to one worker; the jobs' own claims make a second run harmless.
 */
export async function registerReportSchedules(queue: JobQueue, db: Database, log: Log, options: Partial<ScheduleOptions> = {}): Promise<void> {
  const settings: ScheduleOptions = { now: options.now ?? (() => new Date()), log: options.log ?? log };
  await ensureLongQueue(queue, REPORT_JOBS.monthlySuccessors);
  await ensureLongQueue(queue, REPORT_JOBS.dailyRefresh);
  await queue.work(REPORT_JOBS.monthlySuccessors, async () => {
    const made = await makeMonthlySuccessors(db, settings);
    log.info(`Scheduled reports: ${made.length} successor report(s) made`);
  });
  await queue.work(REPORT_JOBS.dailyRefresh, async () => {
    const refreshed = await refreshDaily(db, settings);
    log.info(`Scheduled reports: ${refreshed.length} report(s) with auto refresh recalculated`);
  });
  await queue.schedule(REPORT_JOBS.monthlySuccessors, MONTHLY_SUCCESSORS_CRON);
  await queue.schedule(REPORT_JOBS.dailyRefresh, DAILY_REFRESH_CRON);
}
