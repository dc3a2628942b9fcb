import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterChange } from '../customers/changes';
import { CANNOT_CONNECT_MESSAGES, INTEGRATION_LABELS } from '../../models/integrations';
import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../config';
import type { Database } from '../db/database';
import type { IntegrationName, JsonObject } from '../db/schema';
import type { JobQueue } from '../jobs/queue';
import { METRICS_INVALIDATE_CHANNEL } from '../metrics/service';
import { publishReportStates } from '../reports/recalculations';
import { logSync, publishAnswer, publishStatusEvent } from './answers';
import { providerFetch, type ProviderFetchOptions } from './http';
import { PROVIDERS } from './registry';
import { isOauthProvider, OAUTH_SPECS } from './oauth';
import { openSecrets, sealSecrets, secretsKeyOf } from './secrets';
import { CannotConnectError, ProviderHttpError, type IntegrationProvider, type OauthClient, type SyncBatch, type SyncContext } from './types';
import { commitInOneStatement, prepareBatch, type PreparedBatch } from './statementCommit';
import { KnownCustomers, KnownProducts, mayBulkWrite, writeBatch } from './writer';

/**
 * The integration runner (docs/integrations.md "Syncs"): one sync of one integration, wherever
 * it runs (a pg-boss job 'integration-sync' on any worker, or in this process without a queue).
 *
 * A run marks the integration 'syncing', opens its secrets, and calls the provider's `sync` with
 * the cursor of the last committed batch (null at a run's start: a killed run resumes there).
 * Each `commit` writes its batch and the next cursor (and the first sync's percent, which never
 * goes backwards) in one transaction that first checks the run is still the integration's
 * current one: a disconnect, or a new configuration, makes the run stop at its next commit
 * with nothing more written. Success clears the cursor, records when the run started (the next
 * incremental sync reads changes since then) and ended, and recalculates the reports; failure
 * records a sentence for the user, publishes `sync_failed`, and (on the queue) the job's retry
 * resumes from the cursor.
 */

export const INTEGRATION_SYNC_JOB = 'integration-sync';
export const INTEGRATION_CATCH_UP_JOB = 'integration-sync.catch-up';
/** Every 30 minutes each configured integration gets an incremental sync (missed webhooks, providers without them). */
export const INTEGRATION_CATCH_UP_CRON = '*/30 * * * *';
export const INTEGRATION_CATCH_UP_INTERVAL_MS = 30 * 60_000;
/** At most about one progress message a second on IntegrationsChannel. */
export const PUBLISH_INTERVAL_MS = 1_000;

export interface IntegrationSyncJob {
  accountId: string;
  name: IntegrationName;
}

type Log = { info: (message: string) => void; warn?: (message: string) => void; error: (message: string) => void };

/**
 * What a run needs, in an HTTP process or a worker: the database (queries and NOTIFY), the key
 * that opens credentials, the providers' URLs, a log. `fetch` tunes provider HTTP retries (tests
 * make waits short); `providers` replaces the registry (tests); `afterSync` replaces the
 * recalculation after a successful sync (the HTTP app passes afterChange).
 */
export interface SyncDeps {
  database: Database;
  secretsKey: Buffer;
  urls?: ProviderUrls;
  log: Log;
  fetch?: Omit<ProviderFetchOptions, 'signal'>;
  providers?: Partial<Record<IntegrationName, IntegrationProvider>>;
  afterSync?: (accountId: string) => Promise<void>;
  /** The OAuth clients (config.oauthClients): an expired access token is refreshed with them. */
  oauthClients?: Partial<Record<'stripe' | 'hubspot' | 'intercom', OauthClient>>;
  /** Aborts the run (process shutdown): it stops at once, its cursor kept for the next one. */
  signal?: AbortSignal;
  publishIntervalMs?: number;
}

export type SyncOutcome = 'done' | 'failed' | 'stopped' | 'skipped';

/** The run is no longer the integration's current one (disconnected or reconfigured). */
class SyncStopped extends Error {
  constructor() {
    super('the integration was disconnected or reconfigured');
  }
}

