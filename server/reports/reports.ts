import { sql, type Kysely } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import { ApiError } from '../http/errors';
import type { DB, DataCategory, RecalculationStatus, Resolution, SectionDataType } from '../db/schema';
import { findDefinition } from '../metrics/definitions/catalogue';
import type { KeyNumberResult, PeriodResult, SectionRequest, SectionResult, SegmentResult, ValueUnit } from '../metrics/definitions/types';
import type { MetricsService } from '../metrics/service';
import { showsCurrentMonth, type ReportPeriod } from '../../models/reportRange';
import type { FilterItem, ReportViewFilter } from '../../models/reportFilter';
import { reportFilterOf, storedViewFilter, viewAndItem, viewFields } from './reportFilters';
import { customUnderlyingData, readableConfig } from './customSections';
import { CUSTOM_SECTION_TITLE, USER_FILTERED_DEFINITION_ID, type CustomSectionConfig } from '../../models/customSections';

/**
 * Business reports in the database: what the routes read and write (routes/businessReports.ts)
 * and the recalculation (plugin.ts), every query scoped by account. A report's sections keep
 * their last computed result (`report_sections.result`), so reading a report computes nothing;
 * a report is fresh while the account's data is at the version its sections were computed
 * from (`computed_data_version`, migration 0009).
 */

export const REPORT_NOT_FOUND = 'Report not found';
export const SECTION_NOT_FOUND = 'Section not found';
export const UNKNOWN_CURRENCY = 'Unknown currency';
/** Reports `GET /business_reports/latest` lists at most, newest first. */
export const LATEST_LIMIT = 200;
/** A report's secret: 32 characters [A-Za-z0-9], about 190 bits (the column wants at least 22). */
export const newReportSecret = () => randomAlphanumeric(32);
export const newReportId = () => `rep${randomAlphanumeric(12)}`;
export const newSectionId = () => `sec${randomAlphanumeric(12)}`;

export interface ReportSettingsView {
  repeatable: boolean;
  auto_refresh: boolean;
  display_quarters: boolean;
  subtract_forever_discount_from_mrr: boolean;
  subtract_finite_discount_from_mrr: boolean;
  /** The report's currency; null: the account's. */
  currency: string | null;
}

export interface ReportSummary {
  id: string;
  secret: string;
  title: string;
  summary: string;
  tags: string[];
  owner: { name: string } | null;
  period: ReportPeriod;
  created_at: string;
  refreshed_at: string | null;
  recalculation_status: RecalculationStatus;
  freshness_status: 'fresh' | 'stale';
}

export interface SectionView {
  id: string;
  definition_id: string;
  /** The section's own title, else its definition's name. */
  title: string;
  /** A custom section's series, groups and filters as stored (null when missing). */
  config?: unknown;
  summary: string;
  data_type: SectionDataType;
  use_hierarchy: boolean;
  resolution: Resolution;
  position: number;
  data_categories: DataCategory[];
  decimal: boolean;
  reference_value: number | null;
  segment_ids: string[];
  underlying_data: string;
  recalculation_status: RecalculationStatus;
  /** Why its last computation failed; null otherwise. */
  error: string | null;
  computed_at: string | null;
  /** The computed result (null until first computed). */
  unit: ValueUnit | null;
  currency: string | null;
  periods: PeriodResult[];
  segments: SegmentResult[];
  key_number: KeyNumberResult | null;
}

export interface ReportView extends ReportSummary {
  account_id: string;
  /** The currency its numbers are in. */
  currency: string;
  settings: ReportSettingsView;
  /** The report view's filter (every section is computed with it); null: none. */
  filter: ReportViewFilter | null;
  /** The name and value of the view filter's first segment item; null without one. */
  filtered_segmenter_name: string | null;
  filtered_segment_value: string | null;
  sections: SectionView[];
}

type ReportRow = {
  account_id: string;
  id: string;
  secret: string;
  title: string;
  summary: string;
  tags: string[];
  owner_name: string | null;
  start_year: number;
  start_month: number;
  end_year: number;
  end_month: number;
  created_at: Date;
  refreshed_at: Date | null;
  recalculation_status: RecalculationStatus;
  computed_data_version: number | null;
  data_version: number;
  filter: unknown;
};

