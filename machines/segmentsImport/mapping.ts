import { CSV_FILE_EXTENSION, CSV_IMPORT_POLL_SCHEDULE, LIVE_SAFETY_POLL_MS } from '../../models/constants';
import { CUSTOMER_COLUMN_REQUIRED_MESSAGE, MAPPING_INCOMPLETE_MESSAGE } from './messages';
import type { SegmentsColumnMapping, SegmentsColumnRole } from './types';

/**
 * The pure rules of the attribute values import: the roles and their labels, the default
 * mapping, mapping a column, the spec's mapping rule, the header guess and the polling schedule
 * (slower while the live channel reports).
 */

export const SEGMENTS_COLUMN_ROLES: readonly SegmentsColumnRole[] = ['customerId', 'value'];

/** How the page names each role. */
export const SEGMENTS_COLUMN_ROLE_LABELS: Record<SegmentsColumnRole, string> = {
  customerId: 'Customer ID',
  value: 'Value',
};

/** A mapping with nothing mapped. */
export function emptyMapping(): SegmentsColumnMapping {
  return { customerId: null, value: null };
}

/**
 * The mapping a file starts with: Customer ID on the first column; Value on the second when the
 * file has exactly two columns (customer, value: the usual file). A wider file leaves the value
 * column to the user, since guessing it would import the wrong attribute values silently.
 */
export function defaultMapping(columns: number): SegmentsColumnMapping {
  return { customerId: columns >= 1 ? 0 : null, value: columns === 2 ? 1 : null };
}

/** The role a column plays, or null. */
export function roleOfColumn(mapping: SegmentsColumnMapping, column: number): SegmentsColumnRole | null {
  return SEGMENTS_COLUMN_ROLES.find((role) => mapping[role] === column) ?? null;
}

/**
 * Gives a column a role (null: the column is not mapped). The role leaves the column it was on
 * (one Customer ID column, one value column at a time), and the column's previous role is
 * unmapped: a column never plays both.
 */
export function mapColumn(mapping: SegmentsColumnMapping, column: number, role: SegmentsColumnRole | null): SegmentsColumnMapping {
  const next = { ...mapping };
  for (const other of SEGMENTS_COLUMN_ROLES) {
    if (next[other] === column) next[other] = null;
  }
  if (role) next[role] = column;
  return next;
}

export function isCustomerColumnMapped(mapping: SegmentsColumnMapping): boolean {
  return mapping.customerId !== null;
}

export function isMappingComplete(mapping: SegmentsColumnMapping): boolean {
  return mapping.customerId !== null && mapping.value !== null && mapping.customerId !== mapping.value;
}

/**
 * The spec's rule, as the server applies it: first a Customer ID column, then a value column.
 * Null when the mapping can be sent.
 */
export function mappingProblem(mapping: SegmentsColumnMapping): string | null {
  if (!isCustomerColumnMapped(mapping)) return CUSTOMER_COLUMN_REQUIRED_MESSAGE;
  if (!isMappingComplete(mapping)) return MAPPING_INCOMPLETE_MESSAGE;
  return null;
}

const hasDigit = (cell: string | undefined) => /\d/.test(cell ?? '');
/** 'Customer ID', 'customer_public_id', 'Customer', 'public id', 'ID', any case. */
const CUSTOMER_ID_HEADING = /^(customer([\s_-]*(public[\s_-]*)?id)?|public[\s_-]*id|id)$/i;
const isCustomerIdHeading = (cell: string) => CUSTOMER_ID_HEADING.test(cell.trim());

/**
 * Whether the first row of the file looks like a header, for the default of 'Skip headers':
 * one of its cells names the customer ID ('Customer ID', 'public_id', 'id'), or none of its
 * cells has a digit while the next row has one (customer IDs usually carry digits).
 */
export function looksLikeHeader(rows: readonly (readonly string[])[]): boolean {
  const [first, second] = rows;
  if (!first || first.length === 0) return false;
  if (first.some(isCustomerIdHeading)) return true;
  return !first.some(hasDigit) && (second?.some(hasDigit) ?? false);
}

/** Whether a file name is one the import takes (.csv, any case). */
export function isCsvFileName(name: string): boolean {
  return name.toLowerCase().endsWith(CSV_FILE_EXTENSION);
}

/**
 * The wait before status poll number `poll` (1-based), from the spec's CSV import schedule:
 * 3 s for the first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s.
 */
export function pollIntervalMs(poll: number): number {
  const step = CSV_IMPORT_POLL_SCHEDULE.find((candidate) => poll <= candidate.throughPoll) ?? CSV_IMPORT_POLL_SCHEDULE.at(-1);
  if (!step) throw new Error('CSV_IMPORT_POLL_SCHEDULE is empty');
  return step.intervalMs;
}


/**
 * The wait before the next status poll: the first one always on the schedule (it catches a
 * change made before the live subscription was in place), later ones every LIVE_SAFETY_POLL_MS
 * while the channel is live, otherwise on the schedule.
 */
export function nextPollDelayMs(progress: { polls: number; live: boolean }): number {
  return progress.live && progress.polls > 0 ? LIVE_SAFETY_POLL_MS : pollIntervalMs(progress.polls + 1);
}
