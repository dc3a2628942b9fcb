import { sql, type Kysely } from 'kysely';

/**
 * A stored copy of each account's built metrics snapshot (server/metrics/snapshotStore.ts).
 *
 * - `accounts.data_version` counts changes to anything the snapshot is built from. Statement
 *   triggers raise it inside the writing transaction, once per statement, for every account the
 *   statement touched (the ids come from the statement's transition table, not a trigger per
 *   row), and delete those accounts' stored copies; a row trigger raises it when an account's
 *   own settings change; writes to the shared reference tables (currencies, ECB rates) raise
 *   every account's.
 * - `metrics_snapshot_copies` holds one copy per account, in chunks, under the data version it
 *   was built at. A copy is read only while its version is the account's current one, so a copy
 *   written after a concurrent write (or by a path that bypassed the triggers) is never used.
 * - The chunks are large (tens of megabytes): stored uncompressed out of line (STORAGE
 *   EXTERNAL), so reading them is a copy, not a decompression.
 */
const PER_ACCOUNT = [
  'customers',
  'customer_segments',
  'customer_segment_values',
  'object_attributes',
  'products',
  'payments',
  'payment_items',
  'payment_discounts',
  'payment_segment_values',
  'payment_versions',
  'costs',
  'cost_segment_values',
  'deals',
  'account_exchange_rates',
] as const;
const SHARED = ['currencies', 'exchange_rates'] as const;

const statements: string[] = [
  `alter table accounts add column data_version bigint not null default 0`,
  `create unlogged table metrics_snapshot_copies (
     account_id text not null references accounts (id) on delete cascade,
     chunk_no integer not null,
     chunks integer not null,
     data_version bigint not null,
     format text not null,
     currencies text[] not null,
     body bytea not null,
     written_at timestamptz not null default now(),
     primary key (account_id, chunk_no)
   )`,
  `alter table metrics_snapshot_copies alter column body set storage external`,
  `create function snapshot_inputs_changed() returns trigger language plpgsql as $$
   begin
     if tg_op = 'DELETE' then
       update accounts set data_version = data_version + 1 where id in (select distinct account_id from old_rows);
       delete from metrics_snapshot_copies where account_id in (select distinct account_id from old_rows);
     else
       update accounts set data_version = data_version + 1 where id in (select distinct account_id from new_rows);
       delete from metrics_snapshot_copies where account_id in (select distinct account_id from new_rows);
     end if;
     return null;
   end $$`,
  `create function snapshot_shared_inputs_changed() returns trigger language plpgsql as $$
   begin
     update accounts set data_version = data_version + 1;
     delete from metrics_snapshot_copies;
     return null;
   end $$`,
  // Settings of the account itself (churn window, FX source, ...): any update that does not set the version raises it.
  `create function account_settings_changed() returns trigger language plpgsql as $$
   begin
     if new.data_version = old.data_version then
       new.data_version := old.data_version + 1;
     end if;
     return new;
   end $$`,
  `create trigger accounts_data_version before update on accounts for each row execute function account_settings_changed()`,
  ...PER_ACCOUNT.flatMap((table) => [
    `create trigger ${table}_inserted after insert on ${table} referencing new table as new_rows for each statement execute function snapshot_inputs_changed()`,
    // account_id leads every key and is never updated: the new rows name every account touched.
    `create trigger ${table}_updated after update on ${table} referencing new table as new_rows for each statement execute function snapshot_inputs_changed()`,
    `create trigger ${table}_deleted after delete on ${table} referencing old table as old_rows for each statement execute function snapshot_inputs_changed()`,
    `create trigger ${table}_truncated after truncate on ${table} for each statement execute function snapshot_shared_inputs_changed()`,
  ]),
  ...SHARED.map((table) => `create trigger ${table}_changed after insert or update or delete or truncate on ${table} for each statement execute function snapshot_shared_inputs_changed()`),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}

/** The tables whose writes invalidate the stored snapshot copies (tests check each one). */
export const SNAPSHOT_INPUT_TABLES = { perAccount: PER_ACCOUNT, shared: SHARED };
