import { sql, type Kysely } from 'kysely';

/**
 * `customers_name_idx (account_id, lower(name))` cost every written customer (a first sync writes
 * an account's customers in bulk; docs/stripe.md "Speed") for no reader: every query by name also
 * asks for customers not deleted, and `customers_name_pattern_idx` (prefix search) and
 * `customers_name_keyset_idx` (the list's order) serve those.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists customers_name_idx`.execute(db);
}
