import type { CorrectionsHandling, SegmentValueSource, TakeExchangeRatesFrom } from '../../db/schema';
import type { StringColumn } from '../stringColumn';

/**
 * The snapshot itself: one account's data as typed columns, read by every computation.
 * Money stays in minor units of its own currency; days are day numbers (server/metrics/days.ts).
 */

export interface SnapshotAccount {
  id: string;
  currency: string;
  churnWindowSeconds: number;
  takeExchangeRatesFrom: TakeExchangeRatesFrom;
  matchMovementsByCurrency: boolean;
  correctionsHandling: CorrectionsHandling;
  includeMeteredInMrr: boolean;
}

/** Strings interned to dense indices. */
export interface Dictionary {
  readonly values: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

export interface CurrencyColumns extends Dictionary {
  /** Minor-unit digits per currency (2 when the currencies table does not know it). */
  readonly digits: Int8Array;
}

export interface CustomerColumns {
  readonly count: number;
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** Direct parent, -1 for none. */
  readonly parent: Int32Array;
  /** Top-most ancestor (the customer itself when it has no parent): the unit counted with use_hierarchy. */
  readonly topParent: Int32Array;
  /** 1 when the customer and every ancestor have include_in_calculations_by_default. */
  readonly included: Uint8Array;
  readonly deleted: Uint8Array;
}

/**
 * A customer attribute's values. Per customer (CSR by `rowStart`) the rows sorted by month:
 * a value is in force from its month until the customer's next row. A segment that is not
 * time-sensitive keeps only each customer's latest row, in force for all time (month
 * DAY_NEVER_BEFORE).
 */
export interface CustomerSegmentColumns {
  readonly id: string;
  readonly name: string;
  readonly attributeId: string | null;
  readonly valueSource: SegmentValueSource;
  readonly timeSensitive: boolean;
  readonly values: readonly string[];
  readonly rowStart: Int32Array;
  /** Absolute month (year * 12 + month0) from which the row's value is in force. */
  readonly month: Int32Array;
  /** Index into `values`; -1 for a null value. */
  readonly value: Int32Array;
}

/** A custom attribute of payments or costs: one value index per payment (or cost), -1 for none. */
export interface AttributeColumns {
  readonly id: string;
  readonly name: string;
  readonly values: readonly string[];
  readonly valueOf: Int32Array;
}

export interface PaymentColumns {
  readonly count: number;
  /** Packed: a million id strings would make every garbage collection slow. */
  readonly ids: StringColumn;
  readonly attributes: readonly AttributeColumns[];
}

/**
 * One row per payment version (the current payment row and every earlier version), sorted by
 * (customer, start day). Monthly amounts are whole minor units of the record's currency.
 */
export interface RecordColumns {
  readonly count: number;
  /** Index into `payments`. */
  readonly payment: Int32Array;
  readonly version: Int32Array;
  readonly customer: Int32Array;
  readonly startDay: Int32Array;
  /** Exclusive: the payment's ended_at; DAY_NEVER_AFTER for an open-ended payment. */
  readonly endDay: Int32Array;
  /** 1 for an open-ended payment (no end yet): it covers every day from its start. */
  readonly openEnded: Uint8Array;
  /** Whole months, or days / (365 / 12); NaN when open-ended. */
  readonly durationMonths: Float64Array;
  /** Minor units of the record's currency; 0 when open-ended (its value is booked once it ends). */
  readonly totalValue: Float64Array;
  readonly currency: Int32Array;
  /** round_half_even(monthly_amount ?? total / months): whole minor units. */
  readonly monthlyAmount: Float64Array;
  readonly recurringMonthly: Float64Array;
  readonly meteredMonthly: Float64Array;
  readonly oneTimeMonthly: Float64Array;
  /** 1 when the record has a freemium item. */
  readonly freemium: Uint8Array;
  /** The first item's product (-1 none) and quantity. */
  readonly product: Int32Array;
  readonly quantity: Int32Array;
  readonly discountForeverMonthly: Float64Array;
  readonly discountFiniteMonthly: Float64Array;
  /** The finite discounts apply on [startDay, discountFiniteEndDay): start + their months, DAY_NEVER_AFTER without months. */
  readonly discountFiniteEndDay: Int32Array;
  /** Measurement days on which this version is in force: [validFromDay, validToDay). */
  readonly validFromDay: Int32Array;
  readonly validToDay: Int32Array;
  /** 1 for the payment's current row (what change_original reads). */
  readonly current: Uint8Array;
  /** 1 when this version records a deletion (or is the current row of a deleted payment). */
  readonly deleted: Uint8Array;
  /** Lines of record r are [lineStart[r], lineStart[r + 1]). */
  readonly lineStart: Int32Array;
}

/** Payment items of every record; the record's monthly amount and total (0 when open-ended) are split evenly between them. */
export interface LineColumns {
  readonly count: number;
  readonly record: Int32Array;
  readonly product: Int32Array;
  readonly type: Uint8Array;
  readonly quantity: Int32Array;
  readonly monthly: Float64Array;
  readonly total: Float64Array;
}

export interface CostColumns {
  readonly count: number;
  readonly ids: readonly string[];
  /** '' when the cost has no name. */
  readonly names: readonly string[];
  readonly invoiceNumbers: readonly (string | null)[];
  readonly day: Int32Array;
  readonly value: Float64Array;
  readonly currency: Int32Array;
  readonly attributes: readonly AttributeColumns[];
}

/** CRM deals; `day` is the day a deal entered its current stage. */
export interface DealColumns {
  readonly count: number;
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly publicIds: readonly (string | null)[];
  readonly ownerNames: readonly (string | null)[];
  readonly externalUrls: readonly (string | null)[];
  /** Index into `stages`. */
  readonly stage: Int32Array;
  readonly stages: readonly string[];
  readonly day: Int32Array;
  readonly value: Float64Array;
  readonly currency: Int32Array;
  /** Customer index, -1 for none (or a customer not in the snapshot). */
  readonly customer: Int32Array;
}

/**
 * ECB reference rates, dense by day from `baseDay`: `perEur[currency][day - baseDay]` units of
 * the currency per euro. A day without a published rate holds the latest earlier one (days
 * before the first publication hold the first). Null for a currency the ECB never published.
 */
export interface EcbRates {
  readonly baseDay: number;
  readonly length: number;
  readonly perEur: readonly (Float64Array | null)[];
}

/** The account's manual table, sorted by (currency, sinceDay). */
export interface AccountRates {
  readonly count: number;
  readonly currency: Int32Array;
  readonly sinceDay: Int32Array;
  /** Units of the currency per unit of the account currency. */
  readonly rate: Float64Array;
}

export interface AccountSnapshot {
  readonly account: SnapshotAccount;
  readonly currencies: CurrencyColumns;
  readonly products: Dictionary;
  readonly customers: CustomerColumns;
  readonly customerSegments: readonly CustomerSegmentColumns[];
  readonly payments: PaymentColumns;
  readonly records: RecordColumns;
  readonly lines: LineColumns;
  readonly costs: CostColumns;
  readonly deals: DealColumns;
  readonly rates: EcbRates;
  readonly accountRates: AccountRates;
}
