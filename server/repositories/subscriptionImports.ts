import type { Kysely } from 'kysely';
import type { DB, ImportStatus, JsonObject } from '../db/schema';
import { importAuditLog, setImportStatus, type AuditEntry } from '../imports/auditLog';
import type { StoredMapping } from '../imports/subscriptionImport';
import { discard } from '../imports/upload';

/** The subscription CSV imports of one account (`imports` of kind 'subscriptions'), scoped by the account given once. */
export function subscriptionImportsRepository(db: Kysely<DB>, accountId: string) {
  return {
    find(importId: string) {
      return db.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', importId).where('kind', '=', 'subscriptions').executeTakeFirst();
    },

    /** Keeps the rows that failed the dialog's check in the import's result (the import is then discarded). */
    async recordValidationFailures(importId: string, failures: readonly { row_number: number; row: string; message: string }[]): Promise<void> {
      await db
        .updateTable('imports')
        .set({ result: JSON.stringify({ status: 'failed', error: 'validation failed', validation_failures: failures }) })
        .where('account_id', '=', accountId)
        .where('id', '=', importId)
        .execute();
    },

    async setMapping(importId: string, mapping: StoredMapping, skipHeaders: boolean): Promise<void> {
      await db
        .updateTable('imports')
        .set({ column_mapping: JSON.stringify(mapping), skip_headers: skipHeaders })
        .where('account_id', '=', accountId)
        .where('id', '=', importId)
        .execute();
    },

    /** A status change with its audit-log entry (setImportStatus). */
    setStatus(importId: string, status: ImportStatus, event: string, details?: JsonObject): Promise<void> {
      return setImportStatus(db, accountId, importId, status, event, details);
    },

    auditLog(importId: string): Promise<AuditEntry[]> {
      return importAuditLog(db, accountId, importId);
    },

    /** An upload that will not be imported (discard): its staged rows go, the import is marked failed with the reason. */
    discard(importId: string, error: unknown): Promise<void> {
      return discard(db, accountId, importId, error);
    },
  };
}

export type SubscriptionImportsRepository = ReturnType<typeof subscriptionImportsRepository>;
