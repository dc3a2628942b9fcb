import { sql, type Kysely } from 'kysely';

/**
 * The payments table (GET /subscription_histories, GET /subscriptions/histories/search;
 * docs/payments.md "Speed"): its default order (start date), the order by total value, and the
 * search by invoice number prefix read a page from an index instead of sorting the account's
 * payments. Partial (deleted payments are never listed) and with the id, the keyset's tie-break,
 * so a page after a cursor is one index range. Each index costs every written payment (an import
 * writes about a million in one run, migration 0008), so only the orders the benchmark measured
 * (bench/payments.ts) have one; the other orders sort the account's payments.
 */
const statements: string[] = [
  `create index payments_listing_started_at_idx on payments (account_id, started_at, id) where deleted_at is null`,
  `create index payments_listing_total_value_idx on payments (account_id, total_value, id) where deleted_at is null`,
  `create index payments_listing_invoice_idx on payments (account_id, lower(invoice_number) text_pattern_ops) where deleted_at is null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
