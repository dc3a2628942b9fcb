import { sql, type Kysely } from 'kysely';

/**
 * `raise_data_version(accounts)`: what the snapshot-input triggers do (migration 0007), as a
 * function a writer can call itself. The subscription import writes its new payments with the
 * row triggers skipped (`session_replication_role = replica`, see docs/imports.md) and checks
 * their references set-based instead; it then raises the account's version with this, once.
 * Also drops two indexes of payments nothing reads by.
 */
const statements: string[] = [
  `create or replace function raise_data_version(touched text[]) returns void language sql as $$
    with raised as (
      update accounts set data_version = data_version + 1
       where id = any (touched) and xmin <> pg_current_xact_id()::xid
      returning id)
    delete from metrics_snapshot_copies where account_id in (select id from raised)
  $$`,
  // No query reads payments by start date or invoice number (the metrics engine reads an
  // account's payments whole; imports find them by primary key), and each index costs every
  // written payment: about 3 s of a 1,000,000-row import on PGlite. One comes back with the
  // query that needs it.
  `drop index if exists payments_started_at_idx`,
  `drop index if exists payments_invoice_number_idx`,
  `create or replace function snapshot_inputs_changed() returns trigger language plpgsql as $$
    declare
      touched text[];
    begin
      if tg_op = 'DELETE' then
        select array_agg(distinct account_id) into touched from old_rows;
      else
        select array_agg(distinct account_id) into touched from new_rows;
      end if;
      perform raise_data_version(touched);
      return null;
    end $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
