import fastifyPlugin from 'fastify-plugin';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { JobQueue } from '../jobs/queue';
import { METRICS_INVALIDATE_CHANNEL } from '../metrics/service';
import { publishReportStates } from '../reports/recalculations';
import type { Database } from '../db/database';
import { runSegmentImport } from './segmentImport';
import { markFailed, runSubscriptionImport } from './subscriptionImport';
import { IMPORT_SWEEP_CRON, IMPORT_SWEEP_INTERVAL_MS, IMPORT_SWEEP_JOB, sweepUploads, type SweepResult } from './sweep';

/** The job that validates and commits an import (subscriptions or attribute values: the import's kind decides). */
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
   * After a restart: runs here every import left in progress whose run is dead (on PostgreSQL,
   * whose advisory lock is free; a live run elsewhere keeps its import), and fails uploads that
   * were cut off (on PostgreSQL, those no live request holds). Returns the imports resumed.
   */
  resume(): Promise<string[]>;
  /** Resolves when every import this process runs in-process has finished (tests). */
  settled(): Promise<void>;
  /**
   * Expires uploads left waiting for their mapping past CSV_IMPORT_PREVIEW_TTL_MS and frees
   * the bytes of finished imports (sweep.ts). Run every hour: a pg-boss cron job when the app
   * has a queue, else a timer; `now` is the clock (tests).
   */
  sweep(now?: Date): Promise<SweepResult>;
}

/** Advisory lock class of running imports (the second key is the hash of the import id). */
const IMPORT_LOCK_CLASS = 51_201;

/**
 * On PostgreSQL a running import holds a session advisory lock on a connection of its own: the
 * server releases it when that process dies, so a restarted (or any other) process can tell a
 * dead run from a live one and take the import over. PGlite is one process: its runs are
 * told apart in memory.
 */
async function whileLocked(db: Database, importId: string, run: () => Promise<void>): Promise<boolean> {
  if (db.kind !== 'postgresql') {
    await run();
    return true;
  }
  return db.kysely.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${importId})) as locked`.execute(connection);
    if (!rows[0]?.locked) return false;
    try {
      await run();
    } finally {
      await sql`select pg_advisory_unlock(${IMPORT_LOCK_CLASS}, hashtext(${importId}))`.execute(connection);
    }
    return true;
  });
}

/** Runs `work` holding the import's liveness lock (PostgreSQL), failing if another run holds it. */
export async function whileImportLocked<T>(db: Database, importId: string, work: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  const ran = await whileLocked(db, importId, async () => {
    result = await work();
  });
  if (!ran) throw new Error(`import ${importId} is being worked on elsewhere`);
  return result as T;
}

/** What the job does, wherever it runs (this process or `npm run worker`). */
export function importJobHandler(db: Database, log: { error: (message: string) => void }) {
  return async ({ accountId, importId }: SubscriptionImportJob) => {
    try {
      await whileLocked(db, importId, async () => {
        const found = await db.kysely.selectFrom('imports').select('kind').where('account_id', '=', accountId).where('id', '=', importId).executeTakeFirst();
        const onCommitted = async (id: string) => {
          await db.notify(METRICS_INVALIDATE_CHANNEL, id);
          // Open report pages learn that their report is stale now.
          await publishReportStates(db.kysely, id).catch((error: unknown) => log.error(`reports of ${id}: could not publish their state: ${String(error)}`));
        };
        if (found?.kind === 'segments') await runSegmentImport(db.kysely, accountId, importId, { onCommitted });
        else await runSubscriptionImport(db, accountId, importId, { onCommitted });
      });
    } catch (error) {
      log.error(`import ${importId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

export interface ImportsPluginOptions {
  /** The job queue; without one (tests, PGlite with workers off) imports run in this process. */
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
        await failInterruptedUploads(app.db);
        return jobs.map((job) => job.importId);
      },
      async settled() {
        while (running.size > 0) await Promise.all([...running]);
      },
      sweep(now) {
        return sweepUploads(app.db, { now, whileLocked: (importId, work) => whileLocked(app.db, importId, work) });
      },
    };
    app.decorate('imports', imports);
    let sweeping: Promise<unknown> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const sweepNow = () => {
      sweeping = imports.sweep().catch((error: unknown) => app.log.error(`import sweep failed: ${error instanceof Error ? error.message : String(error)}`));
      return sweeping;
    };
    if (options.queue) {
      // pg-boss gives each tick to one process of those working the queue.
      await options.queue.work(IMPORT_SWEEP_JOB, async () => {
        await sweepNow();
      });
      await options.queue.schedule(IMPORT_SWEEP_JOB, IMPORT_SWEEP_CRON);
    } else {
      timer = setInterval(() => void sweepNow(), IMPORT_SWEEP_INTERVAL_MS);
      timer.unref();
    }
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await sweeping;
      await imports.settled();
    });
  },
  { name: 'subscope-imports', fastify: '5.x' },
);

async function resumable(db: Kysely<DB>): Promise<SubscriptionImportJob[]> {
  const rows = await db.selectFrom('imports').select(['account_id', 'id']).where('status', 'in', ['in_progress', 'finalizing']).execute();
  return rows.map((row) => ({ accountId: row.account_id, importId: row.id }));
}

/** Uploads no process is reading any more (on PostgreSQL: whose liveness lock is free) are failed. */
async function failInterruptedUploads(database: Database): Promise<void> {
  const db = database.kysely;
  const rows = await db.selectFrom('imports').select(['account_id', 'id']).where('status', '=', 'uploaded').execute();
  for (const row of rows) {
    await whileLocked(database, row.id, async () => {
      await db.deleteFrom('import_rows').where('account_id', '=', row.account_id).where('import_id', '=', row.id).execute();
      await db.deleteFrom('import_files').where('account_id', '=', row.account_id).where('import_id', '=', row.id).execute();
      await markFailed(db, row.account_id, row.id, new Error('The upload was interrupted'));
    });
  }
}
