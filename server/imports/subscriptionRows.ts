import { createHash } from 'node:crypto';
import { ITEM_TYPES, SUBSCRIPTION_CSV_FIELD_LABELS, type ItemType, type SubscriptionCsvField } from '../../models/constants';
import { addMonths, dayFromIso, isoFromDay } from '../metrics/days';
import { parseDate, parseInteger, parseMoney, type DateOrder, type DecimalMark } from './csv/values';

/**
 * One CSV row of a subscription import turned into a payment, or the reason it cannot be.
 * Pure: the caller knows the account (its currency, the currencies' minor digits) and the
 * file's day-month order of slash dates (decided from the whole file first).
 *
 * Messages name the column as the import page labels it and say why, e.g.
 * "Started at '31/31/2024' is not a date"; they are shown next to the row number and the row.
 */

/** Column index of each mapped field (unmapped fields are absent). */
export type FieldMapping = Partial<Record<SubscriptionCsvField, number>>;

export const FIELD_LABELS = SUBSCRIPTION_CSV_FIELD_LABELS;

/** Product of rows that name none. */
export const DEFAULT_PRODUCT = 'Subscription';
/** Longest id or invoice number kept (longer ones are refused, not cut). */
const MAX_KEY_LENGTH = 200;
/** Longest subscription period accepted from a file (100 years). */
const MAX_MONTHS = 1_200;

export interface RowContext {
  accountId: string;
  accountCurrency: string;
  /** Minor unit digits of every known currency. */
  currencyDigits: ReadonlyMap<string, number>;
  /** How this file's ambiguous slash dates read; null: they are refused. */
  slashOrder: DateOrder | null;
  /**
   * The decimal separator the amount column's (monthly amount or total value) other values
   * prove, which reads its ambiguous amounts ('10.001'); null or absent: they are refused.
   */
  decimalMark?: DecimalMark | null;
  /** The same for the discount's amount column. */
  discountDecimalMark?: DecimalMark | null;
}

/** A discount of a payment (payment_discounts, position 0). */
export interface ParsedDiscount {
  kind: 'forever' | 'finite';
  /** Minor units of the payment's currency a month. */
  monthlyAmount: number;
  /** A finite discount's months; null for a forever one. */
  months: number | null;
}

export interface ParsedPaymentRow {
  paymentId: string;
  customerId: string;
  customerName: string | null;
  startedAt: string;
  /** The first day after the period; null: an open-ended payment. */
  endedAt: string | null;
  /** Whole months, or days / (365 / 12) when the period is not whole months; null when open-ended. */
  months: number | null;
  /** Minor units of `currency`; null when open-ended. */
  totalValue: number | null;
  /** Exact monthly amount, minor units (may have a fraction of a minor unit). */
  monthlyAmount: number;
  currency: string;
  invoiceNumber: string | null;
  productKey: string;
  itemType: ItemType;
  quantity: number;
  discount: ParsedDiscount | null;
}

export type RowOutcome = { ok: true; row: ParsedPaymentRow } | { ok: false; message: string };

const ITEM_TYPE_NAMES: Record<string, ItemType> = {
  recurring: 'recurring',
  subscription: 'recurring',
  one_time: 'one_time',
  'one-time': 'one_time',
  'one time': 'one_time',
  onetime: 'one_time',
  metered: 'metered',
  usage: 'metered',
  freemium: 'freemium',
  free: 'freemium',
};

/** Days of an average month: a period that is not whole months lasts days / (365 / 12) months. */
export const DAYS_PER_MONTH = 365 / 12;

class RowError extends Error {}

const fail = (message: string): never => {
  throw new RowError(message);
};

/**
 * The payment id of a row: 'subh' + 12 characters derived from account, customer, invoice
 * number and start date, so the same row imported again finds its payment (and a changed amount
 * or end updates it) instead of adding another.
 */
