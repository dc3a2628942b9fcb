import { literal, number, object, refine, string, union } from 'superstruct';
import type { Infer, Struct } from 'superstruct';
import {
  GENERATED_PAYMENT_ID_PREFIX,
  GENERATED_PAYMENT_ID_RANDOM_LENGTH,
  ITEM_TYPES,
  NEW_PAYMENT_DEFAULTS,
  PAYMENT_START_DATE_DAYS_AFTER,
  PAYMENT_START_DATE_DAYS_BEFORE,
  type ItemType,
} from './constants';
import { CUSTOMER_NAME_REQUIRED_MESSAGE } from './customers';
import { currencyDigits } from './money';
import { orderedAlphanumeric } from './random';
import { requiredString } from './validation';

/**
 * Payments (subscription histories): what one is on the wire, how its period and monthly amount
 * follow from what the form or an API client gives, and the payment form's rules with the
 * spec's messages. The payment form and the payment API check the same rules with the same
 * words; the server also knows the customers, products and currencies that exist.
 */

// ---------------------------------------------------------------------------------------
// Messages

export const TOTAL_VALUE_REQUIRED_MESSAGE = 'Total value is required';
export const VALUE_NOT_NUMBER_MESSAGE = 'Value should be a number ex. 1200.20';
/** Months, units sold (quantity) and a finite discount's months are at least 1. */
export const MINIMAL_VALUE_MESSAGE = 'Minimal value is 1';
/** A start date left empty (the spec's rule line: 'Start date is required, ...'). */
export const START_DATE_REQUIRED_MESSAGE = 'Start date is required';
/** A start date that is malformed or (for a new payment) outside the window; an end date not after the start. */
export const INVALID_DATE_MESSAGE = 'invalid date';
export const PRODUCT_NAME_REQUIRED_MESSAGE = 'Product name is required';
/** A new customer's name (the same words as the customer drawer). */
export const PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE = CUSTOMER_NAME_REQUIRED_MESSAGE;
/** An open-ended payment has no total: its monthly amount is what counts. */
export const MONTHLY_AMOUNT_REQUIRED_MESSAGE = 'Monthly amount is required';
/** The payment names neither an existing customer nor a new one, or one that does not exist. */
export const PAYMENT_CUSTOMER_REQUIRED_MESSAGE = 'Please select a customer';
export const PAYMENT_CUSTOMER_BOTH_MESSAGE = 'Choose an existing customer or name a new one, not both';
export const CURRENCY_UNKNOWN_MESSAGE = 'Unknown currency';
export const ITEM_TYPE_UNKNOWN_MESSAGE = `Item type is one of ${ITEM_TYPES.join(', ')}`;
export const ONE_ITEM_MESSAGE = 'A payment has exactly one item';
export const DISCOUNT_MONTHS_ONLY_FINITE_MESSAGE = 'Only a finite discount has months';
export const PAYMENT_ID_MESSAGE = `A payment id is '${GENERATED_PAYMENT_ID_PREFIX}' followed by ${GENERATED_PAYMENT_ID_RANDOM_LENGTH} letters or digits`;
export const UNKNOWN_PAYMENT_ATTRIBUTE_MESSAGE = 'Unknown payment attribute';
export const TEXT_TOO_LONG_MESSAGE = 'Too long';

/** Client failures (toasts and alerts). */
export const REMOVE_PAYMENT_FAILURE_MESSAGE = 'Something went wrong and we could not remove subscription';
export const PRODUCT_SEARCH_FAILURE_MESSAGE = 'We could not fetch products';

// ---------------------------------------------------------------------------------------
// The wire

export interface PaymentItem {
  product_key: string;
  product_name: string;
  type: ItemType;
  quantity: number;
}

export type DiscountKind = 'forever' | 'finite';
export const DISCOUNT_KINDS = ['forever', 'finite'] as const satisfies readonly DiscountKind[];

export interface PaymentDiscount {
  kind: DiscountKind;
  /** Minor units per month. */
  monthly_amount: number;
  /** A finite discount's months; null for a forever discount (or when not known). */
  months: number | null;
}

export interface PaymentSegment {
  /** Object attribute id (object 'subscription_history'). */
  id: string;
  name: string;
  value: string | null;
}

