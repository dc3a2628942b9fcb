import { sql, type Kysely } from 'kysely';

/**
 * Scheduled reports (server/reports/schedules.ts, docs/scheduled-reports.md):
 * - `predecessor_id`: the report a scheduled successor was made from; unique per account, so
 *   one report has at most one successor whoever makes it (two workers, a retried job);
 * - `succeeded_at`: when its successor was made. Set in the transaction that makes the
 *   successor, under the report's row lock, so the claim is race-free; it stays set when the
 *   successor is deleted, so a deleted successor is not made again the next day;
 * - `auto_refreshed_on`: the UTC day of its last daily automatic refresh, claimed by the job
 *   with one conditional UPDATE, so each report is refreshed once a day however often the job
 *   runs.
 */
const statements: string[] = [
  `alter table business_reports add column predecessor_id text`,
  `alter table business_reports add column succeeded_at timestamptz`,
  `alter table business_reports add column auto_refreshed_on date`,
  `alter table business_reports add constraint business_reports_predecessor_fk
    foreign key (account_id, predecessor_id) references business_reports (account_id, id) on delete set null (predecessor_id)`,
  `alter table business_reports add constraint business_reports_predecessor_key unique (account_id, predecessor_id)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
