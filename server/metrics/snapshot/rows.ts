import type { AttributeObject, CorrectionsHandling, DiscountKind, ItemType, PaymentVersionDiscount, PaymentVersionItem, SegmentValueSource, TakeExchangeRatesFrom } from '../../db/schema';

/**
 * The metrics engine's input rows: plain objects shaped like the database tables the engine
 * reads (server/metrics/loadSnapshot.ts pages them in), the item type codes and the error a
 * snapshot that cannot be built throws.
 */
// ------------------------------------------------------------------ item types

export const ITEM_TYPES: readonly ItemType[] = ['recurring', 'metered', 'one_time', 'freemium'];
export const ITEM_RECURRING = 0;
export const ITEM_METERED = 1;
export const ITEM_ONE_TIME = 2;
export const ITEM_FREEMIUM = 3;

export function itemTypeCode(type: ItemType): number {
  const code = ITEM_TYPES.indexOf(type);
  if (code < 0) throw new SnapshotError(`unknown item type '${String(type)}'`);
  return code;
}

export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

// ------------------------------------------------------------------ input rows (database columns the engine reads)

type Instant = Date | string;

export interface AccountRow {
  id: string;
  currency: string;
  churn_window_seconds: number;
  take_exchange_rates_from: TakeExchangeRatesFrom;
  match_movements_by_currency: boolean;
  corrections_handling: CorrectionsHandling;
  include_metered_in_mrr: boolean;
}
export interface CurrencyRow {
  iso: string;
  minor_unit_digits: number;
}
export interface CustomerRow {
  id: string;
  name?: string;
  parent_id: string | null;
  include_in_calculations_by_default: boolean;
  deleted_at?: Instant | null;
}
export interface ObjectAttributeRow {
  id: string;
  name: string;
  object: AttributeObject;
}
export interface CustomerSegmentRow {
  id: string;
  name: string;
  object_attribute_id?: string;
  value_source: SegmentValueSource;
  time_sensitive: boolean;
}
export interface CustomerSegmentValueRow {
  customer_id: string;
  segment_id: string;
  year: number;
  /** 1-12. */
  month: number;
  value: string | null;
}
export interface ProductRow {
  key: string;
  name?: string;
}
export interface PaymentRow {
  id: string;
  customer_id: string;
  /** 'YYYY-MM-DD'. */
  started_at: string;
  /**
   * 'YYYY-MM-DD', the first day after the service period [started_at, ended_at); null for an
   * open-ended payment. Left out (undefined): derived from `duration_in_months` (whole months:
   * month arithmetic, day clamped; otherwise round(months x 365 / 12) days), open-ended when that is null.
   */
  ended_at?: string | null;
  /** Whole months, or days / (365 / 12); null when open-ended. */
  duration_in_months: number | null;
  /** Minor units; null when open-ended. */
  total_value: number | null;
  /** Exact monthly amount in minor units (may carry a fraction); null or left out: total / months. Required when open-ended. */
  monthly_amount?: number | null;
  currency: string;
  version?: number;
  deleted_at?: Instant | null;
}
export interface PaymentItemRow {
  payment_id: string;
  position: number;
  product_key: string;
  type: ItemType;
  quantity: number;
}
export interface PaymentDiscountRow {
  payment_id: string;
  kind: DiscountKind;
  monthly_amount: number;
  /** A finite discount's months from the payment's start (null or left out: the whole payment). */
  months?: number | null;
}
export interface PaymentSegmentValueRow {
  payment_id: string;
  attribute_id: string;
  value: string | null;
}
/** A version of a payment. Rows with `valid_to` null (the current version) are ignored: the payment row is current. */
export interface PaymentVersionRow {
  payment_id: string;
  version: number;
  customer_id: string;
  started_at: string;
  /** As in PaymentRow. */
  ended_at?: string | null;
  duration_in_months: number | null;
  total_value: number | null;
  monthly_amount?: number | null;
  currency: string;
  items: readonly PaymentVersionItem[];
  discounts: readonly PaymentVersionDiscount[];
  deleted: boolean;
  valid_from: Instant;
  valid_to: Instant | null;
}
export interface CostRow {
  id: string;
  value: number;
  currency: string;
  date: string;
  name?: string | null;
  invoice_number?: string | null;
}
export interface CostSegmentValueRow {
  cost_id: string;
  attribute_id: string;
  value: string | null;
}
/** A CRM deal (the deals section); its value is in minor units of its currency. */
export interface DealRow {
  id: string;
  name: string;
  value: number;
  currency: string;
  stage: string;
  /** When the deal entered its current stage; null: since it was created. */
  stage_changed_at: Instant | null;
  created_at: Instant;
  customer_id?: string | null;
  public_id?: string | null;
  owner_name?: string | null;
  external_url?: string | null;
}
export interface ExchangeRateRow {
  day: string;
  currency: string;
  /** Units of `currency` per euro; numeric columns come back as strings. */
  rate_per_eur: string | number;
}
export interface AccountExchangeRateRow {
  since: string;
  iso: string;
  /** From `since` on, one unit of the account currency buys `rate` units of `iso`. */
  rate: string | number;
}

export interface SnapshotRows {
  account: AccountRow;
  currencies?: readonly CurrencyRow[];
  customers: readonly CustomerRow[];
  objectAttributes?: readonly ObjectAttributeRow[];
  customerSegments?: readonly CustomerSegmentRow[];
  customerSegmentValues?: readonly CustomerSegmentValueRow[];
  products?: readonly ProductRow[];
  payments: readonly PaymentRow[];
  paymentItems?: readonly PaymentItemRow[];
  paymentDiscounts?: readonly PaymentDiscountRow[];
  paymentSegmentValues?: readonly PaymentSegmentValueRow[];
  paymentVersions?: readonly PaymentVersionRow[];
  costs?: readonly CostRow[];
  costSegmentValues?: readonly CostSegmentValueRow[];
  deals?: readonly DealRow[];
  exchangeRates?: readonly ExchangeRateRow[];
  accountExchangeRates?: readonly AccountExchangeRateRow[];
}

// ------------------------------------------------------------------ the snapshot