export function paymentIdOf(accountId: string, customerId: string, invoiceNumber: string | null, startedAt: string): string {
  const digest = createHash('sha256').update([accountId, customerId, invoiceNumber ?? '', startedAt].join('\u001f')).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = 'subh';
  for (let k = 0; k < 12; k++) id += alphabet[(digest[k] as number) % 62];
  return id;
}

export function readSubscriptionRow(cells: readonly string[], mapping: FieldMapping, context: RowContext): RowOutcome {
  try {
    return { ok: true, row: read(cells, mapping, context) };
  } catch (error) {
    if (error instanceof RowError) return { ok: false, message: error.message };
    throw error;
  }
}

// Module functions, not closures made per row (a million rows would make a million of each).

/** The mapped cell of `field`, trimmed; null when the field is not mapped. */
function cellOf(cells: readonly string[], mapping: FieldMapping, field: SubscriptionCsvField): string | null {
  const index = mapping[field];
  if (index === undefined) return null;
  return (cells[index] ?? '').trim();
}

function requiredOf(cells: readonly string[], mapping: FieldMapping, field: SubscriptionCsvField): string {
  const value = cellOf(cells, mapping, field);
  if (value === null || value === '') fail(`${FIELD_LABELS[field]} is empty`);
  return value as string;
}

/** The service period of a row: its end (first day after it) and months, both null when open-ended. */
interface Period {
  endedAt: string | null;
  months: number | null;
  whole: boolean;
}

function periodOf(cells: readonly string[], mapping: FieldMapping, context: RowContext, startedAt: string): Period {
  const endedText = cellOf(cells, mapping, 'ended_at');
  const endedAt = endedText ? date('ended_at', endedText, context) : null;
  if (endedAt !== null && endedAt <= startedAt) {
    if (endedAt === startedAt) fail(`${FIELD_LABELS.ended_at} ${endedAt} is the same day as ${FIELD_LABELS.started_at}: a payment covers at least one day, and ${FIELD_LABELS.ended_at} is the first day after it`);
    fail(`${FIELD_LABELS.ended_at} ${endedAt} is before ${FIELD_LABELS.started_at} ${startedAt}`);
  }
  const monthsText = cellOf(cells, mapping, 'months');
  if (monthsText !== null && monthsText !== '') {
    const parsed = parseInteger(monthsText);
    if (!parsed.ok) fail(`${FIELD_LABELS.months} '${monthsText}' ${parsed.reason}`);
    const months = (parsed as { value: number }).value;
    if (!(months >= 1 && months <= MAX_MONTHS)) fail(`${FIELD_LABELS.months} must be between 1 and ${MAX_MONTHS}, got ${months}`);
    if (endedAt && monthsBetween(startedAt, endedAt) !== months) {
      fail(`${FIELD_LABELS.ended_at} ${endedAt} is not ${months} month(s) after ${FIELD_LABELS.started_at} ${startedAt}`);
    }
    return { endedAt: isoFromDay(addMonths(dayFromIso(startedAt), months)), months, whole: true };
  }
  // Months given as a column and nothing says the period otherwise.
  if (mapping.months !== undefined && mapping.ended_at === undefined) return fail(`${FIELD_LABELS.months} is empty`);
  // No end: an open-ended payment (an active subscription), until a later import or an edit ends it.
  if (!endedAt) return { endedAt: null, months: null, whole: false };
  // A whole number of months (the end read as the first day after the period or as its last day) keeps whole months.
  const months = monthsBetween(startedAt, endedAt);
  if (months !== null) return { endedAt: isoFromDay(addMonths(dayFromIso(startedAt), months)), months, whole: true };
  // Any other period: its days in average months.
  const duration = (dayFromIso(endedAt) - dayFromIso(startedAt)) / DAYS_PER_MONTH;
  if (duration > MAX_MONTHS) fail(`${FIELD_LABELS.ended_at} ${endedAt} is more than ${MAX_MONTHS} months after ${FIELD_LABELS.started_at} ${startedAt}`);
  return { endedAt, months: duration, whole: false };
}

