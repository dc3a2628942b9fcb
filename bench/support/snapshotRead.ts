import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../server/db/database';
import { migrateToLatest } from '../../server/db/migrate';
import { generateBusiness } from '../../server/demo/generate';
import { seedDemoAccount } from '../../server/demo/seed';
import { loadSnapshot } from '../../server/metrics/loadSnapshot';
import type { AccountSnapshot } from '../../server/metrics/snapshot/columns';
import { loadEcbHistoryIfEmpty } from '../../server/rates/ecbHistory';
import { copyDemoIntoPGlite, copyDemoIntoPostgres } from './bulkSeed';
import { postgresDatabase } from './postgresDatabase';

/**
 * How long reading an account's snapshot takes from each database engine: a fresh database
 * (PGlite in a temporary directory on disk, or a temporary database on the PostgreSQL server),
 * migrated, the shipped ECB history loaded, the demo account written (timed on its own),
 * vacuumed and analyzed (what autovacuum does to a PostgreSQL database in use: statistics, and
 * the visibility hint bits a first scan after a bulk load would otherwise write), the database
 * reopened, then `loadSnapshot` timed.
 * Everything is removed afterwards.
 */

const SEED_CHILD = fileURLToPath(new URL('./seedChild.ts', import.meta.url));

export const DEFAULT_POSTGRES_ADMIN_URL = 'postgres:///postgres?host=/var/run/postgresql&user=root';

export type SnapshotEngine = 'pglite' | 'postgresql';
/** `copy`: bench/support/bulkSeed.ts; `seedDemoAccount`: the product's own seeding (minutes at a million payments). */
export type Seeder = 'copy' | 'seedDemoAccount';

export interface SnapshotReadOptions {
  engine: SnapshotEngine;
  seeder?: Seeder;
  customers: number;
  months: number;
  /** The seeded history ends in this instant's month, on its day. */
  now: Date;
  /** Server to create the temporary database on (PostgreSQL only). */
  adminUrl?: string;
  /** `vacuum analyze` before reading (default true; PGlite has no autovacuum to do it). */
  analyze?: boolean;
  /**
   * PGlite only: a dump of a cluster (`PGlite.dumpDataDir`, uncompressed tar) to start the data
   * directory from, instead of an empty one: the smoke test's migrated cluster, which spares it
   * initdb (untimed setup either way).
   */
  pgliteTemplate?: string;
  log?: (line: string) => void;
}

export interface SnapshotReadResult {
  engine: SnapshotEngine;
  seedMs: number;
  /** The read from the stored copy (server/metrics/snapshotStore.ts), on a fresh connection. */
  snapshotMs: number;
  /** The first read, from the tables (cold), which writes the copy. */
  tablesMs: number;
  /** Writing the copy after the first read. */
  writeMs: number;
  payments: number;
  accountId: string;
  /** Read from the stored copy. */
  snapshot: AccountSnapshot;
  /** Read from the tables. */
  fromTables: AccountSnapshot;
}

interface TemporaryDatabase {
  open: () => Promise<Database>;
  /** Where the bulk seeder writes: the PGlite data directory or the PostgreSQL URL. */
  target: string;
  drop: () => Promise<void>;
}

async function temporaryDatabase(engine: SnapshotEngine, adminUrl: string): Promise<TemporaryDatabase> {
  if (engine === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'subscope-bench-'));
    const dataDir = path.join(dir, 'pgdata');
    return { open: () => openTarget('pglite', dataDir), target: dataDir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await postgresDatabase(adminUrl, 'subscope_bench');
  return {
    open: () => openDatabase({ kind: 'postgresql', url: database.url, poolSize: 2 }),
    target: database.url,
    drop: database.drop,
  };
}

/** What the seeding child needs: everything but the log function. */
interface SeedRequest {
  engine: SnapshotEngine;
  target: string;
  seeder: Seeder;
  customers: number;
  months: number;
  now: string;
  pgliteTemplate?: string;
}

type SeedMessage = { kind: 'log'; line: string } | { kind: 'seeded'; accountId: string; payments: number; seedMs: number };

const openTarget = (engine: SnapshotEngine, target: string, pgliteTemplate?: string) =>
  openDatabase(
    engine === 'pglite'
      ? { kind: 'pglite', dataDir: target, ...(pgliteTemplate ? { loadDataDir: new Blob([readFileSync(pgliteTemplate)]) } : {}) }
      : { kind: 'postgresql', url: target, poolSize: 2 },
  );

