import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';
import type { BinaryColumn, Database } from '../db/database';
import { KeyIndex, type KeyIndexState } from './keyIndex';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * The stored copy of each account's built snapshot (migration 0004, docs/metrics.md "Reading the
 * snapshot").
 *
 * Reading an account from its tables means aggregating four million tuples and turning them
 * into columns: about 5 s on PGlite's single-threaded WASM engine at a million payments, 3 s on
 * PostgreSQL. The result changes only when the account's data does. So after a read from the
 * tables the built snapshot is serialized (V8's structured serialization: typed arrays are
 * copied as bytes) and written to `metrics_snapshot_copies` under the account's data version;
 * the next read (after a restart, or after this process evicted it) fetches those bytes in
 * binary and deserializes them.
 *
 * Never stale, by construction: triggers raise `accounts.data_version` inside every transaction
 * that changes anything the snapshot is built from, and a copy is used only when it carries the
 * current version. The writer checks the version under a share lock on the account row, so a
 * write that committed after the tables were read makes the copy unusable before it exists. The
 * copy also records its format: a hash of the engine's source files and V8's serialization
 * version, so a copy written by other code is never read (it is replaced on the next read).
 */

/** Chunks of at most 32 MB (a bytea value may hold 1 GB, a parameter is sent whole). */
const CHUNK = 32 * 1024 * 1024;

/** The engine's code (every file of server/metrics) and V8's serialization format. */
export const SNAPSHOT_STORE_FORMAT: string = (() => {
  const hash = createHash('sha256');
  const directory = new URL('./', import.meta.url);
  for (const name of readdirSync(directory).filter((file) => file.endsWith('.ts')).sort()) {
    hash.update(name);
    hash.update(readFileSync(new URL(name, directory)));
  }
  hash.update(`v8:${v8.cachedDataVersionTag()}`);
  return hash.digest('hex').slice(0, 32);
})();

const COPY_COLUMNS: BinaryColumn[] = [
  { name: 'account_id', type: 'text' },
  { name: 'chunk_no', type: 'int4' },
  { name: 'chunks', type: 'int4' },
  { name: 'data_version', type: 'int8' },
  { name: 'format', type: 'text' },
  { name: 'currencies', type: 'text[]' },
  { name: 'body', type: 'bytea' },
];

interface Serialized {
  snapshot: Omit<AccountSnapshot, 'payments'> & { payments: Omit<AccountSnapshot['payments'], 'ids'> };
  paymentIds: KeyIndexState;
}

export function serializeSnapshot(snapshot: AccountSnapshot): Buffer {
  const index = KeyIndex.of(snapshot.payments.ids);
  if (!index) throw new Error('the snapshot was not built by the snapshot builder');
  const { ids: _ids, ...payments } = snapshot.payments;
  const value: Serialized = { snapshot: { ...snapshot, payments }, paymentIds: index.exportState() };
  return v8.serialize(value);
}

export function deserializeSnapshot(bytes: Uint8Array): AccountSnapshot {
  const { snapshot, paymentIds } = v8.deserialize(bytes) as Serialized;
  return { ...snapshot, payments: { ...snapshot.payments, ids: KeyIndex.fromState(paymentIds).toStringColumn() } };
}

export interface StoredCopyProbe {
  /** The account's data version now. */
  version: number;
  /** Whether a copy at this version, of this format, holding rates of every currency asked for, exists. */
  usable: boolean;
}

/**
 * Whether the account has a usable copy (null: no such account). Besides `currencies`, the copy
 * must hold rates for every currency a report of the account is shown in (the table read loads those).
 */
export async function probeStoredCopy(db: Database, accountId: string, currencies: readonly string[]): Promise<StoredCopyProbe | null> {
  const { rows } = await db.executeSql(
    `select a.data_version,
            (select count(*) from metrics_snapshot_copies c
              where c.account_id = a.id and c.data_version = a.data_version and c.format = $2
                and c.currencies @> ($3::text[]
                  || array(select currency from report_settings where account_id = a.id and currency is not null)
                  || array(select currency from business_reports where account_id = a.id and currency is not null))) as chunks,
            (select min(c.chunks) from metrics_snapshot_copies c where c.account_id = a.id and c.data_version = a.data_version and c.format = $2) as expected
       from accounts a where a.id = $1`,
    [accountId, SNAPSHOT_STORE_FORMAT, [...currencies]],
  );
  const [row] = rows;
  if (!row) return null;
  const chunks = Number(row.chunks);
  return { version: Number(row.data_version), usable: chunks > 0 && chunks === Number(row.expected) };
}

/**
 * The stored snapshot at `version`, or null when it is gone (written over since the probe).
 * One statement: the chunks come from one committed copy.
 */
export async function readStoredCopy(db: Database, accountId: string, version: number): Promise<AccountSnapshot | null> {
  const chunks = await db.readBytes(
    `select body from metrics_snapshot_copies where account_id = $1 and data_version = $2 and format = $3 order by chunk_no`,
    [accountId, version, SNAPSHOT_STORE_FORMAT],
  );
  if (chunks.length === 0) return null;
  return deserializeSnapshot(chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks));
}

/**
 * Writes the copy of a snapshot built at `version`, with ECB rates for `currencies`. False when
 * the account was written since (the copy would be stale) or is gone. One transaction: the copy
 * is complete or absent.
 */
export async function writeStoredCopy(db: Database, accountId: string, version: number, currencies: readonly string[], snapshot: AccountSnapshot): Promise<boolean> {
  const bytes = serializeSnapshot(snapshot);
  const count = Math.max(1, Math.ceil(bytes.length / CHUNK));
  const written = await db.kysely.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('accounts').select('data_version').where('id', '=', accountId).forShare().executeTakeFirst();
    if (!current || Number(current.data_version) !== version) return false;
    await trx.deleteFrom('metrics_snapshot_copies').where('account_id', '=', accountId).execute();
    const rows = Array.from({ length: count }, (_, chunk) => [accountId, chunk, count, version, SNAPSHOT_STORE_FORMAT, [...currencies], bytes.subarray(chunk * CHUNK, (chunk + 1) * CHUNK)]);
    await db.insertBinaryRows(trx, 'metrics_snapshot_copies', COPY_COLUMNS, rows);
    return true;
  });
  // PGlite has no autovacuum: reclaim the copy this one replaced.
  if (written && db.kind === 'pglite') await db.executeSql('vacuum metrics_snapshot_copies');
  return written;
}

/** Drops an account's stored copy. */
export async function dropStoredCopy(db: Database, accountId: string): Promise<void> {
  await db.kysely.deleteFrom('metrics_snapshot_copies').where('account_id', '=', accountId).execute();
}
