import { createMappingWizardMachine } from './mappingWizardMachine';
import type { ColumnMapping, FieldRolesConfig } from './types';

/**
 * The attribute values import (/import-segments): a customer's ID and the value of one custom
 * attribute, both required. Its live channel (SegmentsImportChannel) reports the progress.
 */

export type SegmentsRole = 'customerId' | 'value';

export const SEGMENTS_ROLES: readonly SegmentsRole[] = ['customerId', 'value'];

/** Spec (segments import): no column is mapped to Customer ID (the server answers 422 with the same words). */
export const CUSTOMER_COLUMN_REQUIRED_MESSAGE = 'One of the columns must be mapped to Customer ID';
/** Spec (segments import): the mapping is incomplete, no value column (the server answers 422 with the same words). */
export const SEGMENTS_MAPPING_INCOMPLETE_MESSAGE = 'Looks like import mapping is incomplete - make sure you map your columns correctly';

/** The result of an import without refused rows. */
export function allValuesImportedMessage(successCount: number): string {
  return `all ${successCount} ${successCount === 1 ? 'value' : 'values'} imported`;
}

/**
 * Customer ID on the first column; Value on the second when the file has exactly two columns
 * (customer, value: the usual file). A wider file leaves the value column to the user, since
 * guessing it would import the wrong attribute values silently.
 */
export function segmentsDefaultMapping(columns: number): ColumnMapping<SegmentsRole> {
  return { customerId: columns >= 1 ? 0 : null, value: columns === 2 ? 1 : null };
}

/** The spec's rule, as the server applies it: first a Customer ID column, then a value column. */
export function segmentsMappingProblem(mapping: ColumnMapping<SegmentsRole>): string | null {
  if (mapping.customerId === null) return CUSTOMER_COLUMN_REQUIRED_MESSAGE;
  if (mapping.value === null || mapping.value === mapping.customerId) return SEGMENTS_MAPPING_INCOMPLETE_MESSAGE;
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
export function segmentsLooksLikeHeader(rows: readonly (readonly string[])[]): boolean {
  const [first, second] = rows;
  if (!first || first.length === 0) return false;
  if (first.some(isCustomerIdHeading)) return true;
  return !first.some(hasDigit) && (second?.some(hasDigit) ?? false);
}

export const segmentsImport: FieldRolesConfig<SegmentsRole> = {
  id: 'segmentsImport',
  roles: SEGMENTS_ROLES,
  labels: { customerId: 'Customer ID', value: 'Value' },
  required: SEGMENTS_ROLES,
  defaultMapping: segmentsDefaultMapping,
  looksLikeHeader: segmentsLooksLikeHeader,
  mappingProblem: segmentsMappingProblem,
  allImportedMessage: allValuesImportedMessage,
  live: true,
};

/** The attribute values import's machine. */
export const segmentsImportMachine = createMappingWizardMachine(segmentsImport);
