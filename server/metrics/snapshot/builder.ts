import type { AttributeObject, DiscountKind, ItemType } from '../../db/schema';
import { DEFAULT_MINOR_UNIT_DIGITS } from '../../../models/money';
import { absoluteMonth, DAY_NEVER_AFTER, dayFromInstant, dayFromIso, durationInMonths, endOfPeriod, isoFromDay } from '../days';
import { float64Column, int32Column, uint8Column, type GrowableColumn } from '../growableColumn';
import { KeyIndex } from '../keyIndex';
import { Interner, type AttributeBuilder, type SegmentBuilder } from './accumulators';
import type { AccountSnapshot } from './columns';
import { finishAccountRates, finishAttribute, finishCustomers, finishRates, finishRecords, finishSegment } from './finish';
import {
  ITEM_TYPES,
  itemTypeCode,
  SnapshotError,
  type AccountExchangeRateRow,
  type AccountRow,
  type CostRow,
  type CostSegmentValueRow,
  type CurrencyRow,
  type CustomerRow,
  type CustomerSegmentRow,
  type CustomerSegmentValueRow,
  type DealRow,
  type ExchangeRateRow,
  type ObjectAttributeRow,
  type PaymentDiscountRow,
  type PaymentItemRow,
  type PaymentRow,
  type PaymentSegmentValueRow,
  type PaymentVersionRow,
  type ProductRow,
  type SnapshotRows,
} from './rows';

/**
 * Building a snapshot: rows (or, for loaders, aggregated columns through `raw`) are added table
 * by table into growable columns held by one `BuilderState`, then `finish` turns them into the
 * snapshot's columns. Each table has its named function below; `createSnapshotBuilder` binds
 * them to one state.
 */

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
  /**
   * `endDay`: exclusive, DAY_NEVER_AFTER for an open-ended payment (then `duration` and `total`
   * are ignored); `monthly`: the exact monthly amount, NaN for none (total / duration).
   */
  addPayment(source: number, start: number, end: number, customer: number, startDay: number, endDay: number, duration: number, total: number, monthly: number, currency: number, version: number, deleted: boolean): void;
  /** The payment whose id is text[start, end), or -1; `hint`: the payment found for the previous key (-1: none). */
  paymentOf(text: string, start: number, end: number, hint: number): number;
  /** Items of one product and type (`type`: index into ITEM_TYPES). */
  addPaymentItems(product: number, type: number, payments: Int32Array, positions: Float64Array, quantities: Float64Array): void;
  /**
   * Discounts of one kind: `amounts[k]` a month off `payments[k]` (a payment may appear more than
   * once), a finite one for `months[k]` months from the payment's start (0: the whole payment).
   */
  addPaymentDiscounts(kind: DiscountKind, payments: Int32Array, amounts: Float64Array, months?: Float64Array): void;
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

/** Everything added so far: interned keys and growable columns, table by table. */
interface BuilderState {
  readonly account: AccountRow;
  finished: boolean;
  readonly currencies: Interner;
  readonly currencyDigits: Map<string, number>;

  readonly customerIds: Interner;
  readonly customerKeys: KeyIndex;
  readonly customerNames: string[];
  readonly customerParentIds: (string | null)[];
  readonly customerIncluded: GrowableColumn<Uint8Array>;
  readonly customerDeleted: GrowableColumn<Uint8Array>;

  readonly attributeNames: Map<string, string>;
  readonly attributeObjects: Map<string, AttributeObject>;
  readonly segments: Map<string, SegmentBuilder>;
  readonly products: Interner;

  readonly paymentIds: KeyIndex;
  readonly payCustomer: GrowableColumn<Int32Array>;
  readonly payStart: GrowableColumn<Int32Array>;
  readonly payEnd: GrowableColumn<Int32Array>;
  readonly payDuration: GrowableColumn<Float64Array>;
  readonly payTotal: GrowableColumn<Float64Array>;
  readonly payMonthly: GrowableColumn<Float64Array>;
  readonly payCurrency: GrowableColumn<Int32Array>;
  readonly payVersion: GrowableColumn<Int32Array>;
  readonly payDeleted: GrowableColumn<Uint8Array>;

