import type { Database } from '../db/database';
import { INVALIDATE_ALL, METRICS_INVALIDATE_CHANNEL } from '../metrics/service';
import { importJobHandler, SUBSCRIPTION_IMPORT_JOB, type SubscriptionImportJob } from '../imports/plugin';
import { refreshRatesFromEcb } from '../rates/ecbFeed';
import { registerExportWorkers } from '../reports/exports/workers';
import { registerReportSchedules } from '../reports/schedules';
import type { JobQueue } from './queue';

export interface WorkerSettings {
  /** The ECB feed URL, or undefined to never fetch (offline machines, tests). */
  ecbFeedUrl: string | undefined;
}

type Log = { info: (message: string) => void; warn: (message: string) => void; error: (message: string) => void };

export const JOBS = {
  refreshRates: 'rates.refresh',
} as const;

/** ECB publishes around 16:00 CET; fetch after that on business days. */
const RATES_REFRESH_CRON = '30 16 * * 1-5';

/**
 * The job kinds this codebase runs, registered on every worker process (the HTTP process
 * runs them in-process; `npm run worker` runs them alone). Later features add theirs here.
 */
export async function registerWorkers(queue: JobQueue, db: Database, settings: WorkerSettings, log: Log): Promise<void> {
  // Someone is watching an import's progress: it is taken within half a second (pg-boss's shortest poll).
  await queue.work<SubscriptionImportJob>(SUBSCRIPTION_IMPORT_JOB, importJobHandler(db, log), { pollingIntervalSeconds: 0.5 });
  await registerExportWorkers(queue, db, log);
  await registerReportSchedules(queue, db, log);
  const feedUrl = settings.ecbFeedUrl;
  if (feedUrl) {
    await queue.work(JOBS.refreshRates, async () => {
      const changed = await refreshRatesFromEcb(db, feedUrl);
      log.info(`Exchange rates refreshed from the ECB feed: ${changed} new or changed rates`);
      // New rates change converted numbers of every account: every process drops its snapshots.
      if (changed > 0) await db.notify(METRICS_INVALIDATE_CHANNEL, INVALIDATE_ALL);
    });
    await queue.schedule(JOBS.refreshRates, RATES_REFRESH_CRON);
  } else {
    await queue.boss.unschedule(JOBS.refreshRates).catch(() => {});
    log.warn('ECB_FEED_URL is off: exchange rates stay as shipped');
  }
}
