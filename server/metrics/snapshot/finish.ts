import { DAY_NEVER_AFTER, DAY_NEVER_BEFORE, addMonths } from '../days';
import { int32Column } from '../growableColumn';
import { allocateProportionally, roundHalfEven } from '../money';
import type { AttributeBuilder, Interner, SegmentBuilder } from './accumulators';
import type { AccountRates, AttributeColumns, CustomerColumns, CustomerSegmentColumns, EcbRates, LineColumns, RecordColumns } from './columns';
import { ITEM_METERED, ITEM_ONE_TIME, ITEM_RECURRING, SnapshotError } from './rows';

/**
 * Finishing a snapshot: the builder's growable columns become the snapshot's sorted, indexed
 * typed arrays (customers with their hierarchy, segments, attributes, the payment records and
 * their lines, exchange rates).
 */

export function finishCustomers(ids: Interner, names: string[], parentIds: (string | null)[], ownIncluded: Uint8Array, deleted: Uint8Array): CustomerColumns {
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

export function finishSegment(segment: SegmentBuilder, customerCount: number): CustomerSegmentColumns {
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

export function finishAttribute(attribute: AttributeBuilder, ownerCount: number, names: ReadonlyMap<string, string>): AttributeColumns {
  const valueOf = new Int32Array(ownerCount).fill(-1);
  const owner = attribute.owner.toArray();
  const value = attribute.value.toArray();
  for (let i = 0; i < owner.length; i++) valueOf[owner[i] as number] = value[i] as number;
  return { id: attribute.id, name: names.get(attribute.id) ?? attribute.name, values: attribute.values.values, valueOf };
}

export interface RecordSources {
  paymentCount: number;
  payCustomer: Int32Array;
  payStart: Int32Array;
  /** Exclusive; DAY_NEVER_AFTER when open-ended. */
  payEnd: Int32Array;
  /** NaN when open-ended. */
  payDuration: Float64Array;
  payTotal: Float64Array;
  /** NaN: total / duration. */
  payMonthly: Float64Array;
  payCurrency: Int32Array;
  payVersion: Int32Array;
  payDeleted: Uint8Array;
  discountForever: Map<number, number>;
  discountFinite: Map<number, number>;
  discountFiniteMonths: Map<number, number>;
  verPayment: Int32Array;
  verVersion: Int32Array;
  verCustomer: Int32Array;
  verStart: Int32Array;
  verEnd: Int32Array;
  verDuration: Float64Array;
  verTotal: Float64Array;
  verMonthly: Float64Array;
  verCurrency: Int32Array;
  verDeleted: Uint8Array;
  verFrom: Int32Array;
  verTo: Int32Array;
  verForever: Float64Array;
  verFinite: Float64Array;
  verFiniteMonths: Float64Array;
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
export function finishRecords(src: RecordSources): { records: RecordColumns; lines: LineColumns } {
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
    openEnded: new Uint8Array(N),
    durationMonths: new Float64Array(N),
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
    discountFiniteEndDay: new Int32Array(N),
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
  const finiteMonthsOf = new Float64Array(P);
  for (const [payment, amount] of src.discountForever) foreverOf[payment] = amount;
  for (const [payment, amount] of src.discountFinite) finiteOf[payment] = amount;
  for (const [payment, months] of src.discountFiniteMonths) finiteMonthsOf[payment] = months;
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
    const exactMonthly = isCurrent ? (src.payMonthly[s] as number) : (src.verMonthly[h] as number);
    const endDay = isCurrent ? (src.payEnd[s] as number) : (src.verEnd[h] as number);
    const finiteMonths = isCurrent ? (finiteMonthsOf[s] as number) : (src.verFiniteMonths[h] as number);
    records.payment[r] = payment;
    records.version[r] = version;
    records.customer[r] = srcCustomer[s] as number;
    records.startDay[r] = srcStart[s] as number;
    records.endDay[r] = endDay;
    records.openEnded[r] = endDay === DAY_NEVER_AFTER ? 1 : 0;
    records.durationMonths[r] = duration;
    records.discountFiniteEndDay[r] = finiteMonths > 0 ? addMonths(srcStart[s] as number, finiteMonths) : DAY_NEVER_AFTER;
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
    const monthly = roundHalfEven(Number.isNaN(exactMonthly) ? total / duration : exactMonthly);
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

export function finishRates(day: Int32Array, currency: Int32Array, rate: Float64Array, currencies: readonly string[]): EcbRates {
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

export function finishAccountRates(rows: { sinceDay: number; currency: number; rate: number }[]): AccountRates {
  rows.sort((a, b) => a.currency - b.currency || a.sinceDay - b.sinceDay);
  return {
    count: rows.length,
    currency: Int32Array.from(rows, (row) => row.currency),
    sinceDay: Int32Array.from(rows, (row) => row.sinceDay),
    rate: Float64Array.from(rows, (row) => row.rate),
  };
}
