import { sql, type Kysely } from 'kysely';

/**
 * Two indexes every written customer paid for (a first sync writes an account's customers in
 * bulk; docs/stripe.md "Speed"):
 * - `customers_parent_idx` held an entry for every customer, though only customers with a parent
 *   are ever looked up by it (every query and the self-referencing foreign key ask for
 *   `parent_id = …`). It now holds those only, so customers without a parent cost it nothing.
 * - `customers_name_pattern_idx` (prefix search) duplicated `customers_name_keyset_idx`: both
 *   order the customers not deleted by `lower(name)` bytewise, which is what a prefix `like`
 *   needs. The searches now compare `lower(name) collate "C"`, which the keyset index serves.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists customers_parent_idx`.execute(db);
  await sql`create index customers_parent_idx on customers (account_id, parent_id) where parent_id is not null`.execute(db);
  await sql`drop index if exists customers_name_pattern_idx`.execute(db);
}
