import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../server/auth/password';
import { REFERENCE_TABLES } from '../../../server/db/schema';
import { DEFAULT_DEMO_CUSTOMERS, DEFAULT_DEMO_MONTHS, DEFAULT_DEMO_SEED, generateBusiness } from '../../../server/demo/generate';
import { hasAnyAccount, seedDemoAccount, type SeedStep } from '../../../server/demo/seed';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

const NOW = new Date('2026-11-21T09:30:00Z');

describe(`demo seed on ${testEngine}`, () => {
  let db: TestDatabase;
  let tenantTables: string[];

  /** Rows in every tenant table (reference tables are shared and left out). */
  async function tenantRowCount(): Promise<number> {
    let total = 0;
    for (const table of tenantTables) {
      const { rows } = await db.executeSql(`select count(*)::int as n from ${table}`, []);
      total += Number(rows[0]?.n);
    }
    return total;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    const { rows } = await db.executeSql(
      `select table_name::text as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'schema_migrations%'`,
      [],
    );
    tenantTables = rows.map((r) => String(r.name)).filter((name) => !(REFERENCE_TABLES as readonly string[]).includes(name));
    tenantTables.push('accounts');
  });
  afterAll(() => db?.close());

  it('leaves nothing behind when it fails midway', async () => {
    const steps: SeedStep[] = [];
    await expect(
      seedDemoAccount(db.kysely, {
        email: 'demo@example.com',
        password: 'demo-password',
        now: NOW,
        onStep: (step) => {
          steps.push(step);
          if (step === 'payment_details') throw new Error('injected failure');
        },
      }),
    ).rejects.toThrow('injected failure');
    // It got far: customers and payments had been written inside the transaction.
    expect(steps).toEqual(['account', 'products', 'attributes', 'customers', 'customer_segment_values', 'payments', 'payment_details']);
    expect(await tenantRowCount()).toBe(0);
    expect(await hasAnyAccount(db.kysely)).toBe(false);
  });

  it('rejects bad options before touching the database', async () => {
    await expect(seedDemoAccount(db.kysely, { email: 'not-an-email', password: 'x', now: NOW })).rejects.toThrow(/e-mail/);
    await expect(seedDemoAccount(db.kysely, { email: 'a@b.c', password: '', now: NOW })).rejects.toThrow(/password/);
    expect(await tenantRowCount()).toBe(0);
  });

  let result: Awaited<ReturnType<typeof seedDemoAccount>>;

  // Three minutes rather than the project's one: in CI's PostgreSQL pass this test once took 57.8 s
  // (usually 3-4 s; the whole seed, timed step by step in five runs alone: 20-50 ms to generate,
  // 90-110 ms to hash, the transaction begun at once). The stall was outside the database (no
  // statement over 0.36 s, no lock waited on); seen in two CI runs, never in runs alone since. It is
  // slowness to wait out, not a wrong answer.
  it('seeds the demo account with its owner and the generated business, in a few statements per table', async () => {
    // The seed writes in a few multi-row statements per table, not a statement per row: counted
    // rather than timed, so a machine loaded by parallel test files cannot fail it.
    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        statements += 1;
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    result = await seedDemoAccount(db.kysely.withPlugin(counting), { email: 'Demo@Example.com', password: 'demo-password', now: NOW });
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(DEFAULT_DEMO_CUSTOMERS / 4);
    expect(await hasAnyAccount(db.kysely)).toBe(true);

    const account = await db.kysely.selectFrom('accounts').selectAll().where('id', '=', result.accountId).executeTakeFirstOrThrow();
    expect(account).toMatchObject({ currency: 'USD', is_demo: true, corrections_handling: 'change_original', churn_window_seconds: 0 });
    const user = await db.kysely.selectFrom('users').selectAll().where('account_id', '=', result.accountId).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ id: result.userId, email: 'Demo@Example.com', name: 'Demo Owner', permission_level: 'user' });
    expect(await verifyPassword('demo-password', user.password_hash)).toBe(true);
    expect(await verifyPassword('wrong', user.password_hash)).toBe(false);
    expect(user.api_token).toMatch(/^[A-Za-z0-9]{40}$/);
  }, 180_000);

  it('inserts exactly what it reports and what the generator made', async () => {
    const { accountId, counts } = result;
    const expected = generateBusiness({ seed: DEFAULT_DEMO_SEED, customers: DEFAULT_DEMO_CUSTOMERS, months: DEFAULT_DEMO_MONTHS, endMonth: '2026-11', today: '2026-11-21' });
    expect(counts).toEqual({ customers: expected.customers.length, payments: expected.payments.length, costs: expected.costs.length });
    expect(counts.customers).toBeGreaterThanOrEqual(1_500);

    const count = async (table: string) => {
      const { rows } = await db.executeSql(`select count(*)::int as n from ${table} where account_id = $1`, [accountId]);
      return Number(rows[0]?.n);
    };
    expect(await count('customers')).toBe(counts.customers);
    expect(await count('payments')).toBe(counts.payments);
    expect(await count('costs')).toBe(counts.costs);
    expect(await count('cost_segment_values')).toBe(counts.costs);
    expect(await count('payment_items')).toBe(expected.payments.reduce((n, p) => n + p.items.length, 0));
    expect(await count('payment_discounts')).toBe(expected.payments.filter((p) => p.discount).length);
    expect(await count('payment_segment_values')).toBe(counts.payments);
    const corrected = expected.payments.filter((p) => p.correction).length;
    expect(corrected).toBeGreaterThan(0);
    // Earlier versions only: the current one is the payment row.
    expect(await count('payment_versions')).toBe(corrected);
    expect(await count('customer_segment_values')).toBe(expected.segmentValues.length);

    const totals = await sql<{ currency: string; total: number }>`
      select currency, sum(total_value)::bigint as total from payments where account_id = ${accountId} group by currency order by currency`.execute(
      db.kysely,
    );
    const expectedTotals = ['EUR', 'PLN', 'USD'].map((currency) => ({
      currency,
      total: expected.payments.filter((p) => p.currency === currency).reduce((sum, p) => sum + p.total_value, 0),
    }));
    expect(totals.rows).toEqual(expectedTotals);
  });

  it('creates the customer segments with their attributes, and keeps payment versions consistent', async () => {
    const { accountId } = result;
    const segments = await db.kysely
      .selectFrom('customer_segments as s')
      .innerJoin('object_attributes as a', (join) => join.onRef('a.account_id', '=', 's.account_id').onRef('a.id', '=', 's.object_attribute_id'))
      .select(['s.name', 's.time_sensitive', 'a.object'])
      .where('s.account_id', '=', accountId)
      .orderBy('s.name')
      .execute();
    expect(segments).toEqual([
      { name: 'Company size', time_sensitive: false, object: 'customer' },
      { name: 'Country', time_sensitive: false, object: 'customer' },
      { name: 'Industry', time_sensitive: false, object: 'customer' },
      { name: 'Plan', time_sensitive: true, object: 'customer' },
    ]);
    const attributes = await db.kysely
      .selectFrom('object_attributes')
      .select(['name', 'object'])
      .where('account_id', '=', accountId)
      .where('object', '<>', 'customer')
      .orderBy('name')
      .execute();
    expect(attributes).toEqual([
      { name: 'Category', object: 'cost' },
      { name: 'Channel', object: 'subscription_history' },
    ]);

    // A corrected payment's row is its second version; the original is kept.
    const mismatches = await sql<{ n: number }>`
      select count(*)::int as n from payments p
      join payment_versions v on v.account_id = p.account_id and v.payment_id = p.id
      where p.account_id = ${accountId} and (v.version <> 1 or p.version <> 2 or v.valid_to is null or v.customer_id <> p.customer_id)`.execute(db.kysely);
    expect(mismatches.rows[0]?.n).toBe(0);
    const originals = await db.kysely
      .selectFrom('payment_versions')
      .select(['payment_id', 'total_value', 'valid_from', 'valid_to', 'items'])
      .where('account_id', '=', accountId)
      .where('version', '=', 1)
      .where('valid_to', 'is not', null)
      .execute();
    expect(originals.length).toBeGreaterThan(0);
    for (const original of originals) {
      expect(original.valid_to!.getTime()).toBeGreaterThan(original.valid_from.getTime());
      expect(original.items[0]?.type).toBeDefined();
    }
    // Children point at parents of the same account.
    const children = await db.kysely
      .selectFrom('customers')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('parent_id', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(children.n)).toBeGreaterThan(5);
  });

  it('creates two reports, each with key numbers of its own sections for the demo’s strip', async () => {
    const reports = await db.kysely.selectFrom('business_reports').select(['id', 'title']).where('account_id', '=', result.accountId).orderBy('created_at').execute();
    expect(reports).toHaveLength(2);
    for (const report of reports) {
      const pinned = await db.kysely
        .selectFrom('key_numbers as k')
        .innerJoin('report_sections as s', (join) => join.onRef('s.account_id', '=', 'k.account_id').onRef('s.id', '=', 'k.section_id'))
        .select(['k.definition_id', 's.report_id'])
        .where('k.account_id', '=', result.accountId)
        .where('k.report_id', '=', report.id)
        .orderBy('k.position')
        .execute();
      expect(pinned.length, report.title).toBeGreaterThanOrEqual(3);
      expect(pinned.every((row) => row.report_id === report.id)).toBe(true);
    }
  });

  it('rolls back a second seed that the database rejects (same owner e-mail)', async () => {
    const before = await tenantRowCount();
    await expect(seedDemoAccount(db.kysely, { email: 'demo@example.COM', password: 'other', now: NOW })).rejects.toThrow();
    expect(await tenantRowCount()).toBe(before);
    const accounts = await db.kysely.selectFrom('accounts').select('id').execute();
    expect(accounts.map((a) => a.id)).toEqual([result.accountId]);
  });
});
