import type { Kysely } from 'kysely';
import { publish } from '../../cable/streams';
import type { DB } from '../../db/schema';
import { findDefinition } from '../../metrics/definitions/catalogue';
import type { PeriodResult, SectionResult } from '../../metrics/definitions/types';
import type { DetailsItem } from '../../metrics/details';
import type { MetricsService } from '../../metrics/service';
import { API_PREFIX } from '../../version';
import { sectionRequests } from '../reports';
import { CSV_CONTENT_TYPE, fileStem, toCsv, toXlsx, XLSX_CONTENT_TYPE, type ExportFormat } from './files';
import { ExportRequestError, segmentOf, seriesOf, shownNumber, unitSuffix, type Cell, type ExportTable } from './tables';

/**
 * The details export (`POST /business_report/sections/{id}/export_details`): the customers
 * (or costs, deals) behind the section's points, a row each, with the chosen variant's value
 * per period. It runs as a job (`section_exports.details` on the pg-boss queue, or in the
 * server process when there is no queue), stores the file in `section_exports`, and tells the
 * requesting user over SectionDetailsExportChannel (`{id, status, url, file_name}`).
 */

export const SECTION_DETAILS_EXPORT_JOB = 'section_exports.details';

/** `variant`: the rows' value (money: the point's money per row), their subscriptions (`sub`: product keys), or units sold. */
export type DetailsVariant = 'money' | 'sub' | 'units_sold';
export const DETAILS_VARIANTS: readonly DetailsVariant[] = ['money', 'sub', 'units_sold'];

/** What the request asked for, kept in `section_exports.params`. */
export interface DetailsExportParams {
  report_id: string;
  /** The periods between (inclusive, by the days they hold). */
  start_date: string;
  end_date: string;
  segment_id?: string;
  segment_value?: string;
  cohort_date?: string;
  variant: DetailsVariant;
  format: ExportFormat;
  /** The capability of the download URL (compared in constant time). */
  download_key: string;
}

export interface DetailsExportJob {
  accountId: string;
  exportId: string;
}

export type ExportStatusMessage = {
  id: string;
  status: 'in_progress' | 'done' | 'failed';
  url: string | null;
  file_name: string | null;
};

/** The stream of one export's events. */
export function sectionExportStream(accountId: string, exportId: string): string {
  return `section_export:${accountId}:${exportId}`;
}

export function downloadUrl(exportId: string, key: string): string {
  return `${API_PREFIX}/section_exports/${encodeURIComponent(exportId)}/download?key=${encodeURIComponent(key)}`;
}

export function statusMessage(row: { id: string; status: ExportStatusMessage['status']; file_name: string | null; params: unknown }): ExportStatusMessage {
  const key = (row.params as Partial<DetailsExportParams> | null)?.download_key;
  return { id: row.id, status: row.status, url: row.status === 'done' && key ? downloadUrl(row.id, key) : null, file_name: row.status === 'done' ? row.file_name : null };
}

/** The periods of the section that hold a day between `start` and `end` (inclusive). */
export function periodsBetween(periods: readonly PeriodResult[], start: string, end: string): PeriodResult[] {
  return periods.filter((period) => period.last_day >= start && period.first_day <= end);
}

const isCohortSection = (definitionId: string) => definitionId === 'customer_cohorts' || definitionId === 'mrr_cohorts';

/**
 * Checks a request against the section's stored result (the route, before a job is started):
 * the segment and value exist, the dates fall in the section's periods, a cohort table has a
 * cohort date. Answers the periods the export covers.
 */
export function checkDetailsRequest(result: SectionResult, params: Omit<DetailsExportParams, 'report_id' | 'download_key' | 'format'>): PeriodResult[] {
  seriesOf(segmentOf(result, params.segment_id), params.segment_value);
  if (params.start_date > params.end_date) throw new ExportRequestError('The start date is after the end date', '/querystring/start_date');
  const periods = periodsBetween(result.periods, params.start_date, params.end_date);
  if (periods.length === 0) throw new ExportRequestError('No period of the section falls between these dates', '/querystring/start_date');
  if (isCohortSection(result.definition_id)) {
    if (!params.cohort_date) throw new ExportRequestError('A cohort date is required for a cohort table', '/querystring/cohort_date');
    if (periodsBetween(result.periods, params.cohort_date, params.cohort_date).length === 0) throw new ExportRequestError('No cohort of the section holds this date', '/querystring/cohort_date');
  }
  return periods;
}

