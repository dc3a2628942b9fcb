import { sql, type Kysely } from 'kysely';

/**
 * What the metrics engine's snapshot read needs (server/metrics/loadSnapshot.ts reads each
 * large table as a few aggregated text values, keys joined by the unit separator U+001F):
 *
 * - Keys the snapshot joins on (customer, payment and product ids, attribute and segment ids)
 *   hold no control characters, so no key can contain the separator.
 * - Earlier payment versions (`valid_to` set) are a small fraction of `payment_versions`,
 *   which also holds every current version: a partial index finds them without a scan.
 */
const NO_CONTROL = `!~ '[[:cntrl:]]'`;
const statements: string[] = [
  `alter table customers add constraint customers_id_printable check (id ${NO_CONTROL})`,
  `alter table payments add constraint payments_id_printable check (id ${NO_CONTROL})`,
  `alter table products add constraint products_key_printable check (key ${NO_CONTROL})`,
  `alter table object_attributes add constraint object_attributes_id_printable check (id ${NO_CONTROL})`,
  `alter table customer_segments add constraint customer_segments_id_printable check (id ${NO_CONTROL})`,
  `create index payment_versions_history_idx on payment_versions (account_id, payment_id, version) where valid_to is not null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
