import type {
  AttributeObject,
  CorrectionsHandling,
  DiscountKind,
  ItemType,
  PaymentVersionDiscount,
  PaymentVersionItem,
  SegmentValueSource,
  TakeExchangeRatesFrom,
} from '../db/schema';
import { DAY_NEVER_AFTER, DAY_NEVER_BEFORE, absoluteMonth, addMonths, dayFromInstant, dayFromIso, isoFromDay } from './days';
import { float64Column, int32Column, uint8Column, type GrowableColumn } from './growableColumn';
import { KeyIndex } from './keyIndex';
import { allocateProportionally, roundHalfEven } from './money';
import type { StringColumn } from './stringColumn';

/**
 * The metrics engine's input: one account's data as typed columns, built once from plain
 * rows shaped like the database tables (`buildSnapshot(rows)`, or page by page with
 * `createSnapshotBuilder` as `loadSnapshot` does) and then read by every computation.
 * Money stays in minor units of its own currency; days are day numbers (server/metrics/days.ts).
 */

// ------------------------------------------------------------------ item types

export const ITEM_TYPES: readonly ItemType[] = ['recurring', 'metered', 'one_time', 'freemium'];
export const ITEM_RECURRING = 0;
export const ITEM_METERED = 1;
export const ITEM_ONE_TIME = 2;
export const ITEM_FREEMIUM = 3;