  /** Items of every source record (current rows: owner = payment index; versions: owner = -(1 + version row)). */
  readonly itemOwner: GrowableColumn<Int32Array>;
  readonly itemPosition: GrowableColumn<Int32Array>;
  readonly itemProduct: GrowableColumn<Int32Array>;
  readonly itemType: GrowableColumn<Uint8Array>;
  readonly itemQuantity: GrowableColumn<Int32Array>;

  readonly discountForever: Map<number, number>;
  readonly discountFinite: Map<number, number>;
  /** A current payment's finite discount months (the longest of its finite discounts; absent: the whole payment). */
  readonly discountFiniteMonths: Map<number, number>;
  readonly paymentAttributes: Map<string, AttributeBuilder>;

  readonly verPayment: GrowableColumn<Int32Array>;
  readonly verVersion: GrowableColumn<Int32Array>;
  readonly verCustomer: GrowableColumn<Int32Array>;
  readonly verStart: GrowableColumn<Int32Array>;
  readonly verEnd: GrowableColumn<Int32Array>;
  readonly verDuration: GrowableColumn<Float64Array>;
  readonly verTotal: GrowableColumn<Float64Array>;
  readonly verMonthly: GrowableColumn<Float64Array>;
  readonly verCurrency: GrowableColumn<Int32Array>;
  readonly verDeleted: GrowableColumn<Uint8Array>;
  readonly verFrom: GrowableColumn<Int32Array>;
  readonly verTo: GrowableColumn<Int32Array>;
  readonly verForever: GrowableColumn<Float64Array>;
  readonly verFinite: GrowableColumn<Float64Array>;
  readonly verFiniteMonths: GrowableColumn<Float64Array>;

  readonly costIds: string[];
  readonly costNames: string[];
  readonly costInvoiceNumbers: (string | null)[];
  readonly costDay: GrowableColumn<Int32Array>;
  readonly costValue: GrowableColumn<Float64Array>;
  readonly costCurrency: GrowableColumn<Int32Array>;
  readonly costIndex: Map<string, number>;
  readonly costAttributes: Map<string, AttributeBuilder>;

  readonly dealIds: string[];
  readonly dealNames: string[];
  readonly dealPublicIds: (string | null)[];
  readonly dealOwners: (string | null)[];
  readonly dealUrls: (string | null)[];
  readonly dealStages: Interner;
  readonly dealStage: GrowableColumn<Int32Array>;
  readonly dealDay: GrowableColumn<Int32Array>;
  readonly dealValue: GrowableColumn<Float64Array>;
  readonly dealCurrency: GrowableColumn<Int32Array>;
  readonly dealCustomer: GrowableColumn<Int32Array>;

  readonly rateDay: GrowableColumn<Int32Array>;
  readonly rateCurrency: GrowableColumn<Int32Array>;
  readonly rateValue: GrowableColumn<Float64Array>;
  readonly accountRateRows: { sinceDay: number; currency: number; rate: number }[];
}

