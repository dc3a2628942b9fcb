import { sql, type Kysely } from 'kysely';
import { publishImportEvent } from '../cable/importEvents';
import type { DB, ImportStatus, JsonObject } from '../db/schema';

/**
 * Status changes of an import: written with the change itself (same transaction when there is
 * one), each with its time, so support can read in the state inspector why an import is where
 * it is (GET /subscriptions/csv_import/{id} returns them). Each one is also published to the
 * import's live stream (`import:<account>:<import>`, heard by SegmentsImportChannel) through the
 * same handle: inside a transaction, subscribers hear of it only when it commits.
 */
export async function setImportStatus(
  db: Kysely<DB>,
  accountId: string,
  importId: string,
  status: ImportStatus,
  event: string,
  details: JsonObject = {},
  changes: { progress?: number } = {},
): Promise<void> {
  await db
    .updateTable('imports')
    .set({ status, updated_at: new Date(), ...(changes.progress !== undefined ? { progress: changes.progress } : {}) })
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .execute();
  await auditImport(db, accountId, importId, event, status, details);
}

export async function auditImport(db: Kysely<DB>, accountId: string, importId: string, event: string, status: ImportStatus | null, details: JsonObject = {}): Promise<void> {
  const entry = await db
    .insertInto('audit_log')
    // The wall clock, not the transaction's start: an entry written inside the commit shows when it happened.
    .values({ account_id: accountId, entity_type: 'import', entity_id: importId, event, status, details: JSON.stringify(details), created_at: sql<Date>`clock_timestamp()` })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  await publishImportEvent(db, accountId, importId, event, new Date(entry.created_at));
}

export interface AuditEntry {
  event: string;
  status: string | null;
  details: JsonObject;
  created_at: string;
}

export async function importAuditLog(db: Kysely<DB>, accountId: string, importId: string): Promise<AuditEntry[]> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['event', 'status', 'details', 'created_at'])
    .where('account_id', '=', accountId)
    .where('entity_type', '=', 'import')
    .where('entity_id', '=', importId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ event: row.event, status: row.status, details: row.details, created_at: new Date(row.created_at).toISOString() }));
}
