import { sql, type Kysely } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import type { FilterItem } from '../../models/reportFilter';
import { filterSegmentations, parseSegmentId, resolveFilterItems } from './reportFilters';
import { lockReport, REPORT_NOT_FOUND } from './reports';

/**
 * Report sharing (second spec document, sections 2, 3, 6, 7; docs/sharing.md): share links
 * (`report_share_secrets`), each optionally pinned to one segment value, and group links
 * (`report_group_secrets`) that resolve to the newest report of a line of reports. A link is
 * its secret: 32 characters [A-Za-z0-9] from the system CSPRNG (about 190 bits), never a
 * report's own secret. Every public read looks the secret up in the database, so a revoked
 * link (its row deleted) stops working at once on every server process. Every query is scoped
 * by account; the lookups by secret use the secret's own index and then the account's keys.
 */

/** A link's secret: as long as a report's (server/reports/reports.ts newReportSecret). */
export const newLinkSecret = () => randomAlphanumeric(32);
export const newShareSecretId = () => `shr${randomAlphanumeric(12)}`;
export const newGroupSecretId = () => `gsc${randomAlphanumeric(12)}`;
export const newGroupId = () => `grp${randomAlphanumeric(12)}`;

export const SEGMENT_PAIR_REQUIRED = 'A segment and its value go together: give both or neither';

/** One share link as the owner's list shows it. */
export interface ShareSecretView {
  id: string;
  secret: string;
  segmenter_id: string | null;
  segmenter_name: string | null;
  segment_value: string | null;
  created_at: string;
}

/** One group link. */
export interface GroupSecretView {
  id: string;
  secret: string;
  created_at: string;
}

/** What a share link pins: a segment value, with the segment's current name (null when the segment is gone). */
export interface SharedFilter {
  segmenter_id: string;
  segmenter_name: string | null;
  segment_value: string;
}

/** A share link found by its secret: the report it shows (with the stamp answers are cached by) and its pinned segment value. */
export interface ShareFound {
  share_id: string;
  secret: string;
  account_id: string;
  /** The report's id (the ReportStamp shape of server/reports/answerCache.ts). */
  id: string;
  anonymous_access_allowed: boolean;
  is_demo: boolean;
  stamp: string;
  segmenter_id: string | null;
  segment_value: string | null;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** The share link of this secret, or undefined (unknown or revoked): read from the database on every call. */
export async function shareBySecret(db: Kysely<DB>, secret: string): Promise<ShareFound | undefined> {
  return db
    .selectFrom('report_share_secrets as s')
    .innerJoin('business_reports as r', (join) => join.onRef('r.account_id', '=', 's.account_id').onRef('r.id', '=', 's.report_id'))
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id as share_id',
      's.secret',
      's.account_id',
      'r.id',
      'a.anonymous_access_allowed',
      'a.is_demo',
      sql<string>`concat_ws('/', r.revision, a.data_version, a.currency)`.as('stamp'),
      's.segmenter_id',
      's.segment_value',
    ])
    .where('s.secret', '=', secret)
    .executeTakeFirst();
}

