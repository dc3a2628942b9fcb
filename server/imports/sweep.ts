import { sql } from 'kysely';
import { CSV_IMPORT_PREVIEW_TTL_MS } from '../../models/constants';
import type { Database } from '../db/database';
import { auditImport } from './auditLog';
import { UPLOAD_EXPIRED } from './messages';

/**
 * Frees what uploads left behind (docs/imports.md, "Expiry and storage"):
 * - an upload waiting for its mapping (`preview`) longer than CSV_IMPORT_PREVIEW_TTL_MS after it
 *   was uploaded expires: the import fails with UPLOAD_EXPIRED and its file or staged rows go;
 * - an upload still `uploaded` that long after it began was cut off (a process killed while
 *   receiving it, whose restart has not come): the same, when no live request holds it;
 * - a finished import (done, failed) keeps no bytes; any it still has go.
 * Safe to run anywhere at any time, twice at once included: an import is expired by one
 * conditional UPDATE, which a finalize that came first makes miss. `now` is the clock (tests).
 */

export const IMPORT_SWEEP_JOB = 'imports.sweep';
/** Every hour at :17 (UTC), on the queue; without a queue the app runs it on a timer as often. */
export const IMPORT_SWEEP_CRON = '17 * * * *';
export const IMPORT_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

export interface SweepResult {
  /** Imports failed as expired (previews, and cut-off uploads). */
  expired: string[];
}

export async function sweepUploads(
  database: Database,
  options: { now?: Date; whileLocked: (importId: string, work: () => Promise<void>) => Promise<boolean> },
): Promise<SweepResult> {
  const db = database.kysely;
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - CSV_IMPORT_PREVIEW_TTL_MS);
  const expired: string[] = [];
  const expire = async (accountId: string, importId: string, from: 'preview' | 'uploaded') => {
    const { rows } = await sql<{ id: string }>`
      update imports set status = 'failed', finished_at = now(), updated_at = now(),
             result = coalesce(result, '{}'::jsonb) || jsonb_build_object('status', 'failed', 'error', ${UPLOAD_EXPIRED}::text)
       where account_id = ${accountId} and id = ${importId} and status = ${from}
      returning id`.execute(db);
    if (rows.length === 0) return;
    await db.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
    await db.deleteFrom('import_files').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
    await auditImport(db, accountId, importId, 'failed', 'failed', { error: UPLOAD_EXPIRED, expired_from: from });
    expired.push(importId);
  };

  const previews = await db.selectFrom('imports').select(['account_id', 'id']).where('status', '=', 'preview').where('created_at', '<', cutoff).execute();
  for (const row of previews) await expire(row.account_id, row.id, 'preview');
  const uploads = await db.selectFrom('imports').select(['account_id', 'id']).where('status', '=', 'uploaded').where('created_at', '<', cutoff).execute();
  // On PostgreSQL a live upload holds its import's lock: only those no request reads are failed.
  for (const row of uploads) await options.whileLocked(row.id, () => expire(row.account_id, row.id, 'uploaded'));

  await sql`delete from import_files f using imports i
             where i.account_id = f.account_id and i.id = f.import_id and i.status in ('done', 'failed')`.execute(db);
  await sql`delete from import_rows r using imports i
             where i.account_id = r.account_id and i.id = r.import_id and i.status in ('done', 'failed')`.execute(db);
  return { expired };
}
