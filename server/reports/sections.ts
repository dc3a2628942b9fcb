import { sql, type Kysely } from 'kysely';
import { CUSTOM_SECTION_TITLE, USER_FILTERED_DEFINITION_ID, type CustomSectionConfig } from '../../models/customSections';
import type { DataCategory, DB, Resolution, SectionDataType } from '../db/schema';
import { findDefinition } from '../metrics/definitions/catalogue';
import { TOTAL_SEGMENTER_ID } from '../metrics/definitions/segmenters';
import type { SegmentResult } from '../metrics/definitions/types';
import { lockReport, newSectionId } from './reports';

/**
 * Section editing queries (second spec document, section 7): add, change, move, delete a
 * report's sections and their segments. Every query is scoped by `account_id`. Positions stay
 * a dense 0..n-1 order: a new section is appended, a move shifts the ones between, a delete
 * closes the gap. The report's revision (and so the cached `by_secret` answer) follows from the
 * triggers on report_sections and report_section_segments (migration 0010).
 */

export interface SectionRow {
  id: string;
  report_id: string;
  definition_id: string;
  title: string;
  summary: string;
  data_type: SectionDataType;
  use_hierarchy: boolean;
  resolution: Resolution;
  position: number;
  data_categories: DataCategory[];
  recalculation_status: 'recalculated' | 'recalculating' | 'failed';
  segment_ids: string[];
  /** A custom section's series, groups and filters as stored; null for a catalogue section. */
  config: unknown;
}

export interface SectionChange {
  title?: string;
  summary?: string;
  position?: number;
  data_type?: SectionDataType;
  use_hierarchy?: boolean;
  resolution?: Resolution;
  data_categories?: DataCategory[];
  segment_ids?: string[];
  /** A custom section's new series, groups and filters (checked). */
  config?: CustomSectionConfig;
}

/** The section of this account, with its segment ids in order; undefined when there is none. */
export async function findSection(db: Kysely<DB>, accountId: string, sectionId: string): Promise<SectionRow | undefined> {
  const row = await db
    .selectFrom('report_sections')
    .select(['id', 'report_id', 'definition_id', 'title', 'summary', 'data_type', 'use_hierarchy', 'resolution', 'position', 'data_categories', 'recalculation_status', 'config'])
    .where('account_id', '=', accountId)
    .where('id', '=', sectionId)
    .executeTakeFirst();
  if (!row) return undefined;
  const segments = await db
    .selectFrom('report_section_segments')
    .select('segmenter_id')
    .where('account_id', '=', accountId)
    .where('section_id', '=', sectionId)
    .orderBy('position')
    .orderBy('segmenter_id')
    .execute();
  const fallback = row.definition_id === USER_FILTERED_DEFINITION_ID ? CUSTOM_SECTION_TITLE : row.definition_id;
  return { ...row, title: row.title || findDefinition(row.definition_id)?.name || fallback, segment_ids: segments.map((s) => s.segmenter_id) };
}

/** The section's segment as last computed (its values are the grouped segment names); null when not computed. */
export async function computedSegment(db: Kysely<DB>, accountId: string, sectionId: string, segmentId: string): Promise<SegmentResult | null> {
  const row = await db
    .selectFrom('report_sections')
    .select(sql<SegmentResult[] | null>`result -> 'segments'`.as('segments'))
    .where('account_id', '=', accountId)
    .where('id', '=', sectionId)
    .executeTakeFirst();
  return row?.segments?.find((segment) => segment.id === segmentId) ?? null;
}

const withoutTotal = (ids: readonly string[]) => [...new Set(ids)].filter((id) => id !== TOTAL_SEGMENTER_ID);

async function writeSegments(trx: Kysely<DB>, accountId: string, sectionId: string, segmentIds: readonly string[]): Promise<void> {
  await trx.deleteFrom('report_section_segments').where('account_id', '=', accountId).where('section_id', '=', sectionId).execute();
  const ids = withoutTotal(segmentIds);
  if (ids.length > 0) {
    await trx
      .insertInto('report_section_segments')
      .values(ids.map((segmenter_id, position) => ({ account_id: accountId, section_id: sectionId, segmenter_id, position })))
      .execute();
  }
}

