import {
  SUBSCRIPTION_CSV_AMOUNT_FIELDS,
  SUBSCRIPTION_CSV_BOTH_AMOUNTS_MESSAGE,
  SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX,
  SUBSCRIPTION_CSV_FIELD_LABELS,
  SUBSCRIPTION_CSV_FIELDS as FIELDS,
  SUBSCRIPTION_CSV_MAPPING_INCOMPLETE_MESSAGE,
  SUBSCRIPTION_CSV_PERIOD_FIELDS,
  SUBSCRIPTION_CSV_REQUIRED_FIELDS,
} from '../../models/constants';
import type { SubscriptionCsvField } from '../../models/constants';
import { createMappingWizardMachine } from './mappingWizardMachine';
import type { ColumnMapping, FieldRolesConfig } from './types';

/**
 * The payments import page (/import-subscriptions): the subscription CSV fields as roles, the
 * spec's eleven on their default columns (the total value and the discount columns start
 * unmapped). Required: the customer, the start, the amount (the monthly amount or the total
 * value, exactly one) and the period (months, the end date or both; an empty end is an
 * open-ended payment). The invoice number is optional. Polled, no live channel.
 */

/** Every field of the mapping, in the order the page lists them. */
export const SUBSCRIPTION_CSV_FIELDS: readonly SubscriptionCsvField[] = FIELDS;

/** The server's 422 for a mapping without a required field (the spec's rule, the invoice number optional). */
export const PAYMENTS_MAPPING_INCOMPLETE_MESSAGE = SUBSCRIPTION_CSV_MAPPING_INCOMPLETE_MESSAGE;
/** Both the monthly amount and the total value mapped. */
export const PAYMENTS_BOTH_AMOUNTS_MESSAGE = SUBSCRIPTION_CSV_BOTH_AMOUNTS_MESSAGE;

/** The fields of which one must be mapped: the amount, the period. */
export const PAYMENTS_ALTERNATIVES: readonly (readonly SubscriptionCsvField[])[] = [SUBSCRIPTION_CSV_AMOUNT_FIELDS, SUBSCRIPTION_CSV_PERIOD_FIELDS];

/** The spec's default columns of a file with `columns` columns; every other field unmapped. */
export function paymentsDefaultMapping(columns: number): ColumnMapping<SubscriptionCsvField> {
  const defaults: Partial<Record<SubscriptionCsvField, number>> = SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX;
  return Object.fromEntries(FIELDS.map((field) => [field, defaults[field] !== undefined && (defaults[field] as number) < columns ? defaults[field] : null])) as ColumnMapping<SubscriptionCsvField>;
}

/** Why the mapping cannot be sent yet, or null. */
export function paymentsMappingProblem(mapping: ColumnMapping<SubscriptionCsvField>): string | null {
  const mapped = (field: SubscriptionCsvField) => mapping[field] !== null && mapping[field] !== undefined;
  if (!SUBSCRIPTION_CSV_REQUIRED_FIELDS.every(mapped) || !PAYMENTS_ALTERNATIVES.every((group) => group.some(mapped))) return PAYMENTS_MAPPING_INCOMPLETE_MESSAGE;
  if (SUBSCRIPTION_CSV_AMOUNT_FIELDS.every(mapped)) return PAYMENTS_BOTH_AMOUNTS_MESSAGE;
  return null;
}

/** Spec: the result of an import without refused rows, 'all N records imported'. */
export function allRecordsImportedMessage(successCount: number): string {
  return `all ${successCount} records imported`;
}

const hasDigit = (cell: string | undefined) => /\d/.test(cell ?? '');

/**
 * Whether the first row of the file looks like a header, for the default of 'Skip headers':
 * the cells under the amount (Monthly amount or Total value) and Started at carry no digit (amounts and dates always do).
 * When neither is mapped, the row looks like a header when none of its cells has a digit.
 */
export function paymentsLooksLikeHeader(rows: readonly (readonly string[])[], mapping: ColumnMapping<SubscriptionCsvField>): boolean {
  const firstRow = rows[0];
  if (!firstRow || firstRow.length === 0) return false;
  const probes = [mapping.monthly_amount ?? mapping.total_value, mapping.started_at].filter((index): index is number => index !== null && index !== undefined);
  const cells = probes.length > 0 ? probes.map((index) => firstRow[index]) : [...firstRow];
  return !cells.some(hasDigit);
}

export const paymentsImport: FieldRolesConfig<SubscriptionCsvField> = {
  id: 'paymentsImport',
  roles: SUBSCRIPTION_CSV_FIELDS,
  labels: SUBSCRIPTION_CSV_FIELD_LABELS,
  required: SUBSCRIPTION_CSV_REQUIRED_FIELDS,
  alternatives: PAYMENTS_ALTERNATIVES,
  defaultMapping: paymentsDefaultMapping,
  looksLikeHeader: paymentsLooksLikeHeader,
  mappingProblem: paymentsMappingProblem,
  allImportedMessage: allRecordsImportedMessage,
  live: false,
};

/** The payments import's machine. */
export const paymentsImportMachine = createMappingWizardMachine(paymentsImport);
