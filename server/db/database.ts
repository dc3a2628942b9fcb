import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
  /**
   * The values of a query's single bytea column, fetched in binary (no hex text: the stored
   * metrics snapshots are tens of megabytes). `values` are strings or numbers.
   */
  readBytes(text: string, values: readonly (string | number)[]): Promise<Uint8Array[]>;
  /**
   * Inserts rows holding large bytea values, sent in binary, inside a transaction of this
   * database's `kysely` (PGlite would send parameters as hex text, encoded a byte at a time).
   */
  insertBinaryRows(trx: Transaction<DB>, table: string, columns: readonly BinaryColumn[], rows: readonly BinaryValue[][]): Promise<void>;
  /**
   * Runs `work` on one connection of its own (PostgreSQL; PGlite has only one), with bulk
   * operations that run on that connection, so they can take part in a transaction begun
   * with the session's `kysely`. On PGlite they must be called inside such a transaction
   * (it holds the engine's lock).
   */
  session<T>(work: (session: Session) => Promise<T>): Promise<T>;
  /** PGlite only: its whole data directory as an uncompressed tar (for `loadDataDir`). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface Session {
  /** Queries on the session's connection. */
  readonly kysely: Kysely<DB>;
  /** `COPY table (columns) FROM` text-format rows: tab-separated, newline-ended, escaped (`copyText`, db/copyText.ts). */
  copyIn(table: string, columns: readonly string[], rows: string | Uint8Array): Promise<void>;
  /** As Database.readBytes, on the session's connection. */
  readBytes(text: string, values: readonly (string | number)[]): Promise<Uint8Array[]>;
}

export type BinaryColumnType = 'text' | 'int4' | 'int8' | 'text[]' | 'bytea';
export interface BinaryColumn {
  name: string;
  type: BinaryColumnType;
}
export type BinaryValue = string | number | readonly string[] | Uint8Array;

export type DatabaseOptions =
  | { kind: 'postgresql'; url: string; poolSize?: number }
  /** `dataDir` undefined means in memory (tests). */
  | {
      kind: 'pglite';
      dataDir?: string;
      /** Start from this dump of a data directory (`PGlite.dumpDataDir`) instead of an empty cluster (tests start from a migrated one). */
      loadDataDir?: Blob;
    };

const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

/** int8 as number (counts and minor units stay far below 2^53), dates as 'YYYY-MM-DD', numeric as string. */
const parseInt8 = (value: string) => Number(value);
/** A string or number as an SQL literal (standard_conforming_strings is on in both engines). */
function literal(value: string | number | undefined): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw new TypeError(`cannot inline ${String(value)}`);
  return `'${value.replace(/'/g, "''")}'`;
}

/** The query with its $n parameters replaced by literals (COPY takes no parameters). */
const inline = (text: string, values: readonly (string | number)[]) => text.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]));

const COPY_SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];

const TEXT_OID = 25;
const utf8 = new TextEncoder();

/** One value in the binary COPY format: its length, then its bytes. */
function binaryField(type: BinaryColumnType, value: BinaryValue): Uint8Array[] {
  const length = (n: number) => {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setInt32(0, n);
    return out;
  };
  switch (type) {
    case 'bytea': {
      const bytes = value as Uint8Array;
      return [length(bytes.byteLength), bytes];
    }
    case 'text': {
      const bytes = utf8.encode(String(value));
      return [length(bytes.byteLength), bytes];
    }
    case 'int4':
    case 'int8': {
      const size = type === 'int4' ? 4 : 8;
      const out = new Uint8Array(4 + size);
      const view = new DataView(out.buffer);
      view.setInt32(0, size);
      if (size === 4) view.setInt32(4, Number(value));
      else view.setBigInt64(4, BigInt(value as number));
      return [out];
    }
    case 'text[]': {
      // ndim, has-null flag, element type, then per dimension its size and lower bound.
      const items = (value as readonly string[]).map((item) => utf8.encode(item));
      const head = new Uint8Array(20);
      const view = new DataView(head.buffer);
      view.setInt32(0, 1);
      view.setInt32(4, 0);
      view.setInt32(8, TEXT_OID);
      view.setInt32(12, items.length);
      view.setInt32(16, 1);
      const body = items.flatMap((item) => [length(item.byteLength), item]);
      const size = 20 + body.reduce((sum, part) => sum + part.byteLength, 0);
      return [length(size), head, ...body];
    }
  }
}

/** Rows in PostgreSQL's binary COPY file format (documented with COPY), as parts of a Blob. */
export function binaryCopyOf(columns: readonly BinaryColumn[], rows: readonly BinaryValue[][]): Uint8Array[] {
  const header = new Uint8Array(COPY_SIGNATURE.length + 8);
  header.set(COPY_SIGNATURE);
  const parts: Uint8Array[] = [header];
  for (const row of rows) {
    const count = new Uint8Array(2);
    new DataView(count.buffer).setInt16(0, columns.length);
    parts.push(count);
    for (const [k, column] of columns.entries()) parts.push(...binaryField(column.type, row[k] as BinaryValue));
  }
  parts.push(new Uint8Array([0xff, 0xff]));
  return parts;
}