function reportRows(db: Kysely<DB>) {
  return db
    .selectFrom('business_reports as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .leftJoin('users as u', (join) => join.onRef('u.account_id', '=', 'r.account_id').onRef('u.id', '=', 'r.owner_user_id'))
    .select([
      'r.account_id',
      'r.id',
      'r.secret',
      'r.title',
      'r.summary',
      'r.tags',
      'u.name as owner_name',
      'r.start_year',
      'r.start_month',
      'r.end_year',
      'r.end_month',
      'r.created_at',
      'r.refreshed_at',
      'r.recalculation_status',
      'r.computed_data_version',
      'a.data_version',
      'r.filter',
    ]);
}

function summaryOf(row: ReportRow): ReportSummary {
  return {
    id: row.id,
    secret: row.secret,
    title: row.title,
    summary: row.summary,
    tags: row.tags,
    owner: row.owner_name === null ? null : { name: row.owner_name },
    period: { start_year: row.start_year, start_month: row.start_month, end_year: row.end_year, end_month: row.end_month },
    created_at: row.created_at.toISOString(),
    refreshed_at: row.refreshed_at?.toISOString() ?? null,
    recalculation_status: row.recalculation_status,
    // Stale once the account's data moved past the version its sections were computed from.
    freshness_status: row.computed_data_version !== null && Number(row.computed_data_version) === Number(row.data_version) ? 'fresh' : 'stale',
  };
}

export async function latestReports(db: Kysely<DB>, accountId: string): Promise<ReportSummary[]> {
  const rows = await reportRows(db).where('r.account_id', '=', accountId).orderBy('r.created_at', 'desc').orderBy('r.id').limit(LATEST_LIMIT).execute();
  return rows.map((row) => summaryOf(row as ReportRow));
}

/** One report as the list shows it; undefined when the account has no such report. */
export async function reportSummary(db: Kysely<DB>, accountId: string, reportId: string): Promise<ReportSummary | undefined> {
  const row = await reportRows(db).where('r.account_id', '=', accountId).where('r.id', '=', reportId).executeTakeFirst();
  return row ? summaryOf(row as ReportRow) : undefined;
}

/** Throws the 422 of a currency the product does not know. */
export async function mustBeKnownCurrency(db: Kysely<DB>, currency: string): Promise<void> {
  const known = await db.selectFrom('currencies').select('iso').where('iso', '=', currency).executeTakeFirst();
  if (!known) throw ApiError.of(422, UNKNOWN_CURRENCY, '/currency');
}

/** The account and id of the report with this secret, or undefined. */
export async function reportBySecret(db: Kysely<DB>, secret: string): Promise<{ account_id: string; id: string; anonymous_access_allowed: boolean } | undefined> {
  return db
    .selectFrom('business_reports as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.account_id', 'r.id', 'a.anonymous_access_allowed'])
    .where('r.secret', '=', secret)
    .executeTakeFirst();
}

export async function reportExists(db: Kysely<DB>, accountId: string, reportId: string): Promise<boolean> {
  const found = await db.selectFrom('business_reports').select('id').where('account_id', '=', accountId).where('id', '=', reportId).executeTakeFirst();
  return found !== undefined;
}

export async function reportSettings(db: Kysely<DB>, accountId: string, reportId: string): Promise<ReportSettingsView> {
  const row = await db
    .selectFrom('report_settings')
    .select(['repeatable', 'auto_refresh', 'display_quarters', 'subtract_forever_discount_from_mrr', 'subtract_finite_discount_from_mrr', 'currency'])
    .where('account_id', '=', accountId)
    .where('report_id', '=', reportId)
    .executeTakeFirst();
  return (
    row ?? {
      repeatable: true,
      auto_refresh: true,
      display_quarters: false,
      subtract_forever_discount_from_mrr: true,
      subtract_finite_discount_from_mrr: true,
      currency: null,
    }
  );
}

