import { CSV_IMPORT_MAX_ROW_BYTES } from '../../../models/constants';
import { Buffer } from 'node:buffer';
import Papa from 'papaparse';
import { decodeText, type CsvEncoding } from './decode';

/**
 * Records of an uploaded CSV file, streamed: the file can be hundreds of megabytes, so what is
 * held at a time is the sniffed head (64 KB), then one chunk of the upload, its records and the
 * unfinished record after them (bounded by `maxRowBytes`). Bytes are decoded by `decodeText`, split into
 * records by papaparse's `Parser` (the quote-aware core of `Papa.parse`), which this module feeds
 * itself rather than through `Papa.parse`'s streamers: that is what lets it bound the size of a
 * record before the whole record has arrived, and number records as the file does.
 *
 * Backpressure comes with the async generator: the next chunk of the file is read only when the
 * consumer asks for a record that the text read so far does not contain.
 */

export interface CsvRow {
  /**
   * 1-based number of the record's row, counting the header row and empty lines: the row a
   * spreadsheet shows it on, so the user can find it. A quoted cell spanning several lines is
   * still one row, as in a spreadsheet (this is not the line number in a text editor).
   */
  number: number;
  cells: string[];
}

export interface CsvRowsOptions {
  /**
   * Longest record accepted, in UTF-8 bytes of its text as it is in the file (quotes and
   * delimiters included, the line break not). Default 65536. Bounds the memory a record takes
   * and catches files that are not really CSV (or have an unclosed quote).
   */
  maxRowBytes?: number;
  /** Hears the detected encoding and delimiter once, before the first row (the import records them). */
  onFormat?: (format: CsvFormat) => void;
}

export interface CsvFormat {
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
}

export type CsvDelimiter = ',' | ';' | '\t';
/** What ends a record: '\n' (with or without a '\r' before it) or a bare '\r' (classic Mac OS). */
export type CsvNewline = '\n' | '\r';

export const DEFAULT_MAX_ROW_BYTES = CSV_IMPORT_MAX_ROW_BYTES;

/** The file is not readable as CSV at a given row. Messages are shown to the user as they are. */
export class CsvFormatError extends Error {
  override readonly name = 'CsvFormatError';

  constructor(
    readonly rowNumber: number,
    reason: string,
  ) {
    super(`Row ${rowNumber}: ${reason}`);
  }
}

/** A record is longer than `maxRowBytes`. */
export class CsvRowTooLargeError extends Error {
  override readonly name = 'CsvRowTooLargeError';

  constructor(
    readonly rowNumber: number,
    readonly maxRowBytes: number,
    /** The record was still open at a line break: most likely a quote that is never closed. */
    openQuote = false,
  ) {
    super(`Row ${rowNumber} is longer than ${sizeText(maxRowBytes)}${openQuote ? ' (a quoted field may never be closed)' : ''}`);
  }
}

/** '64 KB' for whole kilobytes, else '1000 bytes'. */
function sizeText(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}

/** Text read before the delimiter is decided (or the whole file, when shorter). */
const DELIMITER_SAMPLE_CHARS = 16 * 1024;
/** Records of the sample that the delimiter is decided from. */
const DELIMITER_SAMPLE_RECORDS = 20;
/**
 * New text gathered before the parser runs again. An incomplete record is parsed again from its
 * start each time, so waiting for at least as much new text as the unfinished record already
 * has keeps the total work linear even when the file arrives a byte at a time.
 */
const MIN_PARSE_CHARS = 16 * 1024;

/**
 * Records of a CSV file (bytes in any encoding `decodeText` detects). Completely empty lines are
 * skipped but counted in row numbers; a '\r' ending a record is dropped (CRLF files); a file whose
 * lines end with a bare '\r' (classic Mac OS, `detectNewline`) is read line by line too. Throws
 * `CsvRowTooLargeError` for a record over `maxRowBytes` and `CsvFormatError` for broken quoting.
 */
