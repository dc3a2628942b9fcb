import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { CsvEncoding } from './csv/decode';
import { csvRows, type CsvDelimiter, type CsvFormat, type CsvRow } from './csv/rows';

/**
 * Streams an uploaded CSV file into `import_rows`, a batch at a time: the file is never held
 * whole (a 200 MB file costs one batch of rows in memory), and the rows wait there, cells as
 * read, for the mapping (import page) and the job that validates and commits them.
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

/** A text[] literal of `cells` (PostgreSQL array syntax, every element quoted). */
function arrayLiteral(cells: readonly string[]): string {
  return `{${cells.map((cell) => `"${cell.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
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

/** Staged rows in file order, `size` at a time (keyset pagination on the row number). */
export async function* stagedRows(db: Kysely<DB>, accountId: string, importId: string, size = 5_000): AsyncGenerator<{ row_number: number; cells: string[] }[]> {
  let after = 0;
  for (;;) {
    const page = await db
      .selectFrom('import_rows')
      .select(['row_number', 'cells'])
      .where('account_id', '=', accountId)
      .where('import_id', '=', importId)
      .where('row_number', '>', after)
      .orderBy('row_number')
      .limit(size)
      .execute();
    if (page.length === 0) return;
    yield page;
    after = (page.at(-1) as { row_number: number }).row_number;
  }
}
