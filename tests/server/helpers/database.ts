import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../../server/db/database';
import { migrateToLatest } from '../../../server/db/migrate';

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

async function migratedPGliteDump(): Promise<Blob> {
  return new Blob([readFileSync(await migratedPGliteDumpFile())]);
}

/** A fresh, empty, migrated database; `close()` drops it. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  let db: Database;
  let url: string | undefined;
  let drop = async () => {};
  if (adminUrl) {
    const name = `subscope_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const parsed = new URL(adminUrl);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
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