function itemTypeCode(type: ItemType): number {
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
  /** 'YYYY-MM-DD'. `ended_at` is not read: the end is always started_at + duration (day clamped). */
  started_at: string;
  duration_in_months: number;
  total_value: number;
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
  duration_in_months: number;
  total_value: number;
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
  /** Exclusive: start + duration months, day clamped. */
  readonly endDay: Int32Array;
  readonly durationMonths: Int32Array;
  readonly totalValue: Float64Array;
  readonly currency: Int32Array;
  /** round_half_even(total / months). */
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

/** Payment items of every record; the record's monthly amount and total are split evenly between them. */
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

// ------------------------------------------------------------------ builder

class Interner {
  readonly values: string[] = [];
  readonly index = new Map<string, number>();
  intern(value: string): number {
    let found = this.index.get(value);
    if (found === undefined) {
      found = this.values.length;
      this.values.push(value);
      this.index.set(value, found);
    }
    return found;
  }
}

interface AttributeBuilder {
  id: string;
  name: string;
  values: Interner;
  owner: GrowableColumn<Int32Array>;
  value: GrowableColumn<Int32Array>;
}

interface SegmentBuilder {
  row: CustomerSegmentRow;
  values: Interner;
  customer: GrowableColumn<Int32Array>;
  month: GrowableColumn<Int32Array>;
  value: GrowableColumn<Int32Array>;
}

export interface SnapshotBuilder {
  addCurrencies(rows: readonly CurrencyRow[]): void;
  addCustomers(rows: readonly CustomerRow[]): void;
  addObjectAttributes(rows: readonly ObjectAttributeRow[]): void;
  addCustomerSegments(rows: readonly CustomerSegmentRow[]): void;
  addCustomerSegmentValues(rows: readonly CustomerSegmentValueRow[]): void;
  addProducts(rows: readonly ProductRow[]): void;
  addPayments(rows: readonly PaymentRow[]): void;
  addPaymentItems(rows: readonly PaymentItemRow[]): void;
  addPaymentDiscounts(rows: readonly PaymentDiscountRow[]): void;
  addPaymentSegmentValues(rows: readonly PaymentSegmentValueRow[]): void;
  addPaymentVersions(rows: readonly PaymentVersionRow[]): void;
  addCosts(rows: readonly CostRow[]): void;
  addCostSegmentValues(rows: readonly CostSegmentValueRow[]): void;
  /** Deals may refer to customers: add them after the customers. */
  addDeals(rows: readonly DealRow[]): void;
  addExchangeRates(rows: readonly ExchangeRateRow[]): void;
  addAccountExchangeRates(rows: readonly AccountExchangeRateRow[]): void;
  /** Column-at-a-time entry points for loaders that hold aggregated columns, not row objects. */
  readonly raw: RawSnapshotSink;
  /** The finished snapshot; the builder must not be used afterwards. */
  finish(): AccountSnapshot;
}

/**
 * The builder's hot paths without row objects: keys are slices [start, end) of a larger
 * string (one aggregated text value per column), references are resolved by the caller.
 */
export interface RawSnapshotSink {
  /** The customer whose id is text[start, end), or -1; `hint`: the customer found for the previous key (-1: none). */
  customerOf(text: string, start: number, end: number, hint: number): number;
  currencyOf(iso: string): number;
  productOf(key: string): number;
  /** Makes room for `count` more payments. */
  reservePayments(count: number): void;
  /** Registers a string that holds payment ids; `addPayment` refers to it by the returned number. */
  paymentIdSource(text: string): number;
  addPayment(source: number, start: number, end: number, customer: number, startDay: number, duration: number, total: number, currency: number, version: number, deleted: boolean): void;
  /** The payment whose id is text[start, end), or -1; `hint`: the payment found for the previous key (-1: none). */
  paymentOf(text: string, start: number, end: number, hint: number): number;
  /** Items of one product and type (`type`: index into ITEM_TYPES). */
  addPaymentItems(product: number, type: number, payments: Int32Array, positions: Float64Array, quantities: Float64Array): void;
  /** Discounts of one kind: `amounts[k]` a month off `payments[k]` (a payment may appear more than once). */
  addPaymentDiscounts(kind: DiscountKind, payments: Int32Array, amounts: Float64Array): void;
  /** One attribute's value for each of `payments`. */
  addPaymentAttributeValues(attributeId: string, value: string | null, payments: Int32Array): void;
  /** One segment's value for each of `customers`, in force from `months[k]` (absolute months). */
  addCustomerSegmentValues(segmentId: string, value: string | null, customers: Int32Array, months: Float64Array): void;
  /** `rate`: units of the currency per euro on `day`. */
  addExchangeRate(day: number, currency: number, rate: number): void;
}

function parseRate(value: string | number, what: string): number {
  const rate = typeof value === 'number' ? value : Number(value);
  if (!(rate > 0) || !Number.isFinite(rate)) throw new SnapshotError(`${what}: rate must be a positive number, got '${String(value)}'`);
  return rate;
}

/**
 * Accepts rows table by table, in any number of pages. Customers must come before what refers
 * to them, payments before their items, discounts, values and versions, costs before their values.
 */
export function createSnapshotBuilder(account: AccountRow): SnapshotBuilder {
  const currencies = new Interner();
  const currencyDigits = new Map<string, number>();
  const currency = (iso: string): number => {
    const known = currencies.index.get(iso);
    if (known !== undefined) return known;
    if (!/^[A-Z]{3}$/.test(iso)) throw new SnapshotError(`not an ISO 4217 currency code: '${iso}'`);
    return currencies.intern(iso);
  };
  currency(account.currency);
  currency('EUR');

  const customerIds = new Interner();
  const customerKeys = new KeyIndex();
  const customerNames: string[] = [];
  const customerParentIds: (string | null)[] = [];
  const customerIncluded = uint8Column();
  const customerDeleted = uint8Column();
  const customerIndex = (id: string, what: string): number => {
    const found = customerIds.index.get(id);
    if (found === undefined) throw new SnapshotError(`${what} refers to unknown customer '${id}'`);
    return found;
  };

  const attributeNames = new Map<string, string>();
  const attributeObjects = new Map<string, AttributeObject>();
  const segments = new Map<string, SegmentBuilder>();
  const products = new Interner();

  const paymentIds = new KeyIndex();
  const payCustomer = int32Column();
  const payStart = int32Column();
  const payDuration = int32Column();
  const payTotal = float64Column();
  const payCurrency = int32Column();
  const payVersion = int32Column();
  const payDeleted = uint8Column();
  const paymentIndex = (id: string, what: string): number => {
    const found = paymentIds.findString(id);
    if (found < 0) throw new SnapshotError(`${what} refers to unknown payment '${id}'`);
    return found;
  };

  // Items of every source record (current rows: owner = payment index; versions: owner = -(1 + version row)).
  const itemOwner = int32Column();
  const itemPosition = int32Column();
  const itemProduct = int32Column();
  const itemType = uint8Column();
  const itemQuantity = int32Column();
  const addItemCodes = (owner: number, position: number, product: number, type: number, quantity: number) => {
    itemOwner.push(owner);
    itemPosition.push(position);
    itemProduct.push(product);
    itemType.push(type);
    itemQuantity.push(quantity);
  };
  const addItem = (owner: number, position: number, productKey: string, type: ItemType, quantity: number) =>
    addItemCodes(owner, position, products.intern(productKey), itemTypeCode(type), quantity);
  const addPayment = (source: number, start: number, end: number, customer: number, startDay: number, duration: number, total: number, currencyIndex: number, version: number, deleted: boolean) => {
    if (paymentIds.add(source, start, end) < 0) throw new SnapshotError(`duplicate payment '${paymentIds.sourceText(source).slice(start, end)}'`);
    if (!(duration >= 1)) throw new SnapshotError(`payment '${paymentIds.get(paymentIds.count - 1)}': duration_in_months must be >= 1`);
    payCustomer.push(customer);
    payStart.push(startDay);
    payDuration.push(duration);
    payTotal.push(total);
    payCurrency.push(currencyIndex);
    payVersion.push(version);
    payDeleted.push(deleted ? 1 : 0);
  };
  const paymentIdSource = (text: string) => paymentIds.source(text);
  const addPaymentAttributeValue = (attributeId: string, payment: number, value: string | null) => {
    const attribute = attributeBuilder(paymentAttributes, attributeId);
    attribute.owner.push(payment);
    attribute.value.push(value === null ? -1 : attribute.values.intern(value));
  };
  const addCustomerSegmentValue = (segmentId: string, customer: number, year: number, month: number, value: string | null) => {
    const segment = segments.get(segmentId);
    if (!segment) throw new SnapshotError(`segment value refers to unknown customer segment '${segmentId}'`);
    segment.customer.push(customer);
    segment.month.push(absoluteMonth(year, month));
    segment.value.push(value === null ? -1 : segment.values.intern(value));
  };

  const discountForever = new Map<number, number>();
  const discountFinite = new Map<number, number>();
  const paymentAttributes = new Map<string, AttributeBuilder>();

  const verPayment = int32Column();
  const verVersion = int32Column();
  const verCustomer = int32Column();
  const verStart = int32Column();
  const verDuration = int32Column();
  const verTotal = float64Column();
  const verCurrency = int32Column();
  const verDeleted = uint8Column();
  const verFrom = int32Column();
  const verTo = int32Column();
  const verForever = float64Column();
  const verFinite = float64Column();

  const costIds: string[] = [];
  const costNames: string[] = [];
  const costInvoiceNumbers: (string | null)[] = [];
  const costDay = int32Column();
  const costValue = float64Column();
  const costCurrency = int32Column();
  const costIndex = new Map<string, number>();
  const costAttributes = new Map<string, AttributeBuilder>();

  const dealIds: string[] = [];
  const dealNames: string[] = [];
  const dealPublicIds: (string | null)[] = [];
  const dealOwners: (string | null)[] = [];
  const dealUrls: (string | null)[] = [];
  const dealStages = new Interner();
  const dealStage = int32Column();
  const dealDay = int32Column();
  const dealValue = float64Column();
  const dealCurrency = int32Column();
  const dealCustomer = int32Column();

  const rateDay = int32Column();
  const rateCurrency = int32Column();
  const rateValue = float64Column();
  const accountRateRows: { sinceDay: number; currency: number; rate: number }[] = [];

  const attributeBuilder = (map: Map<string, AttributeBuilder>, id: string): AttributeBuilder => {
    let found = map.get(id);
    if (!found) {
      found = { id, name: attributeNames.get(id) ?? id, values: new Interner(), owner: int32Column(), value: int32Column() };
      map.set(id, found);
    }
    return found;
  };

  const raw: RawSnapshotSink = {
    customerOf: (text, start, end, hint) => customerKeys.findNear(text, start, end, hint),
    currencyOf: (iso) => currency(iso),
    productOf: (key) => products.intern(key),
    reservePayments: (n) => paymentIds.reserve(n),
    paymentIdSource,
    addPayment,
    paymentOf: (text, start, end, hint) => paymentIds.findNear(text, start, end, hint),
    addPaymentItems: (product, type, payments, positions, quantities) => {
      if (!(type >= 0 && type < ITEM_TYPES.length)) throw new SnapshotError(`unknown item type code ${type}`);
      for (let k = 0; k < payments.length; k++) addItemCodes(payments[k] as number, positions[k] as number, product, type, quantities[k] as number);
    },
    addPaymentDiscounts: (kind, payments, amounts) => {
      const map = kind === 'forever' ? discountForever : discountFinite;
      for (let k = 0; k < payments.length; k++) {
        const payment = payments[k] as number;
        map.set(payment, (map.get(payment) ?? 0) + (amounts[k] as number));
      }
    },
    addPaymentAttributeValues: (attributeId, value, payments) => {
      const attribute = attributeBuilder(paymentAttributes, attributeId);
      const code = value === null ? -1 : attribute.values.intern(value);
      for (let k = 0; k < payments.length; k++) {
        attribute.owner.push(payments[k] as number);
        attribute.value.push(code);
      }
    },
    addCustomerSegmentValues: (segmentId, value, customers, months) => {
      const segment = segments.get(segmentId);
      if (!segment) throw new SnapshotError(`segment value refers to unknown customer segment '${segmentId}'`);
      const code = value === null ? -1 : segment.values.intern(value);
      for (let k = 0; k < customers.length; k++) {
        segment.customer.push(customers[k] as number);
        segment.month.push(months[k] as number);
        segment.value.push(code);
      }
    },
    addExchangeRate: (day, currencyIndex, rate) => {
      if (!(rate > 0) || !Number.isFinite(rate)) throw new SnapshotError(`exchange rate ${currencies.values[currencyIndex]} on ${isoFromDay(day)}: rate must be a positive number, got '${rate}'`);
      rateDay.push(day);
      rateCurrency.push(currencyIndex);
      rateValue.push(rate);
    },
  };

  let finished = false;
  const guard = () => {
    if (finished) throw new SnapshotError('the snapshot builder has already finished');
  };

  return {
    raw,
    addCurrencies(rows) {
      guard();
      for (const row of rows) currencyDigits.set(row.iso, row.minor_unit_digits);
    },
    addCustomers(rows) {
      guard();
      customerKeys.reserve(rows.length);
      for (const row of rows) {
        if (customerIds.index.has(row.id)) throw new SnapshotError(`duplicate customer '${row.id}'`);
        customerIds.intern(row.id);
        customerKeys.addString(row.id);
        customerNames.push(row.name ?? '');
        customerParentIds.push(row.parent_id);
        customerIncluded.push(row.include_in_calculations_by_default ? 1 : 0);
        customerDeleted.push(row.deleted_at ? 1 : 0);
      }
    },
    addObjectAttributes(rows) {
      guard();
      for (const row of rows) {
        attributeNames.set(row.id, row.name);
        attributeObjects.set(row.id, row.object);
      }
    },
    addCustomerSegments(rows) {
      guard();
      for (const row of rows) {
        segments.set(row.id, { row, values: new Interner(), customer: int32Column(), month: int32Column(), value: int32Column() });
      }
    },
    addCustomerSegmentValues(rows) {
      guard();
      for (const row of rows) addCustomerSegmentValue(row.segment_id, customerIndex(row.customer_id, 'segment value'), row.year, row.month, row.value);
    },
    addProducts(rows) {
      guard();
      for (const row of rows) products.intern(row.key);
    },
    addPayments(rows) {
      guard();
      for (const row of rows) {
        const customer = customerIndex(row.customer_id, `payment '${row.id}'`);
        addPayment(paymentIdSource(row.id), 0, row.id.length, customer, dayFromIso(row.started_at), row.duration_in_months, Number(row.total_value), currency(row.currency), row.version ?? 1, Boolean(row.deleted_at));
      }
    },
    addPaymentItems(rows) {
      guard();
      for (const row of rows) addItem(paymentIndex(row.payment_id, 'payment item'), row.position, row.product_key, row.type, row.quantity);
    },
    addPaymentDiscounts(rows) {
      guard();
      for (const row of rows) {
        const payment = paymentIndex(row.payment_id, 'payment discount');
        const map = row.kind === 'forever' ? discountForever : discountFinite;
        map.set(payment, (map.get(payment) ?? 0) + Number(row.monthly_amount));
      }
    },
    addPaymentSegmentValues(rows) {
      guard();
      for (const row of rows) addPaymentAttributeValue(row.attribute_id, paymentIndex(row.payment_id, 'payment segment value'), row.value);
    },
    addPaymentVersions(rows) {
      guard();
      for (const row of rows) {
        if (row.valid_to === null) continue;
        if (!(row.duration_in_months >= 1)) throw new SnapshotError(`payment '${row.payment_id}' version ${row.version}: duration_in_months must be >= 1`);
        const versionRow = verPayment.length;
        verPayment.push(paymentIndex(row.payment_id, 'payment version'));
        verVersion.push(row.version);
        verCustomer.push(customerIndex(row.customer_id, `payment '${row.payment_id}' version ${row.version}`));
        verStart.push(dayFromIso(row.started_at));
        verDuration.push(row.duration_in_months);
        verTotal.push(Number(row.total_value));
        verCurrency.push(currency(row.currency));
        verDeleted.push(row.deleted ? 1 : 0);
        verFrom.push(dayFromInstant(row.valid_from));
        verTo.push(dayFromInstant(row.valid_to));
        let forever = 0;
        let finite = 0;
        for (const discount of row.discounts) {
          if (discount.kind === 'forever') forever += Number(discount.monthly_amount);
          else finite += Number(discount.monthly_amount);
        }
        verForever.push(forever);
        verFinite.push(finite);
        row.items.forEach((item, position) => addItem(-1 - versionRow, position, item.product_key, item.type, item.quantity));
      }
    },
    addCosts(rows) {
      guard();
      for (const row of rows) {
        costIndex.set(row.id, costIds.length);
        costIds.push(row.id);
        costNames.push(row.name ?? '');
        costInvoiceNumbers.push(row.invoice_number ?? null);
        costDay.push(dayFromIso(row.date));
        costValue.push(Number(row.value));
        costCurrency.push(currency(row.currency));
      }
    },
    addCostSegmentValues(rows) {
      guard();
      for (const row of rows) {
        const cost = costIndex.get(row.cost_id);
        if (cost === undefined) throw new SnapshotError(`cost segment value refers to unknown cost '${row.cost_id}'`);
        const attribute = attributeBuilder(costAttributes, row.attribute_id);
        attribute.owner.push(cost);
        attribute.value.push(row.value === null ? -1 : attribute.values.intern(row.value));
      }
    },
    addDeals(rows) {
      guard();
      for (const row of rows) {
        dealIds.push(row.id);
        dealNames.push(row.name);
        dealPublicIds.push(row.public_id ?? null);
        dealOwners.push(row.owner_name ?? null);
        dealUrls.push(row.external_url ?? null);
        dealStage.push(dealStages.intern(row.stage));
        dealDay.push(dayFromInstant(row.stage_changed_at ?? row.created_at));
        dealValue.push(Number(row.value));
        dealCurrency.push(currency(row.currency));
        dealCustomer.push(row.customer_id ? (customerIds.index.get(row.customer_id) ?? -1) : -1);
      }
    },
    addExchangeRates(rows) {
      guard();
      for (const row of rows) {
        rateDay.push(dayFromIso(row.day));
        rateCurrency.push(currency(row.currency));
        rateValue.push(parseRate(row.rate_per_eur, `exchange rate ${row.currency} on ${row.day}`));
      }
    },
    addAccountExchangeRates(rows) {
      guard();
      for (const row of rows) {
        accountRateRows.push({ sinceDay: dayFromIso(row.since), currency: currency(row.iso), rate: parseRate(row.rate, `account exchange rate ${row.iso} since ${row.since}`) });
      }
    },
    finish() {
      guard();
      finished = true;
      // Attributes without any value yet still exist (a segmenter or filter may name them).
      for (const [id, object] of attributeObjects) {
        if (object === 'subscription_history') attributeBuilder(paymentAttributes, id);
        if (object === 'cost') attributeBuilder(costAttributes, id);
      }
      const customers = finishCustomers(customerIds, customerNames, customerParentIds, customerIncluded.toArray(), customerDeleted.toArray());
      const customerSegments = [...segments.values()].map((segment) => finishSegment(segment, customers.count));
      const paymentCount = paymentIds.count;
      const { records, lines } = finishRecords({
        paymentCount,
        payCustomer: payCustomer.toArray(),
        payStart: payStart.toArray(),
        payDuration: payDuration.toArray(),
        payTotal: payTotal.toArray(),
        payCurrency: payCurrency.toArray(),
        payVersion: payVersion.toArray(),
        payDeleted: payDeleted.toArray(),
        discountForever,
        discountFinite,
        verPayment: verPayment.toArray(),
        verVersion: verVersion.toArray(),
        verCustomer: verCustomer.toArray(),
        verStart: verStart.toArray(),
        verDuration: verDuration.toArray(),
        verTotal: verTotal.toArray(),
        verCurrency: verCurrency.toArray(),
        verDeleted: verDeleted.toArray(),
        verFrom: verFrom.toArray(),
        verTo: verTo.toArray(),
        verForever: verForever.toArray(),
        verFinite: verFinite.toArray(),
        itemOwner: itemOwner.toArray(),
        itemPosition: itemPosition.toArray(),
        itemProduct: itemProduct.toArray(),
        itemType: itemType.toArray(),
        itemQuantity: itemQuantity.toArray(),
      });
      const digits = new Int8Array(currencies.values.length);
      currencies.values.forEach((iso, index) => (digits[index] = currencyDigits.get(iso) ?? 2));
      return {
        account: {
          id: account.id,
          currency: account.currency,
          churnWindowSeconds: account.churn_window_seconds,
          takeExchangeRatesFrom: account.take_exchange_rates_from,
          matchMovementsByCurrency: account.match_movements_by_currency,
          correctionsHandling: account.corrections_handling,
          includeMeteredInMrr: account.include_metered_in_mrr,
        },
        currencies: { values: currencies.values, index: currencies.index, digits },
        products: { values: products.values, index: products.index },
        customers,
        customerSegments,
        payments: {
          count: paymentCount,
          ids: paymentIds.toStringColumn(),
          attributes: [...paymentAttributes.values()].map((a) => finishAttribute(a, paymentCount, attributeNames)),
        },
        records,
        lines,
        costs: {
          count: costIds.length,
          ids: costIds,
          names: costNames,
          invoiceNumbers: costInvoiceNumbers,
          day: costDay.toArray(),
          value: costValue.toArray(),
          currency: costCurrency.toArray(),
          attributes: [...costAttributes.values()].map((a) => finishAttribute(a, costIds.length, attributeNames)),
        },
        deals: {
          count: dealIds.length,
          ids: dealIds,
          names: dealNames,
          publicIds: dealPublicIds,
          ownerNames: dealOwners,
          externalUrls: dealUrls,
          stage: dealStage.toArray(),
          stages: dealStages.values,
          day: dealDay.toArray(),
          value: dealValue.toArray(),
          currency: dealCurrency.toArray(),
          customer: dealCustomer.toArray(),
        },
        rates: finishRates(rateDay.toArray(), rateCurrency.toArray(), rateValue.toArray(), currencies.values),
        accountRates: finishAccountRates(accountRateRows),
      };
    },
  };
}

/** The snapshot of plain rows (tests, imports, anything that already holds the rows). */
export function buildSnapshot(rows: SnapshotRows): AccountSnapshot {
  const builder = createSnapshotBuilder(rows.account);
  builder.addCurrencies(rows.currencies ?? []);
  builder.addObjectAttributes(rows.objectAttributes ?? []);
  builder.addCustomers(rows.customers);
  builder.addCustomerSegments(rows.customerSegments ?? []);
  builder.addCustomerSegmentValues(rows.customerSegmentValues ?? []);
  builder.addProducts(rows.products ?? []);
  builder.addPayments(rows.payments);
  builder.addPaymentItems(rows.paymentItems ?? []);
  builder.addPaymentDiscounts(rows.paymentDiscounts ?? []);
  builder.addPaymentSegmentValues(rows.paymentSegmentValues ?? []);
  builder.addPaymentVersions(rows.paymentVersions ?? []);
  builder.addCosts(rows.costs ?? []);
  builder.addCostSegmentValues(rows.costSegmentValues ?? []);
  builder.addDeals(rows.deals ?? []);
  builder.addExchangeRates(rows.exchangeRates ?? []);
  builder.addAccountExchangeRates(rows.accountExchangeRates ?? []);
  return builder.finish();
}

// ------------------------------------------------------------------ finishing

function finishCustomers(ids: Interner, names: string[], parentIds: (string | null)[], ownIncluded: Uint8Array, deleted: Uint8Array): CustomerColumns {
  const count = ids.values.length;
  const parent = new Int32Array(count).fill(-1);
  for (let c = 0; c < count; c++) {
    const parentId = parentIds[c];
    if (parentId === null || parentId === undefined) continue;
    const found = ids.index.get(parentId);
    if (found === undefined) throw new SnapshotError(`customer '${ids.values[c]}' has unknown parent '${parentId}'`);
    if (found !== c) parent[c] = found;
  }
  const topParent = new Int32Array(count);
  const included = new Uint8Array(count);
  for (let c = 0; c < count; c++) {
    let top = c;
    let isIncluded = ownIncluded[c] as number;
    // A parent chain longer than the number of customers is a cycle: stop there.
    for (let steps = 0; (parent[top] as number) >= 0 && steps < count; steps++) {
      top = parent[top] as number;
      isIncluded &= ownIncluded[top] as number;
    }
    topParent[c] = top;
    included[c] = isIncluded;
  }
  return { count, ids: ids.values, names, index: ids.index, parent, topParent, included, deleted };
}

/** A permutation of [0, n) ordered stably by small non-negative integer keys (counting sort). */
function stableOrder(keys: Int32Array, keyCount: number, input: Int32Array): Int32Array {
  const counts = new Int32Array(keyCount + 1);
  for (let i = 0; i < input.length; i++) {
    const slot = (keys[input[i] as number] as number) + 1;
    counts[slot] = (counts[slot] as number) + 1;
  }
  for (let k = 0; k < keyCount; k++) counts[k + 1] = (counts[k + 1] as number) + (counts[k] as number);
  const output = new Int32Array(input.length);
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as number;
    const key = keys[item] as number;
    output[counts[key] as number] = item;
    counts[key] = (counts[key] as number) + 1;
  }
  return output;
}

