import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_TABLES } from '../../../server/db/schema';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/** Tables the migrator keeps for itself. */
const MIGRATOR_TABLES = ['schema_migrations', 'schema_migrations_lock'];
/**
 * Unique indexes that may omit account_id: global look-ups on tables that are reference tables on
 * Citus (users by e-mail and API token; integrations by the provider's connected account, which is
 * all a Stripe webhook names).
 */
const GLOBAL_UNIQUE_INDEXES = ['users_email_key', 'users_api_token_key', 'integrations_external_account_key'];

interface DbColumn {
  table: string;
  column: string;
  nullable: boolean;
  hasDefault: boolean;
  identityAlways: boolean;
  udt: string;
}

interface TsColumn {
  /** 'string' | 'number' | 'boolean' | 'Date' | 'array' | 'Uint8Array' | 'other' */
  family: string;
  selectNullable: boolean;
  insertOptional: boolean;
  insertNever: boolean;
}

/** Reads `DB` from server/db/schema.ts with the TypeScript checker: table -> column -> facts. */
function readSchemaTypes(): Map<string, Map<string, TsColumn>> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = path.resolve(here, '../../../server/db/schema.ts');
  const program = ts.createProgram([file], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error('schema.ts not found');
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const dbSymbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'DB');
  if (!dbSymbol) throw new Error('DB is not exported from schema.ts');
  const dbType = checker.getDeclaredTypeOfSymbol(dbSymbol);

  const members = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);
  const hasFlag = (type: ts.Type, flag: ts.TypeFlags) => members(type).some((t) => (t.flags & flag) !== 0);
  const family = (type: ts.Type): string => {
    const parts = members(type).filter((t) => (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) === 0);
    if (parts.length === 0) return 'other';
    if (parts.every((t) => (t.flags & ts.TypeFlags.StringLike) !== 0)) return 'string';
    if (parts.every((t) => (t.flags & ts.TypeFlags.NumberLike) !== 0)) return 'number';
    if (parts.every((t) => (t.flags & ts.TypeFlags.BooleanLike) !== 0)) return 'boolean';
    if (parts.every((t) => checker.isArrayType(t))) return 'array';
    const names = new Set(parts.map((t) => t.getSymbol()?.getName()));
    if (names.size === 1 && names.has('Date')) return 'Date';
    if (names.size === 1 && names.has('Uint8Array')) return 'Uint8Array';
    return 'other';
  };

  const tables = new Map<string, Map<string, TsColumn>>();
  for (const tableSymbol of dbType.getProperties()) {
    const tableType = checker.getTypeOfSymbol(tableSymbol);
    const columns = new Map<string, TsColumn>();
    for (const columnSymbol of tableType.getProperties()) {
      const columnType = checker.getTypeOfSymbol(columnSymbol);
      const selectSymbol = columnType.getProperty('__select__');
      const insertSymbol = columnType.getProperty('__insert__');
      const select = selectSymbol ? checker.getTypeOfSymbol(selectSymbol) : columnType;
      const insert = insertSymbol ? checker.getTypeOfSymbol(insertSymbol) : columnType;
      columns.set(columnSymbol.name, {
        family: family(select),
        selectNullable: hasFlag(select, ts.TypeFlags.Null),
        insertOptional: hasFlag(insert, ts.TypeFlags.Null | ts.TypeFlags.Undefined),
        insertNever: (insert.flags & ts.TypeFlags.Never) !== 0,
      });
    }
    tables.set(tableSymbol.name, columns);
  }
  return tables;
}

/** The TypeScript family each PostgreSQL type is read as (server/db/database.ts parsers). */
const EXPECTED_FAMILY: Record<string, string> = {
  text: 'string',
  bpchar: 'string',
  varchar: 'string',
  date: 'string',
  numeric: 'string',
  int2: 'number',
  int4: 'number',
  int8: 'number',
  float8: 'number',
  bool: 'boolean',
  timestamptz: 'Date',
  _text: 'array',
  bytea: 'Uint8Array',
};