function newBuilderState(account: AccountRow): BuilderState {
  const s: BuilderState = {
    account,
    finished: false,
    currencies: new Interner(),
    currencyDigits: new Map(),
    customerIds: new Interner(),
    customerKeys: new KeyIndex(),
    customerNames: [],
    customerParentIds: [],
    customerIncluded: uint8Column(),
    customerDeleted: uint8Column(),
    attributeNames: new Map(),
    attributeObjects: new Map(),
    segments: new Map(),
    products: new Interner(),
    paymentIds: new KeyIndex(),
    payCustomer: int32Column(),
    payStart: int32Column(),
    payEnd: int32Column(),
    payDuration: float64Column(),
    payTotal: float64Column(),
    payMonthly: float64Column(),
    payCurrency: int32Column(),
    payVersion: int32Column(),
    payDeleted: uint8Column(),
    itemOwner: int32Column(),
    itemPosition: int32Column(),
    itemProduct: int32Column(),
    itemType: uint8Column(),
    itemQuantity: int32Column(),
    discountForever: new Map(),
    discountFinite: new Map(),
    discountFiniteMonths: new Map(),
    paymentAttributes: new Map(),
    verPayment: int32Column(),
    verVersion: int32Column(),
    verCustomer: int32Column(),
    verStart: int32Column(),
    verEnd: int32Column(),
    verDuration: float64Column(),
    verTotal: float64Column(),
    verMonthly: float64Column(),
    verCurrency: int32Column(),
    verDeleted: uint8Column(),
    verFrom: int32Column(),
    verTo: int32Column(),
    verForever: float64Column(),
    verFinite: float64Column(),
    verFiniteMonths: float64Column(),
    costIds: [],
    costNames: [],
    costInvoiceNumbers: [],
    costDay: int32Column(),
    costValue: float64Column(),
    costCurrency: int32Column(),
    costIndex: new Map(),
    costAttributes: new Map(),
    dealIds: [],
    dealNames: [],
    dealPublicIds: [],
    dealOwners: [],
    dealUrls: [],
    dealStages: new Interner(),
    dealStage: int32Column(),
    dealDay: int32Column(),
    dealValue: float64Column(),
    dealCurrency: int32Column(),
    dealCustomer: int32Column(),
    rateDay: int32Column(),
    rateCurrency: int32Column(),
    rateValue: float64Column(),
    accountRateRows: [],
  };
  internCurrency(s, account.currency);
  internCurrency(s, 'EUR');
  return s;
}

// ------------------------------------------------------------------ keys and references

function internCurrency(s: BuilderState, iso: string): number {
  const known = s.currencies.index.get(iso);
  if (known !== undefined) return known;
  if (!/^[A-Z]{3}$/.test(iso)) throw new SnapshotError(`not an ISO 4217 currency code: '${iso}'`);
  return s.currencies.intern(iso);
}

function customerIndex(s: BuilderState, id: string, what: string): number {
  const found = s.customerIds.index.get(id);
  if (found === undefined) throw new SnapshotError(`${what} refers to unknown customer '${id}'`);
  return found;
}

function paymentIndex(s: BuilderState, id: string, what: string): number {
  const found = s.paymentIds.findString(id);
  if (found < 0) throw new SnapshotError(`${what} refers to unknown payment '${id}'`);
  return found;
}

function attributeBuilder(s: BuilderState, map: Map<string, AttributeBuilder>, id: string): AttributeBuilder {
  let found = map.get(id);
  if (!found) {
    found = { id, name: s.attributeNames.get(id) ?? id, values: new Interner(), owner: int32Column(), value: int32Column() };
    map.set(id, found);
  }
  return found;
}

// ------------------------------------------------------------------ one value at a time (rows and raw columns share these)

function addItemCodes(s: BuilderState, owner: number, position: number, product: number, type: number, quantity: number): void {
  s.itemOwner.push(owner);
  s.itemPosition.push(position);
  s.itemProduct.push(product);
  s.itemType.push(type);
  s.itemQuantity.push(quantity);
}

function addItem(s: BuilderState, owner: number, position: number, productKey: string, type: ItemType, quantity: number): void {
  addItemCodes(s, owner, position, s.products.intern(productKey), itemTypeCode(type), quantity);
}

/**
 * Checks one payment's period and amounts (the CHECKs of migration 0015, so rows built by hand
 * obey them too); returns the duration to keep: NaN for an open-ended payment.
 */
function checkPeriod(what: () => string, startDay: number, endDay: number, duration: number, total: number, monthly: number): number {
  const validMonthly = Number.isNaN(monthly) || (monthly >= 0 && Number.isFinite(monthly));
  if (!validMonthly) throw new SnapshotError(`${what()}: monthly_amount must be a finite number >= 0`);
  if (endDay === DAY_NEVER_AFTER) {
    if (Number.isNaN(monthly)) throw new SnapshotError(`${what()}: an open-ended payment needs monthly_amount`);
    return NaN;
  }
  if (!(duration > 0) || !Number.isFinite(duration)) throw new SnapshotError(`${what()}: duration_in_months must be above 0`);
  if (!(endDay > startDay)) throw new SnapshotError(`${what()}: ended_at must be after started_at`);
  if (!Number.isFinite(total)) throw new SnapshotError(`${what()}: total_value must be a number`);
  return duration;
}

