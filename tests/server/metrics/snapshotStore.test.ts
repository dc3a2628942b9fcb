import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { binaryCopyOf, parseBinaryCopy } from '../../../server/db/database';
import { SNAPSHOT_INPUT_TABLES } from '../../../server/db/migrations/0004_snapshot_store';
import { seedDemoAccount, type SeedDemoResult } from '../../../server/demo/seed';
import { dayFromIso } from '../../../server/metrics/days';
import { loadSnapshot } from '../../../server/metrics/loadSnapshot';
import { computeMrrSeries } from '../../../server/metrics/mrrSeries';
import type { AccountSnapshot } from '../../../server/metrics/snapshot/columns';
import { serializeSnapshot, SNAPSHOT_STORE_FORMAT, writeStoredCopy } from '../../../server/metrics/snapshotStore';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

const NOW = new Date('2025-04-20T10:00:00Z');
/** ECB rates on the first business days of the seeded months. */
const RATES = ['2024-10-01', '2024-11-01', '2024-12-02', '2025-01-02', '2025-02-03', '2025-03-03', '2025-04-01'].flatMap((day, k) => [
  { day, currency: 'USD', rate_per_eur: (1.05 + k * 0.01).toFixed(4) },
  { day, currency: 'PLN', rate_per_eur: (4.2 + k * 0.02).toFixed(4) },
]);

interface Read {
  snapshot: AccountSnapshot;
  source: 'store' | 'tables' | undefined;
  written: boolean | undefined;
}

