import Papa from 'papaparse';
import writeXlsxFile from 'write-excel-file/node';
import type { Cell, ExportTable } from './tables';

/**
 * Writing an export table as a file.
 *
 * CSV (papaparse's `unparse`, RFC 4180, CRLF line ends, UTF-8 with a byte order mark so
 * spreadsheet programs read accents right). Against formula injection (OWASP "CSV injection"),
 * a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a
 * single quote before it (and quoted), so a spreadsheet shows it as text and never runs it.
 * Numbers are written as numbers and never prefixed: `-12.5` stays a negative number. Every
 * name that comes from the account's data (customers, segments, titles) is text, so it is
 * neutralised whatever it holds.
 *
 * XLSX (write-excel-file): text cells are string cells and numbers number cells; a string cell
 * is never evaluated as a formula, so it needs no prefix.
 */

/** Text that a spreadsheet would read as the start of a formula (papaparse's own default misses multi-line text). */
export const FORMULA_START = /^[=+\-@\t\r]/;

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export type ExportFormat = 'csv' | 'xlsx';

/** The cell as CSV text would hold it (papaparse writes numbers with String(n)). */
function csvCell(cell: Cell): string | number {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : '';
  return cell;
}

export function toCsv(table: ExportTable): string {
  const body = Papa.unparse(
    { fields: table.header, data: table.rows.map((row) => row.map(csvCell)) },
    { escapeFormulae: FORMULA_START, newline: '\r\n', quotes: false },
  );
  return `\uFEFF${body}\r\n`;
}

export async function toXlsx(table: ExportTable, sheetName: string): Promise<Buffer> {
  const header = table.header.map((value) => ({ value, type: String, fontWeight: 'bold' as const }));
  const rows = table.rows.map((row) =>
    row.map((cell) => {
      if (cell === null) return null;
      if (typeof cell === 'number') return Number.isFinite(cell) ? { value: cell, type: Number } : null;
      return { value: cell, type: String };
    }),
  );
  return writeXlsxFile([header, ...rows], { sheet: sheetName.slice(0, 31).replace(/[[\]:*?/\\]/g, ' ') || 'Export' }).toBuffer();
}

/** A file name from a title: letters, digits, dashes; never empty. */
export function fileStem(title: string): string {
  const stem = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 80);
  return stem || 'section';
}

/** `attachment; filename="mrr-data.csv"` (the name is ASCII by construction). */
export function contentDisposition(fileName: string): string {
  return `attachment; filename="${fileName.replace(/["\\\r\n]/g, '')}"`;
}