function addPayment(
  s: BuilderState,
  source: number,
  start: number,
  end: number,
  customer: number,
  startDay: number,
  endDay: number,
  duration: number,
  total: number,
  monthly: number,
  currencyIndex: number,
  version: number,
  deleted: boolean,
): void {
  if (s.paymentIds.add(source, start, end) < 0) throw new SnapshotError(`duplicate payment '${s.paymentIds.sourceText(source).slice(start, end)}'`);
  const kept = checkPeriod(() => `payment '${s.paymentIds.get(s.paymentIds.count - 1)}'`, startDay, endDay, duration, total, monthly);
  s.payCustomer.push(customer);
  s.payStart.push(startDay);
  s.payEnd.push(endDay);
  s.payDuration.push(kept);
  s.payTotal.push(Number.isNaN(kept) ? 0 : total);
  s.payMonthly.push(monthly);
  s.payCurrency.push(currencyIndex);
  s.payVersion.push(version);
  s.payDeleted.push(deleted ? 1 : 0);
}

/**
 * A row's end day and duration: ended_at when the row has the column (null: open-ended),
 * otherwise from duration_in_months (null: open-ended).
 */
function periodOfRow(startDay: number, endedAt: string | null | undefined, duration: number | null): { endDay: number; duration: number } {
  if (endedAt === null || (endedAt === undefined && (duration === null || duration === undefined))) return { endDay: DAY_NEVER_AFTER, duration: NaN };
  if (endedAt !== undefined) {
    const endDay = dayFromIso(endedAt);
    return { endDay, duration: duration === null || duration === undefined ? durationInMonths(startDay, endDay) : Number(duration) };
  }
  const months = Number(duration);
  return { endDay: months > 0 && Number.isFinite(months) ? endOfPeriod(startDay, months) : startDay, duration: months };
}

/** A nullable amount as the columns hold it: NaN for null. */
const orNaN = (value: number | string | null | undefined): number => (value === null || value === undefined ? NaN : Number(value));

function paymentIdSource(s: BuilderState, text: string): number {
  return s.paymentIds.source(text);
}

function addPaymentAttributeValue(s: BuilderState, attributeId: string, payment: number, value: string | null): void {
  const attribute = attributeBuilder(s, s.paymentAttributes, attributeId);
  attribute.owner.push(payment);
  attribute.value.push(value === null ? -1 : attribute.values.intern(value));
}

function customerSegment(s: BuilderState, segmentId: string): SegmentBuilder {
  const segment = s.segments.get(segmentId);
  if (!segment) throw new SnapshotError(`segment value refers to unknown customer segment '${segmentId}'`);
  return segment;
}

function addCustomerSegmentValue(s: BuilderState, segmentId: string, customer: number, year: number, month: number, value: string | null): void {
  const segment = customerSegment(s, segmentId);
  segment.customer.push(customer);
  segment.month.push(absoluteMonth(year, month));
  segment.value.push(value === null ? -1 : segment.values.intern(value));
}

function addDiscount(s: BuilderState, kind: DiscountKind, payment: number, amount: number, months: number): void {
  const map = kind === 'forever' ? s.discountForever : s.discountFinite;
  map.set(payment, (map.get(payment) ?? 0) + amount);
  if (kind === 'finite') s.discountFiniteMonths.set(payment, longerDiscount(s.discountFiniteMonths.get(payment), months));
}

/**
 * Months of a payment's finite discounts together (they are summed; forms and imports write one):
 * 0 (the whole payment) when any of them has no months, else the longest.
 */
function longerDiscount(known: number | undefined, months: number): number {
  const m = months > 0 && Number.isFinite(months) ? months : 0;
  if (known === undefined) return m;
  return known === 0 || m === 0 ? 0 : Math.max(known, m);
}

// ------------------------------------------------------------------ raw columns (loaders)