export async function* csvRows(source: AsyncIterable<Uint8Array>, options: CsvRowsOptions = {}): AsyncGenerator<CsvRow> {
  const maxRowBytes = options.maxRowBytes ?? DEFAULT_MAX_ROW_BYTES;
  let reader: RecordReader | null = null;
  let pending = '';
  /** Length of the unfinished record left by the last parse. */
  let unfinished = 0;
  let encoding: CsvEncoding = 'utf-8';
  const start = (): RecordReader => {
    const newline = detectNewline(pending);
    const delimiter = detectDelimiter(pending, newline);
    options.onFormat?.({ encoding, delimiter });
    return new RecordReader(delimiter, newline, maxRowBytes);
  };

  for await (const text of decodeText(source, (detected) => (encoding = detected.encoding))) {
    pending += text;
    if (!reader) {
      if (pending.length < DELIMITER_SAMPLE_CHARS) continue;
      reader = start();
    }
    if (pending.length - unfinished < Math.max(MIN_PARSE_CHARS, unfinished)) continue;
    const { rows, rest } = reader.read(pending, false);
    yield* rows;
    pending = rest;
    unfinished = rest.length;
  }
  reader ??= start();
  yield* reader.read(pending, true).rows;
}

interface ParsedRecord {
  cells: string[];
  /** Offset in the parsed text just after the record (and its line break). */
  end: number;
  errors: Papa.ParseError[];
}

/** Turns text into numbered rows, record by record, keeping count across calls. */
class RecordReader {
  private readonly parser: Papa.Parser;
  private records: ParsedRecord[] = [];
  /** Records so far, empty lines included: the number of the last one. */
  private count = 0;

  constructor(
    delimiter: CsvDelimiter,
    private readonly newline: CsvNewline,
    private readonly maxRowBytes: number,
  ) {
    this.parser = new Papa.Parser({
      delimiter,
      newline,
      quoteChar: '"',
      step: (result: Papa.ParseStepResult<string[][]>) => {
        this.records.push({ cells: result.data[0] ?? [''], end: result.meta.cursor, errors: result.errors });
      },
    });
  }

  /**
   * The complete records of `text` (all of it when `final`) and the text of the unfinished
   * record after them. With '\n' as the line break, a CRLF line leaves its '\r' at the end of
   * the last cell (removed here) or between a closing quote and the '\n' (which papaparse skips).
   */
  read(text: string, final: boolean): { rows: CsvRow[]; rest: string } {
    // A lone '\r' ending the file would otherwise count as text after a closing quote.
    const input = final && text.endsWith('\r') ? text.slice(0, -1) : text;
    this.records = [];
    this.parser.parse(input, 0, !final);
    const rows: CsvRow[] = [];
    let start = 0;
    for (const record of this.records) {
      const number = ++this.count;
      this.check(record, number, input, start);
      start = record.end;
      const cells = withoutTrailingCr(record.cells);
      if (cells.length === 1 && cells[0] === '') continue;
      rows.push({ number, cells });
    }
    const rest = input.slice(start);
    if (!final && exceeds(rest, 0, rest.length, this.maxRowBytes)) {
      throw new CsvRowTooLargeError(this.count + 1, this.maxRowBytes, rest.includes(this.newline));
    }
    return { rows, rest };
  }

  /** Throws for quoting errors or an oversized record (its text is input[start, record.end)). */
  private check(record: ParsedRecord, number: number, input: string, start: number): void {
    for (const error of record.errors) {
      if (error.code === 'MissingQuotes') throw new CsvFormatError(number, 'a quoted field is never closed');
      if (error.code === 'InvalidQuotes') {
        throw new CsvFormatError(number, 'a quoted field has text after its closing quote (a quote inside a field must be written twice: "")');
      }
    }
    if (exceeds(input, start, lineEnd(input, start, record.end), this.maxRowBytes)) {
      throw new CsvRowTooLargeError(number, this.maxRowBytes);
    }
  }
}

/** `end` moved back over a line break ('\n', '\r\n' or '\r') ending input[start, end). */
function lineEnd(input: string, start: number, end: number): number {
  let at = end;
  if (at > start && input[at - 1] === '\n') at--;
  if (at > start && input[at - 1] === '\r') at--;
  return at;
}

/**
 * Whether text[start, end) is longer than `max` UTF-8 bytes. A UTF-16 code unit is 1 to 3 UTF-8
 * bytes (a surrogate pair is 4), so only lengths between max/3 and max need counting.
 */
