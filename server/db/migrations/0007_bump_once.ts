import { sql, type Kysely } from 'kysely';

/**
 * `accounts.data_version` is raised once per transaction and account, not once per statement
 * (migration 0004 raised it on every statement that wrote snapshot inputs). A version raised
 * once in a transaction already differs from every version a stored copy was built at, and
 * the copies it invalidated are already deleted. Raising it per statement cost more than the
 * statements themselves when an import writes its payments a batch at a time: each raise
 * left one more version of the account row in the transaction for every later foreign-key
 * check on `account_id` to walk past (50 batches of 20,000 payments: 27 s against 21 s).
 * The account row's `xmin` is the current transaction's id once this transaction has updated it.
 */
const statements: string[] = [
  `create or replace function snapshot_inputs_changed() returns trigger language plpgsql as $$
    declare
      touched text[];
    begin
      if tg_op = 'DELETE' then
        select array_agg(distinct account_id) into touched from old_rows;
      else
        select array_agg(distinct account_id) into touched from new_rows;
      end if;
      with raised as (
        update accounts set data_version = data_version + 1
         where id = any (touched) and xmin <> pg_current_xact_id()::xid
        returning id)
      delete from metrics_snapshot_copies where account_id in (select id from raised);
      return null;
    end $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
