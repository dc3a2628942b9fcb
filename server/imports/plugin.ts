import fastifyPlugin from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { JobQueue } from '../jobs/queue';
import { METRICS_INVALIDATE_CHANNEL } from '../metrics/service';
import type { Database } from '../db/database';
import { markFailed, runSubscriptionImport } from './subscriptionImport';

/** The job that validates and commits a subscription import. */
export const SUBSCRIPTION_IMPORT_JOB = 'imports.subscriptions';

export interface SubscriptionImportJob {
  accountId: string;
  importId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts the job of an import (server/imports/plugin.ts). */
    imports: ImportJobs;
  }
}

export interface ImportJobs {
  start(accountId: string, importId: string): Promise<void>;
  /**
   * After a restart on PGlite (one process owns the data): runs here what was in progress and
   * fails uploads that were cut off. Returns the imports resumed. (On PostgreSQL the queue
   * retries a dead worker's job once it expires.)
   */
  resume(): Promise<string[]>;
  /** Resolves when every import this process runs in-process has finished (tests). */
  settled(): Promise<void>;
}

/** What the job does, wherever it runs (this process or `npm run worker`). */
export function importJobHandler(db: Database, log: { error: (message: string) => void }) {
  return async ({ accountId, importId }: SubscriptionImportJob) => {
    try {
      await runSubscriptionImport(db.kysely, accountId, importId, { onCommitted: (id) => db.notify(METRICS_INVALIDATE_CHANNEL, id) });
    } catch (error) {
      log.error(`import ${importId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

export interface ImportsPluginOptions {
  /** The job queue; without one (tests, a server with workers off) imports run in this process. */
  queue?: JobQueue;
}

/**
 * `app.imports.start` hands an import to the queue (any worker takes it; a crashed worker's job
 * is retried, and the job is idempotent) or, without a queue, runs it here in the background.
 */
export const importsPlugin = fastifyPlugin<ImportsPluginOptions>(
  async (app, options) => {
    const running = new Set<Promise<void>>();
    const handler = importJobHandler(app.db, { error: (message) => app.log.error(message) });
    const runHere = (job: SubscriptionImportJob) => {
      const run = handler(job).finally(() => running.delete(run));
      running.add(run);
    };
    const imports: ImportJobs = {
      async start(accountId, importId) {
        if (options.queue) await options.queue.send(SUBSCRIPTION_IMPORT_JOB, { accountId, importId }, { singletonKey: importId });
        else runHere({ accountId, importId });
      },
      async resume() {
        const jobs = await resumable(app.db.kysely);
        // Run here, not through the queue: the killed process's job still counts as active there until it expires.
        for (const job of jobs) runHere(job);
        await failInterruptedUploads(app.db.kysely);
        return jobs.map((job) => job.importId);
      },
      async settled() {
        while (running.size > 0) await Promise.all([...running]);
      },
    };
    app.decorate('imports', imports);
    app.addHook('onClose', async () => {
      await imports.settled();
    });
  },
  { name: 'subscope-imports', fastify: '5.x' },
);

async function resumable(db: Kysely<DB>): Promise<SubscriptionImportJob[]> {
  const rows = await db.selectFrom('imports').select(['account_id', 'id']).where('status', 'in', ['in_progress', 'finalizing']).execute();
  return rows.map((row) => ({ accountId: row.account_id, importId: row.id }));
}

async function failInterruptedUploads(db: Kysely<DB>): Promise<void> {
  const rows = await db.selectFrom('imports').select(['account_id', 'id']).where('status', '=', 'uploaded').execute();
  for (const row of rows) {
    await db.deleteFrom('import_rows').where('account_id', '=', row.account_id).where('import_id', '=', row.id).execute();
    await markFailed(db, row.account_id, row.id, new Error('The upload was interrupted'));
  }
}
