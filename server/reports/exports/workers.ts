import type { Database } from '../../db/database';
import type { JobQueue } from '../../jobs/queue';
import { createMetricsService, type MetricsService } from '../../metrics/service';
import { runDetailsExport, SECTION_DETAILS_EXPORT_JOB, type DetailsExportJob } from './sectionDetails';

type Log = { error: (message: string) => void };

/**
 * The section exports' job (server/jobs/workers.ts calls this on every worker process). A
 * worker computes with a metrics service of its own, keeping one account's snapshot: it is
 * used only at the account's current data version (docs/metrics.md), so it never answers
 * with numbers from before a write.
 */
export async function registerExportWorkers(queue: JobQueue, db: Database, log: Log): Promise<void> {
  let metrics: MetricsService | null = null;
  await queue.work<DetailsExportJob>(
    SECTION_DETAILS_EXPORT_JOB,
    async (job) => {
      metrics ??= createMetricsService(db, { capacity: 1 });
      await runDetailsExport(db.kysely, metrics, job, log);
    },
    // Someone waits for the notification: taken within half a second.
    { pollingIntervalSeconds: 0.5 },
  );
}