/** A sentence for the card and support: never a secret, never a provider's raw answer. */
export function errorSentence(name: IntegrationName, error: unknown): string {
  const label = INTEGRATION_LABELS[name];
  if (error instanceof CannotConnectError) return CANNOT_CONNECT_MESSAGES[error.code as keyof typeof CANNOT_CONNECT_MESSAGES] ?? `${label} refused the connection: please save the configuration again`;
  if (error instanceof ProviderHttpError) {
    if (error.status === 401 || error.status === 403) return `${label} refused our credentials (HTTP ${error.status}): please connect again`;
    if (error.status === 429) return `${label} kept limiting our requests (HTTP 429); the sync will continue where it stopped`;
    if (error.status >= 500) return `${label} did not answer properly (HTTP ${error.status}); the sync will continue where it stopped`;
    return `${label} answered with an error (HTTP ${error.status}); the sync will continue where it stopped`;
  }
  if (error instanceof TypeError && /fetch/i.test(error.message)) return `We could not reach ${label}; the sync will continue where it stopped`;
  return `The sync with ${label} failed unexpectedly; Retry, or contact us if it fails again`;
}

/** Default after a successful sync from a job: drop metrics snapshots everywhere, tell open report pages. */
function recalculation(deps: SyncDeps) {
  return async (accountId: string) => {
    await deps.database.notify(METRICS_INVALIDATE_CHANNEL, accountId);
    await publishReportStates(deps.database.kysely, accountId).catch((error: unknown) => deps.log.error(`reports of ${accountId}: could not publish their state: ${String(error)}`));
  };
}

/** Runs one sync of the integration to its end here; resolves when done (a failure is recorded on the integration, not thrown). */
export async function runSync(deps: SyncDeps, accountId: string, name: IntegrationName): Promise<void> {
  await runSyncOnce(deps, accountId, name);
}

