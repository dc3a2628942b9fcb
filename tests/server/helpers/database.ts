import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../../server/db/database';
import { migrateToLatest } from '../../../server/db/migrate';
import { ECB_HISTORY_FILE, loadEcbHistoryIfEmpty } from '../../../server/rates/ecbHistory';

/**
 * The engine a server test runs on: in-memory PGlite by default, or a fresh database on the
 * PostgreSQL server named by DATABASE_URL (CI runs the server project once more that way).
 */
export const testEngine: 'pglite' | 'postgresql' = process.env.DATABASE_URL ? 'postgresql' : 'pglite';

export interface TestDatabase extends Database {
  /** Connection URL of the throwaway PostgreSQL database (undefined on PGlite). */
  readonly url: string | undefined;
}

const root = path.resolve(import.meta.dirname, '../../..');

/** What a migrated cluster is made of: the migrations and the engine's version. */
function migrationsKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(root, 'server/db/migrations');
  for (const name of readdirSync(migrations).sort()) hash.update(name).update(readFileSync(path.join(migrations, name)));
  hash.update(readFileSync(path.join(root, 'server/db/migrate.ts')));
  hash.update(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A dump of a freshly migrated PGlite cluster, made once per change of the migrations and
 * kept in `.tmp/` (several test processes may make it at once: each writes its own file and
 * renames it into place); the answer is the dump's file (an uncompressed tar, for PGlite's
 * `loadDataDir`). Every server test file starts one or more databases; starting from the dump
 * skips initdb and the migrations, seconds per database on this machine. The migrations
 * themselves are still run on each (a no-op) and tested from empty by their own test.
 */
export async function migratedPGliteDumpFile(): Promise<string> {
  const file = path.join(root, '.tmp/pglite-template', `${migrationsKey()}.tar`);
  if (existsSync(file)) return file;
  const db = await openDatabase({ kind: 'pglite' });
  await migrateToLatest(db.kysely);
  const dump = await db.dumpDataDir?.();
  await db.close();
  if (!dump) throw new Error('PGlite could not dump its data directory');
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
  renameSync(partial, file);
  // Dumps of earlier migrations (42 MB each) are of no more use.
  for (const name of readdirSync(path.dirname(file))) if (name.endsWith('.tar') && name !== path.basename(file)) rmSync(path.join(path.dirname(file), name), { force: true });
  return file;
}

/**
 * A PGlite data directory as a server's first boot leaves it before the demo seed: the cluster,
 * the migrations and the shipped ECB rates (about 210,000 rows). Made once per change of those
 * and kept in `.tmp/pglite-server-template/` (built in a directory of its own, then renamed into
 * place, so processes making it at once do not clash). `copyBootedPGliteDataDir` copies it into a
 * spawned server's fresh DATA_DIR: that spares the process initdb and the rate load, about ten
 * seconds a start on this machine. The server still runs its migrations and the rate check on it
 * (both find nothing to do); `tests/server/process.test.ts` starts on an empty directory, as a new
 * installation does.
 */
export async function bootedPGliteDataDir(): Promise<string> {
  const key = createHash('sha256')
    .update(migrationsKey())
    .update(readFileSync(ECB_HISTORY_FILE))
    .update(readFileSync(path.join(root, 'server/rates/ecbHistory.ts')))
    .digest('hex')
    .slice(0, 16);
  const parent = path.join(root, '.tmp/pglite-server-template');
  const dir = path.join(parent, key);
  if (existsSync(dir)) return dir;
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const db = await openDatabase({ kind: 'pglite', dataDir: partial, loadDataDir: await migratedPGliteDump() });
  try {
    await migrateToLatest(db.kysely);
    await loadEcbHistoryIfEmpty(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another process put its copy in place first: use that one.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  // Templates of earlier migrations or rates are of no more use.
  for (const name of readdirSync(parent)) if (name !== key && !name.endsWith('.partial')) rmSync(path.join(parent, name), { recursive: true, force: true });
  return dir;
}

/** Fills an empty (or missing) DATA_DIR with the booted template above. */
export async function copyBootedPGliteDataDir(dataDir: string): Promise<void> {
  cpSync(await bootedPGliteDataDir(), dataDir, { recursive: true });
}

let dump: Promise<Blob> | undefined;

/**
 * The migrated cluster's dump (migratedPGliteDumpFile) as a Blob, read once per test process (the server project's files share one
 * module graph per worker): a Blob cannot change, and reading the 42 MB file for every database
 * was about a tenth of making one.
 */
function migratedPGliteDump(): Promise<Blob> {
  dump ??= migratedPGliteDumpFile().then((file) => new Blob([readFileSync(file)]));
  return dump;
}

const databaseUrl = (adminUrl: string, name: string): string => {
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  return parsed.toString();
};

let migratedTemplate: Promise<string> | undefined;

/**
 * PostgreSQL: a database migrated once per change of the migrations, for `create database ...
 * template` (a copy of its files, where migrating a new database took about half a second on
 * this machine, at every database the PostgreSQL pass makes). Made under an advisory lock, so
 * test processes starting together make it once; templates of earlier migrations are dropped.
 */
function migratedPostgresTemplate(adminUrl: string): Promise<string> {
  migratedTemplate ??= (async () => {
    const name = `subscope_test_template_${migrationsKey()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`select pg_advisory_lock(hashtext('subscope.test_template'))`);
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (!rowCount) {
        const stale = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', ['subscope\\_test\\_template\\_%']);
        // Earlier migrations' templates, and a making of this one cut off before its rename.
        for (const { datname } of stale.rows) await admin.query(`drop database if exists ${datname} with (force)`);
        await admin.query(`create database ${name}_partial`);
        const db = await openDatabase({ kind: 'postgresql', url: databaseUrl(adminUrl, `${name}_partial`), poolSize: 1 });
        try {
          await migrateToLatest(db.kysely);
        } finally {
          await db.close();
        }
        // Renamed once whole: a template whose making was cut off is never used.
        await admin.query(`alter database ${name}_partial rename to ${name}`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return migratedTemplate;
}

/** A fresh, empty, migrated database; `close()` drops it. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  let db: Database;
  let url: string | undefined;
  let drop = async () => {};
  if (adminUrl) {
    const name = `subscope_test_${randomBytes(6).toString('hex')}`;
    const template = options.migrate !== false ? await migratedPostgresTemplate(adminUrl) : undefined;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
    await admin.end();
    url = databaseUrl(adminUrl, name);
    db = await openDatabase({ kind: 'postgresql', url, poolSize: 4 });
    drop = async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  } else if (options.migrate !== false) {
    db = await openDatabase({ kind: 'pglite', loadDataDir: await migratedPGliteDump() });
  } else {
    db = await openDatabase({ kind: 'pglite' });
  }
  if (options.migrate !== false) await migrateToLatest(db.kysely);
  const close = db.close;
  return Object.assign(db, {
    url,
    close: async () => {
      await close();
      await drop();
    },
  });
}
