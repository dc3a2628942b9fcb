import type { FastifyRequest } from 'fastify';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import { sql, type Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import { CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT } from '../../models/constants';
import { isCsvFileName } from '../../models/imports';
import { newId } from '../auth/secrets';
import type { Database } from '../db/database';
import type { DB, ImportKind } from '../db/schema';
import { ApiError } from '../http/errors';
import { auditImport } from './auditLog';
import { CsvBinaryError, CsvEncodingError } from './csv/decode';
import { CsvFormatError, CsvRowTooLargeError } from './csv/rows';
import {
  EMPTY_FILE,
  fileTooLarge,
  MULTIPART_MALFORMED,
  MULTIPART_NO_BOUNDARY,
  MULTIPART_TRUNCATED,
  NO_FILE,
  NUL_IN_FIELD,
  NUL_IN_FILE_NAME,
  ONLY_CSV,
  pendingUploadsTooLarge,
} from './messages';
import { whileImportLocked } from './plugin';
import { stageCsv, storeCsvFile, type FileFacts, type StagedFile } from './staging';
import { markFailed } from './subscriptionImport';

/** Statuses whose import still holds its file (import_files) or staged rows (import_rows). */
export const PENDING_STATUSES = ['uploaded', 'preview', 'in_progress', 'finalizing'] as const;
/**
 * Bytes received between two looks at the account's other pending uploads (each look also
 * records this upload's bytes so far, for theirs): concurrent uploads of one account pass
 * its bound by at most this much each.
 */
const PENDING_CHECK_BYTES = 8 * 1024 * 1024;

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
 * import failed, and answers with the spec's messages (400, 413, 415, 422): a body that is not
 * well-formed multipart (no boundary, cut off), a file name or field with a NUL, a file that is
 * not CSV text, or bytes past the file's limit or the account's bound of pending uploads
 * (`maxPendingBytes`, CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT). A file refused while it arrives
 * is read to its end and dropped, so the client, still sending, hears the answer.
 */
export async function receiveCsvUpload(
  database: Database,
  request: FastifyRequest,
  options: { accountId: string; userId: string; kind: ImportKind; fileFields: readonly string[]; uploadLimit: number; maxPendingBytes?: number },
): Promise<ReceivedUpload> {
  const { accountId, userId, kind, fileFields, uploadLimit } = options;
  const maxPending = options.maxPendingBytes ?? CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT;
  const db = database.kysely;
  const pointer = `/body/${fileFields[0]}`;
  if (!request.isMultipart()) throw ApiError.of(415, NO_FILE, '/body');
  // Already at the bound: refused before a byte of the file is read.
  let othersPending = await pendingUploadBytes(db, accountId);
  if (othersPending >= maxPending) throw ApiError.of(413, pendingUploadsTooLarge(maxPending), pointer, 'pending_uploads_limit');
  const importId = newId('imp');
  const fields: Record<string, string> = {};
  let staged: StagedFile | undefined;
  let facts: FileFacts | null = null;
  let created = false;
  /** The file part being read: drained if it is refused before its end. */
  let reading: Readable | undefined;
  try {
    // The liveness lock: a restart can tell this upload from one a killed process left.
    await whileImportLocked(database, importId, async () => {
      for await (const part of multipartParts(request, uploadLimit)) {
        if (part.type === 'field') {
          if (part.fieldname.includes('\u0000') || String(part.value).includes('\u0000')) throw ApiError.of(400, NUL_IN_FIELD, '/body', 'nul_character');
          fields[part.fieldname] = String(part.value);
          continue;
        }
        if (staged || !fileFields.includes(part.fieldname)) {
          part.file.resume();
          continue;
        }
        const file: MultipartFile = part;
        reading = file.file;
        const at = `/body/${file.fieldname}`;
        if (file.filename.includes('\u0000')) throw ApiError.of(400, NUL_IN_FILE_NAME, at, 'nul_character');
        if (!isCsvFileName(file.filename)) throw ApiError.of(422, ONLY_CSV, at);
        await db
          .insertInto('imports')
          .values({ account_id: accountId, id: importId, kind, status: 'uploaded', file_name: file.filename.slice(0, 255), created_by_user_id: userId })
          .execute();
        created = true;
        await auditImport(db, accountId, importId, 'upload started', 'uploaded', { file_name: file.filename });
        let checked = 0;
        const bytes = receivedBytes(file.file, uploadLimit, async (received) => {
          if (received - checked >= PENDING_CHECK_BYTES) {
            checked = received;
            await db.updateTable('imports').set({ byte_size: received }).where('account_id', '=', accountId).where('id', '=', importId).execute();
            othersPending = await pendingUploadBytes(db, accountId, importId);
          }
          if (othersPending + received > maxPending) throw ApiError.of(413, pendingUploadsTooLarge(maxPending), at, 'pending_uploads_limit');
        });
        if (kind === 'subscriptions') {
          const stored = await storeCsvFile(database, accountId, importId, bytes);
          facts = stored.facts;
          staged = stored;
        } else {
          staged = await stageCsv(db, accountId, importId, bytes);
        }
        if (file.file.truncated) throw ApiError.of(413, fileTooLarge(uploadLimit), at);
      }
    });
    if (!staged) throw ApiError.of(422, NO_FILE, pointer);
    if (staged.rows === 0) throw ApiError.of(422, EMPTY_FILE, pointer);
  } catch (error) {
    // The rest of a refused file is read and dropped: the client is still sending it and should
    // hear the answer (and a request left half read would hold the server's close).
    if (reading && !reading.readableEnded && !reading.destroyed) reading.resume();
    if (created) await discard(db, accountId, importId, error);
    if (error instanceof ApiError) throw error;
    if (error instanceof CsvRowTooLargeError || error instanceof CsvFormatError || error instanceof CsvEncodingError || error instanceof CsvBinaryError) {
      throw ApiError.of(422, error.message, pointer);
    }
    throw error;
  }
  const { delimiter, encoding } = staged;
  await db
    .updateTable('imports')
    .set({ total_rows: staged.rows, byte_size: staged.bytes, delimiter, encoding, file_facts: facts ? JSON.stringify(facts) : null }).where('account_id', '=', accountId).where('id', '=', importId).execute();
  await auditImport(db, accountId, importId, 'uploaded', 'uploaded', { rows: staged.rows, bytes: staged.bytes, delimiter, encoding });
  return { importId, staged, fields, facts };
}

/** Bytes of the account's uploads that are not imported yet (their files or staged rows are still kept), but `except`. */
export async function pendingUploadBytes(db: Kysely<DB>, accountId: string, except?: string): Promise<number> {
  let query = db
    .selectFrom('imports')
    .select(sql<string>`coalesce(sum(byte_size), 0)`.as('bytes'))
    .where('account_id', '=', accountId)
    .where('status', 'in', PENDING_STATUSES);
  if (except) query = query.where('id', '<>', except);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.bytes);
}