function rawSink(s: BuilderState): RawSnapshotSink {
  return {
    customerOf: (text, start, end, hint) => s.customerKeys.findNear(text, start, end, hint),
    currencyOf: (iso) => internCurrency(s, iso),
    productOf: (key) => s.products.intern(key),
    reservePayments: (n) => s.paymentIds.reserve(n),
    paymentIdSource: (text) => paymentIdSource(s, text),
    addPayment: (source, start, end, customer, startDay, endDay, duration, total, monthly, currencyIndex, version, deleted) =>
      addPayment(s, source, start, end, customer, startDay, endDay, duration, total, monthly, currencyIndex, version, deleted),
    paymentOf: (text, start, end, hint) => s.paymentIds.findNear(text, start, end, hint),
    addPaymentItems: (product, type, payments, positions, quantities) => {
      if (!(type >= 0 && type < ITEM_TYPES.length)) throw new SnapshotError(`unknown item type code ${type}`);
      for (let k = 0; k < payments.length; k++) addItemCodes(s, payments[k] as number, positions[k] as number, product, type, quantities[k] as number);
    },
    addPaymentDiscounts: (kind, payments, amounts, months) => {
      for (let k = 0; k < payments.length; k++) addDiscount(s, kind, payments[k] as number, amounts[k] as number, months ? (months[k] as number) : 0);
    },
    addPaymentAttributeValues: (attributeId, value, payments) => {
      const attribute = attributeBuilder(s, s.paymentAttributes, attributeId);
      const code = value === null ? -1 : attribute.values.intern(value);
      for (let k = 0; k < payments.length; k++) {
        attribute.owner.push(payments[k] as number);
        attribute.value.push(code);
      }
    },
    addCustomerSegmentValues: (segmentId, value, customers, months) => {
      const segment = customerSegment(s, segmentId);
      const code = value === null ? -1 : segment.values.intern(value);
      for (let k = 0; k < customers.length; k++) {
        segment.customer.push(customers[k] as number);
        segment.month.push(months[k] as number);
        segment.value.push(code);
      }
    },
    addExchangeRate: (day, currencyIndex, rate) => {
      if (!(rate > 0) || !Number.isFinite(rate)) throw new SnapshotError(`exchange rate ${s.currencies.values[currencyIndex]} on ${isoFromDay(day)}: rate must be a positive number, got '${rate}'`);
      s.rateDay.push(day);
      s.rateCurrency.push(currencyIndex);
      s.rateValue.push(rate);
    },
  };
}

// ------------------------------------------------------------------ rows, table by table

function addCurrenciesRows(s: BuilderState, rows: readonly CurrencyRow[]): void {
  for (const row of rows) s.currencyDigits.set(row.iso, row.minor_unit_digits);
}

function addCustomersRows(s: BuilderState, rows: readonly CustomerRow[]): void {
  s.customerKeys.reserve(rows.length);
  for (const row of rows) {
    if (s.customerIds.index.has(row.id)) throw new SnapshotError(`duplicate customer '${row.id}'`);
    s.customerIds.intern(row.id);
    s.customerKeys.addString(row.id);
    s.customerNames.push(row.name ?? '');
    s.customerParentIds.push(row.parent_id);
    s.customerIncluded.push(row.include_in_calculations_by_default ? 1 : 0);
    s.customerDeleted.push(row.deleted_at ? 1 : 0);
  }
}

function addObjectAttributesRows(s: BuilderState, rows: readonly ObjectAttributeRow[]): void {
  for (const row of rows) {
    s.attributeNames.set(row.id, row.name);
    s.attributeObjects.set(row.id, row.object);
  }
}

function addCustomerSegmentsRows(s: BuilderState, rows: readonly CustomerSegmentRow[]): void {
  for (const row of rows) {
    s.segments.set(row.id, { row, values: new Interner(), customer: int32Column(), month: int32Column(), value: int32Column() });
  }
}

function addCustomerSegmentValuesRows(s: BuilderState, rows: readonly CustomerSegmentValueRow[]): void {
  for (const row of rows) addCustomerSegmentValue(s, row.segment_id, customerIndex(s, row.customer_id, 'segment value'), row.year, row.month, row.value);
}

function addProductsRows(s: BuilderState, rows: readonly ProductRow[]): void {
  for (const row of rows) s.products.intern(row.key);
}