describe(`the stored snapshot copy on ${testEngine}`, () => {
  let db: TestDatabase;
  let mine: SeedDemoResult;
  let theirs: SeedDemoResult;

  /** One read, and the background write it started (awaited). */
  async function read(accountId: string, extraCurrencies: string[] = []): Promise<Read> {
    let source: Read['source'];
    let write: Promise<boolean> | undefined;
    const snapshot = await loadSnapshot(db, accountId, { extraCurrencies, onSource: (s) => (source = s), onStoreWrite: (w) => (write = w) });
    return { snapshot, source, written: write ? await write : undefined };
  }

  /** Reads until the account has a current copy. */
  async function stored(accountId: string): Promise<void> {
    const first = await read(accountId);
    if (first.source === 'tables') expect(first.written).toBe(true);
    expect((await read(accountId)).source).toBe('store');
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    mine = await seedDemoAccount(db.kysely, { email: 'mine@example.com', password: 'pw-mine', now: NOW, customers: 40, months: 6, seed: 21 });
    theirs = await seedDemoAccount(db.kysely, { email: 'theirs@example.com', password: 'pw-theirs', now: NOW, customers: 30, months: 4, seed: 22 });
    await db.kysely.insertInto('exchange_rates').values(RATES).execute();
  });
  afterAll(() => db?.close());

  beforeEach(() => stored(mine.accountId));

  it('reads the tables first, writes a copy, and gives the same snapshot from the copy', async () => {
    const fromTables = await loadSnapshot(db, mine.accountId, { store: 'off' });
    const fromStore = await read(mine.accountId);
    expect(fromStore.source).toBe('store');
    // Deep equality (V8 may encode a number differently after a round trip: bytes can differ).
    const plain = (snapshot: AccountSnapshot) => ({ ...snapshot, payments: { ...snapshot.payments, ids: Array.from({ length: snapshot.payments.ids.length }, (_, k) => snapshot.payments.ids.get(k)) } });
    expect(plain(fromStore.snapshot)).toEqual(plain(fromTables));
    // Payment ids (kept as slices of the aggregated text) survive, with their look-up.
    const ids = fromStore.snapshot.payments.ids;
    expect(ids.length).toBe(fromTables.payments.ids.length);
    for (const k of [0, 1, Math.floor(ids.length / 2), ids.length - 1]) {
      expect(ids.get(k)).toBe(fromTables.payments.ids.get(k));
      expect(ids.indexOf(ids.get(k))).toBe(k);
    }
    expect(ids.indexOf('no-such-payment')).toBe(-1);
    const request = { resolution: 'month', range: { startYear: 2024, startMonth: 11, endYear: 2025, endMonth: 4 }, today: dayFromIso('2025-04-20') } as const;
    expect(computeMrrSeries(fromStore.snapshot, request)).toEqual(computeMrrSeries(fromTables, request));
  });

  it('stores the copy in binary chunks under the current data version and format', async () => {
    const { rows } = await db.executeSql(
      `select c.chunk_no, c.chunks, c.format, c.data_version = a.data_version as current, octet_length(c.body) as bytes
         from metrics_snapshot_copies c join accounts a on a.id = c.account_id where c.account_id = $1 order by chunk_no`,
      [mine.accountId],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.current === true && r.format === SNAPSHOT_STORE_FORMAT && Number(r.chunks) === rows.length)).toBe(true);
    const fromTables = await loadSnapshot(db, mine.accountId, { store: 'off' });
    expect(rows.reduce((sum, r) => sum + Number(r.bytes), 0)).toBe(serializeSnapshot(fromTables).length);
  });

  it.each(SNAPSHOT_INPUT_TABLES.perAccount)('a write to %s makes the next read go to the tables', async (table) => {
    const { rows } = await db.executeSql(`select count(*) as n from ${table} where account_id = $1`, [mine.accountId]);
    if (Number(rows[0]?.n) > 0) {
      // A no-op update is still a write: the statement trigger fires.
      await db.executeSql(`update ${table} set account_id = account_id where account_id = $1`, [mine.accountId]);
    } else if (table === 'deals') {
      await db.executeSql(`insert into deals (account_id, id, name, currency, stage) values ($1, 'deal-1', 'Deal', 'USD', 'won')`, [mine.accountId]);
    } else if (table === 'account_exchange_rates') {
      await db.executeSql(`insert into account_exchange_rates (account_id, since, iso, rate) values ($1, '2024-01-01', 'EUR', 0.9)`, [mine.accountId]);
    } else if (table === 'payment_versions') {
      // An earlier version of one payment (a small demo may have no corrections).
      await db.executeSql(
        `insert into payment_versions (account_id, payment_id, version, customer_id, started_at, ended_at, duration_in_months, total_value, currency, valid_from, valid_to)
         select account_id, id, 1, customer_id, started_at, ended_at, duration_in_months, total_value, currency, now() - interval '1 day', now()
           from payments where account_id = $1 and version = 1 limit 1`,
        [mine.accountId],
      );
    } else {
      throw new Error(`the demo account has no ${table} rows: give the test a row to insert`);
    }
    const next = await read(mine.accountId);
    expect(next.source).toBe('tables');
    expect(next.written).toBe(true);
    const { rows: copies } = await db.executeSql(`select count(*) as n from metrics_snapshot_copies where account_id = $1`, [mine.accountId]);
    expect(Number(copies[0]?.n)).toBeGreaterThan(0);
  });

  it('a change of the account settings makes the next read go to the tables, and the new setting is in it', async () => {
    await db.kysely.updateTable('accounts').set({ churn_window_seconds: 86_400 }).where('id', '=', mine.accountId).execute();
    const next = await read(mine.accountId);
    expect(next.source).toBe('tables');
    expect(next.snapshot.account.churnWindowSeconds).toBe(86_400);
  });

  it('new ECB rates make every account read its tables again', async () => {
    await stored(theirs.accountId);
    await db.executeSql(`insert into exchange_rates (day, currency, rate_per_eur) values ('2031-01-02', 'USD', 1.1)`);
    expect((await read(mine.accountId)).source).toBe('tables');
    expect((await read(theirs.accountId)).source).toBe('tables');
    await db.executeSql(`delete from exchange_rates where day = '2031-01-02'`);
  });

  it("another account's writes leave the copy in use", async () => {
    await db.executeSql(`update customers set account_id = account_id where account_id = $1`, [theirs.accountId]);
    expect((await read(mine.accountId)).source).toBe('store');
  });

  it('a copy built before a concurrent write is refused', async () => {
    const { rows } = await db.executeSql(`select data_version from accounts where id = $1`, [mine.accountId]);
    const version = Number(rows[0]?.data_version);
    const snapshot = (await read(mine.accountId)).snapshot;
    await db.executeSql(`update payments set account_id = account_id where account_id = $1`, [mine.accountId]);
    expect(await writeStoredCopy(db, mine.accountId, version, ['USD'], snapshot)).toBe(false);
    expect((await read(mine.accountId)).source).toBe('tables');
  });

  it('raises the version once per transaction, however many statements write (and a later statement still invalidates)', async () => {
    await read(mine.accountId);
    expect((await read(mine.accountId)).source).toBe('store');
    const version = async () => Number((await db.executeSql(`select data_version from accounts where id = $1`, [mine.accountId])).rows[0]?.data_version);
    const before = await version();
    await db.kysely.transaction().execute(async (trx) => {
      for (const table of ['customers', 'payments', 'payment_items', 'payments']) {
        await sql`update ${sql.table(table)} set account_id = account_id where account_id = ${mine.accountId}`.execute(trx);
      }
    });
    expect(await version()).toBe(before + 1);
    expect((await read(mine.accountId)).source).toBe('tables');
    // The next transaction raises it again.
    await db.executeSql(`update payments set account_id = account_id where account_id = $1`, [mine.accountId]);
    expect(await version()).toBe(before + 2);
  });

  it('a copy of another format (other engine code or V8) is ignored and replaced', async () => {
    await db.executeSql(`update metrics_snapshot_copies set format = 'older' where account_id = $1`, [mine.accountId]);
    const next = await read(mine.accountId);
    expect(next.source).toBe('tables');
    expect(next.written).toBe(true);
    expect((await read(mine.accountId)).source).toBe('store');
  });

  it('a currency the copy has no rates for makes the read go to the tables, and the new copy holds it', async () => {
    const withGbp = await read(mine.accountId, ['GBP']);
    expect(withGbp.source).toBe('tables');
    expect((await read(mine.accountId, ['GBP'])).source).toBe('store');
    expect((await read(mine.accountId)).source).toBe('store');
  });

  it('a report currency the copy lacks makes the read go to the tables', async () => {
    await db.executeSql(
      `insert into business_reports (account_id, id, secret, start_year, start_month, end_year, end_month, currency)
       values ($1, 'report-chf', 'chf-report-secret-0123456789', 2024, 11, 2025, 4, 'CHF')`,
      [mine.accountId],
    );
    expect((await read(mine.accountId)).source).toBe('tables');
    expect((await read(mine.accountId)).source).toBe('store');
  });

  it('store: off neither reads nor writes the copy', async () => {
    let source: string | undefined;
    let wrote = false;
    await loadSnapshot(db, mine.accountId, { store: 'off', onSource: (s) => (source = s), onStoreWrite: () => (wrote = true) });
    expect(source).toBe('tables');
    expect(wrote).toBe(false);
  });
});

describe('the binary COPY format', () => {
  it('round-trips every byte value, empty values and several rows', () => {
    const all = Uint8Array.from({ length: 256 }, (_, k) => k);
    const parts = binaryCopyOf([{ name: 'n', type: 'int4' }, { name: 'tags', type: 'text[]' }, { name: 'body', type: 'bytea' }], [
      [0, ['a', 'zł'], all],
      [1, [], new Uint8Array(0)],
    ]);
    const bytes = Buffer.concat(parts);
    // parseBinaryCopy returns the first column; put the bytes first to read them back.
    const first = Buffer.concat(binaryCopyOf([{ name: 'body', type: 'bytea' }, { name: 'n', type: 'int8' }], [[all, 7], [new Uint8Array(0), 8]]));
    expect(parseBinaryCopy(first).map((b) => [...b])).toEqual([[...all], []]);
    expect(bytes.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
    expect(bytes.subarray(-2)).toEqual(Buffer.from([0xff, 0xff]));
  });
});
