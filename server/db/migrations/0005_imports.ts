import { sql, type Kysely } from 'kysely';

/**
 * What the CSV import pipeline stages between reading a file and committing it
 * (server/imports/, docs/imports.md):
 *
 * - `import_payment_rows`: the valid rows of a subscription import, parsed and keyed (the
 *   payment id is derived from account, customer, invoice number and start date, so importing a
 *   file twice finds the same payments). The commit is set-based SQL from this table, in one
 *   transaction; rows that failed validation keep their message in `import_rows.error`.
 * - `imports.delimiter` and `imports.encoding`: what the reader detected (shown in the result
 *   and the audit log).
 */
const statements: string[] = [
  `create table import_payment_rows (
     account_id text not null references accounts (id) on delete cascade,
     import_id text not null,
     row_number integer not null check (row_number >= 1),
     payment_id text not null,
     customer_id text not null,
     customer_name text,
     started_at date not null,
     ended_at date not null,
     duration_in_months integer not null check (duration_in_months >= 1),
     total_value bigint not null,
     currency text not null check (currency ~ '^[A-Z]{3}$'),
     invoice_number text,
     product_key text not null check (product_key <> ''),
     item_type text not null check (item_type in ('recurring', 'metered', 'one_time', 'freemium')),
     quantity integer not null check (quantity >= 0),
     primary key (account_id, import_id, row_number),
     foreign key (account_id, import_id) references imports (account_id, id) on delete cascade
   )`,
  `create index import_payment_rows_payment_idx on import_payment_rows (account_id, import_id, payment_id)`,
  `alter table imports add column delimiter text`,
  `alter table imports add column encoding text`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
