import type { PaymentFormValues } from '../../models/payments';
import { apiErrorText } from '../api/errors';
import type { ApiErrorItem } from '../api/errors';

type FormField = keyof PaymentFormValues;

const FORM_FIELDS: readonly FormField[] = [
  'customer_id',
  'customer_name',
  'started_at',
  'period',
  'duration_in_months',
  'ended_at',
  'total_value',
  'monthly_amount',
  'currency',
  'invoice_number',
  'product_key',
  'item_type',
  'quantity',
  'discount_kind',
  'discount_amount',
  'discount_months',
];

const DISCOUNT_FIELDS: Record<string, FormField> = { kind: 'discount_kind', monthly_amount: 'discount_amount', months: 'discount_months' };
const ITEM_FIELDS: Record<string, FormField> = { product_key: 'product_key', type: 'item_type', quantity: 'quantity' };

/** The form field a refusal's JSON pointer names ('/body/items/0/quantity' is `quantity`); null when none. */
export function formFieldOfPointer(pointer: string | undefined): FormField | null {
  if (!pointer) return null;
  const segments = pointer.split('/').filter(Boolean);
  if (segments[0] === 'body') segments.shift();
  const [first, second, third] = segments;
  if (first === 'discount') return second ? (DISCOUNT_FIELDS[second] ?? 'discount_amount') : 'discount_kind';
  if (first === 'items') return (third && ITEM_FIELDS[third]) || 'product_key';
  // A customer that is not there (or not the account's) is the customer form's problem.
  if (first === 'customer_id') return 'customer_name';
  return FORM_FIELDS.find((field) => field === first) ?? null;
}

/**
 * A 400/422 answer to a payment write as the form shows it: messages by field (the first per
 * field), and the rest, which no field of the form shows, as lines of their own.
 */
export function paymentFormErrorsOfRefusal(errors: readonly ApiErrorItem[]): { fields: Partial<Record<FormField, string>>; other: string[] } {
  const fields: Partial<Record<FormField, string>> = {};
  const other: string[] = [];
  for (const item of errors) {
    const field = formFieldOfPointer(item.source?.pointer);
    const text = apiErrorText(item);
    if (field === null) other.push(text);
    else fields[field] ??= text;
  }
  return { fields, other };
}