function identity(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** Shifts keys to start at 0; returns the key count. */
function rebase(keys: Int32Array): number {
  if (keys.length === 0) return 0;
  let min = keys[0] as number;
  let max = min;
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as number;
    if (key < min) min = key;
    if (key > max) max = key;
  }
  for (let i = 0; i < keys.length; i++) keys[i] = (keys[i] as number) - min;
  return max - min + 1;
}

function finishSegment(segment: SegmentBuilder, customerCount: number): CustomerSegmentColumns {
  const customer = segment.customer.toArray();
  const month = segment.month.toArray();
  const value = segment.value.toArray();
  const monthKeys = month.slice();
  const order = stableOrder(customer, customerCount, stableOrder(monthKeys, rebase(monthKeys), identity(customer.length)));
  const rowStart = new Int32Array(customerCount + 1);
  const outMonth = int32Column(order.length + 1);
  const outValue = int32Column(order.length + 1);
  const timeSensitive = segment.row.time_sensitive;
  let k = 0;
  for (let c = 0; c < customerCount; c++) {
    rowStart[c] = outMonth.length;
    let last = -1;
    while (k < order.length && customer[order[k] as number] === c) {
      const row = order[k] as number;
      if (timeSensitive) {
        // Two rows for one month: the later one wins.
        if (outMonth.length > (rowStart[c] as number) && outMonth.get(outMonth.length - 1) === month[row]) {
          outMonth.length--;
          outValue.length--;
        }
        outMonth.push(month[row] as number);
        outValue.push(value[row] as number);
      } else {
        last = row;
      }
      k++;
    }
    if (!timeSensitive && last >= 0) {
      outMonth.push(DAY_NEVER_BEFORE);
      outValue.push(value[last] as number);
    }
  }
  rowStart[customerCount] = outMonth.length;
  return {
    id: segment.row.id,
    name: segment.row.name,
    attributeId: segment.row.object_attribute_id ?? null,
    valueSource: segment.row.value_source,
    timeSensitive,
    values: segment.values.values,
    rowStart,
    month: outMonth.toArray(),
    value: outValue.toArray(),
  };
}

