import { ITEM_TYPES, type ItemType } from '../../models/constants';
import {
  CURRENCY_UNKNOWN_MESSAGE,
  DISCOUNT_KINDS,
  DISCOUNT_MONTHS_ONLY_FINITE_MESSAGE,
  durationInMonthsOf,
  endDateOf,
  INVALID_DATE_MESSAGE,
  START_DATE_REQUIRED_MESSAGE,
  isPaymentDay,
  isStartDateInWindow,
  ITEM_TYPE_UNKNOWN_MESSAGE,
  MINIMAL_VALUE_MESSAGE,
  monthlyAmountOf,
  MONTHLY_AMOUNT_REQUIRED_MESSAGE,
  ONE_ITEM_MESSAGE,
  PAYMENT_CUSTOMER_BOTH_MESSAGE,
  PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE,
  PAYMENT_CUSTOMER_REQUIRED_MESSAGE,
  PRODUCT_NAME_REQUIRED_MESSAGE,
  TOTAL_VALUE_REQUIRED_MESSAGE,
  VALUE_NOT_NUMBER_MESSAGE,
  type DiscountKind,
} from '../../models/payments';
import type { EditBody } from './schemas';

/**
 * A payment body (an upsert's, or an edit's merged over the payment as it is) turned into the
 * row to write, with every problem found at once, each on its field with the spec's message
 * (models/payments.ts). Period rules (docs/payments.md "Periods"):
 * - `duration_in_months` given: ended_at = started_at + months, monthly = total / months;
 * - `ended_at` given: duration = days / (365/12), monthly as given or total / duration;
 * - neither (ended_at null or absent): open-ended, the monthly amount is required.
 * Of a bounded payment the total, or else the monthly amount (total = monthly x duration), is required.
 */

/** The longest period a payment may have (months); a bound keeps totals finite. */
export const MAX_MONTHS = 1_200;
export const PERIOD_TOO_LONG_MESSAGE = `A payment lasts at most ${MAX_MONTHS} months`;
/** Largest amount in minor units (a total, a monthly amount, a discount): ten trillion. */
export const MAX_AMOUNT = 1e13;
export const AMOUNT_TOO_LARGE_MESSAGE = 'Value is too large';
export const MAX_QUANTITY = 1_000_000_000;

export interface Problem {
  pointer: string;
  detail: string;
}

export interface PaymentRow {
  startedAt: string;
  endedAt: string | null;
  duration: number | null;
  total: number | null;
  monthly: number;
  currency: string;
  invoiceNumber: string | null;
  item: { productKey: string; type: ItemType; quantity: number };
  /** Undefined: keep the discount as it is (an edit that does not mention it). */
  discount: { kind: DiscountKind; monthlyAmount: number; months: number | null } | null | undefined;
  /** Either an existing customer (checked by the caller) or a new one by name; both undefined: keep. */
  customerId: string | undefined;
  customerName: string | undefined;
}

/** The payment as it is, for an edit. */
export interface CurrentPayment {
  customer_id: string;
  started_at: string;
  ended_at: string | null;
  duration_in_months: number | null;
  total_value: number | null;
  monthly_amount: number | null;
  currency: string;
  invoice_number: string | null;
  item: { product_key: string; type: ItemType; quantity: number } | null;
}

const blankToNull = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

/**
 * The row a body asks for, or its problems. `current` null: a new payment (the start date must
 * be in the window around `today`); otherwise the body's missing fields keep the current values
 * (`replace` true: an upsert over an existing payment, whose body is the whole payment).
 */