/** The seeding, in the child process (`seedChild.ts`): migrate (a no-op on a migrated template), load the ECB history, write the account. */
export async function seedTarget(request: SeedRequest, log: (line: string) => void): Promise<{ accountId: string; payments: number; seedMs: number }> {
  const { engine, target, seeder } = request;
  const now = new Date(request.now);
  let db: Database | null = await openTarget(engine, target, request.pgliteTemplate);
  try {
    await migrateToLatest(db.kysely);
    await loadEcbHistoryIfEmpty(db);
    const seedStart = performance.now();
    const elapsed = () => `${((performance.now() - seedStart) / 1000).toFixed(1)} s`;
    let accountId: string;
    let payments: number;
    if (seeder === 'seedDemoAccount') {
      const seeded = await seedDemoAccount(db.kysely, {
        email: 'bench@example.com',
        password: 'bench-password',
        now,
        customers: request.customers,
        months: request.months,
        onStep: (step, rows) => log(`  ${engine}: seeded ${step} (${rows.toLocaleString('en')} rows) at ${elapsed()}`),
      });
      accountId = seeded.accountId;
      payments = seeded.counts.payments;
    } else {
      // The business seedDemoAccount would generate for this instant.
      const today = request.now.slice(0, 10);
      const business = generateBusiness({ customers: request.customers, months: request.months, endMonth: today.slice(0, 7), today });
      payments = business.payments.length;
      const onTable = (table: string, rows: number) => log(`  ${engine}: copied ${rows.toLocaleString('en')} rows into ${table} at ${elapsed()}`);
      if (engine === 'pglite') {
        // COPY needs the PGlite instance itself: close ours while it writes.
        await db.close();
        db = null;
        accountId = (await copyDemoIntoPGlite(target, business, onTable)).accountId;
      } else {
        accountId = (await copyDemoIntoPostgres(target, business, onTable)).accountId;
      }
    }
    return { accountId, payments, seedMs: performance.now() - seedStart };
  } finally {
    await db?.close();
  }
}

/** Runs `seedTarget` in a child process, so that the process which reads never held the generated rows. */
function seedInChild(request: SeedRequest, log: (line: string) => void): Promise<{ accountId: string; payments: number; seedMs: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(SEED_CHILD, [JSON.stringify(request)], { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
    let result: { accountId: string; payments: number; seedMs: number } | undefined;
    child.on('message', (message: SeedMessage) => {
      if (message.kind === 'log') log(message.line);
      else result = message;
    });
    child.on('error', reject);
    child.on('exit', (code) => (result && code === 0 ? resolve(result) : reject(new Error(`the seeding child exited with ${code}`))));
  });
}

export async function measureSnapshotRead(options: SnapshotReadOptions): Promise<SnapshotReadResult> {
  const log = options.log ?? (() => {});
  const seeder = options.seeder ?? 'copy';
  const { engine } = options;
  const temporary = await temporaryDatabase(engine, options.adminUrl ?? DEFAULT_POSTGRES_ADMIN_URL);
  let db: Database | null = null;
  try {
    const { accountId, payments, seedMs } = await seedInChild(
      {
        engine,
        target: temporary.target,
        seeder,
        customers: options.customers,
        months: options.months,
        now: options.now.toISOString(),
        ...(engine === 'pglite' && options.pgliteTemplate ? { pgliteTemplate: options.pgliteTemplate } : {}),
      },
      log,
    );
    // Statistics as a database in use has them, then a fresh connection for the read.
    db = await temporary.open();
    if (options.analyze !== false) await db.executeSql('vacuum analyze');
    await db.close();
    // 1. From the tables, cold, as the first read after data changed; it writes the stored copy.
    db = await temporary.open();
    let readStart = performance.now();
    const steps: string[] = [];
    let write: Promise<boolean> | undefined;
    const fromTables = await loadSnapshot(db, accountId, { onStep: (step, ms) => steps.push(`${step} ${ms.toFixed(0)} ms`), onStoreWrite: (w) => (write = w) });
    const tablesMs = performance.now() - readStart;
    log(`  ${engine}: read the snapshot from the tables in ${(tablesMs / 1000).toFixed(2)} s (${steps.join(', ')})`);
    const writeStart = performance.now();
    if (!(await write)) throw new Error(`${engine}: the stored copy was not written`);
    const writeMs = performance.now() - writeStart;
    const { rows } = await db.executeSql(`select sum(octet_length(body)) as bytes from metrics_snapshot_copies where account_id = $1`, [accountId]);
    log(`  ${engine}: wrote the stored copy (${(Number(rows[0]?.bytes) / 1e6).toFixed(0)} MB) in ${(writeMs / 1000).toFixed(2)} s`);
    await db.close();
    // 2. From the stored copy, on a fresh connection (as after a restart).
    db = await temporary.open();
    let source: string | undefined;
    readStart = performance.now();
    const snapshot = await loadSnapshot(db, accountId, { onSource: (s) => (source = s) });
    const snapshotMs = performance.now() - readStart;
    if (source !== 'store') throw new Error(`${engine}: the second read came from the ${String(source)}`);
    log(`  ${engine}: read the snapshot from the stored copy in ${(snapshotMs / 1000).toFixed(2)} s`);
    return { engine, seedMs, snapshotMs, tablesMs, writeMs, payments, accountId, snapshot, fromTables };
  } finally {
    await db?.close();
    await temporary.drop();
  }
}