function finishAttribute(attribute: AttributeBuilder, ownerCount: number, names: ReadonlyMap<string, string>): AttributeColumns {
  const valueOf = new Int32Array(ownerCount).fill(-1);
  const owner = attribute.owner.toArray();
  const value = attribute.value.toArray();
  for (let i = 0; i < owner.length; i++) valueOf[owner[i] as number] = value[i] as number;
  return { id: attribute.id, name: names.get(attribute.id) ?? attribute.name, values: attribute.values.values, valueOf };
}

interface RecordSources {
  paymentCount: number;
  payCustomer: Int32Array;
  payStart: Int32Array;
  payDuration: Int32Array;
  payTotal: Float64Array;
  payCurrency: Int32Array;
  payVersion: Int32Array;
  payDeleted: Uint8Array;
  discountForever: Map<number, number>;
  discountFinite: Map<number, number>;
  verPayment: Int32Array;
  verVersion: Int32Array;
  verCustomer: Int32Array;
  verStart: Int32Array;
  verDuration: Int32Array;
  verTotal: Float64Array;
  verCurrency: Int32Array;
  verDeleted: Uint8Array;
  verFrom: Int32Array;
  verTo: Int32Array;
  verForever: Float64Array;
  verFinite: Float64Array;
  itemOwner: Int32Array;
  itemPosition: Int32Array;
  itemProduct: Int32Array;
  itemType: Uint8Array;
  itemQuantity: Int32Array;
}

