import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { lockDataDir } from './dataDirLock';
import { PGliteDialect } from './pgliteDialect';
import type { DB } from './schema';
import { SerialLock } from './serialLock';

export type DatabaseKind = 'pglite' | 'postgresql';

/**
 * One storage handle for the process: a Kysely query builder plus the few raw operations
 * that sit beside it (plain SQL for the job queue, LISTEN/NOTIFY for live fan-out).
 * The same migrations and queries run on both engines.
 */
export interface Database {
  readonly kind: DatabaseKind;
  readonly kysely: Kysely<DB>;
  /** Plain SQL; with no values it may hold several statements (the last result is returned). */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { kind: 'postgresql'; url: string; poolSize?: number }
  /** `dataDir` undefined means in memory (tests). */
  | { kind: 'pglite'; dataDir?: string };

const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

/** int8 as number (counts and minor units stay far below 2^53), dates as 'YYYY-MM-DD', numeric as string. */
const parseInt8 = (value: string) => Number(value);
const keepText = (value: string) => value;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgresql' ? openPostgres(options.url, options.poolSize) : openPGlite(options.dataDir);
}

async function openPGlite(dataDir: string | undefined): Promise<Database> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      parsers: { [INT8]: parseInt8, [DATE]: keepText, [NUMERIC]: keepText },
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const lock = new SerialLock();
  const kysely = new Kysely<DB>({ dialect: new PGliteDialect(pglite, lock) });
  let closed = false;
  return {
    kind: 'pglite',
    kysely,
    executeSql: (text, values) =>
      lock.run(async () => {
        if (values && values.length > 0) {
          const result = await pglite.query<Record<string, unknown>>(text, values);
          return { rows: result.rows };
        }
        const results = await pglite.exec(text);
        return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
      }),
    listen: async (channel, onPayload) => {
      const stop = await lock.run(() => pglite.listen(channel, onPayload));
      return () => lock.run(() => stop());
    },
    notify: (channel, payload) =>
      lock.run(async () => {
        await pglite.query('select pg_notify($1, $2)', [channel, payload]);
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      await kysely.destroy();
      await lock.run(() => pglite.close());
      unlock();
    },
  };
}

async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') => {
      if (oid === INT8) return parseInt8;
      if (oid === DATE || oid === NUMERIC) return keepText;
      return pg.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
  let closed = false;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types });
  // An idle connection can die (server restart, admin termination); the pool replaces it.
  // Without a listener that error would crash the process.
  pool.on('error', (error) => {
    if (!closed) console.error('[db] idle PostgreSQL connection lost:', error.message);
  });
  // Fail fast with a clear message when the server cannot be reached.
  const probe = await pool.connect();
  probe.release();
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const listeners: pg.Client[] = [];
  return {
    kind: 'postgresql',
    kysely,
    executeSql: async (text, values) => {
      const result = await pool.query(text, values);
      const last = Array.isArray(result) ? result.at(-1) : result;
      return { rows: (last?.rows ?? []) as Record<string, unknown>[] };
    },
    listen: async (channel, onPayload) => {
      const client = new pg.Client({ connectionString: url, types });
      client.on('error', (error) => {
        if (!closed) console.error(`[db] LISTEN ${channel} connection lost:`, error.message);
      });
      await client.connect();
      listeners.push(client);
      client.on('notification', (message) => {
        if (message.channel === channel) onPayload(message.payload ?? '');
      });
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      return async () => {
        listeners.splice(listeners.indexOf(client), 1);
        await client.end();
      };
    },
    notify: async (channel, payload) => {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all(listeners.map((client) => client.end()));
      await kysely.destroy(); // ends the pool
    },
  };
}