/** The whole report as the report page reads it; undefined when the account has no such report. */
export async function reportView(db: Kysely<DB>, accountId: string, reportId: string): Promise<ReportView | undefined> {
  const row = await reportRows(db).where('r.account_id', '=', accountId).where('r.id', '=', reportId).executeTakeFirst();
  if (!row) return undefined;
  const account = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
  const settings = await reportSettings(db, accountId, reportId);
  const sections = await sectionRows(db, accountId, reportId);
  return {
    ...summaryOf(row as ReportRow),
    account_id: accountId,
    currency: settings.currency ?? account.currency,
    settings,
    ...viewFields(storedViewFilter(row.filter)),
    sections: sections.map(sectionView),
  };
}

type SectionRow = Awaited<ReturnType<typeof sectionRows>>[number];

async function sectionRows(db: Kysely<DB>, accountId: string, reportId: string) {
  const sections = await db
    .selectFrom('report_sections')
    .select([
      'id',
      'definition_id',
      'title',
      'summary',
      'data_type',
      'use_hierarchy',
      'resolution',
      'position',
      'data_categories',
      'decimal',
      'reference_value',
      'config',
      'recalculation_status',
      'result',
      'error',
      'computed_at',
    ])
    .where('account_id', '=', accountId)
    .where('report_id', '=', reportId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const segments = await db
    .selectFrom('report_section_segments as s')
    .innerJoin('report_sections as r', (join) => join.onRef('r.account_id', '=', 's.account_id').onRef('r.id', '=', 's.section_id'))
    .select(['s.section_id', 's.segmenter_id'])
    .where('s.account_id', '=', accountId)
    .where('r.report_id', '=', reportId)
    .orderBy('s.position')
    .execute();
  return sections.map((section) => ({ ...section, segment_ids: segments.filter((s) => s.section_id === section.id).map((s) => s.segmenter_id) }));
}

function sectionView(row: SectionRow): SectionView {
  const definition = findDefinition(row.definition_id);
  const result = row.result as SectionResult | null;
  const custom = row.definition_id === USER_FILTERED_DEFINITION_ID;
  return {
    id: row.id,
    definition_id: row.definition_id,
    title: row.title || definition?.name || (custom ? CUSTOM_SECTION_TITLE : row.definition_id),
    ...(custom ? { config: row.config ?? null } : {}),
    summary: row.summary,
    data_type: row.data_type,
    use_hierarchy: row.use_hierarchy,
    resolution: row.resolution,
    position: row.position,
    data_categories: row.data_categories,
    decimal: row.decimal,
    reference_value: row.reference_value === null ? null : Number(row.reference_value),
    segment_ids: row.segment_ids,
    underlying_data: definition?.underlying_data ?? (custom ? customUnderlyingData(readableConfig(row.config)) : 'subscriptions'),
    recalculation_status: row.recalculation_status,
    error: row.error,
    computed_at: row.computed_at?.toISOString() ?? null,
    unit: result?.unit ?? null,
    currency: result?.currency ?? null,
    periods: result?.periods ?? [],
    segments: result?.segments ?? [],
    key_number: result?.key_number ?? null,
  };
}

/** Creates a report of these sections (in this order) for the period; answers its id and secret. */
export async function createReport(
  db: Kysely<DB>,
  input: { accountId: string; ownerUserId: string; title: string; definitionIds: readonly string[]; period: ReportPeriod; today: { year: number; month: number } },
): Promise<{ id: string; secret: string }> {
  return db.transaction().execute((trx) => insertReport(trx, input));
}

/** As createReport, in the caller's transaction (the demo seed's). */
export async function insertReport(
  trx: Kysely<DB>,
  input: { accountId: string; ownerUserId: string; title: string; definitionIds: readonly string[]; period: ReportPeriod; today: { year: number; month: number } },
): Promise<{ id: string; secret: string }> {
  const id = newReportId();
  const secret = newReportSecret();
  {
    await trx
      .insertInto('business_reports')
      .values({ account_id: input.accountId, id, secret, owner_user_id: input.ownerUserId, title: input.title, ...input.period, recalculation_status: 'recalculating' })
      .execute();
    await trx
      .insertInto('report_settings')
      .values({ account_id: input.accountId, report_id: id, auto_refresh: showsCurrentMonth(input.period, input.today) })
      .execute();
    if (input.definitionIds.length > 0) {
      await trx
        .insertInto('report_sections')
        .values(
          input.definitionIds.map((definitionId, position) => {
            const definition = findDefinition(definitionId);
            return {
              account_id: input.accountId,
              id: newSectionId(),
              report_id: id,
              definition_id: definitionId,
              data_type: definition?.default_data_type ?? 'line_chart',
              data_categories: [definition?.data_categories[0] ?? 'values'],
              decimal: definition?.decimals === 2,
              position,
            };
          }),
        )
        .execute();
    }
  }
  return { id, secret };
}

/**
 * Takes the report's row lock, first thing in a transaction that writes its sections or their
 * segments. Every such write also updates the report row (its revision: migration 0010's
 * triggers), so a writer holding a section row that then waits for the report row deadlocks
 * with one holding the report row that waits for the section (a recalculation storing results
 * while a section moves: PostgreSQL answered 40P01). With the report row always first there is
 * one order.
 */
export async function lockReport(trx: Kysely<DB>, accountId: string, reportId: string): Promise<void> {
  await trx.selectFrom('business_reports').select('id').where('account_id', '=', accountId).where('id', '=', reportId).forUpdate().execute();
}

/** Marks a report and its sections as recalculating (before the work starts, so readers see it at once). */
export async function markRecalculating(db: Kysely<DB>, accountId: string, reportId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('business_reports').set({ recalculation_status: 'recalculating', updated_at: new Date() }).where('account_id', '=', accountId).where('id', '=', reportId).execute();
    await trx.updateTable('report_sections').set({ recalculation_status: 'recalculating' }).where('account_id', '=', accountId).where('report_id', '=', reportId).execute();
  });
}