/** One payment as every payment call answers it. Money in minor units of `currency`; dates YYYY-MM-DD. */
export interface Payment {
  id: string;
  customer: { id: string; name: string };
  customer_id: string;
  invoice_number: string | null;
  started_at: string;
  /** First day after the service period; null for an open-ended payment. */
  ended_at: string | null;
  duration_in_months: number | null;
  total_value: number | null;
  /** Exact, may have a fraction of a minor unit. */
  monthly_amount: number;
  currency: string;
  items: PaymentItem[];
  discount: PaymentDiscount | null;
  segments: PaymentSegment[];
  latest_history_id: string;
  version: number;
  source: string;
}

/** Body of PUT /subscriptions/history/upsert/{id} (and, every field optional, of PUT /subscriptions/history/{id}). */
export interface PaymentBody {
  customer_id?: string;
  customer_name?: string;
  started_at: string;
  duration_in_months?: number;
  ended_at?: string | null;
  total_value?: number;
  monthly_amount?: number;
  currency: string;
  invoice_number?: string | null;
  items: { product_key: string; type: ItemType; quantity: number }[];
  discount?: { kind: DiscountKind; monthly_amount: number; months?: number } | null;
  segments?: { id: string; value: string | null }[];
}

/** Fields GET /subscription_histories sorts by (`sort_by=<field>:<asc|desc>`). */
export const PAYMENT_SORT_FIELDS = ['started_at', 'total_value', 'monthly_amount', 'duration_in_months', 'invoice_number', 'customer_name'] as const;
export type PaymentSortField = (typeof PAYMENT_SORT_FIELDS)[number];
export const DEFAULT_PAYMENT_SORT = 'started_at:desc';
export const PAYMENTS_PAGE_SIZE = 50;
export const PAYMENTS_PAGE_MAX = 200;
export const PAYMENT_SEARCH_LIMIT = 20;
export const PAYMENT_SEARCH_MAX_LIMIT = 100;
/** Longest invoice number, product key or name, customer name and attribute value the API keeps. */
export const PAYMENT_TEXT_MAX_LENGTH = 500;

// ---------------------------------------------------------------------------------------
// Ids

const PAYMENT_ID = new RegExp(`^${GENERATED_PAYMENT_ID_PREFIX}[A-Za-z0-9]{${GENERATED_PAYMENT_ID_RANDOM_LENGTH}}$`);

/** A generated payment id: 'subh' and 12 letters or digits that rise with the time it was made (orderedAlphanumeric). */
export function newPaymentId(): string {
  return GENERATED_PAYMENT_ID_PREFIX + orderedAlphanumeric(GENERATED_PAYMENT_ID_RANDOM_LENGTH);
}

export function isPaymentId(id: string): boolean {
  return PAYMENT_ID.test(id);
}

