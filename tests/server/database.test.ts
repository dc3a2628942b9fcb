import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPaymentId } from '../../models/payments';
import { newCustomerId } from '../../server/customers/ids';
import { openDatabase, type Database } from '../../server/db/database';
import { migrateToLatest, migrationNames } from '../../server/db/migrate';
import { createTestDatabase, testEngine, type TestDatabase } from './helpers/database';

describe(`query layer on ${testEngine}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await sql`create table probe (id int primary key, note text, day date, amount bigint, ratio numeric(10,4))`.execute(db.kysely);
  });
  afterAll(() => db.close());

  it('returns dates as YYYY-MM-DD strings, int8 as numbers and numeric as strings on both engines', async () => {
    await sql`insert into probe values (1, 'a', '2024-02-29', 123456789012, 4.2400)`.execute(db.kysely);
    const { rows } = await sql<{ day: unknown; amount: unknown; ratio: unknown }>`select day, amount, ratio from probe where id = 1`.execute(db.kysely);
    expect(rows[0]).toEqual({ day: '2024-02-29', amount: 123456789012, ratio: '4.2400' });
  });

  it('keeps a rolled-back transaction invisible to queries running at the same time', async () => {
    // Ordered by events, not by sleeps: the other write is sent once the transaction has
    // written, and the transaction fails once that write has been sent.
    let markWritten!: () => void;
    let markSent!: () => void;
    const written = new Promise<void>((resolve) => (markWritten = resolve));
    const sent = new Promise<void>((resolve) => (markSent = resolve));
    const failing = db.kysely.transaction().execute(async (trx) => {
      await sql`insert into probe (id, note) values (10, 'rolled back')`.execute(trx);
      markWritten();
      await sent;
      throw new Error('abort');
    });
    const concurrent = (async () => {
      await written;
      const write = sql`insert into probe (id, note) values (11, 'committed')`.execute(db.kysely);
      markSent();
      await write;
    })();
    await expect(failing).rejects.toThrow('abort');
    await concurrent;
    const { rows } = await sql<{ id: number }>`select id from probe where id in (10, 11) order by id`.execute(db.kysely);
    expect(rows.map((r) => r.id)).toEqual([11]);
  });

  it('sorts generated payment and customer ids in the order they were made (their keys land on the right edge of an index)', async () => {
    const ids: string[] = [];
    const started = Date.now();
    // Over several milliseconds, many ids in each.
    while (Date.now() - started < 5 || ids.length < 2_000) ids.push(newPaymentId(), newPaymentId(), newCustomerId());
    const payments = ids.filter((id) => id.startsWith('subh'));
    const customers = ids.filter((id) => id.startsWith('cus'));
    for (const made of [payments, customers]) {
      const { rows } = await sql<{ id: string }>`select id from unnest(${made}::text[]) as x(id) order by id`.execute(db.kysely);
      expect(rows.map((row) => row.id)).toEqual(made);
    }
  });

  it('reports affected rows of writes', async () => {
    const result = await sql`update probe set note = 'x' where id in (1, 11)`.execute(db.kysely);
    expect(Number(result.numAffectedRows)).toBe(2);
  });

  it('runs a multi-statement script through executeSql', async () => {
    const { rows } = await db.executeSql("update probe set note = 'y' where id = 1; select note from probe where id = 1");
    expect(rows).toEqual([{ note: 'y' }]);
  });

  it('delivers NOTIFY payloads to listeners', async () => {
    const received: string[] = [];
    const stop = await db.listen('probe_channel', (payload) => received.push(payload));
    await db.notify('probe_channel', 'hello');
    await expect.poll(() => received, { timeout: 5_000 }).toEqual(['hello']);
    await stop();
  });
});

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(() => db.close());

  it('apply every migration once, then find nothing to do', async () => {
    const first = await migrateToLatest(db.kysely);
    expect(first.results?.map((r) => [r.migrationName, r.status])).toEqual(migrationNames.map((name) => [name, 'Success']));
    const second = await migrateToLatest(db.kysely);
    expect(second.results).toEqual([]);
  });

  it('run concurrently without applying anything twice', async () => {
    const results = await Promise.all([migrateToLatest(db.kysely), migrateToLatest(db.kysely)]);
    expect(results.flatMap((r) => r.results ?? [])).toEqual([]);
  });
});

// Embedded storage is tested in every pass: it is what `npm start` uses by default.
describe('embedded storage on disk', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'subscope-db-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps data and migration state across a close and reopen', async () => {
    let db: Database = await openDatabase({ kind: 'pglite', dataDir });
    await migrateToLatest(db.kysely);
    await sql`insert into exchange_rates (day, currency, rate_per_eur) values ('2025-01-02', 'USD', 1.0321)`.execute(db.kysely);
    await db.close();

    db = await openDatabase({ kind: 'pglite', dataDir });
    const again = await migrateToLatest(db.kysely);
    expect(again.results).toEqual([]);
    const { rows } = await sql<{ rate_per_eur: string }>`select rate_per_eur from exchange_rates where currency = 'USD'`.execute(db.kysely);
    expect(Number(rows[0]?.rate_per_eur)).toBeCloseTo(1.0321);
    await db.close();
  });

  it('refuses a second process-level open of the same data directory while the first is open', async () => {
    const db = await openDatabase({ kind: 'pglite', dataDir });
    try {
      // The lock file names this process; simulate another live owner by writing the parent's pid.
      const { writeFileSync } = await import('node:fs');
      writeFileSync(path.join(dataDir, 'subscope.pid'), String(process.ppid));
      await expect(openDatabase({ kind: 'pglite', dataDir })).rejects.toThrow(/is in use by process/);
    } finally {
      await db.close();
    }
  });
});
