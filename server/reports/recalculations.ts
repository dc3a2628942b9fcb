import type { Database } from '../db/database';
import { publish } from '../cable/streams';
import type { MetricsService } from '../metrics/service';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { latestReports, markFailed, markRecalculating, recalculateReport, reportView, unfinishedRecalculations, type ReportView } from './reports';

/** The live stream of one report (BusinessReportChannel). */
export function reportStream(accountId: string, reportId: string): string {
  return `report:${accountId}:${reportId}`;
}

/** What BusinessReportChannel sends: the report's state, and each section as it is recomputed. */
export type ReportEvent =
  | { object: 'business_report'; id: string; recalculation_status: string; freshness_status: string; refreshed_at: string | null }
  | { object: 'business_report_section'; report_id: string; section: ReportView['sections'][number] }
  /** A section too large for one notification: its state only; the client reads the report again. */
  | { object: 'business_report_section'; report_id: string; section: { id: string; recalculation_status: string }; partial: true };

/**
 * Tells every open report page of the account that its report may have turned stale (after an
 * import commits: the account's data changed), on each report's stream: the report's state as it
 * now is. Through PostgreSQL, so it works from whichever process ran the import.
 */
export async function publishReportStates(db: Kysely<DB>, accountId: string): Promise<void> {
  const reports = await latestReports(db, accountId);
  for (const report of reports) {
    const message: ReportEvent = { object: 'business_report', id: report.id, recalculation_status: report.recalculation_status, freshness_status: report.freshness_status, refreshed_at: report.refreshed_at };
    await publish(db, { stream: reportStream(accountId, report.id), account_id: accountId, message });
  }
}

/**
 * Recalculation of reports, as a background job of the server process that holds the
 * account's metrics snapshot (its cache makes a recalculation a few hundred milliseconds
 * instead of a table read per run): one run per report at a time, and a request during a run
 * runs it once more after. The state is in the database (`recalculation_status`), so a report
 * left 'recalculating' by a stopped process is run again at start (`resume`). Each change is
 * published on the report's stream for BusinessReportChannel, through PostgreSQL, so every
 * server process's subscribers hear it.
 */
export class ReportRecalculations {
  private metrics: MetricsService | null = null;
  private now: () => Date = () => new Date();
  private readonly running = new Map<string, { run: Promise<void>; again: boolean }>();

  constructor(
    private readonly db: Database,
    private readonly log: { error: (message: string) => void } = console,
  ) {}

  /** The metrics service and clock of the app (registered inside its API scope). */
  attach(metrics: MetricsService, now: () => Date): void {
    this.metrics = metrics;
    this.now = now;
  }

  /** Marks the report recalculating now (what readers see at once) and recomputes it in the background. */
  async start(accountId: string, reportId: string): Promise<void> {
    await markRecalculating(this.db.kysely, accountId, reportId);
    await this.publishReport(accountId, reportId);
    this.schedule(accountId, reportId);
  }

  /** Runs again every report left recalculating; answers their ids. */
  async resume(): Promise<string[]> {
    const left = await unfinishedRecalculations(this.db.kysely);
    for (const { accountId, reportId } of left) this.schedule(accountId, reportId);
    return left.map((entry) => entry.reportId);
  }

  /** Resolves when no recalculation runs (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((entry) => entry.run));
  }

  private schedule(accountId: string, reportId: string): void {
    const key = `${accountId}/${reportId}`;
    const current = this.running.get(key);
    if (current) {
      current.again = true;
      return;
    }
    const entry = { run: Promise.resolve(), again: true };
    entry.run = (async () => {
      while (entry.again) {
        entry.again = false;
        await this.runOnce(accountId, reportId);
      }
    })().finally(() => this.running.delete(key));
    this.running.set(key, entry);
  }

  private async runOnce(accountId: string, reportId: string): Promise<void> {
    if (!this.metrics) throw new Error('ReportRecalculations is not attached to a metrics service');
    try {
      const found = await recalculateReport(this.db.kysely, this.metrics, accountId, reportId, this.now());
      if (!found) return;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error(`recalculation of report ${reportId} failed: ${message}`);
      await markFailed(this.db.kysely, accountId, reportId, message).catch(() => {});
    }
    await this.publishReport(accountId, reportId, true).catch((error: unknown) => this.log.error(`report ${reportId}: could not publish its update: ${String(error)}`));
  }

  /** The report's state on its stream, and with `sections`, each section. */
  private async publishReport(accountId: string, reportId: string, sections = false): Promise<void> {
    const view = await reportView(this.db.kysely, accountId, reportId);
    if (!view) return;
    const stream = reportStream(accountId, reportId);
    const send = (message: ReportEvent) => publish(this.db.kysely, { stream, account_id: accountId, message });
    if (sections) {
      for (const section of view.sections) {
        const sent = await send({ object: 'business_report_section', report_id: reportId, section });
        if (!sent) await send({ object: 'business_report_section', report_id: reportId, section: { id: section.id, recalculation_status: section.recalculation_status }, partial: true });
      }
    }
    await send({ object: 'business_report', id: reportId, recalculation_status: view.recalculation_status, freshness_status: view.freshness_status, refreshed_at: view.refreshed_at });
  }
}