/**
 * Records: the P current payment rows (source index s < P) and the H earlier versions
 * (s = P + h), sorted by (customer, start day); each with its lines.
 */
function finishRecords(src: RecordSources): { records: RecordColumns; lines: LineColumns } {
  const P = src.paymentCount;
  const H = src.verPayment.length;
  const N = P + H;

  // Validity windows. The lowest earlier version of a payment is in force since always, any
  // later one from its recording day, the current row from the end of the last earlier version
  // (or since always when it has none).
  const lowestVersion = new Int32Array(P).fill(2_147_483_647);
  const lastEnd = new Int32Array(P).fill(DAY_NEVER_BEFORE);
  for (let h = 0; h < H; h++) {
    const p = src.verPayment[h] as number;
    if ((src.verVersion[h] as number) < (lowestVersion[p] as number)) lowestVersion[p] = src.verVersion[h] as number;
    if ((src.verTo[h] as number) > (lastEnd[p] as number)) lastEnd[p] = src.verTo[h] as number;
  }

  const srcCustomer = new Int32Array(N);
  const srcStart = new Int32Array(N);
  for (let s = 0; s < N; s++) {
    srcCustomer[s] = s < P ? (src.payCustomer[s] as number) : (src.verCustomer[s - P] as number);
    srcStart[s] = s < P ? (src.payStart[s] as number) : (src.verStart[s - P] as number);
  }
  const customerCount = srcCustomer.reduce((max, c) => (c > max ? c : max), -1) + 1;
  const startKeys = srcStart.slice();
  const order = stableOrder(srcCustomer, customerCount, stableOrder(startKeys, rebase(startKeys), identity(N)));

  // Items grouped by source record, in position order.
  const itemCount = src.itemOwner.length;
  const itemSource = new Int32Array(itemCount);
  for (let i = 0; i < itemCount; i++) {
    const owner = src.itemOwner[i] as number;
    itemSource[i] = owner >= 0 ? owner : P + (-1 - owner);
  }
  const positionKeys = src.itemPosition.slice();
  const itemOrder = stableOrder(itemSource, N, stableOrder(positionKeys, rebase(positionKeys), identity(itemCount)));
  const itemStart = new Int32Array(N + 1);
  for (let i = 0; i < itemCount; i++) {
    const slot = (itemSource[i] as number) + 1;
    itemStart[slot] = (itemStart[slot] as number) + 1;
  }
  for (let s = 0; s < N; s++) itemStart[s + 1] = (itemStart[s + 1] as number) + (itemStart[s] as number);

  const records = {
    count: N,
    payment: new Int32Array(N),
    version: new Int32Array(N),
    customer: new Int32Array(N),
    startDay: new Int32Array(N),
    endDay: new Int32Array(N),
    durationMonths: new Int32Array(N),
    totalValue: new Float64Array(N),
    currency: new Int32Array(N),
    monthlyAmount: new Float64Array(N),
    recurringMonthly: new Float64Array(N),
    meteredMonthly: new Float64Array(N),
    oneTimeMonthly: new Float64Array(N),
    freemium: new Uint8Array(N),
    product: new Int32Array(N),
    quantity: new Int32Array(N),
    discountForeverMonthly: new Float64Array(N),
    discountFiniteMonthly: new Float64Array(N),
    validFromDay: new Int32Array(N),
    validToDay: new Int32Array(N),
    current: new Uint8Array(N),
    deleted: new Uint8Array(N),
    lineStart: new Int32Array(N + 1),
  };
  // A record has its items or, without any, one line: at most itemCount + N lines.
  const lineCapacity = itemCount + N;
  const lineRecord = new Int32Array(lineCapacity);
  const lineProduct = new Int32Array(lineCapacity);
  const lineType = new Uint8Array(lineCapacity);
  const lineQuantity = new Int32Array(lineCapacity);
  const lineMonthly = new Float64Array(lineCapacity);
  const lineTotal = new Float64Array(lineCapacity);
  let lineCount = 0;
  // Discounts per current payment, dense (a Map look-up per record costs more than the rest of it).
  const foreverOf = new Float64Array(P);
  const finiteOf = new Float64Array(P);
  for (const [payment, amount] of src.discountForever) foreverOf[payment] = amount;
  for (const [payment, amount] of src.discountFinite) finiteOf[payment] = amount;
  const monthlyParts = new Float64Array(64);
  const totalParts = new Float64Array(64);
  const ones: number[] = [];

  for (let r = 0; r < N; r++) {
    const s = order[r] as number;
    const isCurrent = s < P;
    const h = s - P;
    const payment = isCurrent ? s : (src.verPayment[h] as number);
    const version = isCurrent ? (src.payVersion[s] as number) : (src.verVersion[h] as number);
    const duration = isCurrent ? (src.payDuration[s] as number) : (src.verDuration[h] as number);
    const total = isCurrent ? (src.payTotal[s] as number) : (src.verTotal[h] as number);
    records.payment[r] = payment;
    records.version[r] = version;
    records.customer[r] = srcCustomer[s] as number;
    records.startDay[r] = srcStart[s] as number;
    records.endDay[r] = addMonths(srcStart[s] as number, duration);
    records.durationMonths[r] = duration;
    records.totalValue[r] = total;
    records.currency[r] = isCurrent ? (src.payCurrency[s] as number) : (src.verCurrency[h] as number);
    records.discountForeverMonthly[r] = isCurrent ? (foreverOf[s] as number) : (src.verForever[h] as number);
    records.discountFiniteMonthly[r] = isCurrent ? (finiteOf[s] as number) : (src.verFinite[h] as number);
    records.current[r] = isCurrent ? 1 : 0;
    records.deleted[r] = isCurrent ? (src.payDeleted[s] as number) : (src.verDeleted[h] as number);
    if (isCurrent) {
      records.validFromDay[r] = lastEnd[payment] as number;
      records.validToDay[r] = DAY_NEVER_AFTER;
    } else {
      records.validFromDay[r] = version === lowestVersion[payment] ? DAY_NEVER_BEFORE : (src.verFrom[h] as number);
      records.validToDay[r] = src.verTo[h] as number;
    }

    // Lines: the items, or one recurring line without a product when the record has none.
    const monthly = roundHalfEven(total / duration);
    records.monthlyAmount[r] = monthly;
    records.lineStart[r] = lineCount;
    const first = itemStart[s] as number;
    const count = Math.max(1, (itemStart[s + 1] as number) - first);
    while (ones.length < count) ones.push(1);
    const parts = count <= monthlyParts.length ? monthlyParts : new Float64Array(count);
    const totals = count <= totalParts.length ? totalParts : new Float64Array(count);
    if (count === 1) {
      parts[0] = monthly;
      totals[0] = total;
    } else {
      allocateProportionally(monthly, ones, parts, count);
      allocateProportionally(total, ones, totals, count);
    }
    const hasItems = (itemStart[s + 1] as number) > first;
    for (let k = 0; k < count; k++) {
      const item = hasItems ? (itemOrder[first + k] as number) : -1;
      const type = item >= 0 ? (src.itemType[item] as number) : ITEM_RECURRING;
      const product = item >= 0 ? (src.itemProduct[item] as number) : -1;
      const quantity = item >= 0 ? (src.itemQuantity[item] as number) : 1;
      const part = parts[k] as number;
      lineRecord[lineCount] = r;
      lineProduct[lineCount] = product;
      lineType[lineCount] = type;
      lineQuantity[lineCount] = quantity;
      lineMonthly[lineCount] = part;
      lineTotal[lineCount] = totals[k] as number;
      lineCount++;
      if (type === ITEM_RECURRING) records.recurringMonthly[r] = (records.recurringMonthly[r] as number) + part;
      else if (type === ITEM_METERED) records.meteredMonthly[r] = (records.meteredMonthly[r] as number) + part;
      else if (type === ITEM_ONE_TIME) records.oneTimeMonthly[r] = (records.oneTimeMonthly[r] as number) + part;
      else records.freemium[r] = 1;
      if (k === 0) {
        records.product[r] = product;
        records.quantity[r] = quantity;
      }
    }
  }
  records.lineStart[N] = lineCount;
  return {
    records,
    lines: {
      count: lineCount,
      record: lineRecord.slice(0, lineCount),
      product: lineProduct.slice(0, lineCount),
      type: lineType.slice(0, lineCount),
      quantity: lineQuantity.slice(0, lineCount),
      monthly: lineMonthly.slice(0, lineCount),
      total: lineTotal.slice(0, lineCount),
    },
  };
}