/** The names of these segmenter ids in the account (customer segments, payment attributes and segmentations); an unknown one is left out. */
export async function segmenterNames(db: Kysely<DB>, accountId: string, segmenterIds: readonly string[]): Promise<Map<string, string>> {
  const segmentIds = new Set<string>();
  const attributeIds = new Set<string>();
  const segmentationIds = new Set<string>();
  for (const id of segmenterIds) {
    const parsed = parseSegmentId(id);
    if (parsed?.kind === 'customer_segment') segmentIds.add(parsed.segmentId);
    if (parsed?.kind === 'payment_attribute') attributeIds.add(parsed.attributeId);
    if (parsed?.kind === 'segmentation') segmentationIds.add(parsed.segmentationId);
  }
  const [segments, attributes, segmentations] = await Promise.all([
    segmentIds.size === 0 ? [] : db.selectFrom('customer_segments').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', [...segmentIds]).execute(),
    attributeIds.size === 0
      ? []
      : db.selectFrom('object_attributes').select(['id', 'name']).where('account_id', '=', accountId).where('object', '=', 'subscription_history').where('id', 'in', [...attributeIds]).execute(),
    filterSegmentations(db, accountId, [...segmentationIds]),
  ]);
  const names = new Map<string, string>();
  const segmentNames = new Map(segments.map((s) => [s.id, s.name]));
  const attributeNames = new Map(attributes.map((a) => [a.id, a.name]));
  const segmentationNames = new Map(segmentations.map((s) => [s.id, s.name]));
  const nameOf = (parsed: ReturnType<typeof parseSegmentId>): string | undefined => {
    switch (parsed?.kind) {
      case 'customer_segment':
        return segmentNames.get(parsed.segmentId);
      case 'payment_attribute':
        return attributeNames.get(parsed.attributeId);
      case 'segmentation':
        return segmentationNames.get(parsed.segmentationId);
      default:
        return undefined;
    }
  };
  for (const id of segmenterIds) {
    const name = nameOf(parseSegmentId(id));
    if (name !== undefined) names.set(id, name);
  }
  return names;
}

/** The pinned segment value of a share link, with the segment's name; null for a link that shows the whole report. */
export async function sharedFilterOf(db: Kysely<DB>, share: Pick<ShareFound, 'account_id' | 'segmenter_id' | 'segment_value'>): Promise<SharedFilter | null> {
  if (share.segmenter_id === null || share.segment_value === null) return null;
  const names = await segmenterNames(db, share.account_id, [share.segmenter_id]);
  return { segmenter_id: share.segmenter_id, segmenter_name: names.get(share.segmenter_id) ?? null, segment_value: share.segment_value };
}

/** The filter item a pinned link adds to the report view's filter (never negated). */
export function sharedFilterItem(filter: SharedFilter): FilterItem {
  return { type: 'segment', id: filter.segmenter_id, name: filter.segmenter_name ?? '', value: filter.segment_value, negated: false };
}

/** Checks a pinned segment of a new share link against the account: both or neither, and a segment of this account (422). */
export async function checkedPin(db: Kysely<DB>, accountId: string, segmenterId: string | null | undefined, segmentValue: string | null | undefined): Promise<{ segmenter_id: string; segment_value: string } | null> {
  const hasSegmenter = segmenterId !== null && segmenterId !== undefined && segmenterId !== '';
  const hasValue = segmentValue !== null && segmentValue !== undefined && segmentValue !== '';
  if (!hasSegmenter && !hasValue) return null;
  if (!hasSegmenter) throw ApiError.of(422, SEGMENT_PAIR_REQUIRED, '/segmenter_id');
  if (!hasValue) throw ApiError.of(422, SEGMENT_PAIR_REQUIRED, '/segment_value');
  await resolveFilterItems(db, accountId, [{ type: 'segment', id: segmenterId, name: '', value: segmentValue, negated: false }], (_k, field) => (field === 'value' ? '/segment_value' : '/segmenter_id'));
  return { segmenter_id: segmenterId, segment_value: segmentValue };
}

// ------------------------------------------------------------------- share links of a report

export async function createShareSecret(db: Kysely<DB>, accountId: string, reportId: string, pin: { segmenter_id: string; segment_value: string } | null): Promise<ShareSecretView> {
  const row = await db
    .insertInto('report_share_secrets')
    .values({ account_id: accountId, id: newShareSecretId(), report_id: reportId, secret: newLinkSecret(), segmenter_id: pin?.segmenter_id ?? null, segment_value: pin?.segment_value ?? null })
    .returning(['id', 'secret', 'segmenter_id', 'segment_value', 'created_at'])
    .executeTakeFirstOrThrow();
  const names = row.segmenter_id === null ? new Map<string, string>() : await segmenterNames(db, accountId, [row.segmenter_id]);
  return { ...row, segmenter_name: row.segmenter_id === null ? null : (names.get(row.segmenter_id) ?? null), created_at: iso(row.created_at) };
}