function addPaymentsRows(s: BuilderState, rows: readonly PaymentRow[]): void {
  for (const row of rows) {
    const customer = customerIndex(s, row.customer_id, `payment '${row.id}'`);
    const startDay = dayFromIso(row.started_at);
    const { endDay, duration } = periodOfRow(startDay, row.ended_at, row.duration_in_months);
    addPayment(s, paymentIdSource(s, row.id), 0, row.id.length, customer, startDay, endDay, duration, orNaN(row.total_value), orNaN(row.monthly_amount), internCurrency(s, row.currency), row.version ?? 1, Boolean(row.deleted_at));
  }
}

function addPaymentItemsRows(s: BuilderState, rows: readonly PaymentItemRow[]): void {
  for (const row of rows) addItem(s, paymentIndex(s, row.payment_id, 'payment item'), row.position, row.product_key, row.type, row.quantity);
}

function addPaymentDiscountsRows(s: BuilderState, rows: readonly PaymentDiscountRow[]): void {
  for (const row of rows) {
    const payment = paymentIndex(s, row.payment_id, 'payment discount');
    addDiscount(s, row.kind, payment, Number(row.monthly_amount), orNaN(row.months));
  }
}

function addPaymentSegmentValuesRows(s: BuilderState, rows: readonly PaymentSegmentValueRow[]): void {
  for (const row of rows) addPaymentAttributeValue(s, row.attribute_id, paymentIndex(s, row.payment_id, 'payment segment value'), row.value);
}

function addPaymentVersionsRows(s: BuilderState, rows: readonly PaymentVersionRow[]): void {
  for (const row of rows) {
    if (row.valid_to === null) continue;
    const startDay = dayFromIso(row.started_at);
    const { endDay, duration } = periodOfRow(startDay, row.ended_at, row.duration_in_months);
    const total = orNaN(row.total_value);
    const monthly = orNaN(row.monthly_amount);
    const kept = checkPeriod(() => `payment '${row.payment_id}' version ${row.version}`, startDay, endDay, duration, total, monthly);
    const versionRow = s.verPayment.length;
    s.verPayment.push(paymentIndex(s, row.payment_id, 'payment version'));
    s.verVersion.push(row.version);
    s.verCustomer.push(customerIndex(s, row.customer_id, `payment '${row.payment_id}' version ${row.version}`));
    s.verStart.push(startDay);
    s.verEnd.push(endDay);
    s.verDuration.push(kept);
    s.verTotal.push(Number.isNaN(kept) ? 0 : total);
    s.verMonthly.push(monthly);
    s.verCurrency.push(internCurrency(s, row.currency));
    s.verDeleted.push(row.deleted ? 1 : 0);
    s.verFrom.push(dayFromInstant(row.valid_from));
    s.verTo.push(dayFromInstant(row.valid_to));
    let forever = 0;
    let finite = 0;
    let finiteMonths: number | undefined;
    for (const discount of row.discounts) {
      if (discount.kind === 'forever') forever += Number(discount.monthly_amount);
      else {
        finite += Number(discount.monthly_amount);
        finiteMonths = longerDiscount(finiteMonths, orNaN(discount.months));
      }
    }
    s.verFiniteMonths.push(finiteMonths ?? 0);
    s.verForever.push(forever);
    s.verFinite.push(finite);
    row.items.forEach((item, position) => addItem(s, -1 - versionRow, position, item.product_key, item.type, item.quantity));
  }
}

function addCostsRows(s: BuilderState, rows: readonly CostRow[]): void {
  for (const row of rows) {
    s.costIndex.set(row.id, s.costIds.length);
    s.costIds.push(row.id);
    s.costNames.push(row.name ?? '');
    s.costInvoiceNumbers.push(row.invoice_number ?? null);
    s.costDay.push(dayFromIso(row.date));
    s.costValue.push(Number(row.value));
    s.costCurrency.push(internCurrency(s, row.currency));
  }
}