/** Renumbers the report's sections 0..n-1 in their current order, `moved` put at `position`. */
async function renumber(trx: Kysely<DB>, accountId: string, reportId: string, moved?: { id: string; position: number }): Promise<void> {
  const rows = await trx
    .selectFrom('report_sections')
    .select(['id', 'position'])
    .where('account_id', '=', accountId)
    .where('report_id', '=', reportId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
  const order = rows.map((row) => row.id);
  if (moved) {
    const from = order.indexOf(moved.id);
    if (from >= 0) {
      order.splice(from, 1);
      order.splice(Math.min(Math.max(moved.position, 0), order.length), 0, moved.id);
    }
  }
  const current = new Map(rows.map((row) => [row.id, row.position]));
  for (const [position, id] of order.entries()) {
    if (current.get(id) !== position) {
      await trx.updateTable('report_sections').set({ position, updated_at: new Date() }).where('account_id', '=', accountId).where('id', '=', id).execute();
    }
  }
}

/** Appends a section of the definition (its defaults) with these segments; answers its id. */
export async function addSection(
  db: Kysely<DB>,
  input: { accountId: string; reportId: string; definitionId: string; segmentIds: readonly string[]; config?: CustomSectionConfig; title?: string },
): Promise<string> {
  const definition = findDefinition(input.definitionId);
  const id = newSectionId();
  await db.transaction().execute(async (trx) => {
    // The report first (lockReport); it also gives concurrent adds distinct positions.
    await lockReport(trx, input.accountId, input.reportId);
    const { next } = await trx
      .selectFrom('report_sections')
      .select(sql<number>`count(*)::int`.as('next'))
      .where('account_id', '=', input.accountId)
      .where('report_id', '=', input.reportId)
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('report_sections')
      .values({
        account_id: input.accountId,
        id,
        report_id: input.reportId,
        definition_id: input.definitionId,
        data_type: definition?.default_data_type ?? 'line_chart',
        data_categories: [definition?.data_categories[0] ?? 'values'],
        decimal: definition?.decimals === 2,
        position: Number(next),
        ...(input.config ? { config: JSON.stringify(input.config) } : {}),
        ...(input.title !== undefined ? { title: input.title } : {}),
      })
      .execute();
    await writeSegments(trx, input.accountId, id, input.segmentIds);
  });
  return id;
}

/** Applies a change to the section (a move renumbers the report's sections). */
export async function updateSection(db: Kysely<DB>, accountId: string, section: SectionRow, change: SectionChange): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockReport(trx, accountId, section.report_id);
    const columns = {
      ...(change.title !== undefined ? { title: change.title } : {}),
      ...(change.summary !== undefined ? { summary: change.summary } : {}),
      ...(change.data_type !== undefined ? { data_type: change.data_type } : {}),
      ...(change.use_hierarchy !== undefined ? { use_hierarchy: change.use_hierarchy } : {}),
      ...(change.resolution !== undefined ? { resolution: change.resolution } : {}),
      ...(change.data_categories !== undefined ? { data_categories: change.data_categories } : {}),
      ...(change.config !== undefined ? { config: JSON.stringify(change.config) } : {}),
    };
    if (Object.keys(columns).length > 0) {
      await trx
        .updateTable('report_sections')
        .set({ ...columns, updated_at: new Date() })
        .where('account_id', '=', accountId)
        .where('id', '=', section.id)
        .execute();
    }
    if (change.segment_ids !== undefined) await writeSegments(trx, accountId, section.id, change.segment_ids);
    if (change.position !== undefined) await renumber(trx, accountId, section.report_id, { id: section.id, position: change.position });
  });
}

/** Deletes the section (its segments, key numbers and comments go with it) and closes the gap. */
export async function deleteSection(db: Kysely<DB>, accountId: string, section: SectionRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockReport(trx, accountId, section.report_id);
    await trx.deleteFrom('report_sections').where('account_id', '=', accountId).where('id', '=', section.id).execute();
    await renumber(trx, accountId, section.report_id);
  });
}

/** Removes one segment of the section; false when the section does not have it. */
export async function deleteSectionSegment(db: Kysely<DB>, accountId: string, section: Pick<SectionRow, 'id' | 'report_id'>, segmentId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockReport(trx, accountId, section.report_id);
    const deleted = await trx
      .deleteFrom('report_section_segments')
      .where('account_id', '=', accountId)
      .where('section_id', '=', section.id)
      .where('segmenter_id', '=', segmentId)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  });
}

/** The number of sections of the report. */
export async function sectionCount(db: Kysely<DB>, accountId: string, reportId: string): Promise<number> {
  const { count } = await db
    .selectFrom('report_sections')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('account_id', '=', accountId)
    .where('report_id', '=', reportId)
    .executeTakeFirstOrThrow();
  return Number(count);
}