interface RowEntry {
  id: string;
  name: string;
  series: string;
  cells: Map<string, Cell>;
}

/**
 * The value of one listed row, as the variant asks. The drill-down lists every row with its
 * money (a customer's MRR or revenue, a cost's or deal's amount) in minor units of the
 * section's currency, whatever the chart counts: a count is the number of rows, a rate's list is
 * its numerator. So a money cell is that amount in major units.
 */
function variantCell(variant: DetailsVariant, row: { value: number; quantity?: number; subscriptions?: { product_key: string }[] }, currency: string): Cell {
  if (variant === 'sub') return (row.subscriptions ?? []).map((s) => s.product_key).join(', ');
  if (variant === 'units_sold') return row.quantity ?? null;
  return shownNumber(row.value, 'minor_units', currency);
}

/**
 * The table of a details export: `Customer ID`, `Customer` (for costs and deals: their id and
 * name), `Series` when the export covers several series (segment values, components), then a
 * column per period. Rows are sorted by name; a money export ends with a `Total` row: for a
 * money chart it is the chart's point, for a count chart the number of rows is.
 */
export function detailsTable(
  perPeriod: { period: PeriodResult; items: DetailsItem[] }[],
  options: { variant: DetailsVariant; currency: string; underlying: 'subscriptions' | 'costs' | 'deals' },
): ExportTable {
  const rows = new Map<string, RowEntry>();
  const many = perPeriod.some((p) => p.items.length > 1);
  for (const { period, items } of perPeriod) {
    for (const item of items) {
      const series = item.segment_value ?? item.component ?? item.name;
      const listed: { id: string; name: string; value: number; quantity?: number; subscriptions?: { product_key: string }[] }[] = [
        ...item.details.top_customers,
        ...(item.details.top_costs ?? []),
        ...(item.details.top_deals ?? []),
      ];
      for (const entry of listed) {
        const key = `${series}\u0000${entry.id}`;
        let row = rows.get(key);
        if (!row) {
          row = { id: entry.id, name: entry.name, series, cells: new Map() };
          rows.set(key, row);
        }
        row.cells.set(period.first_day, variantCell(options.variant, entry, options.currency));
      }
    }
  }
  const idTitle = options.underlying === 'costs' ? 'Cost ID' : options.underlying === 'deals' ? 'Deal ID' : 'Customer ID';
  const nameTitle = options.underlying === 'costs' ? 'Cost' : options.underlying === 'deals' ? 'Deal' : 'Customer';
  const suffix = options.variant === 'money' ? unitSuffix('minor_units', options.currency) : '';
  const header = [idTitle, nameTitle, ...(many ? ['Series'] : []), ...perPeriod.map(({ period }) => `${period.label}${suffix}`)];
  const sorted = [...rows.values()].sort((a, b) => a.series.localeCompare(b.series) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const body: Cell[][] = sorted.map((row) => [row.id, row.name, ...(many ? [row.series] : []), ...perPeriod.map(({ period }) => row.cells.get(period.first_day) ?? null)]);
  if (options.variant === 'money') {
    // From the amounts as computed (not the rounded cells), so the total is the chart's point.
    const totals = perPeriod.map(({ items }) => {
      const raw = items.reduce((sum, item) => sum + [...item.details.top_customers, ...(item.details.top_costs ?? []), ...(item.details.top_deals ?? [])].reduce((acc, entry) => acc + entry.value, 0), 0);
      return shownNumber(raw, 'minor_units', options.currency);
    });
    body.push(['', 'Total', ...(many ? [''] : []), ...totals]);
  }
  if (options.variant === 'units_sold') {
    // Every row's units, so the total is the point's units (total_quantity).
    body.push(['', 'Total', ...(many ? [''] : []), ...perPeriod.map(({ items }) => items.reduce((sum, item) => sum + (item.details.total_quantity ?? 0), 0))]);
  }
  return { header, rows: body };
}

/** Every row of a point, not only the top ones. */
const ALL_ROWS = 1_000_000_000;

/** Computes, writes and stores one export; tells the requesting user. Never throws for the export's own failure. */
export async function runDetailsExport(db: Kysely<DB>, metrics: MetricsService, job: DetailsExportJob, log: { error(message: string): void }): Promise<void> {
  const { accountId, exportId } = job;
  const row = await db
    .selectFrom('section_exports')
    .select(['id', 'section_id', 'status', 'params'])
    .where('account_id', '=', accountId)
    .where('id', '=', exportId)
    .executeTakeFirst();
  // Gone, or already finished by an earlier try.
  if (!row || row.status !== 'in_progress') return;
  const params = row.params as unknown as DetailsExportParams;
  try {
    const file = await writeDetails(db, metrics, accountId, row.section_id, params);
    await db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable('section_exports')
        .set({ status: 'done', file_name: file.name, content_type: file.contentType, content: file.content, error: null, finished_at: new Date() })
        .where('account_id', '=', accountId)
        .where('id', '=', exportId)
        .where('status', '=', 'in_progress')
        .returning(['id', 'status', 'file_name', 'params'])
        .executeTakeFirst();
      if (done) await publish(trx, { stream: sectionExportStream(accountId, exportId), account_id: accountId, message: statusMessage(done) });
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(`section export ${exportId} failed: ${message}`);
    await db.transaction().execute(async (trx) => {
      const failed = await trx
        .updateTable('section_exports')
        .set({ status: 'failed', error: message.slice(0, 2_000), finished_at: new Date() })
        .where('account_id', '=', accountId)
        .where('id', '=', exportId)
        .where('status', '=', 'in_progress')
        .returning(['id', 'status', 'file_name', 'params'])
        .executeTakeFirst();
      if (failed) await publish(trx, { stream: sectionExportStream(accountId, exportId), account_id: accountId, message: statusMessage(failed) });
    });
  }
}

async function writeDetails(
  db: Kysely<DB>,
  metrics: MetricsService,
  accountId: string,
  sectionId: string,
  params: DetailsExportParams,
): Promise<{ name: string; contentType: string; content: Uint8Array }> {
  const input = await sectionRequests(db, accountId, params.report_id);
  const index = input?.sections.findIndex((s) => s.id === sectionId) ?? -1;
  const section = input?.sections[index];
  const request = input?.requests[index];
  if (!input || !section || !request) throw new Error('The section is gone');
  const result = section.result as SectionResult | null;
  if (!result) throw new Error('The section has not been calculated yet');
  const periods = checkDetailsRequest(result, params);
  const cohort = isCohortSection(section.definition_id);
  const cohortIndex = cohort && params.cohort_date ? result.periods.findIndex((p) => p.first_day <= (params.cohort_date as string) && (params.cohort_date as string) <= p.last_day) : -1;
  const perPeriod: { period: PeriodResult; items: DetailsItem[] }[] = [];
  for (const period of periods) {
    const column = cohort ? result.periods.indexOf(period) - cohortIndex : undefined;
    // A cohort is followed from its own period on.
    if (column !== undefined && column < 0) continue;
    const details = await metrics.details(accountId, {
      ...request,
      date: period.first_day,
      ...(params.segment_id ? { segment_id: params.segment_id } : {}),
      ...(params.segment_value !== undefined ? { segment_value: params.segment_value } : {}),
      ...(cohort && params.cohort_date ? { cohort_date: params.cohort_date, column } : {}),
      limit: ALL_ROWS,
      ...(params.variant === 'units_sold' ? { with_quantities: true } : {}),
    });
    perPeriod.push({ period, items: details.items });
  }
  const definition = findDefinition(section.definition_id);
  const table = detailsTable(perPeriod, {
    variant: params.variant,
    currency: result.currency,
    underlying: definition?.underlying_data ?? 'subscriptions',
  });
  const title = section.title || definition?.name || section.definition_id;
  const stem = `${fileStem(title)}-details-${params.start_date}${params.end_date !== params.start_date ? `-to-${params.end_date}` : ''}`;
  if (params.format === 'xlsx') return { name: `${stem}.xlsx`, contentType: XLSX_CONTENT_TYPE, content: await toXlsx(table, title) };
  return { name: `${stem}.csv`, contentType: CSV_CONTENT_TYPE, content: Buffer.from(toCsv(table), 'utf8') };
}
