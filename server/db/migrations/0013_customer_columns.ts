import { sql, type Kysely } from 'kysely';

/**
 * Calculated customer columns (docs/customer-columns.md). A definition remembers what its
 * values were computed from: `computed_data_version` is `accounts.data_version` as its last
 * recalculation read it (the values are current while it is the account's), and
 * `computed_on` the day it ran (a variable measured on today, MRR of the current month, is
 * recomputed the next day).
 */
const statements: string[] = [
  `alter table customer_column_definitions add column computed_data_version bigint`,
  `alter table customer_column_definitions add column computed_on date`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
