import { sql, type Kysely } from 'kysely';

/**
 * The subscription import reads its file once, in its job (server/imports/, docs/imports.md):
 *
 * - `import_files`: the uploaded file as received, in chunks of a few megabytes (stored
 *   uncompressed: a chunk is written once and read once). The job parses, validates and
 *   commits it in one transaction; a rerun after a crash starts over from it. Row-per-row
 *   staging (`import_payment_rows`, and `import_rows` for this kind) cost two more writes of
 *   every row; `import_rows` now keeps only the rows that failed (and the attribute values
 *   import's rows).
 * - `imports.file_facts`: what the upload's own read of the file learned (which day-month
 *   order each column's slash dates prove, rows too short for the dialog's four columns).
 * - `payment_versions` keeps the versions a payment had before its current one: the current
 *   version is the payment row itself (and its items and discounts), so writing a payment
 *   writes it once. The metrics engine never read the current rows from here.
 */
const statements: string[] = [
  `create table import_files (
     account_id text not null references accounts (id) on delete cascade,
     import_id text not null,
     chunk integer not null check (chunk >= 0),
     bytes bytea not null,
     primary key (account_id, import_id, chunk),
     foreign key (account_id, import_id) references imports (account_id, id) on delete cascade
   )`,
  `alter table import_files alter column bytes set storage external`,
  `alter table imports add column file_facts jsonb`,
  `drop table import_payment_rows`,
  `delete from payment_versions where valid_to is null`,
  `drop index payment_versions_current_key`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
