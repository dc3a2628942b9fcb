import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { afterChange, RECALCULATED_REPORTS } from '../customers/changes';
import type { DB } from '../db/schema';
import { latestReports, lockReport } from '../reports/reports';
import { storedViewFilter } from '../reports/reportFilters';

/**
 * What a change of an attribute or a segmentation does to reports: the reports whose sections
 * are split by it (recalculated), the sections that lose a deleted segmenter, view filters that
 * lose their items about it, and share links that pin it (which block a delete).
 */

/** The reports with a section split by one of these segmenter ids. */
export async function reportsSplitBy(db: Kysely<DB>, accountId: string, segmenterIds: readonly string[]): Promise<string[]> {
  if (segmenterIds.length === 0) return [];
  const rows = await db
    .selectFrom('report_section_segments as g')
    .innerJoin('report_sections as s', (join) => join.onRef('s.account_id', '=', 'g.account_id').onRef('s.id', '=', 'g.section_id'))
    .select('s.report_id')
    .distinct()
    .where('g.account_id', '=', accountId)
    .where('g.segmenter_id', 'in', [...segmenterIds])
    .orderBy('s.report_id')
    .execute();
  return rows.map((row) => row.report_id);
}

/** The first share link pinned to one of these segment ids, with its report's title; undefined when none. */
export async function pinningShareLink(db: Kysely<DB>, accountId: string, segmentIds: readonly string[]): Promise<{ title: string } | undefined> {
  if (segmentIds.length === 0) return undefined;
  return db
    .selectFrom('report_share_secrets as l')
    .innerJoin('business_reports as r', (join) => join.onRef('r.account_id', '=', 'l.account_id').onRef('r.id', '=', 'l.report_id'))
    .select('r.title')
    .where('l.account_id', '=', accountId)
    .where('l.segmenter_id', 'in', [...segmentIds])
    .orderBy('r.title')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Removes these segmenters from every section of the given reports (each report's row lock
 * first, as every section write takes it) and the items about these segment ids from every
 * view filter of the account. In the caller's transaction.
 */
export async function forgetSegmenters(trx: Kysely<DB>, accountId: string, reportIds: readonly string[], segmenterIds: readonly string[], filterIds: readonly string[]): Promise<void> {
  for (const reportId of reportIds) {
    await lockReport(trx, accountId, reportId);
    const sections = trx.selectFrom('report_sections').select('id').where('account_id', '=', accountId).where('report_id', '=', reportId);
    await trx.deleteFrom('report_section_segments').where('account_id', '=', accountId).where('section_id', 'in', sections).where('segmenter_id', 'in', [...segmenterIds]).execute();
  }
  if (filterIds.length === 0) return;
  const gone = new Set(filterIds);
  const filtered = await trx.selectFrom('business_reports').select(['id', 'filter']).where('account_id', '=', accountId).where('filter', 'is not', null).execute();
  for (const report of filtered) {
    const view = storedViewFilter(report.filter);
    if (!view) continue;
    const kept = view.arguments.filter((item) => item.type !== 'segment' || !gone.has(item.id));
    if (kept.length === view.arguments.length) continue;
    await lockReport(trx, accountId, report.id);
    await trx
      .updateTable('business_reports')
      .set({ filter: kept.length === 0 ? null : JSON.stringify({ operator: view.operator, arguments: kept }) })
      .where('account_id', '=', accountId)
      .where('id', '=', report.id)
      .execute();
  }
}

/** Recalculates these reports (marked recalculating at once, computed in the background). */
export async function recalculateReports(app: FastifyInstance, accountId: string, reportIds: readonly string[]): Promise<void> {
  for (const reportId of reportIds) await app.reports.start(accountId, reportId);
}

/**
 * After a change of the account's attributes (which raises its data version, so every report
 * turns stale): the usual after-change work (snapshot dropped, states published, the latest
 * reports recalculated), and the reports split by the attribute recalculated too.
 */
export async function afterAttributeChange(app: FastifyInstance, accountId: string, affectedReports: readonly string[]): Promise<void> {
  await afterChange(app, accountId);
  // afterChange recalculated the newest reports already; a second start would run them twice.
  const latest = new Set((await latestReports(app.db.kysely, accountId)).slice(0, RECALCULATED_REPORTS).map((report) => report.id));
  await recalculateReports(app, accountId, affectedReports.filter((id) => !latest.has(id)));
}
