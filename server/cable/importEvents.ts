import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { importStream, publish } from './streams';

/**
 * The live message of an import's status change, as its stream carries it (SegmentsImportChannel
 * and any later import channel): the import's state as of the change, read from its row. The
 * refused rows are not in it (they can be many): a client that needs them asks the import's
 * GET route once the status is `done`.
 */
export interface ImportEventMessage {
  import_id: string;
  kind: string;
  /** The import's status after the change (`in_progress`, `finalizing`, `done`, `failed`, …). */
  status: string;
  /** Percent, 0-100. */
  progress: number;
  /** What happened (the audit log's event: 'queued', 'commit started', 'committed', 'failed', …). */
  event: string;
  success_count: number;
  failure_count: number;
  /** Why a failed import failed (cut to ERROR_MAX_CHARS), else null. */
  error: string | null;
  /** When it happened (ISO 8601). */
  created_at: string;
}

/** A failure's message is cut to this many characters, so the event stays under NOTIFY's limit. */
const ERROR_MAX_CHARS = 500;

/** The import's message for `event`, read through `db` (inside the change's transaction when there is one); null when there is no such import. */
export async function readImportEvent(db: Kysely<DB>, accountId: string, importId: string, event: string, createdAt: Date): Promise<ImportEventMessage | null> {
  const row = await db
    .selectFrom('imports')
    .select(['id', 'kind', 'status', 'progress', 'success_count', 'failure_count', sql<string | null>`left(result->>'error', ${ERROR_MAX_CHARS})`.as('error')])
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    import_id: row.id,
    kind: row.kind,
    status: row.status,
    progress: row.progress,
    event,
    success_count: row.success_count,
    failure_count: row.failure_count,
    error: row.error,
    created_at: createdAt.toISOString(),
  };
}

/**
 * Publishes an import's status change to its stream through `db`: inside a transaction the
 * subscribers get it when it commits, and never when it rolls back.
 */
export async function publishImportEvent(db: Kysely<DB>, accountId: string, importId: string, event: string, createdAt: Date): Promise<void> {
  const message = await readImportEvent(db, accountId, importId, event, createdAt);
  if (message) await publish(db, { stream: importStream(accountId, importId), account_id: accountId, message });
}
