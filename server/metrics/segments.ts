import { valueAt, valueChangeMonths } from './customerAttributes';
import type { Converter } from './currency';
import { monthOfDay } from './days';
import { pieceValueOn } from './mrr';
import { periodLastDay, periodOfDay, type Timeline } from './periods';
import type { MrrPieces } from './pieceColumns';
import { ITEM_TYPES } from './snapshot/rows';
import { type AccountSnapshot, type CustomerSegmentColumns } from './snapshot/columns';

/**
 * Segmenters (METRICS.md section 8) split a customer-level series into segments that add up
 * to the total:
 * - a customer attribute splits units: the value in force at each period's measure day
 *   applies (time-sensitive values move a customer between segments over time);
 * - a payment attribute (product, item type, currency, a custom payment attribute) splits a
 *   unit's MRR: each segment sees the unit's MRR inside it, so a move from product A to B is
 *   churn or contraction in A and new business or expansion in B, and the total nets them.
 * Raw values are grouped by mappings (raw value -> name), numeric buckets or a product list;
 * a value outside every group, or no value at all, falls into 'Other'.
 */

export const OTHER_SEGMENT = 'Other';

/** A raw value shown under a segment name. */
export interface ValueMapping {
  value: string;
  name: string;
}

/** A numeric range: [from, to], `to` null for "> from - 1" up to infinity; `name` empty for "from - to". */
export interface ValueBucket {
  name?: string | null;
  from: number;
  to: number | null;
}

export interface SegmentGrouping {
  mappings?: readonly ValueMapping[];
  buckets?: readonly ValueBucket[];
}

export type Segmenter =
  | ({ kind: 'customer_segment'; segmentId: string } & SegmentGrouping)
  | ({ kind: 'product'; products?: readonly string[] } & SegmentGrouping)
  | ({ kind: 'item_type' } & SegmentGrouping)
  | ({ kind: 'currency' } & SegmentGrouping)
  | ({ kind: 'payment_attribute'; attributeId: string } & SegmentGrouping);

export class SegmenterError extends Error {
  override name = 'SegmenterError';
}

/** Raw values (a dictionary) grouped into named segments. */
export interface ValueGroups {
  readonly names: readonly string[];
  /** Group of each raw value index. */
  readonly groupOfValue: Int32Array;
  /** Group of a missing value ('Other'). */
  readonly otherGroup: number;
}

export function bucketLabel(bucket: ValueBucket): string {
  if (bucket.name) return bucket.name;
  return bucket.to === null ? `> ${bucket.from - 1}` : `${bucket.from} - ${bucket.to}`;
}

/** A number in a bucket: from <= x < to + 1 (whole-number ranges, so 10.5 is in 0 - 10), or x >= from for the last. */
function bucketOf(buckets: readonly ValueBucket[], raw: string): number {
  const x = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(x)) return -1;
  return buckets.findIndex((bucket) => x >= bucket.from && (bucket.to === null || x < bucket.to + 1));
}

export function groupValues(raw: readonly string[], grouping: SegmentGrouping & { products?: readonly string[] }): ValueGroups {
  const groupOfValue = new Int32Array(raw.length);
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const group = (name: string): number => {
    let found = nameIndex.get(name);
    if (found === undefined) {
      found = names.length;
      names.push(name);
      nameIndex.set(name, found);
    }
    return found;
  };
  if (grouping.mappings && grouping.mappings.length > 0) {
    const byValue = new Map<string, string>();
    for (const mapping of grouping.mappings) {
      byValue.set(mapping.value, mapping.name);
      group(mapping.name);
    }
    raw.forEach((value, index) => (groupOfValue[index] = group(byValue.get(value) ?? OTHER_SEGMENT)));
  } else if (grouping.buckets && grouping.buckets.length > 0) {
    const buckets = grouping.buckets;
    const bucketGroups = buckets.map((bucket) => group(bucketLabel(bucket)));
    raw.forEach((value, index) => {
      const bucket = bucketOf(buckets, value);
      groupOfValue[index] = bucket >= 0 ? (bucketGroups[bucket] as number) : group(OTHER_SEGMENT);
    });
  } else if (grouping.products && grouping.products.length > 0) {
    for (const product of grouping.products) group(product);
    raw.forEach((value, index) => (groupOfValue[index] = nameIndex.get(value) ?? group(OTHER_SEGMENT)));
  } else {
    const sorted = [...new Set(raw)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const value of sorted) group(value === OTHER_SEGMENT ? OTHER_SEGMENT : value);
    raw.forEach((value, index) => (groupOfValue[index] = nameIndex.get(value) as number));
  }
  const otherGroup = group(OTHER_SEGMENT);
  // 'Other' is always last.
  if (otherGroup !== names.length - 1) {
    const other = names.splice(otherGroup, 1)[0] as string;
    names.push(other);
    for (let i = 0; i < groupOfValue.length; i++) {
      const g = groupOfValue[i] as number;
      groupOfValue[i] = g === otherGroup ? names.length - 1 : g > otherGroup ? g - 1 : g;
    }
    return { names, groupOfValue, otherGroup: names.length - 1 };
  }
  return { names, groupOfValue, otherGroup };
}

/** Group of a raw value index (-1 = no value). */
export function groupOf(groups: ValueGroups, valueIndex: number): number {
  return valueIndex < 0 ? groups.otherGroup : (groups.groupOfValue[valueIndex] as number);
}

// ------------------------------------------------------------------ payment attributes: rows per (unit, segment)