// ---------------------------------------------------------------------------------------
// Days and periods (plain integer date math on UTC days; no time zone)

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;
/** Days of an average month: a period that is not whole months counts its days / (365 / 12). */
export const DAYS_PER_MONTH = 365 / 12;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month1: number): number {
  if (month1 !== 2) return MONTH_DAYS[month1 - 1] as number;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** Whether `text` is a real day written YYYY-MM-DD in the years 1900 to 9999. */
export function isPaymentDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return year >= 1900 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function dayNumber(text: string): number {
  const match = DAY.exec(text);
  if (!match) throw new RangeError(`not a day YYYY-MM-DD: '${text}'`);
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / MS_PER_DAY;
}

function dayText(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** `day` moved by `days` days. */
export function addDays(day: string, days: number): string {
  return dayText(dayNumber(day) + days);
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** The end (first day after the period) of `months` whole months from `start`; the day is clamped to the month's length (31 Jan + 1 = 28/29 Feb). */
export function endDateOf(start: string, months: number): string {
  const match = DAY.exec(start);
  if (!match) throw new RangeError(`not a day YYYY-MM-DD: '${start}'`);
  const target = Number(match[1]) * 12 + Number(match[2]) - 1 + months;
  const year = Math.floor(target / 12);
  const month1 = target - year * 12 + 1;
  const day = Math.min(Number(match[3]), daysInMonth(year, month1));
  return `${String(year).padStart(4, '0')}-${String(month1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The duration of [start, end) in months: the whole number n when end = start + n months,
 * otherwise days / (365 / 12).
 */
export function durationInMonthsOf(start: string, end: string): number {
  // A sync or an import maps many payments of the same few periods: each pair is worked out once.
  const key = start + end;
  let months = knownDurations.get(key);
  if (months === undefined) {
    months = monthsBetween(start, end);
    if (knownDurations.size >= KNOWN_DURATIONS_MAX) knownDurations.clear();
    knownDurations.set(key, months);
  }
  return months;
}

const knownDurations = new Map<string, number>();
const KNOWN_DURATIONS_MAX = 20_000;

function monthsBetween(start: string, end: string): number {
  const from = DAY.exec(start);
  const to = DAY.exec(end);
  if (!from || !to) throw new RangeError(`not days YYYY-MM-DD: '${start}', '${end}'`);
  // end = start + n months only for the n between their months (the day clamped to the month's length).
  const [fromYear, fromMonth, fromDay] = [Number(from[1]), Number(from[2]), Number(from[3])];
  const [toYear, toMonth, toDay] = [Number(to[1]), Number(to[2]), Number(to[3])];
  const days = (Date.UTC(toYear, toMonth - 1, toDay) - Date.UTC(fromYear, fromMonth - 1, fromDay)) / MS_PER_DAY;
  const months = toYear * 12 + toMonth - (fromYear * 12 + fromMonth);
  if (months >= 1 && Math.abs(months - Math.round(days / DAYS_PER_MONTH)) <= 1 && toDay === Math.min(fromDay, daysInMonth(toYear, toMonth))) return months;
  return days / DAYS_PER_MONTH;
}

/** The exact monthly amount (minor units, may be fractional) of `total` minor units over `months` months. */
export function monthlyAmountOf(total: number, months: number): number {
  return total / months;
}

/** Whether a new payment may start on `date`: from 60 days before `today` to one day after it (both YYYY-MM-DD). */
export function isStartDateInWindow(date: string, today: string): boolean {
  if (!isPaymentDay(date) || !isPaymentDay(today)) return false;
  const offset = daysBetween(today, date);
  return offset >= -PAYMENT_START_DATE_DAYS_BEFORE && offset <= PAYMENT_START_DATE_DAYS_AFTER;
}

/** Today (UTC) as YYYY-MM-DD. */
export function todayIso(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------
// Money typed in the form

const AMOUNT = /^\d+([.,]\d+)?$/;

/** Whether a typed amount is a number as the form takes it ('1200.20', '1200,2', '15'). */
export function isAmountText(text: string): boolean {
  return AMOUNT.test(text.trim());
}

/**
 * A typed amount in major units ('1200.20') as whole minor units of `currency` (120020 for USD),
 * rounded to the currency's digits; null when it is not a number.
 */
export function majorTextToMinor(text: string, currency: string): number | null {
  const trimmed = text.trim();
  if (!AMOUNT.test(trimmed)) return null;
  const value = Number(trimmed.replace(',', '.'));
  return Math.round(value * 10 ** currencyDigits(currency));
}

/** Minor units as the form shows them in major units ('1200.2' for 120020 USD cents). */
export function minorToMajorText(minorUnits: number, currency: string): string {
  const digits = currencyDigits(currency);
  return String(Number((minorUnits / 10 ** digits).toFixed(digits)));
}

// ---------------------------------------------------------------------------------------
// The payment form

/**
 * How the form sets the period: whole months (the spec's form), an end date (any later day), or
 * no end (an open-ended payment that counts until an end is set).
 */
export type PaymentPeriodMode = 'months' | 'until' | 'ongoing';

/** The form's values as the inputs hold them: numbers typed as text or numbers, '' = empty. */
export interface PaymentFormValues {
  /** The existing customer chosen; '' when the payment is for a new customer. */
  customer_id: string;
  /** The new customer's name (used only when `customer_id` is ''). */
  customer_name: string;
  /** YYYY-MM-DD (the date input shows it DD-MM-YYYY). */
  started_at: string;
  period: PaymentPeriodMode;
  duration_in_months: string | number;
  /** YYYY-MM-DD; used when `period` is 'until'. */
  ended_at: string;
  /** Major units ('1200.20'); required unless the payment is open-ended. */
  total_value: string | number;
  /** Major units; required when the payment is open-ended. */
  monthly_amount: string | number;
  currency: string;
  invoice_number: string;
  product_key: string;
  item_type: ItemType;
  quantity: string | number;
  discount_kind: DiscountKind | '';
  /** Major units per month. */
  discount_amount: string | number;
  discount_months: string | number;
}

export const NEW_PAYMENT_FORM_VALUES: PaymentFormValues = {
  customer_id: '',
  customer_name: '',
  started_at: '',
  period: 'months',
  duration_in_months: NEW_PAYMENT_DEFAULTS.durationInMonths,
  ended_at: '',
  total_value: '',
  monthly_amount: '',
  currency: '',
  invoice_number: '',
  product_key: '',
  item_type: NEW_PAYMENT_DEFAULTS.itemType,
  quantity: NEW_PAYMENT_DEFAULTS.quantity,
  discount_kind: '',
  discount_amount: '',
  discount_months: '',
};

const textOrNumber = union([string(), number()]);

function text(value: string | number): string {
  return typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'x') : value.trim();
}

/** A required amount: `required` when empty, the number message when not a number. */
function amount(requiredMessage: string): Struct<string | number, null> {
  return refine(textOrNumber, 'amount', (value) => {
    const typed = text(value);
    if (typed === '') return requiredMessage;
    return isAmountText(typed) || VALUE_NOT_NUMBER_MESSAGE;
  });
}

/** A whole number of at least 1 (months, units sold); empty counts as below 1. */
const atLeastOne = refine(textOrNumber, 'atLeastOne', (value) => {
  const typed = text(value);
  return (/^\d+$/.test(typed) && Number(typed) >= 1) || MINIMAL_VALUE_MESSAGE;
});

const anyText = union([string(), number()]);

/**
 * The payment form's struct. `today` (YYYY-MM-DD) bounds a new payment's start date; an edit of
 * an existing payment (`isNew` false) keeps any start date. Only the fields the chosen period
 * mode and discount show are checked.
 */
export function paymentFormStruct(options: { today: string; isNew: boolean }) {
  const startedAt = refine(string(), 'startDate', (value) => {
    if (value.trim() === '') return START_DATE_REQUIRED_MESSAGE;
    if (!isPaymentDay(value)) return INVALID_DATE_MESSAGE;
    return !options.isNew || isStartDateInWindow(value, options.today) || INVALID_DATE_MESSAGE;
  });
  const base = object({
    customer_id: string(),
    customer_name: string(),
    started_at: startedAt,
    period: union([literal('months'), literal('until'), literal('ongoing')]),
    duration_in_months: anyText,
    ended_at: string(),
    total_value: anyText,
    monthly_amount: anyText,
    currency: requiredString(),
    invoice_number: string(),
    product_key: requiredString(PRODUCT_NAME_REQUIRED_MESSAGE),
    item_type: union(ITEM_TYPES.map((type) => literal(type)) as [Struct<ItemType, ItemType>, ...Struct<ItemType, ItemType>[]]),
    quantity: atLeastOne,
    discount_kind: union([literal(''), literal('forever'), literal('finite')]),
    discount_amount: anyText,
    discount_months: anyText,
  });
  // Conditional rules: each reports on its own field, so the form shows the message where the user types.
  return refine(base, 'paymentForm', (values) => {
    const failures: { path: string[]; message: string }[] = [];
    const fail = (field: keyof PaymentFormValues, message: string) => failures.push({ path: [field], message });
    if (values.customer_id.trim() === '' && values.customer_name.trim() === '') fail('customer_name', PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE);
    const check = (field: keyof PaymentFormValues, struct: Struct<string | number, null>) => {
      const [error] = struct.validate(values[field]);
      if (error) fail(field, error.message);
    };
    if (values.period === 'months') check('duration_in_months', atLeastOne);
    if (values.period === 'until') {
      if (!isPaymentDay(values.ended_at) || !isPaymentDay(values.started_at) || daysBetween(values.started_at, values.ended_at) <= 0) {
        fail('ended_at', INVALID_DATE_MESSAGE);
      }
    }
    if (values.period === 'ongoing') check('monthly_amount', amount(MONTHLY_AMOUNT_REQUIRED_MESSAGE));
    else check('total_value', amount(TOTAL_VALUE_REQUIRED_MESSAGE));
    if (values.discount_kind !== '') check('discount_amount', amount(VALUE_NOT_NUMBER_MESSAGE));
    if (values.discount_kind === 'finite') check('discount_months', atLeastOne);
    return failures.length === 0 ? true : failures.map((failure) => ({ ...failure, refinement: 'paymentForm' }));
  });
}

export type PaymentFormStruct = ReturnType<typeof paymentFormStruct>;

/** The new-customer form next to the payment form: a name. */
export const newCustomerFormStruct = object({ name: requiredString(PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE) });
export type NewCustomerForm = Infer<typeof newCustomerFormStruct>;

function wholeNumber(value: string | number): number {
  return Number(text(value));
}

/**
 * A valid form as the body of PUT /subscriptions/history/upsert/{id} (or of an edit): amounts in
 * minor units of the form's currency; the period as the mode says (`ended_at: null` and no total
 * for an open-ended payment).
 */
export function paymentFormToBody(values: PaymentFormValues): PaymentBody {
  const currency = values.currency.trim().toUpperCase();
  const minor = (value: string | number) => majorTextToMinor(text(value), currency) ?? 0;
  const body: PaymentBody = {
    started_at: values.started_at,
    currency,
    invoice_number: values.invoice_number.trim() === '' ? null : values.invoice_number.trim(),
    items: [{ product_key: values.product_key.trim(), type: values.item_type, quantity: wholeNumber(values.quantity) }],
    discount:
      values.discount_kind === ''
        ? null
        : {
            kind: values.discount_kind,
            monthly_amount: minor(values.discount_amount),
            ...(values.discount_kind === 'finite' ? { months: wholeNumber(values.discount_months) } : {}),
          },
  };
  if (values.customer_id.trim() !== '') body.customer_id = values.customer_id.trim();
  else body.customer_name = values.customer_name.trim();
  if (values.period === 'months') {
    body.duration_in_months = wholeNumber(values.duration_in_months);
    body.total_value = minor(values.total_value);
  } else if (values.period === 'until') {
    body.ended_at = values.ended_at;
    body.total_value = minor(values.total_value);
  } else {
    body.ended_at = null;
    body.monthly_amount = minor(values.monthly_amount);
  }
  return body;
}

/** An existing payment as the form's values (to edit it). */
export function paymentToFormValues(payment: Payment): PaymentFormValues {
  const item = payment.items[0];
  const isWholeMonths = payment.ended_at !== null && payment.duration_in_months !== null && Number.isInteger(payment.duration_in_months);
  const mode: PaymentPeriodMode = payment.ended_at === null ? 'ongoing' : isWholeMonths ? 'months' : 'until';
  return {
    customer_id: payment.customer_id,
    customer_name: '',
    started_at: payment.started_at,
    period: mode,
    duration_in_months: isWholeMonths ? (payment.duration_in_months as number) : NEW_PAYMENT_DEFAULTS.durationInMonths,
    ended_at: payment.ended_at ?? '',
    total_value: payment.total_value === null ? '' : minorToMajorText(payment.total_value, payment.currency),
    monthly_amount: minorToMajorText(payment.monthly_amount, payment.currency),
    currency: payment.currency,
    invoice_number: payment.invoice_number ?? '',
    product_key: item?.product_key ?? '',
    item_type: item?.type ?? NEW_PAYMENT_DEFAULTS.itemType,
    quantity: item?.quantity ?? NEW_PAYMENT_DEFAULTS.quantity,
    discount_kind: payment.discount?.kind ?? '',
    discount_amount: payment.discount ? minorToMajorText(payment.discount.monthly_amount, payment.currency) : '',
    discount_months: payment.discount?.months ?? '',
  };
}

/** The monthly amount a form shows as the user types (minor units), or null while the inputs do not give one. */
export function formMonthlyAmount(values: PaymentFormValues): number | null {
  const currency = values.currency.trim() || 'USD';
  if (values.period === 'ongoing') return majorTextToMinor(text(values.monthly_amount), currency);
  const total = majorTextToMinor(text(values.total_value), currency);
  if (total === null) return null;
  if (values.period === 'months') {
    const months = wholeNumber(values.duration_in_months);
    return Number.isInteger(months) && months >= 1 ? monthlyAmountOf(total, months) : null;
  }
  if (!isPaymentDay(values.started_at) || !isPaymentDay(values.ended_at) || daysBetween(values.started_at, values.ended_at) <= 0) return null;
  return monthlyAmountOf(total, durationInMonthsOf(values.started_at, values.ended_at));
}

/** The end date a form shows (the first day after the period), or null (open-ended, or not typed yet). */
export function formEndDate(values: PaymentFormValues): string | null {
  if (values.period === 'ongoing') return null;
  if (values.period === 'until') return isPaymentDay(values.ended_at) ? values.ended_at : null;
  const months = wholeNumber(values.duration_in_months);
  return isPaymentDay(values.started_at) && Number.isInteger(months) && months >= 1 ? endDateOf(values.started_at, months) : null;
}