export function resolvePayment(body: EditBody, current: CurrentPayment | null, options: { today: string; replace: boolean; currencies: ReadonlySet<string> }): { row: PaymentRow } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const fail = (pointer: string, detail: string) => problems.push({ pointer: `/body/${pointer}`, detail });
  const keep = current !== null && !options.replace;

  // Customer
  let customerId: string | undefined;
  let customerName: string | undefined;
  if (body.customer_id !== undefined && body.customer_name !== undefined) fail('customer_name', PAYMENT_CUSTOMER_BOTH_MESSAGE);
  else if (body.customer_name !== undefined) {
    customerName = body.customer_name.trim();
    if (customerName === '') fail('customer_name', PAYMENT_CUSTOMER_NAME_REQUIRED_MESSAGE);
  } else if (body.customer_id !== undefined) {
    customerId = body.customer_id.trim();
    if (customerId === '') fail('customer_id', PAYMENT_CUSTOMER_REQUIRED_MESSAGE);
  } else if (current === null) fail('customer_id', PAYMENT_CUSTOMER_REQUIRED_MESSAGE);

  // Start
  const startedAt = body.started_at ?? current?.started_at ?? '';
  const startValid = isPaymentDay(startedAt);
  if (startedAt.trim() === '') fail('started_at', START_DATE_REQUIRED_MESSAGE);
  else if (!startValid) fail('started_at', INVALID_DATE_MESSAGE);
  else if (current === null && !isStartDateInWindow(startedAt, options.today)) fail('started_at', INVALID_DATE_MESSAGE);

  // Period: what the body says, else (an edit) the payment's own.
  let months = body.duration_in_months;
  let endedAt = body.ended_at;
  let total = body.total_value;
  let monthly = body.monthly_amount;
  if (keep && current && months === undefined && endedAt === undefined) {
    const wholeMonths = current.ended_at !== null && current.duration_in_months !== null && Number.isInteger(current.duration_in_months) && endDateOf(current.started_at, current.duration_in_months) === current.ended_at;
    if (current.ended_at === null) endedAt = null;
    else if (wholeMonths) months = current.duration_in_months as number;
    else endedAt = current.ended_at;
  }
  if (keep && current && total === undefined && monthly === undefined) {
    const bounded = months !== undefined || typeof endedAt === 'string';
    const currentMonthly = current.monthly_amount ?? (current.total_value !== null && current.duration_in_months ? current.total_value / current.duration_in_months : 0);
    if (bounded && current.total_value !== null) total = current.total_value;
    else monthly = currentMonthly;
  }

  const amountOk = (value: number | undefined, pointer: string): value is number => {
    if (value === undefined) return false;
    if (!Number.isFinite(value) || value < 0) fail(pointer, VALUE_NOT_NUMBER_MESSAGE);
    else if (value > MAX_AMOUNT) fail(pointer, AMOUNT_TOO_LARGE_MESSAGE);
    else return true;
    return false;
  };
  let totalOk = false;
  if (total !== undefined) {
    if (Number.isInteger(total)) totalOk = amountOk(total, 'total_value');
    else fail('total_value', VALUE_NOT_NUMBER_MESSAGE);
  }
  const monthlyOk = amountOk(monthly, 'monthly_amount');

  let row: Pick<PaymentRow, 'endedAt' | 'duration' | 'total' | 'monthly'> | null = null;
  if (months !== undefined) {
    if (!Number.isInteger(months) || months < 1) fail('duration_in_months', MINIMAL_VALUE_MESSAGE);
    else if (months > MAX_MONTHS) fail('duration_in_months', PERIOD_TOO_LONG_MESSAGE);
    else if (startValid) {
      const end = endDateOf(startedAt, months);
      if (typeof endedAt === 'string' && endedAt !== end) fail('ended_at', INVALID_DATE_MESSAGE);
      else if (endedAt === null && body.ended_at === null) fail('ended_at', INVALID_DATE_MESSAGE);
      else row = bounded(end, months);
    }
  } else if (typeof endedAt === 'string') {
    if (!isPaymentDay(endedAt) || (startValid && endedAt <= startedAt)) fail('ended_at', INVALID_DATE_MESSAGE);
    else if (startValid) {
      const duration = durationInMonthsOf(startedAt, endedAt);
      if (duration > MAX_MONTHS) fail('ended_at', PERIOD_TOO_LONG_MESSAGE);
      else row = bounded(endedAt, duration);
    }
  } else if (endedAt === null) {
    // Asked to be open-ended: no total, the monthly amount is what counts.
    if (monthly === undefined) fail('monthly_amount', MONTHLY_AMOUNT_REQUIRED_MESSAGE);
    else if (monthlyOk) row = { endedAt: null, duration: null, total: null, monthly };
  } else if (total !== undefined) {
    // A total without a period: the spec's form always has months.
    fail('duration_in_months', MINIMAL_VALUE_MESSAGE);
  } else if (monthly === undefined) {
    fail('total_value', TOTAL_VALUE_REQUIRED_MESSAGE);
  } else if (monthlyOk) {
    row = { endedAt: null, duration: null, total: null, monthly };
  }

  function bounded(end: string, duration: number): Pick<PaymentRow, 'endedAt' | 'duration' | 'total' | 'monthly'> | null {
    if (total !== undefined) return totalOk ? { endedAt: end, duration, total: total as number, monthly: monthlyOk ? (monthly as number) : monthlyAmountOf(total as number, duration) } : null;
    if (monthly !== undefined) return monthlyOk ? { endedAt: end, duration, total: Math.round((monthly as number) * duration), monthly: monthly as number } : null;
    fail('total_value', TOTAL_VALUE_REQUIRED_MESSAGE);
    return null;
  }

  // Currency
  const currency = (body.currency ?? current?.currency ?? '').trim().toUpperCase();
  if (!options.currencies.has(currency)) fail('currency', CURRENCY_UNKNOWN_MESSAGE);

  // Item
  let item: PaymentRow['item'] | null = null;
  if (body.items === undefined && keep && current?.item) {
    item = { productKey: current.item.product_key, type: current.item.type, quantity: current.item.quantity };
  } else if (!body.items || body.items.length !== 1) {
    fail('items', ONE_ITEM_MESSAGE);
  } else {
    const given = body.items[0] as NonNullable<EditBody['items']>[number];
    const productKey = given.product_key.trim();
    if (productKey === '') fail('items/0/product_key', PRODUCT_NAME_REQUIRED_MESSAGE);
    const type = given.type.trim().toLowerCase();
    if (!(ITEM_TYPES as readonly string[]).includes(type)) fail('items/0/type', ITEM_TYPE_UNKNOWN_MESSAGE);
    const quantity = given.quantity;
    if (!Number.isInteger(quantity) || quantity < 1) fail('items/0/quantity', MINIMAL_VALUE_MESSAGE);
    else if (quantity > MAX_QUANTITY) fail('items/0/quantity', AMOUNT_TOO_LARGE_MESSAGE);
    item = { productKey, type: type as ItemType, quantity };
  }

  // Discount
  let discount: PaymentRow['discount'] = options.replace || current === null ? null : undefined;
  if (body.discount === null) discount = null;
  else if (body.discount !== undefined) {
    const kind = body.discount.kind.trim().toLowerCase();
    if (!(DISCOUNT_KINDS as readonly string[]).includes(kind)) fail('discount/kind', `Discount kind is one of ${DISCOUNT_KINDS.join(', ')}`);
    const amount = body.discount.monthly_amount;
    if (!Number.isInteger(amount) || amount < 0) fail('discount/monthly_amount', VALUE_NOT_NUMBER_MESSAGE);
    else if (amount > MAX_AMOUNT) fail('discount/monthly_amount', AMOUNT_TOO_LARGE_MESSAGE);
    const discountMonths = body.discount.months ?? null;
    if (discountMonths !== null) {
      if (kind !== 'finite') fail('discount/months', DISCOUNT_MONTHS_ONLY_FINITE_MESSAGE);
      else if (!Number.isInteger(discountMonths) || discountMonths < 1) fail('discount/months', MINIMAL_VALUE_MESSAGE);
      else if (discountMonths > MAX_MONTHS) fail('discount/months', PERIOD_TOO_LONG_MESSAGE);
    }
    discount = { kind: kind as DiscountKind, monthlyAmount: amount, months: discountMonths };
  }

  const invoiceNumber = body.invoice_number !== undefined ? blankToNull(body.invoice_number) : keep ? (current?.invoice_number ?? null) : null;

  if (problems.length > 0 || !row || !item) return { problems: problems.length > 0 ? problems : [{ pointer: '/body', detail: TOTAL_VALUE_REQUIRED_MESSAGE }] };
  return { row: { startedAt, ...row, currency, invoiceNumber, item, discount, customerId, customerName } };
}