function addCostSegmentValuesRows(s: BuilderState, rows: readonly CostSegmentValueRow[]): void {
  for (const row of rows) {
    const cost = s.costIndex.get(row.cost_id);
    if (cost === undefined) throw new SnapshotError(`cost segment value refers to unknown cost '${row.cost_id}'`);
    const attribute = attributeBuilder(s, s.costAttributes, row.attribute_id);
    attribute.owner.push(cost);
    attribute.value.push(row.value === null ? -1 : attribute.values.intern(row.value));
  }
}

function addDealsRows(s: BuilderState, rows: readonly DealRow[]): void {
  for (const row of rows) {
    s.dealIds.push(row.id);
    s.dealNames.push(row.name);
    s.dealPublicIds.push(row.public_id ?? null);
    s.dealOwners.push(row.owner_name ?? null);
    s.dealUrls.push(row.external_url ?? null);
    s.dealStage.push(s.dealStages.intern(row.stage));
    s.dealDay.push(dayFromInstant(row.stage_changed_at ?? row.created_at));
    s.dealValue.push(Number(row.value));
    s.dealCurrency.push(internCurrency(s, row.currency));
    s.dealCustomer.push(row.customer_id ? (s.customerIds.index.get(row.customer_id) ?? -1) : -1);
  }
}

function addExchangeRatesRows(s: BuilderState, rows: readonly ExchangeRateRow[]): void {
  for (const row of rows) {
    s.rateDay.push(dayFromIso(row.day));
    s.rateCurrency.push(internCurrency(s, row.currency));
    s.rateValue.push(parseRate(row.rate_per_eur, `exchange rate ${row.currency} on ${row.day}`));
  }
}

function addAccountExchangeRatesRows(s: BuilderState, rows: readonly AccountExchangeRateRow[]): void {
  for (const row of rows) {
    s.accountRateRows.push({ sinceDay: dayFromIso(row.since), currency: internCurrency(s, row.iso), rate: parseRate(row.rate, `account exchange rate ${row.iso} since ${row.since}`) });
  }
}

/** Turns what was added into the snapshot's columns (server/metrics/snapshot/finish.ts). */
function finishSnapshot(s: BuilderState): AccountSnapshot {
  // Attributes without any value yet still exist (a segmenter or filter may name them).
  for (const [id, object] of s.attributeObjects) {
    if (object === 'subscription_history') attributeBuilder(s, s.paymentAttributes, id);
    if (object === 'cost') attributeBuilder(s, s.costAttributes, id);
  }
  const customers = finishCustomers(s.customerIds, s.customerNames, s.customerParentIds, s.customerIncluded.toArray(), s.customerDeleted.toArray());
  const customerSegments = [...s.segments.values()].map((segment) => finishSegment(segment, customers.count));
  const paymentCount = s.paymentIds.count;
  const { records, lines } = finishRecords({
    paymentCount,
    payCustomer: s.payCustomer.toArray(),
    payStart: s.payStart.toArray(),
    payEnd: s.payEnd.toArray(),
    payDuration: s.payDuration.toArray(),
    payTotal: s.payTotal.toArray(),
    payMonthly: s.payMonthly.toArray(),
    payCurrency: s.payCurrency.toArray(),
    payVersion: s.payVersion.toArray(),
    payDeleted: s.payDeleted.toArray(),
    discountForever: s.discountForever,
    discountFinite: s.discountFinite,
    discountFiniteMonths: s.discountFiniteMonths,
    verPayment: s.verPayment.toArray(),
    verVersion: s.verVersion.toArray(),
    verCustomer: s.verCustomer.toArray(),
    verStart: s.verStart.toArray(),
    verEnd: s.verEnd.toArray(),
    verDuration: s.verDuration.toArray(),
    verTotal: s.verTotal.toArray(),
    verMonthly: s.verMonthly.toArray(),
    verCurrency: s.verCurrency.toArray(),
    verDeleted: s.verDeleted.toArray(),
    verFrom: s.verFrom.toArray(),
    verTo: s.verTo.toArray(),
    verForever: s.verForever.toArray(),
    verFinite: s.verFinite.toArray(),
    verFiniteMonths: s.verFiniteMonths.toArray(),
    itemOwner: s.itemOwner.toArray(),
    itemPosition: s.itemPosition.toArray(),
    itemProduct: s.itemProduct.toArray(),
    itemType: s.itemType.toArray(),
    itemQuantity: s.itemQuantity.toArray(),
  });
  const digits = new Int8Array(s.currencies.values.length);
  s.currencies.values.forEach((iso, index) => (digits[index] = s.currencyDigits.get(iso) ?? DEFAULT_MINOR_UNIT_DIGITS));
  return {
    account: {
      id: s.account.id,
      currency: s.account.currency,
      churnWindowSeconds: s.account.churn_window_seconds,
      takeExchangeRatesFrom: s.account.take_exchange_rates_from,
      matchMovementsByCurrency: s.account.match_movements_by_currency,
      correctionsHandling: s.account.corrections_handling,
      includeMeteredInMrr: s.account.include_metered_in_mrr,
    },
    currencies: { values: s.currencies.values, index: s.currencies.index, digits },
    products: { values: s.products.values, index: s.products.index },
    customers,
    customerSegments,
    payments: {
      count: paymentCount,
      ids: s.paymentIds.toStringColumn(),
      attributes: [...s.paymentAttributes.values()].map((a) => finishAttribute(a, paymentCount, s.attributeNames)),
    },
    records,
    lines,
    costs: {
      count: s.costIds.length,
      ids: s.costIds,
      names: s.costNames,
      invoiceNumbers: s.costInvoiceNumbers,
      day: s.costDay.toArray(),
      value: s.costValue.toArray(),
      currency: s.costCurrency.toArray(),
      attributes: [...s.costAttributes.values()].map((a) => finishAttribute(a, s.costIds.length, s.attributeNames)),
    },
    deals: {
      count: s.dealIds.length,
      ids: s.dealIds,
      names: s.dealNames,
      publicIds: s.dealPublicIds,
      ownerNames: s.dealOwners,
      externalUrls: s.dealUrls,
      stage: s.dealStage.toArray(),
      stages: s.dealStages.values,
      day: s.dealDay.toArray(),
      value: s.dealValue.toArray(),
      currency: s.dealCurrency.toArray(),
      customer: s.dealCustomer.toArray(),
    },
    rates: finishRates(s.rateDay.toArray(), s.rateCurrency.toArray(), s.rateValue.toArray(), s.currencies.values),
    accountRates: finishAccountRates(s.accountRateRows),
  };
}

