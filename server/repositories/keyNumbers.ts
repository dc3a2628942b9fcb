import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { lockReport } from '../reports/reports';

/** The key numbers of one account's reports, scoped by the account given once. */
export function keyNumbersRepository(db: Kysely<DB>, accountId: string) {
  return {
    /** The report's key numbers with their sections' titles and last results, in the order they were added. */
    list(reportId: string) {
      return db
        .selectFrom('key_numbers as k')
        .innerJoin('report_sections as s', (join) => join.onRef('s.account_id', '=', 'k.account_id').onRef('s.id', '=', 'k.section_id'))
        .select([
          'k.section_id',
          'k.definition_id',
          's.title',
          sql<Record<string, unknown> | null>`s.result -> 'key_number'`.as('key_number'),
          sql<string | null>`s.result ->> 'unit'`.as('unit'),
          sql<string | null>`s.result ->> 'currency'`.as('currency'),
        ])
        .where('k.account_id', '=', accountId)
        .where('k.report_id', '=', reportId)
        .orderBy('k.position')
        .orderBy('k.created_at')
        .execute();
    },

    /** The definition of a section of the report, or undefined when the report has no such section. */
    async sectionDefinition(reportId: string, sectionId: string): Promise<string | undefined> {
      const section = await db
        .selectFrom('report_sections')
        .select('definition_id')
        .where('account_id', '=', accountId)
        .where('report_id', '=', reportId)
        .where('id', '=', sectionId)
        .executeTakeFirst();
      return section?.definition_id;
    },

    /** Appends a key number (already there: nothing changes). */
    async add(reportId: string, sectionId: string, definitionId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        // The report row first, as every writer of its parts (lockReport): no deadlock with a section's move or removal.
        await lockReport(trx, accountId, reportId);
        await trx
          .insertInto('key_numbers')
          .values((eb) => ({
            account_id: accountId,
            report_id: reportId,
            section_id: sectionId,
            definition_id: definitionId,
            position: eb
              .selectFrom('key_numbers')
              .select(sql<number>`coalesce(max(position) + 1, 0)`.as('next'))
              .where('account_id', '=', accountId)
              .where('report_id', '=', reportId),
          }))
          .onConflict((conflict) => conflict.columns(['account_id', 'report_id', 'section_id', 'definition_id']).doNothing())
          .execute();
      });
    },

    /** Removes a key number (not there: nothing changes). */
    async remove(reportId: string, sectionId: string, definitionId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockReport(trx, accountId, reportId);
        await trx
          .deleteFrom('key_numbers')
          .where('account_id', '=', accountId)
          .where('report_id', '=', reportId)
          .where('section_id', '=', sectionId)
          .where('definition_id', '=', definitionId)
          .execute();
      });
    },
  };
}
