import { randomBytes } from 'node:crypto';
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
