import { createConverter } from '../metrics/currency';
import { customerPieces, monthlyTimeline } from '../metrics/customerMetrics';
import { ownValueAt } from '../metrics/customerAttributes';
import { LineRevenue } from '../metrics/definitions/revenue';
import { mrrOnDay } from '../metrics/definitions/unitFigures';
import { resolveMetricsSettings } from '../metrics/settings';
import { ITEM_METERED, ITEM_ONE_TIME, ITEM_RECURRING } from '../metrics/snapshot/rows';
import type { AccountSnapshot } from '../metrics/snapshot/columns';

/**
 * The customers list's in-memory index of one account at one data version (docs/customers.md
 * "Paging"): every customer that is not deleted, with what the table sorts by, built once from
 * the metrics snapshot (`app.metrics.getSnapshot`, itself keyed by `accounts.data_version`, so
 * any write gives a new snapshot and so a new index) and remembered with it (a WeakMap keyed by
 * the snapshot object). MRR and total are the engine's, computed here for every customer at
 * once, the same numbers `GET /customers/{id}` answers one at a time. Each sort order is an
 * array of customer indices sorted by (key, id) with nulls last, built on first use; a page is
 * found by binary search of its keyset cursor, never by an offset scan.
 */

export type SortKey = string | number | null;
export type Direction = 'asc' | 'desc';

/** One sorted order of the listed customers. */
export interface SortOrder {
  /** Customer indices (into the snapshot), in the order of the column (ascending; desc reads it backwards, nulls still last). */
  readonly members: Int32Array;
  /** The sort key of a customer index. */
  key(customer: number): SortKey;
}

export interface CustomerIndex {
  readonly snapshot: AccountSnapshot;
  /** 'YYYY-MM-DD' the figures are of. */
  readonly today: string;
  /** The listed customers (not deleted), in snapshot order. */
  readonly listed: Int32Array;
  /** Per customer index: MRR today and total to date (recurring recognized + one-time), with descendants, minor units of the account currency. */
  readonly mrr: Float64Array;
  readonly total: Float64Array;
  /** Per customer index: children that are not deleted. */
  readonly childrenCount: Int32Array;
  readonly currency: string;
  /** Orders built so far, by a name the caller chooses (column id plus whatever its keys depend on). */
  readonly orders: Map<string, SortOrder>;
}

const bySnapshot = new WeakMap<AccountSnapshot, Map<string, CustomerIndex>>();

/** The index of this snapshot for `today`, built on first use. */
export function customerIndex(snapshot: AccountSnapshot, today: number, todayIso: string): CustomerIndex {
  let byDay = bySnapshot.get(snapshot);
  if (!byDay) {
    byDay = new Map();
    bySnapshot.set(snapshot, byDay);
  }
  let index = byDay.get(todayIso);
  if (!index) {
    index = buildIndex(snapshot, today, todayIso);
    byDay.clear();
    byDay.set(todayIso, index);
  }
  return index;
}

/** The index of this snapshot when it is built already (a single row is then read from it). */
export function cachedCustomerIndex(snapshot: AccountSnapshot, todayIso: string): CustomerIndex | undefined {
  return bySnapshot.get(snapshot)?.get(todayIso);
}

function buildIndex(snapshot: AccountSnapshot, today: number, todayIso: string): CustomerIndex {
  const { customers, records, lines } = snapshot;
  const n = customers.count;
  const settings = resolveMetricsSettings(snapshot.account, { currency: null });
  const converter = createConverter(snapshot, settings);
  const pieces = customerPieces(snapshot, settings, today);
  const ownMrr = new Float64Array(n);
  for (let c = 0; c < n; c++) ownMrr[c] = mrrOnDay(snapshot, pieces, converter, c, today);

  // Recognized recurring and one-time revenue to date of each customer, as the drawer's
  // figures count it (server/metrics/customerMetrics.ts customerRevenue), in one pass over the
  // records (sorted by customer) on one monthly timeline from the first payment to today.
  const ownTotal = new Float64Array(n);
  let first = today;
  for (let r = 0; r < records.count; r++) if ((records.startDay[r] as number) < first) first = records.startDay[r] as number;
  const walker = new LineRevenue(snapshot, converter, monthlyTimeline(first, today));
  let current = 0;
  const add = (_t: number, amount: number) => {
    ownTotal[current] = (ownTotal[current] as number) + amount;
  };
  for (let r = 0; r < records.count; r++) {
    const c = records.customer[r] as number;
    if (customers.included[c] !== 1 || records.current[r] !== 1 || records.deleted[r] === 1) continue;
    current = c;
    for (let l = records.lineStart[r] as number; l < (records.lineStart[r + 1] as number); l++) {
      const type = lines.type[l] as number;
      if (type === ITEM_ONE_TIME) walker.onStartDay(r, l, add);
      else if (type === ITEM_RECURRING || (settings.includeMeteredInMrr && type === ITEM_METERED)) walker.spread(r, l, records.startDay[r] as number, records.endDay[r] as number, add);
    }
  }

  // A customer's figures include its descendants (deleted ones too, as GET /customers/{id}).
  const mrr = new Float64Array(n);
  const total = new Float64Array(n);
  const childrenCount = new Int32Array(n);
  for (let c = 0; c < n; c++) {
    const m = ownMrr[c] as number;
    const t = ownTotal[c] as number;
    for (let at = c, steps = 0; at >= 0 && steps <= n; at = customers.parent[at] as number, steps++) {
      mrr[at] = (mrr[at] as number) + m;
      total[at] = (total[at] as number) + t;
    }
    const parent = customers.parent[c] as number;
    if (parent >= 0 && customers.deleted[c] !== 1) childrenCount[parent] = (childrenCount[parent] as number) + 1;
  }
  let listedCount = 0;
  for (let c = 0; c < n; c++) if (customers.deleted[c] !== 1) listedCount++;
  const listed = new Int32Array(listedCount);
  for (let c = 0, k = 0; c < n; c++) if (customers.deleted[c] !== 1) listed[k++] = c;
  return { snapshot, today: todayIso, listed, mrr, total, childrenCount, currency: settings.reportCurrency, orders: new Map() };
}