/** The report's share links, newest first. */
export async function listShareSecrets(db: Kysely<DB>, accountId: string, reportId: string): Promise<ShareSecretView[]> {
  const rows = await db
    .selectFrom('report_share_secrets')
    .select(['id', 'secret', 'segmenter_id', 'segment_value', 'created_at'])
    .where('account_id', '=', accountId)
    .where('report_id', '=', reportId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const names = await segmenterNames(db, accountId, [...new Set(rows.flatMap((row) => (row.segmenter_id === null ? [] : [row.segmenter_id])))]);
  return rows.map((row) => ({ ...row, segmenter_name: row.segmenter_id === null ? null : (names.get(row.segmenter_id) ?? null), created_at: iso(row.created_at) }));
}

/** Revokes one share link of the report; false when the report has no such link. */
export async function revokeShareSecret(db: Kysely<DB>, accountId: string, reportId: string, secretId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('report_share_secrets').where('account_id', '=', accountId).where('report_id', '=', reportId).where('id', '=', secretId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

// ------------------------------------------------------------------- group links

/**
 * A new group link for the report's group; a report without a group gets one first (named
 * after the report), under the report's row lock, in one transaction.
 */
export async function createGroupSecret(db: Kysely<DB>, accountId: string, reportId: string): Promise<GroupSecretView> {
  return db.transaction().execute(async (trx) => {
    await lockReport(trx, accountId, reportId);
    const report = await trx.selectFrom('business_reports').select(['group_id', 'title']).where('account_id', '=', accountId).where('id', '=', reportId).executeTakeFirst();
    if (!report) throw ApiError.of(404, REPORT_NOT_FOUND);
    let groupId = report.group_id;
    if (groupId === null) {
      groupId = newGroupId();
      await trx.insertInto('report_groups').values({ account_id: accountId, id: groupId, name: report.title }).execute();
      await trx.updateTable('business_reports').set({ group_id: groupId }).where('account_id', '=', accountId).where('id', '=', reportId).execute();
    }
    const row = await trx
      .insertInto('report_group_secrets')
      .values({ account_id: accountId, id: newGroupSecretId(), group_id: groupId, secret: newLinkSecret() })
      .returning(['id', 'secret', 'created_at'])
      .executeTakeFirstOrThrow();
    return { ...row, created_at: iso(row.created_at) };
  });
}

async function groupOf(db: Kysely<DB>, accountId: string, reportId: string): Promise<string | null> {
  const row = await db.selectFrom('business_reports').select('group_id').where('account_id', '=', accountId).where('id', '=', reportId).executeTakeFirst();
  return row?.group_id ?? null;
}

/** The group links of the report's group, newest first (none when it has no group). */
export async function listGroupSecrets(db: Kysely<DB>, accountId: string, reportId: string): Promise<GroupSecretView[]> {
  const groupId = await groupOf(db, accountId, reportId);
  if (groupId === null) return [];
  const rows = await db
    .selectFrom('report_group_secrets')
    .select(['id', 'secret', 'created_at'])
    .where('account_id', '=', accountId)
    .where('group_id', '=', groupId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
}

/** Revokes one group link of the report's group; false when the group has no such link. */
export async function revokeGroupSecret(db: Kysely<DB>, accountId: string, reportId: string, secretId: string): Promise<boolean> {
  const groupId = await groupOf(db, accountId, reportId);
  if (groupId === null) return false;
  const deleted = await db.deleteFrom('report_group_secrets').where('account_id', '=', accountId).where('group_id', '=', groupId).where('id', '=', secretId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** The newest report (created_at, then id) of the group of this link; undefined for an unknown or revoked link or an empty group. */
export async function latestReportByGroupSecret(db: Kysely<DB>, secret: string): Promise<{ secret: string; title: string } | undefined> {
  return db
    .selectFrom('report_group_secrets as g')
    .innerJoin('business_reports as r', (join) => join.onRef('r.account_id', '=', 'g.account_id').onRef('r.group_id', '=', 'g.group_id'))
    .select(['r.secret', 'r.title'])
    .where('g.secret', '=', secret)
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