function read(cells: readonly string[], mapping: FieldMapping, context: RowContext): ParsedPaymentRow {

  const customerId = key('customer_id', requiredOf(cells, mapping, 'customer_id'));
  const invoice = cellOf(cells, mapping, 'invoice_number');
  const invoiceNumber = invoice ? key('invoice_number', invoice) : null;
  const startedAt = date('started_at', requiredOf(cells, mapping, 'started_at'), context);
  const period = periodOf(cells, mapping, context, startedAt);

  const currencyText = cellOf(cells, mapping, 'currency');
  const currency = currencyText ? currencyText.toUpperCase() : context.accountCurrency;
  const digits = context.currencyDigits.get(currency);
  if (digits === undefined) fail(`${FIELD_LABELS.currency} '${currencyText}' is not an ISO 4217 currency code`);

  // The amount: the monthly amount (the dialog, most files) or the period's total value.
  const amountField: SubscriptionCsvField = mapping.monthly_amount === undefined && mapping.total_value !== undefined ? 'total_value' : 'monthly_amount';
  const amountText = requiredOf(cells, mapping, amountField);
  const amount = parseMoney(amountText, digits as number, context.decimalMark ?? null);
  if (!amount.ok) fail(`${FIELD_LABELS[amountField]} '${amountText}' ${amount.reason}`);
  const minor = (amount as { minor: number }).minor;
  if (minor < 0) fail(`${FIELD_LABELS[amountField]} '${amountText}' is negative`);
  let monthlyAmount: number;
  let totalValue: number | null;
  if (amountField === 'monthly_amount') {
    monthlyAmount = minor;
    if (period.months === null) totalValue = null;
    else if (period.whole) totalValue = minor * period.months;
    else totalValue = Math.round(minor * period.months);
    if (totalValue !== null && !Number.isSafeInteger(totalValue)) fail(`${FIELD_LABELS.monthly_amount} '${amountText}' is too large`);
  } else {
    if (period.months === null) {
      fail(`${FIELD_LABELS.total_value} '${amountText}' cannot be spread over an open-ended payment: ${FIELD_LABELS.ended_at} is empty (give the end, or import open-ended payments with a ${FIELD_LABELS.monthly_amount} column)`);
    }
    totalValue = minor;
    monthlyAmount = minor / (period.months as number);
  }

  const typeText = cellOf(cells, mapping, 'revenue_type');
  let itemType: ItemType = 'recurring';
  if (typeText) {
    const known = ITEM_TYPE_NAMES[typeText.toLowerCase()];
    if (!known) fail(`${FIELD_LABELS.revenue_type} '${typeText}' is not one of ${ITEM_TYPES.map((t) => t.replace('_', '-')).join(', ')}`);
    itemType = known as ItemType;
  }

  const unitsText = cellOf(cells, mapping, 'units');
  let quantity = 1;
  if (unitsText) {
    const parsed = parseInteger(unitsText);
    if (!parsed.ok) fail(`${FIELD_LABELS.units} '${unitsText}' ${parsed.reason}`);
    quantity = (parsed as { value: number }).value;
    if (quantity < 0) fail(`${FIELD_LABELS.units} '${unitsText}' is negative`);
  }

  const productText = cellOf(cells, mapping, 'product');
  const productKey = productText ? key('product', productText) : DEFAULT_PRODUCT;
  const nameText = cellOf(cells, mapping, 'customer_name');
  const customerName = nameText ? nameText.slice(0, 500) : null;

  return {
    paymentId: paymentIdOf(context.accountId, customerId, invoiceNumber, startedAt),
    customerId,
    customerName,
    startedAt,
    endedAt: period.endedAt,
    months: period.months,
    totalValue,
    monthlyAmount,
    currency,
    invoiceNumber,
    productKey,
    itemType,
    quantity,
    discount: discountOf(cells, mapping, context, digits as number),
  };
}

