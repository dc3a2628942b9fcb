import type { FastifyPluginAsync } from 'fastify';
import type { JobQueue } from '../jobs/queue';
import { appSyncDeps, catchUp, createRunner, enqueueSync, INTEGRATION_CATCH_UP_INTERVAL_MS, registerRunner } from './runner';

export interface IntegrationsPluginOptions {
  /** The job queue; without one (PGlite, tests) syncs run in this process. */
  queue?: JobQueue;
}

/**
 * The app's integration runner: syncs go to the queue (the workers take them; see
 * server/jobs/workers.ts, which also schedules the periodic catch-up) or, without a queue, run
 * here, with the catch-up on a timer, and those left queued or syncing by the last process resumed
 * when the app is ready. On close the in-process runs stop at once, each keeping its
 * cursor for the next start.
 */
export const integrationsPlugin: FastifyPluginAsync<IntegrationsPluginOptions> = async (app, options) => {
  const runner = createRunner(appSyncDeps(app), options.queue);
  registerRunner(app.db, runner);
  let timer: NodeJS.Timeout | undefined;
  if (!options.queue) {
    timer = setInterval(() => {
      catchUp(app.db, (accountId, name) => enqueueSync(app, accountId, name)).catch((error: unknown) => app.log.error(`integration catch-up failed: ${String(error)}`));
    }, INTEGRATION_CATCH_UP_INTERVAL_MS);
    timer.unref();
  }
  if (!options.queue) {
    // Syncs this process was running or had queued when it stopped resume from their cursors.
    app.addHook('onReady', async () => {
      // A database without the tables yet (the API document's generator) has nothing to resume.
      await catchUp(app.db, (accountId, name) => enqueueSync(app, accountId, name), ['queued', 'syncing']).catch((error: unknown) =>
        app.log.warn(`integration syncs could not be resumed: ${String(error)}`),
      );
    });
  }
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await runner.close();
  });
};