export async function runSyncOnce(deps: SyncDeps, accountId: string, name: IntegrationName): Promise<SyncOutcome> {
  const db = deps.database.kysely;
  const provider = (deps.providers ?? PROVIDERS)[name];
  if (!provider) return 'skipped';
  const row = await db
    .selectFrom('integrations')
    .select(['configured', 'initially_synced', 'config', 'secret_config', 'sync_cursor', 'sync_started_at', 'last_success_started_at', 'sync_status'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row?.configured) return 'skipped';

  const mode: SyncContext['mode'] = row.initially_synced ? 'incremental' : 'initial';
  // A run with a cursor resumes the killed or failed one: it keeps that run's start.
  const resuming = row.sync_cursor !== null && row.sync_started_at !== null;
  const startedAt = resuming ? new Date(row.sync_started_at as Date) : new Date(Math.floor(Date.now() / 1000) * 1000);
  const claimed = await db
    .updateTable('integrations')
    .set({ sync_status: 'syncing', sync_mode: mode, sync_started_at: startedAt, last_error: null, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .where('configured', '=', true)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return 'skipped';
  await logSync(db, accountId, name, resuming ? 'sync_resumed' : 'sync_started', { mode, ...(resuming ? { cursor: row.sync_cursor } : {}) });
  await publishAnswer(db, accountId, name);

  const controller = new AbortController();
  const onAbort = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', onAbort, { once: true });
  const publishInterval = deps.publishIntervalMs ?? PUBLISH_INTERVAL_MS;
  let lastPublished = 0;
  let progress = Number((await db.selectFrom('integrations').select('initial_progress').where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst())?.initial_progress ?? 0);
  let cursor = (row.sync_cursor as JsonObject | null) ?? null;
  let batches = 0;
  // Customers this run's committed batches wrote or read: their lookups are not repeated.
  const knownCustomers = new KnownCustomers();
  const knownProducts = new KnownProducts();

  /**
   * Whether this run is still the integration's current one (checked under the row's lock).
   * `forCommit`: the settings of a commit's transaction are made in the same round trip (a first
   * sync commits about 80 times, and each round trip also waits for this process's event loop,
   * busy reading pages): its commit does not wait for the disk, and with `bulk` row triggers are
   * off (writeBatch's bulkSetUp).
   */
  const stillOurs = async (trx: typeof db, forCommit?: { bulk: boolean }) => {
    const current = await trx
      .selectFrom('integrations')
      .select(['configured', 'sync_started_at', 'sync_status'])
      .$if(forCommit !== undefined, (query) => query.select(sql<string>`set_config('synchronous_commit', 'off', true)`.as('synchronous_commit')))
      .$if(forCommit?.bulk === true, (query) => query.select(sql<string>`set_config('session_replication_role', 'replica', true)`.as('session_replication_role')))
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .forUpdate()
      .executeTakeFirst();
    return !!current?.configured && current.sync_status === 'syncing' && current.sync_started_at !== null && new Date(current.sync_started_at).getTime() === startedAt.getTime();
  };

  // A first sync's batches prepared ahead of their commit (context.prepare), for one statement each.
  const prepared = new WeakMap<SyncBatch, PreparedBatch | null>();
  const preparedOf = (batch: SyncBatch) => (prepared.has(batch) ? prepared.get(batch) : prepareBatch(batch)) ?? null;
  /** After a batch's commit: what the run learned, the cursor, the percent published now and then. */
  const committed = async (next: { cursor: JsonObject | null }, nextProgress: number, learned: ReadonlyMap<string, string>, learnedProducts: ReadonlySet<string>) => {
    knownCustomers.add(learned);
    knownProducts.add(learnedProducts);
    cursor = next.cursor;
    batches += 1;
    const moved = nextProgress !== progress;
    progress = nextProgress;
    if (moved && Date.now() - lastPublished >= publishInterval) {
      lastPublished = Date.now();
      await publishAnswer(db, accountId, name);
    }
  };

  const secrets = openSecrets(deps.secretsKey, row.secret_config ?? null);
  const accessToken = tokenKeeper(deps, accountId, name, secrets);

  const context: SyncContext = {
    accountId,
    integration: name,
    db,
    config: row.config,
    secrets,
    accessToken,
    urls: deps.urls ?? DEFAULT_PROVIDER_URLS,
    mode,
    since: mode === 'incremental' && row.last_success_started_at ? new Date(row.last_success_started_at) : null,
    cursor,
    fetch: providerFetch({ ...deps.fetch, signal: controller.signal }),
    signal: controller.signal,
    log: (event, details) => logSync(db, accountId, name, event, details ?? {}),
    prepare(batch: SyncBatch) {
      if (mode === 'initial' && !prepared.has(batch)) prepared.set(batch, prepareBatch(batch));
    },
    async commit(batch: SyncBatch, next) {
      if (controller.signal.aborted) throw new SyncStopped();
      const nextProgress = mode === 'initial' && next.progress !== undefined ? Math.max(progress, Math.min(99, Math.max(0, Math.floor(next.progress)))) : progress;
      // A first sync's batch of new rows: one statement (server/integrations/statementCommit.ts).
      const ahead = mode === 'initial' ? preparedOf(batch) : null;
      prepared.delete(batch);
      if (ahead) {
        const outcome = await commitInOneStatement(db, ahead, { accountId, source: name, startedAt, cursor: next.cursor, progress: nextProgress, bulk: await mayBulkWrite(db), known: knownCustomers, knownProducts });
        if (!outcome.ours) {
          controller.abort(new SyncStopped());
          throw new SyncStopped();
        }
        if (outcome.committed) {
          await committed(next, nextProgress, outcome.learned, outcome.learnedProducts);
          return;
        }
        // A payment was stored already: the usual transaction compares and versions them.
        knownCustomers.add(outcome.learned);
        knownProducts.add(outcome.learnedProducts);
      }
      let learned: ReadonlyMap<string, string> = new Map();
      let learnedProducts: ReadonlySet<string> = new Set();
      const ours = await db.transaction().execute(async (trx) => {
        // The batch and its cursor commit together, so a commit the server loses in a crash (it
        // answers before its WAL reaches the disk) only makes the sync read those pages again:
        // no wait on the disk for each of a first sync's commits. Row triggers are off where the
        // connection may (writeBatch's bulkSetUp): the cursor's statement raises the data version.
        const bulk = await mayBulkWrite(trx);
        if (!(await stillOurs(trx, { bulk }))) return false;
        ({ learned, learnedProducts } = await writeBatch(trx, accountId, name, batch, { known: knownCustomers, knownProducts, bulkSetUp: bulk }));
        const cursorWritten = trx
          .updateTable('integrations')
          .set({ sync_cursor: next.cursor === null ? null : JSON.stringify(next.cursor), initial_progress: nextProgress, updated_at: new Date() })
          .where('account_id', '=', accountId)
          .where('name', '=', name);
        if (bulk) {
          await trx
            .with('cursor_written', () => cursorWritten.returning('account_id'))
            .selectFrom('cursor_written')
            .select(sql<number>`raise_data_version(array[cursor_written.account_id]::text[])`.as('raised'))
            .execute();
        } else {
          await cursorWritten.execute();
        }
        return true;
      });
      if (!ours) {
        controller.abort(new SyncStopped());
        throw new SyncStopped();
      }
      await committed(next, nextProgress, learned, learnedProducts);
    },
  };

  try {
    await provider.sync(context);
    if (controller.signal.aborted) throw controller.signal.reason instanceof Error ? controller.signal.reason : new SyncStopped();
    const finishedAt = new Date();
    const finished = await db.transaction().execute(async (trx) => {
      if (!(await stillOurs(trx))) return false;
      await trx
        .updateTable('integrations')
        .set({
          sync_status: 'idle',
          sync_mode: null,
          sync_cursor: null,
          sync_started_at: null,
          initially_synced: true,
          initial_progress: 100,
          last_synced_at: finishedAt,
          last_success_started_at: startedAt,
          last_error: null,
          updated_at: finishedAt,
        })
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .execute();
      await logSync(trx, accountId, name, 'sync_succeeded', { mode, batches });
      await publishAnswer(trx, accountId, name);
      if (mode === 'initial') await publishStatusEvent(trx, accountId, { event: 'initially_synced', integration: name });
      return true;
    });
    if (!finished) throw new SyncStopped();
    await (deps.afterSync ?? recalculation(deps))(accountId).catch((error: unknown) => deps.log.error(`integration ${name} of ${accountId}: recalculation failed: ${String(error)}`));
    return 'done';
  } catch (error) {
    if (error instanceof SyncStopped || (controller.signal.aborted && controller.signal.reason instanceof SyncStopped)) {
      await logSync(db, accountId, name, 'sync_stopped', { batches });
      return 'stopped';
    }
    if (deps.signal?.aborted) {
      // Shutdown: the run is left 'syncing' with its cursor; the job's retry (or the next start) resumes it.
      deps.log.warn?.(`integration ${name} of ${accountId}: sync interrupted by shutdown after ${batches} batches`);
      return 'stopped';
    }
    const sentence = errorSentence(name, error);
    deps.log.error(`integration ${name} of ${accountId}: sync failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    await db.transaction().execute(async (trx) => {
      if (!(await stillOurs(trx))) return;
      await trx
        .updateTable('integrations')
        .set({ sync_status: 'failed', last_error: sentence, updated_at: new Date() })
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .execute();
      await logSync(trx, accountId, name, 'sync_failed', { error: sentence, batches, ...(error instanceof ProviderHttpError ? { status: error.status } : {}) });
      await publishAnswer(trx, accountId, name);
      await publishStatusEvent(trx, accountId, { event: 'sync_failed', integration: name, error: sentence });
    });
    return 'failed';
  } finally {
    deps.signal?.removeEventListener('abort', onAbort);
  }
}

// ------------------------------------------------------------------------------ OAuth tokens

/** A token expiring within this is refreshed before use. */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;

/**
 * SyncContext.accessToken of one run: the held access token while it is valid; refreshed through
 * the provider's OAuth spec when it expires within a minute or when the provider refused it
 * (`forceRefresh`), the new tokens sealed into the row (only while it still holds credentials:
 * a disconnect meanwhile wins). `secrets` (the run's context.secrets) is updated in place.
 * Concurrent callers share one refresh.
 */
function tokenKeeper(deps: SyncDeps, accountId: string, name: IntegrationName, secrets: Record<string, string>): SyncContext['accessToken'] {
  let refreshing: Promise<string> | null = null;
  const refresh = async (): Promise<string> => {
    const spec = isOauthProvider(name) ? OAUTH_SPECS[name] : undefined;
    const client = isOauthProvider(name) ? deps.oauthClients?.[name] : undefined;
    const refreshToken = secrets.refresh_token;
    if (!spec?.refresh || !client || !refreshToken) throw new ProviderHttpError(401, 'the access token expired and cannot be refreshed');
    const grant = await spec.refresh({ urls: deps.urls ?? DEFAULT_PROVIDER_URLS, client, refreshToken });
    Object.assign(secrets, grant.secrets);
    const db = deps.database.kysely;
    await db
      .updateTable('integrations')
      .set({ secret_config: JSON.stringify(sealSecrets(deps.secretsKey, secrets)), updated_at: new Date() })
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .where('secret_config', 'is not', null)
      .execute();
    await logSync(db, accountId, name, 'token_refreshed', { expires_at: secrets.expires_at ? new Date(Number(secrets.expires_at)).toISOString() : null });
    return secrets.access_token ?? '';
  };
  return async (options) => {
    if (refreshing) return refreshing;
    const token = secrets.access_token;
    const expiresAt = Number(secrets.expires_at);
    const expiring = secrets.expires_at !== undefined && Number.isFinite(expiresAt) && expiresAt - Date.now() < TOKEN_REFRESH_MARGIN_MS;
    if (token && !expiring && !options?.forceRefresh) return token;
    refreshing = refresh().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };
}

// ------------------------------------------------------------------------------ scheduling

/** Advisory lock class of running syncs (the second key is the hash of account:name). */
const SYNC_LOCK_CLASS = 51_223;

/**
 * On PostgreSQL a sync holds a session advisory lock on a connection of its own, so two workers
 * never run the same integration at once (a second job finds it taken and ends: the running one
 * covers it). PGlite is one process: the runner tells runs apart in memory.
 */
async function whileLocked(database: Database, key: string, run: () => Promise<SyncOutcome>): Promise<SyncOutcome> {
  if (database.kind !== 'postgresql') return run();
  return database.kysely.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${SYNC_LOCK_CLASS}, hashtext(${key})) as locked`.execute(connection);
    if (!rows[0]?.locked) return 'skipped' as const;
    try {
      return await run();
    } finally {
      await sql`select pg_advisory_unlock(${SYNC_LOCK_CLASS}, hashtext(${key}))`.execute(connection);
    }
  });
}

/** The job handler (worker processes and the HTTP process with a queue): a failed run throws, so pg-boss retries it from its cursor. */
export function syncJobHandler(deps: SyncDeps) {
  return async ({ accountId, name }: IntegrationSyncJob) => {
    const outcome = await whileLocked(deps.database, `${accountId}:${name}`, () => runSyncOnce(deps, accountId, name));
    if (outcome === 'failed') throw new Error(`integration ${name} of ${accountId}: sync failed (retried from its cursor)`);
  };
}

/**
 * Every configured integration whose provider exists (or, with `only`, those in these states):
 * queued for an incremental (or the first) sync. One left 'syncing' by a dead run is queued too:
 * its job finds the run's lock free (PostgreSQL) and resumes it from its cursor; a live run keeps it.
 */
export async function catchUp(database: Database, enqueue: (accountId: string, name: IntegrationName) => Promise<void>, only?: readonly ('queued' | 'syncing')[]): Promise<number> {
  const rows = await database.kysely
    .selectFrom('integrations')
    .select(['account_id', 'name'])
    .where('configured', '=', true)
    .where('name', 'in', Object.keys(PROVIDERS) as IntegrationName[])
    .$if(only !== undefined, (q) => q.where('sync_status', 'in', [...(only ?? [])]))
    .execute();
  for (const row of rows) await enqueue(row.account_id, row.name);
  return rows.length;
}

/** Marks the integration queued (unless a run is going) and tells its subscribers. */
export async function markQueued(database: Database, accountId: string, name: IntegrationName): Promise<void> {
  await database.kysely
    .updateTable('integrations')
    .set({ sync_status: 'queued', updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .where('configured', '=', true)
    .where('sync_status', '<>', 'syncing')
    .execute();
  await publishAnswer(database.kysely, accountId, name);
}

/**
 * Where syncs of an app go: its queue, or (without one) runs in this process, one at a time per
 * integration (a sync asked for while one runs runs once more after it).
 */
export interface IntegrationRunner {
  enqueue(accountId: string, name: IntegrationName): Promise<void>;
  /** Resolves when every in-process run has finished (tests). */
  settled(): Promise<void>;
  /** Stops in-process runs at once (shutdown): each keeps its cursor. */
  close(): Promise<void>;
}

export function createRunner(deps: SyncDeps, queue: JobQueue | undefined): IntegrationRunner {
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const shutdown = new AbortController();
  const local: SyncDeps = { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, shutdown.signal]) : shutdown.signal };
  const runHere = (accountId: string, name: IntegrationName) => {
    const key = `${accountId}:${name}`;
    if (running.has(key)) {
      again.add(key);
      return;
    }
    // Started on the next turn: the request that queued it answers 'queued' first.
    const run = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      do {
        again.delete(key);
        await runSyncOnce(local, accountId, name).catch((error: unknown) => deps.log.error(`integration ${name} of ${accountId}: ${String(error)}`));
      } while (again.has(key) && !shutdown.signal.aborted);
    })().finally(() => running.delete(key));
    running.set(key, run);
  };
  return {
    async enqueue(accountId, name) {
      await markQueued(deps.database, accountId, name);
      if (queue) await queue.send(INTEGRATION_SYNC_JOB, { accountId, name } satisfies IntegrationSyncJob, { singletonKey: `${accountId}:${name}` });
      else runHere(accountId, name);
    },
    async settled() {
      while (running.size > 0) await Promise.all([...running.values()]);
    },
    async close() {
      shutdown.abort(new Error('shutting down'));
      await this.settled();
    },
  };
}

/** The runner of each app (by its database handle, shared by every plugin context of the app). */
const runners = new WeakMap<Database, IntegrationRunner>();

export function registerRunner(database: Database, runner: IntegrationRunner): void {
  runners.set(database, runner);
}

export function runnerOf(app: FastifyInstance): IntegrationRunner {
  let runner = runners.get(app.db);
  if (!runner) {
    runner = createRunner(appSyncDeps(app), undefined);
    runners.set(app.db, runner);
  }
  return runner;
}

/** Sync deps of an HTTP app: its database, key and URLs; after a sync, the reports recalculate. */
export function appSyncDeps(app: FastifyInstance): SyncDeps {
  return {
    database: app.db,
    secretsKey: secretsKeyOf(app.config),
    urls: app.config.providerUrls ?? DEFAULT_PROVIDER_URLS,
    oauthClients: app.config.oauthClients,
    log: { info: (message) => app.log.info(message), warn: (message) => app.log.warn(message), error: (message) => app.log.error(message) },
    afterSync: (accountId) => afterChange(app, accountId),
  };
}

/** Queues a sync of the integration (the first one, or an incremental one once initially synced). */
export async function enqueueSync(app: FastifyInstance, accountId: string, name: IntegrationName): Promise<void> {
  await runnerOf(app).enqueue(accountId, name);
}

/** Resolves when the app's in-process syncs have finished (tests). */
export async function integrationSyncsSettled(app: FastifyInstance): Promise<void> {
  await runners.get(app.db)?.settled();
}
