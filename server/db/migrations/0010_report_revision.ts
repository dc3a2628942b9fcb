import { sql, type Kysely } from 'kysely';

/**
 * `business_reports.revision` goes up with every write to the report or to what its page
 * shows from the report's own tables (settings, sections, their segments, key numbers) and
 * with a new name of its owner, kept by triggers so no writer can forget it.
 * `GET /business_reports/by_secret` keeps each report's serialised answer in memory and serves
 * it again while the revision (with the account's `data_version` and currency, read in the
 * same query that finds the report by its secret) is unchanged: one small query a request
 * instead of six and a re-serialisation of some hundreds of kilobytes
 * (server/reports/answerCache.ts).
 */
const statements: string[] = [
  `alter table business_reports add column revision bigint not null default 0`,

  // Any update of the report row itself (title, range, statuses, and the bumps below).
  `create function business_reports_revision() returns trigger language plpgsql as $$
  begin
    new.revision := old.revision + 1;
    return new;
  end $$`,
  `create trigger business_reports_revision before update on business_reports
    for each row execute function business_reports_revision()`,

  // Rows that belong to a report by (account_id, report_id).
  `create function report_part_revision() returns trigger language plpgsql as $$
  declare
    changed record;
  begin
    changed := case when tg_op = 'DELETE' then old else new end;
    update business_reports set revision = revision + 1 where account_id = changed.account_id and id = changed.report_id;
    return null;
  end $$`,
  `create trigger report_settings_revision after insert or update or delete on report_settings
    for each row execute function report_part_revision()`,
  `create trigger report_sections_revision after insert or update or delete on report_sections
    for each row execute function report_part_revision()`,
  `create trigger key_numbers_revision after insert or update or delete on key_numbers
    for each row execute function report_part_revision()`,

  // A section's segments belong to the report through their section.
  `create function report_section_segments_revision() returns trigger language plpgsql as $$
  declare
    changed record;
  begin
    changed := case when tg_op = 'DELETE' then old else new end;
    update business_reports r set revision = r.revision + 1
      from report_sections s
      where s.account_id = changed.account_id and s.id = changed.section_id and r.account_id = s.account_id and r.id = s.report_id;
    return null;
  end $$`,
  `create trigger report_section_segments_revision after insert or update or delete on report_section_segments
    for each row execute function report_section_segments_revision()`,

  // 'By {owner}': a new name is a new answer for the reports the user owns.
  `create function report_owner_revision() returns trigger language plpgsql as $$
  begin
    update business_reports set revision = revision + 1 where account_id = new.account_id and owner_user_id = new.id;
    return null;
  end $$`,
  `create trigger report_owner_revision after update of name on users
    for each row when (old.name is distinct from new.name) execute function report_owner_revision()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
