import { sql, type Kysely } from 'kysely';
import { CSV_IMPORT_COLUMN_ORDER } from '../../models/constants';
import { arrayLiteral } from '../db/copyText';
import type { Database, Session } from '../db/database';
import type { DB } from '../db/schema';
import type { CsvEncoding } from './csv/decode';
import { csvRows, type CsvDelimiter, type CsvFormat, type CsvRow } from './csv/rows';
import { decimalMarkEvidence, slashOrderEvidence, type DateOrder, type DecimalMark } from './csv/values';

/**
 * Where an upload waits for its job, read once as it arrives (never held whole):
 * - a subscription file is kept as received, in chunks (`import_files`), while it is read for
 *   its preview, its row count and the facts the job needs (`storeCsvFile`); the job reads it
 *   again, once, and commits it;
 * - an attribute values file is staged row by row into `import_rows`, cells as read
 *   (`stageCsv`): its job is set-based SQL over those rows.
 */

/** Rows per INSERT. */
const BATCH = 2_000;
/** Rows the import page previews. */
export const PREVIEW_ROWS = 10;

export interface StagedFile {
  /** Records read (empty lines are not records). */
  rows: number;
  /** Bytes of the file. */
  bytes: number;
  /** What the reader detected ('utf-8' and ',' for an empty file). */
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  /** The first records, as read. */
  preview: CsvRow[];
  /** Most cells in a record. */
  widest: number;
}


async function insertBatch(db: Kysely<DB>, accountId: string, importId: string, batch: CsvRow[]): Promise<void> {
  if (batch.length === 0) return;
  const numbers = batch.map((row) => row.number);
  const literals = batch.map((row) => arrayLiteral(row.cells));
  await sql`insert into import_rows (account_id, import_id, row_number, cells)
            select ${accountId}, ${importId}, n, c::text[] from unnest(${numbers}::int[], ${literals}::text[]) as t(n, c)`.execute(db);
}

export async function stageCsv(db: Kysely<DB>, accountId: string, importId: string, source: AsyncIterable<Uint8Array>): Promise<StagedFile> {
  let batch: CsvRow[] = [];
  const preview: CsvRow[] = [];
  let rows = 0;
  let widest = 0;
  let bytes = 0;
  let format: CsvFormat = { encoding: 'utf-8', delimiter: ',' };
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      yield chunk;
    }
  }
  for await (const row of csvRows(counted(), { onFormat: (detected) => (format = detected) })) {
    rows++;
    widest = Math.max(widest, row.cells.length);
    if (preview.length < PREVIEW_ROWS) preview.push(row);
    batch.push(row);
    if (batch.length >= BATCH) {
      await insertBatch(db, accountId, importId, batch);
      batch = [];
    }
  }
  await insertBatch(db, accountId, importId, batch);
  return { rows, bytes, preview, widest, ...format };
}

/** Bytes per stored chunk of a subscription file. */
const FILE_CHUNK_BYTES = 8 * 1024 * 1024;
/** Rows too short for the dialog's columns kept to list (all are counted). */
export const LISTED_SHORT_ROWS = 1_000;

/** What the upload's read of a subscription file learned (imports.file_facts). */
export interface FileFacts {
  /** Per column index, the day-month orders its slash dates prove (a date like 31/01 proves 'dmy'). */
  slash_orders: Record<string, DateOrder[]>;
  /** Rows with fewer cells than the dialog's four columns (the first LISTED_SHORT_ROWS). */
  short_rows: { row_number: number; cells: string[] }[];
  short_row_count: number;
  /**
   * Per column index, the decimal separators its numbers prove ('1,234.50' proves '.'): one
   * alone reads the column's ambiguous amounts ('10.001'). Absent in files uploaded before.
   */
  decimal_marks?: Record<string, DecimalMark[]>;
}

export interface StoredFile extends StagedFile {
  facts: FileFacts;
}

/**
 * Keeps an uploaded subscription file in `import_files` while reading it for the preview,
 * the counts and its FileFacts. A chunk at a time in memory.
 */
export async function storeCsvFile(database: Database, accountId: string, importId: string, source: AsyncIterable<Uint8Array>): Promise<StoredFile> {
  const db = database.kysely;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let chunk = 0;
  let bytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const joined = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    const number = chunk++;
    await db.transaction().execute((trx) =>
      database.insertBinaryRows(
        trx,
        'import_files',
        [
          { name: 'account_id', type: 'text' },
          { name: 'import_id', type: 'text' },
          { name: 'chunk', type: 'int4' },
          { name: 'bytes', type: 'bytea' },
        ],
        [[accountId, importId, number, joined]],
      ),
    );
  };
  async function* kept(): AsyncGenerator<Uint8Array> {
    for await (const part of source) {
      bytes += part.byteLength;
      pending.push(part);
      pendingBytes += part.byteLength;
      yield part;
      if (pendingBytes >= FILE_CHUNK_BYTES) await flush();
    }
  }
  const preview: CsvRow[] = [];
  const orders = new Map<number, Set<DateOrder>>();
  const marks = new Map<number, Set<DecimalMark>>();
  const facts: FileFacts = { slash_orders: {}, short_rows: [], short_row_count: 0, decimal_marks: {} };
  let rows = 0;
  let widest = 0;
  let format: CsvFormat = { encoding: 'utf-8', delimiter: ',' };
  const columns = CSV_IMPORT_COLUMN_ORDER.length;
  for await (const row of csvRows(kept(), { onFormat: (detected) => (format = detected) })) {
    rows++;
    const cells = row.cells;
    if (cells.length > widest) widest = cells.length;
    if (preview.length < PREVIEW_ROWS) preview.push(row);
    if (cells.length < columns && facts.short_row_count++ < LISTED_SHORT_ROWS) facts.short_rows.push({ row_number: row.number, cells });
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k] as string;
      if (cell.includes('/')) {
        const order = slashOrderEvidence(cell.trim());
        if (!order) continue;
        let seen = orders.get(k);
        if (!seen) orders.set(k, (seen = new Set()));
        seen.add(order);
      } else if (cell.includes('.') || cell.includes(',')) {
        let seen = marks.get(k);
        // Both proven: the column's ambiguous amounts are refused whatever else it holds.
        if (seen?.size === 2) continue;
        const mark = decimalMarkEvidence(cell);
        if (!mark) continue;
        if (!seen) marks.set(k, (seen = new Set()));
        seen.add(mark);
      }
    }
  }
  await flush();
  for (const [column, seen] of orders) facts.slash_orders[column] = [...seen].sort();
  for (const [column, seen] of marks) (facts.decimal_marks as Record<string, DecimalMark[]>)[column] = [...seen].sort();
  return { rows, bytes, preview, widest, ...format, facts };
}

/** The chunks of a stored file, in order, on the session's connection (a job's transaction). */
export async function* storedFile(session: Session, accountId: string, importId: string): AsyncGenerator<Uint8Array> {
  for (let chunk = 0; ; chunk++) {
    const [bytes] = await session.readBytes('select bytes from import_files where account_id = $1 and import_id = $2 and chunk = $3', [accountId, importId, chunk]);
    if (!bytes) return;
    yield bytes;
  }
}
