import type { Database } from '../db/database';
import { INVALIDATE_ALL, METRICS_INVALIDATE_CHANNEL } from '../metrics/service';
import { importJobHandler, SUBSCRIPTION_IMPORT_JOB, type SubscriptionImportJob } from '../imports/plugin';
import { refreshRatesFromEcb } from '../rates/ecbFeed';
import { registerExportWorkers } from '../reports/exports/workers';
import { registerReportSchedules } from '../reports/schedules';
import type { ProviderUrls } from '../config';
import { catchUp, INTEGRATION_CATCH_UP_CRON, INTEGRATION_CATCH_UP_JOB, INTEGRATION_SYNC_JOB, markQueued, syncJobHandler, type IntegrationSyncJob, type SyncDeps } from '../integrations/runner';
import type { JobQueue } from './queue';

export interface WorkerSettings {
  /** The ECB feed URL, or undefined to never fetch (offline machines, tests). */
  ecbFeedUrl: string | undefined;
  /** The key that opens integration credentials (server/integrations/secrets.ts); without it no sync runs here. */
  integrationSecretsKey?: Buffer;
  /** Where the providers' APIs are (config.providerUrls). */
  providerUrls?: ProviderUrls;
  /** OAuth clients (config.oauthClients): refreshing expired tokens during a sync. */
  oauthClients?: SyncDeps['oauthClients'];
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
  if (settings.integrationSecretsKey) {
    // Integration syncs (server/integrations/runner.ts): a failed run throws, and pg-boss's retry resumes it from its cursor.
    await queue.work<IntegrationSyncJob>(INTEGRATION_SYNC_JOB, syncJobHandler({ database: db, secretsKey: settings.integrationSecretsKey, urls: settings.providerUrls, oauthClients: settings.oauthClients, log }), {
      pollingIntervalSeconds: 0.5,
    });
    await queue.work(INTEGRATION_CATCH_UP_JOB, async () => {
      const queued = await catchUp(db, async (accountId, name) => {
        await markQueued(db, accountId, name);
        await queue.send(INTEGRATION_SYNC_JOB, { accountId, name } satisfies IntegrationSyncJob, { singletonKey: `${accountId}:${name}` });
      });
      if (queued > 0) log.info(`Integration catch-up: ${queued} syncs queued`);
    });
    await queue.schedule(INTEGRATION_CATCH_UP_JOB, INTEGRATION_CATCH_UP_CRON);
  }
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