// ------------------------------------------------------------------ the builder

/**
 * Accepts rows table by table, in any number of pages. Customers must come before what refers
 * to them, payments before their items, discounts, values and versions, costs before their values.
 */
export function createSnapshotBuilder(account: AccountRow): SnapshotBuilder {
  const s = newBuilderState(account);
  /** Binds a table's function to this builder's state, refusing once the snapshot is finished. */
  const rows =
    <Row>(add: (state: BuilderState, rows: readonly Row[]) => void) =>
    (list: readonly Row[]): void => {
      guard(s);
      add(s, list);
    };
  return {
    raw: rawSink(s),
    addCurrencies: rows(addCurrenciesRows),
    addCustomers: rows(addCustomersRows),
    addObjectAttributes: rows(addObjectAttributesRows),
    addCustomerSegments: rows(addCustomerSegmentsRows),
    addCustomerSegmentValues: rows(addCustomerSegmentValuesRows),
    addProducts: rows(addProductsRows),
    addPayments: rows(addPaymentsRows),
    addPaymentItems: rows(addPaymentItemsRows),
    addPaymentDiscounts: rows(addPaymentDiscountsRows),
    addPaymentSegmentValues: rows(addPaymentSegmentValuesRows),
    addPaymentVersions: rows(addPaymentVersionsRows),
    addCosts: rows(addCostsRows),
    addCostSegmentValues: rows(addCostSegmentValuesRows),
    addDeals: rows(addDealsRows),
    addExchangeRates: rows(addExchangeRatesRows),
    addAccountExchangeRates: rows(addAccountExchangeRatesRows),
    finish() {
      guard(s);
      s.finished = true;
      return finishSnapshot(s);
    },
  };
}

function guard(s: BuilderState): void {
  if (s.finished) throw new SnapshotError('the snapshot builder has already finished');
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