/** The first column of each tuple of a binary COPY (PostgreSQL's documented file format), as views of `bytes`. */
export function parseBinaryCopy(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < COPY_SIGNATURE.length; k++) if (bytes[k] !== COPY_SIGNATURE[k]) throw new Error('not a binary COPY');
  let at = COPY_SIGNATURE.length + 4;
  at += 4 + view.getInt32(at);
  const out: Uint8Array[] = [];
  for (;;) {
    const fields = view.getInt16(at);
    at += 2;
    if (fields === -1) return out;
    for (let field = 0; field < fields; field++) {
      const length = view.getInt32(at);
      at += 4;
      if (length < 0) {
        if (field === 0) throw new Error('a NULL value in a binary COPY of bytes');
        continue;
      }
      if (field === 0) out.push(bytes.subarray(at, at + length));
      at += length;
    }
  }
}
const keepText = (value: string) => value;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgresql' ? openPostgres(options.url, options.poolSize) : openPGlite(options.dataDir, options.loadDataDir);
}

async function openPGlite(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<Database> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pglite: PGlite;
  try {
    // Loaded only when used: a server on PostgreSQL does not pay the embedded engine's module (~35 MB resident).
    const { PGlite } = await import('@electric-sql/pglite');
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(loadDataDir ? { loadDataDir } : {}),
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
    // PGlite returns bytea as hex text; a binary COPY into its in-memory blob device does not.
    // COPY takes no parameters: the values are inlined as literals.
    readBytes: (text, values) =>
      lock.run(async () => {
        const result = await pglite.query(`copy (${inline(text, values)}) to '/dev/blob' with (format binary)`);
        if (!result.blob) return [];
        return parseBinaryCopy(new Uint8Array(await result.blob.arrayBuffer()));
      }),
    // A binary COPY from PGlite's blob device; the transaction holds the only connection (and
    // the lock), so the COPY runs inside it.
    insertBinaryRows: async (_trx, table, columns, rows) => {
      const blob = new Blob(binaryCopyOf(columns, rows) as BlobPart[]);
      await pglite.query(`copy ${table} (${columns.map((c) => c.name).join(', ')}) from '/dev/blob' with (format binary)`, [], { blob });
    },
    session: (work) =>
      work({
        kysely,
        copyIn: async (table, columns, rows) => {
          await pglite.query(`copy ${table} (${columns.join(', ')}) from '/dev/blob'`, [], { blob: new Blob([rows as BlobPart]) });
        },
        readBytes: async (text, values) => {
          const result = await pglite.query(`copy (${inline(text, values)}) to '/dev/blob' with (format binary)`);
          return result.blob ? parseBinaryCopy(new Uint8Array(await result.blob.arrayBuffer())) : [];
        },
      }),
    dumpDataDir: () => lock.run(() => pglite.dumpDataDir('none')),
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
    // node-postgres decodes every result value as UTF-8 text (its protocol parser has no binary
    // mode): a binary COPY streams the bytes untouched.
    readBytes: async (text, values) => {
      const client = await pool.connect();
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of client.query(copyTo(`copy (${inline(text, values)}) to stdout with (format binary)`))) chunks.push(chunk as Buffer);
        return parseBinaryCopy(Buffer.concat(chunks));
      } finally {
        client.release();
      }
    },
    // node-postgres binds Buffers as binary parameters.
    insertBinaryRows: async (trx, table, columns, rows) => {
      for (const row of rows) {
        const values = row.map((value, k) =>
          value instanceof Uint8Array ? sql`${Buffer.from(value.buffer, value.byteOffset, value.byteLength)}` : sql`${value}::${sql.raw(columns[k]?.type ?? 'text')}`,
        );
        await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))}) values (${sql.join(values)})`.execute(trx);
      }
    },
    session: async (work) => {
      const client = await pool.connect();
      // Kysely over this one client: its transactions run where the COPYs below run.
      const one = { query: client.query.bind(client), release: () => {} } as unknown as pg.PoolClient;
      const sessionKysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool: { connect: async () => one, end: async () => {} } as unknown as pg.Pool }) });
      let broken = false;
      try {
        return await work({
          kysely: sessionKysely,
          copyIn: async (table, columns, rows) => {
            const data = typeof rows === 'string' ? rows : Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength);
            await pipeline(Readable.from([data]), client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`)));
          },
          readBytes: async (text, values) => {
            const chunks: Buffer[] = [];
            for await (const chunk of client.query(copyTo(`copy (${inline(text, values)}) to stdout with (format binary)`))) chunks.push(chunk as Buffer);
            return parseBinaryCopy(Buffer.concat(chunks));
          },
        });
      } catch (error) {
        // A connection left mid-COPY or mid-transaction is not given back to the pool.
        broken = true;
        throw error;
      } finally {
        await sessionKysely.destroy();
        client.release(broken);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all(listeners.map((client) => client.end()));
      await kysely.destroy(); // ends the pool
    },
  };
}