/** The row's discount (its monthly amount, kind and a finite one's months), or null when it has none. */
function discountOf(cells: readonly string[], mapping: FieldMapping, context: RowContext, digits: number): ParsedDiscount | null {
  const amountText = cellOf(cells, mapping, 'discount_amount');
  const kindText = cellOf(cells, mapping, 'discount_kind');
  const monthsText = cellOf(cells, mapping, 'discount_months');
  if (!amountText) {
    if (kindText || monthsText) fail(`${FIELD_LABELS.discount_amount} is empty, but the row gives the discount's ${kindText ? 'kind' : 'months'}`);
    return null;
  }
  const amount = parseMoney(amountText, digits, context.discountDecimalMark ?? null);
  if (!amount.ok) fail(`${FIELD_LABELS.discount_amount} '${amountText}' ${amount.reason}`);
  const monthlyAmount = (amount as { minor: number }).minor;
  if (monthlyAmount < 0) fail(`${FIELD_LABELS.discount_amount} '${amountText}' is negative`);
  let kind: ParsedDiscount['kind'];
  if (kindText) {
    const lower = kindText.toLowerCase();
    if (lower !== 'forever' && lower !== 'finite') fail(`${FIELD_LABELS.discount_kind} '${kindText}' is not one of forever, finite`);
    kind = lower as ParsedDiscount['kind'];
  } else {
    // Unsaid: months make it finite, none forever.
    kind = monthsText ? 'finite' : 'forever';
  }
  let months: number | null = null;
  if (monthsText) {
    if (kind === 'forever') fail(`${FIELD_LABELS.discount_months} '${monthsText}': only a finite discount has months`);
    const parsed = parseInteger(monthsText);
    if (!parsed.ok) fail(`${FIELD_LABELS.discount_months} '${monthsText}' ${parsed.reason}`);
    months = (parsed as { value: number }).value;
    if (!(months >= 1 && months <= MAX_MONTHS)) fail(`${FIELD_LABELS.discount_months} must be between 1 and ${MAX_MONTHS}, got ${months}`);
  } else if (kind === 'finite') {
    fail(`${FIELD_LABELS.discount_months} is empty: a finite discount needs its months`);
  }
  // A zero discount is none.
  if (monthlyAmount === 0) return null;
  return { kind, monthlyAmount, months };
}

/**
 * Whether the first row of a file is a header: its amount is not a number and its start is not
 * a date (the dialog's files come without a skip-headers choice).
 */
export function looksLikeHeader(cells: readonly string[], mapping: FieldMapping): boolean {
  const at = (field: SubscriptionCsvField) => (mapping[field] === undefined ? '' : (cells[mapping[field] as number] ?? '').trim());
  const amount = at(mapping.monthly_amount === undefined && mapping.total_value !== undefined ? 'total_value' : 'monthly_amount');
  const start = at('started_at');
  return !parseMoney(amount, 2).ok && !parseDate(start, 'dmy').ok;
}

function key(field: SubscriptionCsvField, value: string): string {
  if (value.length > MAX_KEY_LENGTH) fail(`${FIELD_LABELS[field]} is longer than ${MAX_KEY_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) fail(`${FIELD_LABELS[field]} contains control characters`);
  return value;
}

function date(field: SubscriptionCsvField, text: string, context: RowContext): string {
  const parsed = parseDate(text, context.slashOrder);
  if (!parsed.ok) fail(`${FIELD_LABELS[field]} '${text}' ${parsed.reason}`);
  return (parsed as { iso: string }).iso;
}

/**
 * Whole months from `start` to `end`, reading `end` as the first day after the period (Jan 1 to
 * Feb 1) or as its last day (Jan 1 to Jan 31); null when it is neither, or not after the start.
 */
export function monthsBetween(start: string, end: string): number | null {
  const from = dayFromIso(start);
  const to = dayFromIso(end);
  if (to <= from) return null;
  const estimate = Math.max(1, Math.round((to - from) / 30.44));
  for (const months of [estimate - 1, estimate, estimate + 1]) {
    if (months < 1 || months > MAX_MONTHS) continue;
    const next = addMonths(from, months);
    if (next === to || next - 1 === to) return months;
  }
  return null;
}