/**
 * The section requests of a report as it is now (period, settings, view filter, sections and
 * their segmenters); with `item`, filtered by the view's filter AND that item.
 */
export async function sectionRequests(
  db: Kysely<DB>,
  accountId: string,
  reportId: string,
  currency?: string | null,
  item?: FilterItem,
): Promise<{ sections: SectionRow[]; requests: Omit<SectionRequest, 'today'>[]; dataVersion: number } | undefined> {
  const row = await reportRows(db).where('r.account_id', '=', accountId).where('r.id', '=', reportId).executeTakeFirst();
  if (!row) return undefined;
  const settings = await reportSettings(db, accountId, reportId);
  const sections = await sectionRows(db, accountId, reportId);
  const range = { start_year: row.start_year, start_month: row.start_month, end_year: row.end_year, end_month: row.end_month };
  const view = storedViewFilter(row.filter);
  const filter = item ? viewAndItem(view, item) : reportFilterOf(view);
  const requests = sections.map((section) => ({
    definition_id: section.definition_id,
    ...(section.definition_id === USER_FILTERED_DEFINITION_ID ? { custom: readableConfig(section.config) } : {}),
    range,
    resolution: section.resolution,
    data_type: section.data_type,
    use_hierarchy: section.use_hierarchy,
    segmenters: section.segment_ids,
    data_category: section.data_categories[0],
    currency: currency ?? settings.currency,
    report_settings: {
      currency: currency ?? settings.currency,
      subtract_forever_discount_from_mrr: settings.subtract_forever_discount_from_mrr,
      subtract_finite_discount_from_mrr: settings.subtract_finite_discount_from_mrr,
    },
    filter,
  }));
  return { sections, requests, dataVersion: Number(row.data_version) };
}

/**
 * A custom section's request as the report would compute it (the report's range, settings and
 * view filter): the editor's live preview. Undefined when the account has no such report.
 */
