import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { CSV_FILE_EXTENSION } from '../../models/constants';
import { newId } from '../auth/secrets';
import type { Database } from '../db/database';
import type { DB, ImportKind } from '../db/schema';
import { ApiError } from '../http/errors';
import { auditImport } from './auditLog';
import { CsvFormatError, CsvRowTooLargeError } from './csv/rows';
import { whileImportLocked } from './plugin';
import { stageCsv, storeCsvFile, type FileFacts, type StagedFile } from './staging';
import { markFailed } from './subscriptionImport';

/** The message of a file over the upload limit (200 MB unless the app was built with another). */
export const fileTooLarge = (limitBytes: number) => `The file is larger than ${Math.round(limitBytes / (1024 * 1024))} MB`;
export const ONLY_CSV = 'Only .csv files can be imported';
export const NO_FILE = 'Attach the CSV file';
export const EMPTY_FILE = 'The file has no rows';

export interface ReceivedUpload {
  importId: string;
  staged: StagedFile;
  /** The form's text fields. */
  fields: Record<string, string>;
  /** A subscription file's facts (it is kept whole in import_files; other kinds are staged row by row). */
  facts: FileFacts | null;
}

/**
 * Reads a multipart CSV upload into a new import of `kind`: the file (the first part named one
 * of `fileFields`) is streamed into staged rows while holding the import's liveness lock, the
 * other parts' text fields are returned. Any failure discards what was staged and marks the
 * import failed, and answers with the spec's messages (413, 415, 422).
 */
export async function receiveCsvUpload(
  database: Database,
  request: FastifyRequest,
  options: { accountId: string; userId: string; kind: ImportKind; fileFields: readonly string[]; uploadLimit: number },
): Promise<ReceivedUpload> {
  const { accountId, userId, kind, fileFields, uploadLimit } = options;
  const db = database.kysely;
  const pointer = `/body/${fileFields[0]}`;
  if (!request.isMultipart()) throw ApiError.of(415, NO_FILE, '/body');
  const importId = newId('imp');
  const fields: Record<string, string> = {};
  let staged: StagedFile | undefined;
  let facts: FileFacts | null = null;
  let created = false;
  try {
    // The liveness lock: a restart can tell this upload from one a killed process left.
    await whileImportLocked(database, importId, async () => {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          fields[part.fieldname] = String(part.value);
          continue;
        }
        if (staged || !fileFields.includes(part.fieldname)) {
          part.file.resume();
          continue;
        }
        if (!part.filename.toLowerCase().endsWith(CSV_FILE_EXTENSION)) throw ApiError.of(422, ONLY_CSV, `/body/${part.fieldname}`);
        await db
          .insertInto('imports')
          .values({ account_id: accountId, id: importId, kind, status: 'uploaded', file_name: part.filename.slice(0, 255), created_by_user_id: userId })
          .execute();
        created = true;
        await auditImport(db, accountId, importId, 'upload started', 'uploaded', { file_name: part.filename });
        if (kind === 'subscriptions') {
          const stored = await storeCsvFile(database, accountId, importId, part.file);
          facts = stored.facts;
          staged = stored;
        } else {
          staged = await stageCsv(db, accountId, importId, part.file);
        }
        if (part.file.truncated) throw ApiError.of(413, fileTooLarge(uploadLimit), `/body/${part.fieldname}`);
      }
    });
    if (!staged) throw ApiError.of(422, NO_FILE, pointer);
    if (staged.rows === 0) throw ApiError.of(422, EMPTY_FILE, pointer);
  } catch (error) {
    if (created) await discard(db, accountId, importId, error);
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw ApiError.of(413, fileTooLarge(uploadLimit), pointer);
    if (error instanceof CsvRowTooLargeError || error instanceof CsvFormatError) throw ApiError.of(422, error.message, pointer);
    throw error;
  }
  const { delimiter, encoding } = staged;
  await db
    .updateTable('imports')
    .set({ total_rows: staged.rows, byte_size: staged.bytes, delimiter, encoding, file_facts: facts ? JSON.stringify(facts) : null }).where('account_id', '=', accountId).where('id', '=', importId).execute();
  await auditImport(db, accountId, importId, 'uploaded', 'uploaded', { rows: staged.rows, bytes: staged.bytes, delimiter, encoding });
  return { importId, staged, fields, facts };
}

/** An upload that will not be imported: its staged rows or file go, the import is marked failed with the reason. */
export async function discard(db: Kysely<DB>, accountId: string, importId: string, error: unknown): Promise<void> {
  await db.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  await db.deleteFrom('import_files').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  const reason = error instanceof Error ? error.message : String(error);
  await markFailed(db, accountId, importId, new Error(reason));
}
