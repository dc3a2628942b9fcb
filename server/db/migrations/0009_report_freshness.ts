import { sql, type Kysely } from 'kysely';

/**
 * A report is fresh while the account's data is at the version its sections were computed
 * from: `computed_data_version` is `accounts.data_version` as the recalculation read it, and
 * every write to what the metrics read raises that (migration 0004), so "a write to the
 * account's data marks its reports stale" without a trigger of its own. A section keeps the
 * reason it failed, for the report page and support.
 */
const statements: string[] = [
  `alter table business_reports add column computed_data_version bigint`,
  `alter table report_sections add column error text`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