/** Nulls last; strings by code unit, numbers numerically. */
export function compareKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** An order of the listed customers by `key` then id (ascending, nulls last). */
export function buildOrder(index: CustomerIndex, key: (customer: number) => SortKey): SortOrder {
  const { ids } = index.snapshot.customers;
  const keys = new Array<SortKey>(index.snapshot.customers.count).fill(null);
  for (const c of index.listed) keys[c] = key(c);
  const members = Int32Array.from(index.listed).sort((a, b) => compareKeys(keys[a] ?? null, keys[b] ?? null) || compareIds(ids[a] as string, ids[b] as string));
  return { members, key: (c) => keys[c] ?? null };
}

/** The order named `name`, built with `key` on first use. */
export function orderOf(index: CustomerIndex, name: string, key: (customer: number) => SortKey): SortOrder {
  let order = index.orders.get(name);
  if (!order) {
    order = buildOrder(index, key);
    index.orders.set(name, order);
  }
  return order;
}

/** Keys of the built-in sortable columns that the snapshot has: name, id, mrr, total, a customer attribute's value now. */
export function snapshotKey(index: CustomerIndex, column: string, month: number): ((customer: number) => SortKey) | null {
  const { customers } = index.snapshot;
  if (column === 'name') return (c) => (customers.names[c] as string).toLowerCase();
  if (column === 'id') return (c) => customers.ids[c] as string;
  if (column === 'mrr') return (c) => index.mrr[c] as number;
  if (column === 'total') return (c) => index.total[c] as number;
  if (column.startsWith('customer_segment:')) {
    const segment = index.snapshot.customerSegments.find((s) => s.id === column.slice('customer_segment:'.length));
    if (!segment) return null;
    return (c) => {
      const value = ownValueAt(segment, c, month);
      return value < 0 ? null : (segment.values[value] ?? null);
    };
  }
  return null;
}

export interface PageSlice {
  /** Customer indices of the page, in the answer's order. */
  customers: number[];
  /** 0-based position of the first one in the whole ordered list. */
  start: number;
  total: number;
}

/**
 * One page of `size` after (`next`) or before (`prev`) the cursor's (key, id), or the first
 * page; in `direction` (desc: keys descending, ids descending, nulls still last).
 */
export function pageOf(index: CustomerIndex, order: SortOrder, direction: Direction, size: number, cursor: { key: SortKey; id: string; before: boolean } | null): PageSlice {
  const { ids } = index.snapshot.customers;
  const members = order.members;
  const total = members.length;
  // Position p in answer order reads members[map(p)].
  const nonNull = countNonNull(order);
  const at = (p: number): number => {
    if (direction === 'asc') return members[p] as number;
    // Descending: the non-null part reversed, then the nulls reversed (ids descending).
    return p < nonNull ? (members[nonNull - 1 - p] as number) : (members[total - 1 - (p - nonNull)] as number);
  };
  const compare = (c: number, key: SortKey, id: string): number => {
    const k = order.key(c);
    let byKey: number;
    if (k === null || key === null) byKey = compareKeys(k, key);
    else byKey = direction === 'asc' ? compareKeys(k, key) : compareKeys(key, k);
    if (byKey !== 0) return byKey;
    return direction === 'asc' ? compareIds(ids[c] as string, id) : compareIds(id, ids[c] as string);
  };
  let start = 0;
  let end = Math.min(size, total);
  if (cursor) {
    // First position whose item comes after the cursor's (key, id) in answer order.
    let lo = 0;
    let hi = total;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(at(mid), cursor.key, cursor.id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (cursor.before) {
      // The items strictly before the cursor: those at positions before the first one not before it.
      let first = lo;
      while (first > 0 && compare(at(first - 1), cursor.key, cursor.id) === 0) first--;
      end = first;
      start = Math.max(0, end - size);
    } else {
      start = lo;
      end = Math.min(total, start + size);
    }
  }
  const out: number[] = [];
  for (let p = start; p < end; p++) out.push(at(p));
  return { customers: out, start, total };
}

const nonNullCounts = new WeakMap<SortOrder, number>();
function countNonNull(order: SortOrder): number {
  let count = nonNullCounts.get(order);
  if (count === undefined) {
    let lo = 0;
    let hi = order.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (order.key(order.members[mid] as number) !== null) lo = mid + 1;
      else hi = mid;
    }
    count = lo;
    nonNullCounts.set(order, count);
  }
  return count;
}