function exceeds(text: string, start: number, end: number, max: number): boolean {
  const length = end - start;
  if (length > max) return true;
  if (length * 3 <= max) return false;
  return Buffer.byteLength(text.slice(start, end), 'utf8') > max;
}

function withoutTrailingCr(cells: string[]): string[] {
  const last = cells.length - 1;
  const cell = cells[last];
  if (cell !== undefined && cell.endsWith('\r')) cells[last] = cell.slice(0, -1);
  return cells;
}

const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t'];
/** Tie-break between delimiters that fit equally well: tabs and semicolons rarely occur in data. */
const TIE_ORDER: readonly CsvDelimiter[] = ['\t', ';', ','];

/**
 * The delimiter of a CSV file from its beginning. Counts commas, semicolons and tabs outside
 * quotes in the first records (empty lines ignored; a last record cut off by the end of the
 * sample is ignored unless it is the only one). The first record, the header, decides:
 * - a candidate that does not occur in the header is out (header names rarely contain them,
 *   while data does: '1,50' in a semicolon file);
 * - of the rest, one that occurs as often in every sampled record as in the header wins (a real
 *   delimiter gives every row the same number of cells), the most frequent first, then
 *   `TIE_ORDER`;
 * - with none in the header (one column), the first of comma, semicolon, tab that occurs in no
 *   record, so no value gets split; comma when all occur.
 * 'a;1,50;2' alone is semicolon: both are consistent, the semicolon is more frequent.
 */
export function detectDelimiter(sample: string, newline: CsvNewline = '\n'): CsvDelimiter {
  const counts = delimiterCounts(sample, DELIMITER_SAMPLE_RECORDS, newline);
  const header = counts[0];
  if (!header) return ',';
  const present = DELIMITERS.filter((delimiter) => header[delimiter] > 0);
  if (present.length === 0) {
    return DELIMITERS.find((delimiter) => counts.every((record) => record[delimiter] === 0)) ?? ',';
  }
  const consistent = (delimiter: CsvDelimiter): number => (counts.every((record) => record[delimiter] === header[delimiter]) ? 1 : 0);
  const ranked = [...present].sort(
    (a, b) => consistent(b) - consistent(a) || header[b] - header[a] || TIE_ORDER.indexOf(a) - TIE_ORDER.indexOf(b),
  );
  return ranked[0] as CsvDelimiter;
}

type DelimiterCounts = Record<CsvDelimiter, number>;

/** Delimiter counts outside quotes of the first `limit` non-empty records of `sample`. */
function delimiterCounts(sample: string, limit: number, newline: CsvNewline): DelimiterCounts[] {
  const records: DelimiterCounts[] = [];
  let current: DelimiterCounts = { ',': 0, ';': 0, '\t': 0 };
  let empty = true;
  let quoted = false;
  for (let i = 0; i < sample.length && records.length < limit; i++) {
    const char = sample[i] as string;
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === newline) {
      if (!empty) records.push(current);
      current = { ',': 0, ';': 0, '\t': 0 };
      empty = true;
      continue;
    } else if (!quoted && (char === ',' || char === ';' || char === '\t')) current[char]++;
    if (char !== '\r') empty = false;
  }
  if (!empty && records.length === 0) records.push(current);
  return records;
}

/**
 * The line break of a CSV file from its beginning: the first one outside quotes. '\n' and
 * '\r\n' read as '\n' (a '\r' before it is dropped); a '\r' followed by anything else means the
 * file's lines end with a bare '\r' (Excel for classic Mac OS, some exports since): read as '\n',
 * such a file would be one record of the whole file. A '\r' ending the sample may be half of a
 * '\r\n' cut by the sample's end: it decides nothing.
 */
export function detectNewline(sample: string): CsvNewline {
  let quoted = false;
  for (let i = 0; i < sample.length; i++) {
    const char = sample[i];
    if (char === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (char === '\n') return '\n';
    else if (char === '\r' && i + 1 < sample.length) return sample[i + 1] === '\n' ? '\n' : '\r';
  }
  return '\n';
}
