import { enums, object, type Infer } from 'superstruct';
import { ITEM_TYPES } from './constants';
import { matching, requiredString } from './validation';

/**
 * Rejected invoices and import rules (distillers): an invoicing tool's line items become
 * payments through the account's rules; a line no rule matches waits on /invoices until a rule
 * is made from it. The drawer and `POST /distillers` check a rule with the same struct and the
 * spec's messages.
 */

export const LINE_NAME_REQUIRED = 'Line name is required.';
export const RULE_PRODUCT_REQUIRED = 'Product name is required';
export const DURATION_REQUIRED = 'Duration is required.';
export const DURATION_NOT_NUMBER = 'Value should be a number ex. 12';
export const RULE_ALREADY_PRESENT = 'Rule already present';
export const RULE_CREATE_FAILURE = 'Failed to create rule';
export const INVOICES_FAILURE = 'We could not get invoices, try refreshing the page';
export const RULE_ADDED = 'rule added';
export const IMPORT_REJECTED_INVOICES = 'Import rejected invoices';
export const invoicesProcessing = (count: number): string =>
  `Processing ${count} invoice ${count === 1 ? 'line' : 'lines'}: the payments and reports update in a moment`;

export const ISSUE_DATE_TREATMENTS = ['started_at', 'ended_at'] as const;
export type IssueDateTreatment = (typeof ISSUE_DATE_TREATMENTS)[number];
export const ISSUE_DATE_TREATMENT_LABELS: Record<IssueDateTreatment, string> = {
  started_at: 'Issue date is the start of the period',
  ended_at: 'Issue date is the end of the period',
};
export const DISTILLER_MATCHERS = ['equal'] as const;

/** Longest line name and product key kept. */
export const RULE_TEXT_MAX = 500;
/** Longest duration of a rule, in months (100 years). */
export const RULE_DURATION_MAX = 1200;
export const DURATION_TOO_LONG = `Duration is at most ${RULE_DURATION_MAX} months`;
export const RULE_TEXT_TOO_LONG = `At most ${RULE_TEXT_MAX} characters`;

/** The drawer's fields: text as typed (the duration too: digits only). */
export const DistillerForm = object({
  line_name: requiredString(LINE_NAME_REQUIRED),
  item_type: enums(ITEM_TYPES),
  issue_date_treatment: enums(ISSUE_DATE_TREATMENTS),
  product_key: requiredString(RULE_PRODUCT_REQUIRED),
  duration_in_months: matching(requiredString(DURATION_REQUIRED), 'digits', /^\d+$/, DURATION_NOT_NUMBER),
});
export type DistillerFormValues = Infer<typeof DistillerForm>;

/** A rejected invoice line as `GET /invoice_items` answers it (value in minor units of `currency`, gross). */
export interface InvoiceItem {
  id: string;
  name: string;
  value: number;
  currency: string;
  quantity: number;
  source: string;
  processing_status: 'pending' | 'distilled' | 'distillation_failed' | 'ignored';
  invoice: { number: string | null; buyer_name: string | null; buyer_id: string | null; issue_date: string | null };
}

export const INVOICE_ITEM_SORTS = ['created_at:desc', 'created_at:asc', 'name:asc', 'name:desc', 'value:desc', 'value:asc', 'issue_date:desc', 'issue_date:asc'] as const;
export type InvoiceItemSort = (typeof INVOICE_ITEM_SORTS)[number];
export const INVOICE_ITEMS_PAGE = 50;