/**
 * The parts of a multipart request, with what goes wrong in reading them (no boundary, a body
 * cut off, a malformed part: busboy's plain errors) made the client's 400 instead of a 500.
 */
async function* multipartParts(request: FastifyRequest, uploadLimit: number): AsyncGenerator<Multipart> {
  const parts = request.parts()[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (error) {
      throw multipartError(error, uploadLimit);
    }
    if (next.done) return;
    yield next.value;
  }
}

/**
 * The bytes of a file part as they arrive, `onBytes` hearing the total after each chunk (it may
 * throw to refuse the file). Read without destroying the stream when the reader stops early, so
 * the caller can drain the rest; the stream's errors (a body cut off) become 400s.
 */
async function* receivedBytes(file: Readable, uploadLimit: number, onBytes: (received: number) => Promise<void>): AsyncGenerator<Uint8Array> {
  const chunks = file.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  let received = 0;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch (error) {
        throw multipartError(error, uploadLimit);
      }
      if (next.done) return;
      received += next.value.byteLength;
      await onBytes(received);
      yield next.value;
    }
  } finally {
    await chunks.return?.();
  }
}

/** A multipart reading error as the client's error (4xx); the plugin's own keep theirs. */
function multipartError(error: unknown, uploadLimit: number): Error {
  if (error instanceof ApiError) return error;
  const { code, statusCode, message } = error as { code?: string; statusCode?: number; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return ApiError.of(413, fileTooLarge(uploadLimit), '/body');
  if (code === 'FST_MP_PREMATURE_CLOSE') return ApiError.of(400, MULTIPART_TRUNCATED, '/body', 'multipart_truncated');
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return error as Error;
  const text = message ?? '';
  if (/boundary not found/i.test(text)) return ApiError.of(400, MULTIPART_NO_BOUNDARY, '/body', 'multipart_no_boundary');
  if (/unexpected end|terminated early|aborted/i.test(text)) return ApiError.of(400, MULTIPART_TRUNCATED, '/body', 'multipart_truncated');
  return ApiError.of(400, MULTIPART_MALFORMED, '/body', 'multipart_malformed');
}

/** An upload that will not be imported: its staged rows or file go, the import is marked failed with the reason (markFailed). */
export async function discard(db: Kysely<DB>, accountId: string, importId: string, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  await markFailed(db, accountId, importId, new Error(reason));
}
