import { sql, type Kysely } from 'kysely';

/**
 * The customers table's paging and search (docs/customers.md):
 *
 * - Keyset indexes for the table's static sort columns, over the customers that are not
 *   deleted: name (lower-cased, code-point order: `collate "C"`, the order the server's
 *   in-memory list and the benchmark's plain SELECT agree on), public id and added-at, each
 *   with the id as the tie-break.
 * - A `text_pattern_ops` index on the lower-cased name for the search's prefix match (LIKE
 *   'abc%'); pg_trgm is not available in PGlite, so a contains match is a bounded scan.
 * - Calculated column values by (definition, value, customer): a column's sorted page; and by
 *   customer: a page's rows read their values.
 * - `customer_column_definitions.values_version`, raised by a statement trigger on every write
 *   to a definition's values, so the server's cached sort order of a calculated column knows
 *   when its values changed (they are not a metrics snapshot input: `accounts.data_version`
 *   does not move with them).
 */
const statements: string[] = [
  `create index customers_name_keyset_idx on customers (account_id, (lower(name) collate "C"), id collate "C") where deleted_at is null`,
  `create index customers_name_pattern_idx on customers (account_id, lower(name) text_pattern_ops) where deleted_at is null`,
  `create index customers_public_id_keyset_idx on customers (account_id, public_id, id) where deleted_at is null`,
  `create index customers_added_at_keyset_idx on customers (account_id, added_at, id) where deleted_at is null`,
  `create index customer_column_values_value_idx on customer_column_values (account_id, definition_id, value, customer_id)`,
  // A page's rows read their calculated values by customer (the primary key leads with the definition).
  `create index customer_column_values_customer_idx on customer_column_values (account_id, customer_id)`,
  `alter table customer_column_definitions add column values_version bigint not null default 0`,
  `create function customer_column_values_changed() returns trigger language plpgsql as $$
   begin
     if tg_op = 'DELETE' then
       update customer_column_definitions d set values_version = d.values_version + 1
        where (d.account_id, d.id) in (select distinct account_id, definition_id from old_rows);
     else
       update customer_column_definitions d set values_version = d.values_version + 1
        where (d.account_id, d.id) in (select distinct account_id, definition_id from new_rows);
     end if;
     return null;
   end $$`,
  `create trigger customer_column_values_inserted after insert on customer_column_values referencing new table as new_rows for each statement execute function customer_column_values_changed()`,
  `create trigger customer_column_values_updated after update on customer_column_values referencing new table as new_rows for each statement execute function customer_column_values_changed()`,
  `create trigger customer_column_values_deleted after delete on customer_column_values referencing old table as old_rows for each statement execute function customer_column_values_changed()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
