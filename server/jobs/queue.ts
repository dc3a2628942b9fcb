import PgBoss from 'pg-boss';
import type { Database } from '../db/database';

export type JobHandler<T extends object = object> = (data: T, job: { id: string; name: string }) => Promise<void>;

export interface JobQueue {
  /** Enqueue a job; returns its id. */
  send<T extends object>(name: string, data: T, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Run `handler` for every job of `name` on this process (a worker). */
  work<T extends object>(name: string, handler: JobHandler<T>, options?: { batchSize?: number; pollingIntervalSeconds?: number }): Promise<void>;
  /** Run `name` on a cron schedule (UTC); pg-boss makes sure one worker takes each tick. */
  schedule(name: string, cron: string, data?: object): Promise<void>;
  /**
   * Creates the queue `name` with `options` unless it exists (a queue is created at its first
   * send, work or schedule otherwise, with pg-boss's defaults); safe beside other processes.
   */
  ensureQueue(name: string, options?: QueueCreation): Promise<void>;
  stop(): Promise<void>;
  readonly boss: PgBoss;
}

/** What a queue is created with, beyond its name. */
// pg-boss 10's createQueue keeps expireInSeconds only: expireInHours or expireInMinutes given there are
// dropped without a word (the queue then expires jobs after its default 15 minutes).
export type QueueCreation = Pick<PgBoss.Queue, 'retryLimit' | 'retryBackoff' | 'expireInSeconds'>;

const DEFAULT_QUEUE: QueueCreation = { retryLimit: 3, retryBackoff: true };

export interface QueueOptions {
  /** Poll interval in seconds for workers (pg-boss minimum 0.5). */
  pollingIntervalSeconds?: number;
  /** Whether this process runs maintenance and cron scheduling (every worker process may). */
  supervise?: boolean;
}

/**
 * Jobs live in PostgreSQL through pg-boss (its own `pgboss` schema), so any worker on any
 * machine takes them and a crashed worker's job is retried after its expiry. On PGlite the
 * queue runs through the same serialised session as every other query.
 */
export async function startQueue(db: Database, options: QueueOptions = {}): Promise<JobQueue> {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => db.executeSql(text, values) },
    schema: 'pgboss',
    supervise: options.supervise ?? true,
    schedule: options.supervise ?? true,
    migrate: true,
  });
  boss.on('error', (error) => {
    // pg-boss reports background maintenance failures here; a job's own failure is retried.
    console.error('[jobs]', error);
  });
  await boss.start();
  const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 2;
  // One creation per queue name and process, shared by concurrent first sends; another process
  // creating the same queue at the same moment is not an error.
  const created = new Map<string, Promise<void>>();
  // Two processes creating queues at once (two API instances booting beside a worker) can
  // deadlock inside pg-boss's createQueue (each locks the job table and the queue table in its
  // own order); PostgreSQL picks one as the victim, which retries after a short random wait.
  const createOnce = async (name: string, creation: QueueCreation) => {
    for (let attempt = 1; ; attempt += 1) {
      if (await boss.getQueue(name)) return;
      try {
        await boss.createQueue(name, { name, ...creation });
        return;
      } catch (error) {
        if (await boss.getQueue(name)) return;
        if (!isSerializationFailure(error) || attempt >= 8) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt));
      }
    }
  };
  const ensureQueue = (name: string, options: QueueCreation = DEFAULT_QUEUE): Promise<void> => {
    let creation = created.get(name);
    if (!creation) {
      creation = createOnce(name, options).catch((error: unknown) => {
        created.delete(name);
        throw error;
      });
      created.set(name, creation);
    }
    return creation;
  };

  return {
    boss,
    ensureQueue,
    async send(name, data, sendOptions) {
      await ensureQueue(name);
      return sendOptions ? boss.send(name, data, sendOptions) : boss.send(name, data);
    },
    async work(name, handler, workOptions) {
      await ensureQueue(name);
      await boss.work<object>(name, { pollingIntervalSeconds: workOptions?.pollingIntervalSeconds ?? pollingIntervalSeconds, batchSize: workOptions?.batchSize ?? 1 }, async (jobs) => {
        for (const job of jobs) await handler(job.data as Parameters<typeof handler>[0], { id: job.id, name: job.name });
      });
    },
    async schedule(name, cron, data) {
      await ensureQueue(name);
      await boss.schedule(name, cron, data ?? {}, { tz: 'UTC' });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 20_000 });
    },
  };
}

/** PostgreSQL's deadlock_detected (40P01) and serialization_failure (40001): safe to retry. */
function isSerializationFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
