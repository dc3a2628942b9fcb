import {
  CSV_FILE_EXTENSION,
  CSV_IMPORT_POLL_SCHEDULE,
  SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX,
  SUBSCRIPTION_CSV_FIELD_LABELS,
  SUBSCRIPTION_CSV_REQUIRED_FIELDS,
} from '../../models/constants';
import type { SubscriptionCsvField } from '../../models/constants';
import type { ColumnMapping } from './types';

/**
 * The pure rules of the import page: field labels, the default mapping, mapping a column,
 * the required-fields check, the header guess and the polling schedule.
 */

/** Every field of the mapping, in the order the spec lists the default columns. */
export const SUBSCRIPTION_CSV_FIELDS = Object.keys(SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX) as SubscriptionCsvField[];

/** How the page names each field (shared with the server's messages). */
export { SUBSCRIPTION_CSV_FIELD_LABELS };

export function isRequiredField(field: SubscriptionCsvField): boolean {
  return (SUBSCRIPTION_CSV_REQUIRED_FIELDS as readonly SubscriptionCsvField[]).includes(field);
}

/** A mapping with nothing mapped. */
export function emptyMapping(): ColumnMapping {
  return Object.fromEntries(SUBSCRIPTION_CSV_FIELDS.map((field) => [field, null])) as ColumnMapping;
}

/** The spec's default column of each field, for the columns the file has (others stay unmapped). */
export function defaultMapping(columns: number): ColumnMapping {
  return Object.fromEntries(
    SUBSCRIPTION_CSV_FIELDS.map((field) => {
      const index = SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX[field];
      return [field, index < columns ? index : null];
    }),
  ) as ColumnMapping;
}

/** The field mapped to a column, or null. */
export function fieldOfColumn(mapping: ColumnMapping, column: number): SubscriptionCsvField | null {
  return SUBSCRIPTION_CSV_FIELDS.find((field) => mapping[field] === column) ?? null;
}

/**
 * Maps a column to a field (null: the column is not mapped). The field leaves the column it was
 * on, and the column's previous field is unmapped: a column never holds two fields.
 */
export function mapColumn(mapping: ColumnMapping, column: number, field: SubscriptionCsvField | null): ColumnMapping {
  const next = { ...mapping };
  for (const other of SUBSCRIPTION_CSV_FIELDS) {
    if (next[other] === column) next[other] = null;
  }
  if (field) next[field] = column;
  return next;
}

/** The required fields (spec order: monthly_amount, started_at, customer_id, invoice_number, months) left unmapped. */
export function missingRequiredFields(mapping: ColumnMapping): SubscriptionCsvField[] {
  return SUBSCRIPTION_CSV_REQUIRED_FIELDS.filter((field) => mapping[field] === null);
}

export function isMappingComplete(mapping: ColumnMapping): boolean {
  return missingRequiredFields(mapping).length === 0;
}

const hasDigit = (cell: string | undefined) => /\d/.test(cell ?? '');

/**
 * Whether the first row of the file looks like a header, for the default of 'Skip headers':
 * the cells under Monthly amount and Started at carry no digit (amounts and dates always do).
 * When neither is mapped, the row looks like a header when none of its cells has a digit.
 */
export function looksLikeHeader(firstRow: readonly string[] | undefined, mapping: ColumnMapping): boolean {
  if (!firstRow || firstRow.length === 0) return false;
  const probes = [mapping.monthly_amount, mapping.started_at].filter((index): index is number => index !== null);
  const cells = probes.length > 0 ? probes.map((index) => firstRow[index]) : [...firstRow];
  return !cells.some(hasDigit);
}

/** Whether a file name is one the import takes (.csv, any case). */
export function isCsvFileName(name: string): boolean {
  return name.toLowerCase().endsWith(CSV_FILE_EXTENSION);
}

/**
 * The wait before status poll number `poll` (1-based), from the spec's schedule: 3 s for the
 * first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s.
 */
export function pollIntervalMs(poll: number): number {
  const step = CSV_IMPORT_POLL_SCHEDULE.find((candidate) => poll <= candidate.throughPoll) ?? CSV_IMPORT_POLL_SCHEDULE.at(-1);
  if (!step) throw new Error('CSV_IMPORT_POLL_SCHEDULE is empty');
  return step.intervalMs;
}