function finishRates(day: Int32Array, currency: Int32Array, rate: Float64Array, currencies: readonly string[]): EcbRates {
  const perEur: (Float64Array | null)[] = currencies.map(() => null);
  if (day.length === 0) return { baseDay: 0, length: 0, perEur };
  let baseDay = day[0] as number;
  let lastDay = baseDay;
  for (let i = 1; i < day.length; i++) {
    if ((day[i] as number) < baseDay) baseDay = day[i] as number;
    if ((day[i] as number) > lastDay) lastDay = day[i] as number;
  }
  const length = lastDay - baseDay + 1;
  for (let i = 0; i < day.length; i++) {
    const k = currency[i] as number;
    let series = perEur[k];
    if (!series) {
      series = new Float64Array(length);
      perEur[k] = series;
    }
    series[(day[i] as number) - baseDay] = rate[i] as number;
  }
  for (const series of perEur) {
    if (!series) continue;
    let firstPublished = -1;
    for (let d = 0; d < length; d++) {
      if ((series[d] as number) > 0) {
        if (firstPublished < 0) firstPublished = d;
      } else if (firstPublished >= 0) {
        series[d] = series[d - 1] as number;
      }
    }
    for (let d = 0; d < firstPublished; d++) series[d] = series[firstPublished] as number;
  }
  const eur = currencies.indexOf('EUR');
  perEur[eur] = new Float64Array(length).fill(1);
  return { baseDay, length, perEur };
}

function finishAccountRates(rows: { sinceDay: number; currency: number; rate: number }[]): AccountRates {
  rows.sort((a, b) => a.currency - b.currency || a.sinceDay - b.sinceDay);
  return {
    count: rows.length,
    currency: Int32Array.from(rows, (row) => row.currency),
    sinceDay: Int32Array.from(rows, (row) => row.sinceDay),
    rate: Float64Array.from(rows, (row) => row.rate),
  };
}