export async function customPreviewRequest(
  db: Kysely<DB>,
  accountId: string,
  reportId: string,
  config: CustomSectionConfig,
  resolution: Resolution,
): Promise<Omit<SectionRequest, 'today'> | undefined> {
  const row = await reportRows(db).where('r.account_id', '=', accountId).where('r.id', '=', reportId).executeTakeFirst();
  if (!row) return undefined;
  const settings = await reportSettings(db, accountId, reportId);
  return {
    definition_id: USER_FILTERED_DEFINITION_ID,
    custom: config,
    range: { start_year: row.start_year, start_month: row.start_month, end_year: row.end_year, end_month: row.end_month },
    resolution,
    data_type: 'line_chart',
    currency: settings.currency,
    report_settings: {
      currency: settings.currency,
      subtract_forever_discount_from_mrr: settings.subtract_forever_discount_from_mrr,
      subtract_finite_discount_from_mrr: settings.subtract_finite_discount_from_mrr,
    },
    filter: reportFilterOf(storedViewFilter(row.filter)),
  };
}

/** Each request's result, or the reason it failed: one call for all (work shared), each apart only when that fails. */
export async function computeEach(metrics: MetricsService, accountId: string, requests: readonly Omit<SectionRequest, 'today'>[]): Promise<(SectionResult | Error)[]> {
  try {
    return await metrics.sections(accountId, requests);
  } catch {
    const out: (SectionResult | Error)[] = [];
    for (const request of requests) {
      try {
        out.push(...(await metrics.sections(accountId, [request])));
      } catch (error) {
        out.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return out;
  }
}

/**
 * Recomputes every section of a report and stores the results: the report is then
 * 'recalculated', refreshed now, and fresh at the data version read before computing (a write
 * during the computation leaves it stale). Answers false when the report is gone.
 */
export async function recalculateReport(db: Kysely<DB>, metrics: MetricsService, accountId: string, reportId: string, now: Date): Promise<boolean> {
  const input = await sectionRequests(db, accountId, reportId);
  if (!input) return false;
  const results = await computeEach(metrics, accountId, input.requests);
  await db.transaction().execute(async (trx) => {
    await lockReport(trx, accountId, reportId);
    for (const [k, section] of input.sections.entries()) {
      const result = results[k] as SectionResult | Error;
      const failed = result instanceof Error;
      await trx
        .updateTable('report_sections')
        .set(
          failed
            ? { recalculation_status: 'failed', error: result.message, computed_at: now }
            : { recalculation_status: 'recalculated', error: null, result: JSON.stringify(result), computed_at: now },
        )
        .where('account_id', '=', accountId)
        .where('id', '=', section.id)
        .execute();
    }
    await trx
      .updateTable('business_reports')
      .set({ recalculation_status: 'recalculated', refreshed_at: now, computed_data_version: input.dataVersion, freshness_status: 'fresh', updated_at: now })
      .where('account_id', '=', accountId)
      .where('id', '=', reportId)
      .execute();
  });
  return true;
}

/** A report whose recalculation failed as a whole (the metrics engine could not read the account). */
export async function markFailed(db: Kysely<DB>, accountId: string, reportId: string, message: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('business_reports').set({ recalculation_status: 'failed', updated_at: new Date() }).where('account_id', '=', accountId).where('id', '=', reportId).execute();
    await trx
      .updateTable('report_sections')
      .set({ recalculation_status: 'failed', error: message })
      .where('account_id', '=', accountId)
      .where('report_id', '=', reportId)
      .where('recalculation_status', '=', 'recalculating')
      .execute();
  });
}

/** Reports left recalculating (a process stopped during the work): to run again at start. */
export async function unfinishedRecalculations(db: Kysely<DB>): Promise<{ accountId: string; reportId: string }[]> {
  const rows = await db.selectFrom('business_reports').select(['account_id', 'id']).where('recalculation_status', '=', 'recalculating').execute();
  return rows.map((row) => ({ accountId: row.account_id, reportId: row.id }));
}

/** Whether the account has any finance data (payments or costs): `GET /data_existence`. */
export async function hasFinanceData(db: Kysely<DB>, accountId: string): Promise<boolean> {
  const found = await sql<{ finance: boolean }>`select exists (select 1 from payments where account_id = ${accountId} and deleted_at is null)
                                                     or exists (select 1 from costs where account_id = ${accountId}) as finance`.execute(db);
  return found.rows[0]?.finance === true;
}
