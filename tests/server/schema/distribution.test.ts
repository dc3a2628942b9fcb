import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * The rule that lets the schema distribute on Citus by `account_id` unchanged (docs/scaling.md),
 * read from the catalog after every migration: a tenant table is any table with an `account_id`
 * column, found by the query, not listed by hand, so a table added later is held to the rule.
 */

/**
 * Tables with an `account_id` column that are not tenant tables. Each needs its reason here.
 * (`accounts` itself has no `account_id`: its key `id` is the distribution value.)
 */
const NOT_TENANT_TABLES: Record<string, string> = {
  // The mail outbox of development and tests (no SMTP): system data kept on the coordinator, a
  // row per e-mail whose account_id is optional (a reset link asked for an unknown address has
  // none), keyed by its own identity column.
  outbox_emails: 'system table on the coordinator; account_id is optional',
};

interface ForeignKey {
  name: string;
  source: string;
  target: string;
  sourceColumns: string[];
  targetColumns: string[];
}

describe(`distribution by account_id on ${testEngine}`, () => {
  let db: TestDatabase;
  let tenantTables: string[];
  let primaryKeys: Map<string, string[]>;
  let foreignKeys: ForeignKey[];

  beforeAll(async () => {
    db = await createTestDatabase();
    const tables = await db.executeSql(
      `select c.table_name::text as table_name
         from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.column_name = 'account_id'
        order by 1`,
      [],
    );
    tenantTables = tables.rows.map((row) => String(row.table_name)).filter((table) => !(table in NOT_TENANT_TABLES));

    const keys = await db.executeSql(
      `select c.relname::text as table_name,
              array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
                      join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum order by k.ord) as columns
         from pg_index i
         join pg_class c on c.oid = i.indrelid
         join pg_namespace n on n.oid = c.relnamespace
        where i.indisprimary and n.nspname = current_schema()`,
      [],
    );
    primaryKeys = new Map(keys.rows.map((row) => [String(row.table_name), row.columns as string[]]));

    const constraints = await db.executeSql(
      `select con.conname::text as name, src.relname::text as source, dst.relname::text as target,
              array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, ord)
                      join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.ord) as source_columns,
              array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, ord)
                      join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.ord) as target_columns
         from pg_constraint con
         join pg_class src on src.oid = con.conrelid
         join pg_class dst on dst.oid = con.confrelid
         join pg_namespace n on n.oid = src.relnamespace
        where con.contype = 'f' and n.nspname = current_schema()
        order by 2, 1`,
      [],
    );
    foreignKeys = constraints.rows.map((row) => ({
      name: String(row.name),
      source: String(row.source),
      target: String(row.target),
      sourceColumns: row.source_columns as string[],
      targetColumns: row.target_columns as string[],
    }));
  });
  afterAll(() => db?.close());

  it('finds the tenant tables in the catalog, and each exception is still a table with account_id', async () => {
    // A sanity floor, so a broken query cannot pass the rules below with nothing to check.
    expect(tenantTables.length).toBeGreaterThan(30);
    for (const table of ['users', 'customers', 'payments', 'business_reports', 'imports']) expect(tenantTables).toContain(table);
    expect(tenantTables).not.toContain('accounts');
    const { rows } = await db.executeSql(
      `select table_name::text as table_name from information_schema.columns where table_schema = current_schema() and column_name = 'account_id'`,
      [],
    );
    const withAccountId = rows.map((row) => String(row.table_name));
    for (const table of Object.keys(NOT_TENANT_TABLES)) expect(withAccountId, `${table} is still a table with account_id`).toContain(table);
  });

  it('leads the primary key of every tenant table with account_id', () => {
    const offenders = tenantTables.filter((table) => primaryKeys.get(table)?.[0] !== 'account_id').map((table) => `${table} (${(primaryKeys.get(table) ?? ['no primary key']).join(', ')})`);
    expect(offenders).toEqual([]);
  });

  it('includes account_id, matched to account_id, in every foreign key between tenant tables', () => {
    const between = foreignKeys.filter((key) => tenantTables.includes(key.source) && tenantTables.includes(key.target));
    expect(between.length).toBeGreaterThan(30);
    const offenders = between
      .filter((key) => {
        const at = key.sourceColumns.indexOf('account_id');
        return at < 0 || key.targetColumns[at] !== 'account_id';
      })
      .map((key) => `${key.name}: ${key.source} (${key.sourceColumns.join(', ')}) -> ${key.target} (${key.targetColumns.join(', ')})`);
    expect(offenders).toEqual([]);
  });

  it('points a tenant table at accounts only by account_id', () => {
    const offenders = foreignKeys
      .filter((key) => tenantTables.includes(key.source) && key.target === 'accounts')
      .filter((key) => key.sourceColumns.join() !== 'account_id' || key.targetColumns.join() !== 'id')
      .map((key) => key.name);
    expect(offenders).toEqual([]);
    // And no tenant table is referenced from a table that is not one (a reference table cannot point into a shard).
    const intoShards = foreignKeys.filter((key) => !tenantTables.includes(key.source) && tenantTables.includes(key.target)).map((key) => key.name);
    expect(intoShards).toEqual([]);
  });
});