describe(`data model on ${testEngine}`, () => {
  let db: TestDatabase;
  let columns: DbColumn[];
  let tables: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
    const result = await db.executeSql(
      `select c.table_name, c.column_name, c.is_nullable, c.column_default, c.is_identity, c.identity_generation, c.udt_name
         from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
        order by c.table_name, c.ordinal_position`,
      [],
    );
    columns = result.rows
      .map((row) => ({
        table: String(row.table_name),
        column: String(row.column_name),
        nullable: row.is_nullable === 'YES',
        hasDefault: row.column_default !== null || row.is_identity === 'YES',
        identityAlways: row.is_identity === 'YES' && row.identity_generation === 'ALWAYS',
        udt: String(row.udt_name),
      }))
      .filter((c) => !MIGRATOR_TABLES.includes(c.table));
    tables = [...new Set(columns.map((c) => c.table))].sort();
  });
  afterAll(() => db?.close());

  it('creates the whole model of both specifications', () => {
    for (const table of [
      'accounts', 'account_exchange_rates', 'users', 'invitations', 'password_reset_tokens', 'revoked_jwts', 'outbox_emails',
      'customers', 'object_attributes', 'customer_segments', 'customer_segment_values', 'products', 'payments',
      'payment_versions', 'payment_items', 'payment_discounts', 'payment_segment_values', 'costs', 'cost_segment_values',
      'exchange_rates', 'currencies', 'business_reports', 'report_settings', 'report_groups', 'report_group_secrets',
      'report_share_secrets', 'report_sections', 'report_section_segments', 'comments', 'key_numbers', 'templates',
      'segmenter_definitions', 'customer_column_definitions', 'customer_column_values', 'integrations', 'imports',
      'import_rows', 'invoice_items', 'distillers', 'audit_log', 'deals',
    ]) {
      expect(tables, table).toContain(table);
    }
  });

  it('leads the primary key of every tenant table with account_id', async () => {
    const { rows } = await db.executeSql(
      `select c.relname::text as table_name, a.attname::text as first_column
         from pg_index i
         join pg_class c on c.oid = i.indrelid
         join pg_namespace n on n.oid = c.relnamespace
         join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[0]
        where i.indisprimary and n.nspname = current_schema()`,
      [],
    );
    const firstColumn = new Map(rows.map((r) => [String(r.table_name), String(r.first_column)]));
    for (const table of tables) {
      expect(firstColumn.has(table), `${table} has a primary key`).toBe(true);
      const hasAccountId = columns.some((c) => c.table === table && c.column === 'account_id');
      if ((REFERENCE_TABLES as readonly string[]).includes(table)) {
        expect(firstColumn.get(table), `${table} is a reference table`).not.toBe('account_id');
      } else {
        expect(hasAccountId, `${table} has account_id`).toBe(true);
        expect(firstColumn.get(table), `primary key of ${table}`).toBe('account_id');
      }
    }
  });

  it('keeps foreign keys between tenant tables inside one account', async () => {
    const { rows } = await db.executeSql(
      `select src.relname::text as source, dst.relname::text as target,
              (select array_agg(a.attname::text order by k.ord) from unnest(con.conkey) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum) as source_columns,
              (select array_agg(a.attname::text order by k.ord) from unnest(con.confkey) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum) as target_columns
         from pg_constraint con
         join pg_class src on src.oid = con.conrelid
         join pg_class dst on dst.oid = con.confrelid
         join pg_namespace n on n.oid = src.relnamespace
        where con.contype = 'f' and n.nspname = current_schema()`,
      [],
    );
    expect(rows.length).toBeGreaterThan(30);
    for (const row of rows) {
      const target = String(row.target);
      const sourceColumns = row.source_columns as string[];
      const targetColumns = row.target_columns as string[];
      if (target === 'accounts') {
        expect(sourceColumns, `${String(row.source)} -> accounts`).toEqual(['account_id']);
      } else {
        expect((REFERENCE_TABLES as readonly string[]).includes(target), `${String(row.source)} -> ${target}`).toBe(false);
        expect(sourceColumns[0], `${String(row.source)} -> ${target}`).toBe('account_id');
        expect(targetColumns[0], `${String(row.source)} -> ${target}`).toBe('account_id');
      }
    }
    // Every tenant table belongs to an account.
    for (const table of tables.filter((t) => !(REFERENCE_TABLES as readonly string[]).includes(t))) {
      expect(
        rows.some((r) => r.source === table && r.target === 'accounts'),
        `${table} references accounts`,
      ).toBe(true);
    }
  });

  it('includes account_id in every unique index of a tenant table but the global look-ups', async () => {
    const { rows } = await db.executeSql(
      `select c.relname::text as table_name, ic.relname::text as index_name,
              exists (select 1 from unnest(i.indkey) k(attnum) join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
                       where a.attname = 'account_id') as has_account_id
         from pg_index i
         join pg_class c on c.oid = i.indrelid
         join pg_class ic on ic.oid = i.indexrelid
         join pg_namespace n on n.oid = c.relnamespace
        where i.indisunique and n.nspname = current_schema()`,
      [],
    );
    const offenders = rows
      .filter((r) => tables.includes(String(r.table_name)) && !(REFERENCE_TABLES as readonly string[]).includes(String(r.table_name)))
      .filter((r) => r.has_account_id !== true)
      .map((r) => String(r.index_name));
    expect(offenders.sort()).toEqual([...GLOBAL_UNIQUE_INDEXES].sort());
  });

  it('declares exactly the tables and columns of the database in the DB type, with matching types', () => {
    const types = readSchemaTypes();
    expect([...types.keys()].sort()).toEqual(tables);
    for (const table of tables) {
      const tsColumns = types.get(table) ?? new Map<string, TsColumn>();
      const dbColumns = columns.filter((c) => c.table === table);
      expect([...tsColumns.keys()].sort(), `columns of ${table}`).toEqual(dbColumns.map((c) => c.column).sort());
      for (const column of dbColumns) {
        const tsColumn = tsColumns.get(column.column);
        const where = `${table}.${column.column}`;
        if (!tsColumn) continue;
        expect(tsColumn.selectNullable, `${where} nullable`).toBe(column.nullable);
        if (column.identityAlways) {
          expect(tsColumn.insertNever, `${where} is GeneratedAlways`).toBe(true);
        } else {
          expect(tsColumn.insertOptional, `${where} optional on insert`).toBe(column.nullable || column.hasDefault);
        }
        const expected = EXPECTED_FAMILY[column.udt];
        if (expected) expect(tsColumn.family, `${where} (${column.udt})`).toBe(expected);
        else expect(column.udt, `${where} has a known type`).toBe('jsonb');
      }
    }
  });

  it('enforces the documented rules in the database itself', async () => {
    const run = (text: string) => db.executeSql(text, []);
    await run(`insert into accounts (id) values ('accA'), ('accB')`);
    await run(`insert into customers (account_id, id, name) values ('accA', 'cus1', 'One')`);
    // Another account cannot reference account A's customer.
    await expect(
      run(`insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, currency)
           values ('accB', 'subhAAAAAAAAAAAA', 'cus1', '2024-01-31', '2024-02-29', 1, 100, 'USD')`),
    ).rejects.toThrow();
    // A period ends after it starts; an open-ended payment (no end) has no months or total but a monthly amount.
    await expect(
      run(`insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, currency)
           values ('accA', 'subhAAAAAAAAAAAA', 'cus1', '2024-01-31', '2024-01-31', 1, 100, 'USD')`),
    ).rejects.toThrow();
    await expect(
      run(`insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, currency)
           values ('accA', 'subhAAAAAAAAAAAA', 'cus1', '2024-01-31', null, null, null, 'USD')`),
    ).rejects.toThrow();
    await expect(
      run(`insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount, currency)
           values ('accA', 'subhAAAAAAAAAAAA', 'cus1', '2024-01-31', null, 1, null, 100, 'USD')`),
    ).rejects.toThrow();
    await run(`insert into payments (account_id, id, customer_id, started_at, ended_at, duration_in_months, total_value, currency)
               values ('accA', 'subhAAAAAAAAAAAA', 'cus1', '2024-01-31', '2024-02-29', 1, 100, 'USD')`);
    await expect(
      run(`insert into products (account_id, key, name) values ('accA', 'p', 'P');
           insert into payment_items (account_id, payment_id, product_key, type) values ('accA', 'subhAAAAAAAAAAAA', 'p', 'weekly')`),
    ).rejects.toThrow();
    // E-mails are unique case-insensitively across accounts.
    await run(`insert into users (account_id, id, email, password_hash, api_token) values ('accA', 'u1', 'Ann@Example.com', 'h', 't1')`);
    await expect(
      run(`insert into users (account_id, id, email, password_hash, api_token) values ('accB', 'u2', 'ann@example.COM', 'h', 't2')`),
    ).rejects.toThrow();
    // Enumerations are checked.
    await expect(run(`update accounts set corrections_handling = 'sometimes' where id = 'accA'`)).rejects.toThrow();
    await expect(run(`update users set permission_level = 'admin' where id = 'u1'`)).rejects.toThrow();
    // Deleting an account removes its tenant rows.
    await run(`delete from accounts where id = 'accA'`);
    const { rows } = await run(`select (select count(*) from customers) + (select count(*) from payments) + (select count(*) from users) as n`);
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it('ships the currencies reference table', async () => {
    const { rows } = await db.executeSql(`select iso, minor_unit_digits from currencies where iso in ('USD', 'EUR', 'PLN', 'JPY', 'RUB') order by iso`, []);
    expect(rows).toEqual([
      { iso: 'EUR', minor_unit_digits: 2 },
      { iso: 'JPY', minor_unit_digits: 0 },
      { iso: 'PLN', minor_unit_digits: 2 },
      { iso: 'RUB', minor_unit_digits: 2 },
      { iso: 'USD', minor_unit_digits: 2 },
    ]);
  });
});