/** Group of every piece under a payment-attribute segmenter. */
export function pieceGroups(snapshot: AccountSnapshot, segmenter: Exclude<Segmenter, { kind: 'customer_segment' }>, pieces: MrrPieces): { groups: ValueGroups; groupOfPiece: Int32Array } {
  const { lines, records } = snapshot;
  const groupOfPiece = new Int32Array(pieces.count);
  let groups: ValueGroups;
  switch (segmenter.kind) {
    case 'product':
      groups = groupValues(snapshot.products.values, segmenter);
      for (let i = 0; i < pieces.count; i++) groupOfPiece[i] = groupOf(groups, lines.product[pieces.line[i] as number] as number);
      break;
    case 'item_type':
      groups = groupValues(ITEM_TYPES, segmenter);
      for (let i = 0; i < pieces.count; i++) groupOfPiece[i] = groupOf(groups, lines.type[pieces.line[i] as number] as number);
      break;
    case 'currency':
      groups = groupValues(snapshot.currencies.values, segmenter);
      for (let i = 0; i < pieces.count; i++) groupOfPiece[i] = groupOf(groups, records.currency[pieces.record[i] as number] as number);
      break;
    case 'payment_attribute': {
      const attribute = snapshot.payments.attributes.find((a) => a.id === segmenter.attributeId);
      if (!attribute) throw new SegmenterError(`unknown payment attribute '${segmenter.attributeId}'`);
      groups = groupValues(attribute.values, segmenter);
      for (let i = 0; i < pieces.count; i++) {
        const payment = records.payment[pieces.record[i] as number] as number;
        groupOfPiece[i] = groupOf(groups, attribute.valueOf[payment] as number);
      }
      break;
    }
  }
  return { groups, groupOfPiece };
}

// ------------------------------------------------------------------ customer attributes: a group per unit and period

export function findCustomerSegment(snapshot: AccountSnapshot, segmentId: string): CustomerSegmentColumns {
  const segment = snapshot.customerSegments.find((s) => s.id === segmentId);
  if (!segment) throw new SegmenterError(`unknown customer segment '${segmentId}'`);
  return segment;
}

/** The group of a unit at every position: the value in force in the month of the measure day. */
export class CustomerGroupResolver {
  readonly groups: ValueGroups;
  readonly segment: CustomerSegmentColumns;
  private readonly monthAt: Int32Array;

  constructor(
    private readonly snapshot: AccountSnapshot,
    segmenter: Extract<Segmenter, { kind: 'customer_segment' }>,
    timeline: Timeline,
  ) {
    this.segment = findCustomerSegment(snapshot, segmenter.segmentId);
    this.groups = groupValues(this.segment.values, segmenter);
    this.monthAt = Int32Array.from(timeline.measureDay, (day) => monthOfDay(day));
  }

  /** Writes the unit's group at positions [from, to). */
  fill(unit: number, out: Int32Array, from = 0, to = this.monthAt.length): void {
    const { segment, monthAt, groups } = this;
    const { customers } = this.snapshot;
    const source =
      segment.valueSource === 'children' || (segment.valueSource === 'parent_and_children' && (customers.parent[unit] as number) < 0)
        ? unit
        : segment.valueSource === 'parent'
          ? (customers.topParent[unit] as number)
          : -1;
    if (source >= 0) {
      // One customer's rows decide: walk them along the (ascending) months.
      const last = (segment.rowStart[source + 1] as number) - 1;
      let row = (segment.rowStart[source] as number) - 1;
      for (let t = from; t < to; t++) {
        const month = monthAt[t] as number;
        while (row < last && (segment.month[row + 1] as number) <= month) row++;
        out[t] = groupOf(groups, row >= (segment.rowStart[source] as number) ? (segment.value[row] as number) : -1);
      }
      return;
    }
    const changes = valueChangeMonths(segment, customers, unit);
    let next = 0;
    let group = groups.otherGroup;
    for (let t = from; t < to; t++) {
      const month = monthAt[t] as number;
      if (next < changes.length && (changes[next] as number) <= month) {
        while (next < changes.length && (changes[next] as number) <= month) next++;
        group = groupOf(groups, valueAt(segment, customers, unit, month));
      }
      out[t] = group;
    }
  }
}

/**
 * (unit, group) pairs in which a unit held MRR at a period end before the timeline, keyed
 * unit * groupCount + group: so that a unit returning to a segment it paid in before the
 * report range is a reactivation there, not new business.
 */
export function customerGroupsPaidBefore(
  snapshot: AccountSnapshot,
  segment: CustomerSegmentColumns,
  groups: ValueGroups,
  pieces: MrrPieces,
  timeline: Timeline,
  converter: Converter,
): Set<number> {
  const paid = new Set<number>();
  const { resolution, firstIndex } = timeline;
  const firstDay = timeline.length > 0 ? (timeline.firstDay[0] as number) : 0;
  const groupCount = groups.names.length;
  for (let i = 0; i < pieces.count; i++) {
    const start = pieces.start[i] as number;
    if (start >= firstDay) continue;
    const end = pieces.end[i] as number;
    const unit = pieces.unit[i] as number;
    for (let period = periodOfDay(resolution, start); period < firstIndex; period++) {
      const measure = periodLastDay(resolution, period);
      if (measure >= end) break;
      if (!(pieceValueOn(pieces, snapshot.records, converter, i, measure) > 0)) continue;
      paid.add(unit * groupCount + groupOf(groups, valueAt(segment, snapshot.customers, unit, monthOfDay(measure))));
    }
  }
  return paid;
}
