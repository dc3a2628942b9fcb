import {
  SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX,
  SUBSCRIPTION_CSV_FIELD_LABELS,
  SUBSCRIPTION_CSV_REQUIRED_FIELDS,
} from '../../models/constants';
import type { SubscriptionCsvField } from '../../models/constants';
import { mappingOnDefaultColumns } from './mapping';
import { createMappingWizardMachine } from './mappingWizardMachine';
import type { ColumnMapping, FieldRolesConfig } from './types';

/**
 * The payments import page (/import-subscriptions): the subscription CSV fields as roles, the
 * five required ones, each on the spec's default column. Polled, no live channel.
 */

/** Every field of the mapping, in the order the spec lists the default columns. */
export const SUBSCRIPTION_CSV_FIELDS = Object.keys(SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX) as SubscriptionCsvField[];

/** Spec: the subscription import mapping rule (the server answers 422 with the same words). */
export const PAYMENTS_MAPPING_INCOMPLETE_MESSAGE = `Subscription import requires mapping of ${SUBSCRIPTION_CSV_REQUIRED_FIELDS.join(', ')}`;

/** Spec: the result of an import without refused rows, 'all N records imported'. */
export function allRecordsImportedMessage(successCount: number): string {
  return `all ${successCount} records imported`;
}

const hasDigit = (cell: string | undefined) => /\d/.test(cell ?? '');

/**
 * Whether the first row of the file looks like a header, for the default of 'Skip headers':
 * the cells under Monthly amount and Started at carry no digit (amounts and dates always do).
 * When neither is mapped, the row looks like a header when none of its cells has a digit.
 */
export function paymentsLooksLikeHeader(rows: readonly (readonly string[])[], mapping: ColumnMapping<SubscriptionCsvField>): boolean {
  const firstRow = rows[0];
  if (!firstRow || firstRow.length === 0) return false;
  const probes = [mapping.monthly_amount, mapping.started_at].filter((index): index is number => index !== null);
  const cells = probes.length > 0 ? probes.map((index) => firstRow[index]) : [...firstRow];
  return !cells.some(hasDigit);
}

export const paymentsImport: FieldRolesConfig<SubscriptionCsvField> = {
  id: 'paymentsImport',
  roles: SUBSCRIPTION_CSV_FIELDS,
  labels: SUBSCRIPTION_CSV_FIELD_LABELS,
  required: SUBSCRIPTION_CSV_REQUIRED_FIELDS,
  defaultMapping: (columns) => mappingOnDefaultColumns(SUBSCRIPTION_CSV_DEFAULT_COLUMN_INDEX, columns),
  looksLikeHeader: paymentsLooksLikeHeader,
  mappingProblem: (mapping) => (SUBSCRIPTION_CSV_REQUIRED_FIELDS.some((field) => mapping[field] === null) ? PAYMENTS_MAPPING_INCOMPLETE_MESSAGE : null),
  allImportedMessage: allRecordsImportedMessage,
  live: false,
};

/** The payments import's machine. */
export const paymentsImportMachine = createMappingWizardMachine(paymentsImport);
