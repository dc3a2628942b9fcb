import type { Converter } from '../currency';
import type { ReportFilter } from '../filters';
import { addMonths, wholeMonthsBetween } from '../days';
import { roundHalfEven } from '../money';
import type { Timeline } from '../periods';
import { CustomerGroupResolver, groupOf, groupValues, type Segmenter } from '../segments';
import type { MetricsSettings } from '../settings';
import { ITEM_METERED, ITEM_ONE_TIME, ITEM_RECURRING, ITEM_TYPES } from '../snapshot/rows';
import { type AccountSnapshot } from '../snapshot/columns';
import { buildLinePieces } from './linePieces';
import { dayIndexOf, type DayIndex } from './plan';

/**
 * Revenue flows (METRICS.md section 7) from payment lines, in minor units of the report
 * currency:
 * - on the start day: one_time (one-time item totals), booked (every item total), units_sold
 *   (item quantities, every item type);
 * - spread over the days a payment covers: recognized (recurring item totals, metered too when
 *   the account counts metered in MRR, plus one-time totals on their start day) and usage
 *   (metered item totals).
 * A line's total is the payment's total split evenly between its items (snapshot/finish.ts).
 * Spreading is by day with cumulative rounding: by day x a line of total T over [s, e) has
 * recognized round(T * (x - s) / (e - s)), so the portions of any periods are whole minor
 * units that add up to T exactly whatever the resolution. An open-ended payment (no end yet)
 * recognizes its monthly amount for each service month from its start (start + k months), spread
 * over that month's days the same way, and books nothing (its total is unknown until it ends:
 * booked and one-time revenue count it once it has an end). The current period counts up to
 * today. Each portion converts on its own, at the rate of the record's start day (or of the
 * period's measure day for the other rate sources), rounded half to even.
 *
 * Revenue reads the current payment rows (deleted ones left out) under both corrections
 * settings: a correction restates revenue; when_occurred keeps history for MRR only. The
 * report filter applies exactly as to MRR (definitions/linePieces.ts).
 */

export type RevenueKind = 'one_time' | 'booked' | 'recognized' | 'usage' | 'units_sold';

export interface RevenueContext {
  timeline: Timeline;
  converter: Converter;
  settings: MetricsSettings;
  useHierarchy: boolean;
  filter: ReportFilter | null;
}

/** Recognized amount of a line of total `total` over [start, end) by day `day` (exclusive). */
export function recognizedBy(total: number, start: number, end: number, day: number): number {
  if (day <= start) return 0;
  if (day >= end) return total;
  return roundHalfEven((total * (day - start)) / (end - start));
}

/**
 * Recognized amount of an open-ended line of `monthly` a month from `start` by day `day`
 * (exclusive): each service month [start + k months, start + k + 1 months) (day clamped)
 * recognizes the monthly amount, spread over its days like a one-month payment.
 */
export function recognizedOpenBy(monthly: number, start: number, day: number): number {
  if (day <= start) return 0;
  const k = wholeMonthsBetween(start, day);
  const from = addMonths(start, k);
  return k * monthly + recognizedBy(monthly, from, addMonths(start, k + 1), day);
}

/**
 * Converts one line's revenue onto a timeline: on its record's start day, or spread over the
 * days [from, to) of its coverage, clipped to today.
 */
export class LineRevenue {
  private readonly index: DayIndex;
  private readonly lastDay: number;

  constructor(
    private readonly snapshot: AccountSnapshot,
    private readonly converter: Converter,
    private readonly timeline: Timeline,
  ) {
    this.index = dayIndexOf(timeline);
    const P = timeline.length;
    this.lastDay = P > 0 ? Math.min(timeline.lastDay[P - 1] as number, timeline.today) : -1;
  }

  /** The record's start-day amount of the line: calls visit(position, amount) at most once. */
  onStartDay(record: number, line: number, visit: (position: number, amount: number) => void): void {
    const { records, lines } = this.snapshot;
    const start = records.startDay[record] as number;
    const offset = start - this.index.base;
    if (start > this.lastDay || offset < 0) return;
    const currency = records.currency[record] as number;
    visit(this.index.table[offset] as number, roundHalfEven((lines.total[line] as number) * this.converter.factor(currency, this.converter.rateDay(start, start))));
  }

  /** The portions of [from, to) the line recognizes in each period. */
  spread(record: number, line: number, from: number, to: number, visit: (position: number, amount: number) => void): void {
    const { records, lines } = this.snapshot;
    const { timeline, converter } = this;
    const end = Math.min(to, this.lastDay + 1);
    const begin = Math.max(from, this.index.base);
    if (begin >= end) return;
    const recordStart = records.startDay[record] as number;
    const recordEnd = records.endDay[record] as number;
    const currency = records.currency[record] as number;
    const open = records.openEnded[record] === 1;
    const total = lines.total[line] as number;
    const monthly = lines.monthly[line] as number;
    const by = (day: number) => (open ? recognizedOpenBy(monthly, recordStart, day) : recognizedBy(total, recordStart, recordEnd, day));
    for (let t = this.index.table[begin - this.index.base] as number; t < timeline.length && (timeline.firstDay[t] as number) < end; t++) {
      const a = Math.max(begin, timeline.firstDay[t] as number);
      const b = Math.min(end, (timeline.lastDay[t] as number) + 1);
      const portion = by(b) - by(a);
      if (portion !== 0) visit(t, roundHalfEven(portion * converter.factor(currency, converter.rateDay(recordStart, timeline.measureDay[t] as number))));
    }
  }
}

/** One unit's revenue of one kind (its index in the kinds asked for) in one cell: `amount` in report minor units (item quantity for units_sold), and the line. */
export type RevenueVisitor = (kind: number, unit: number, group: number, position: number, amount: number, quantity: number, line: number) => void;

type LineTest = (itemType: number) => boolean;

/** Which lines count on their start day, and which are spread over their coverage. */
function lineTests(kind: RevenueKind, settings: MetricsSettings): { start: LineTest | null; spread: LineTest | null } {
  const metered = settings.includeMeteredInMrr;
  switch (kind) {
    case 'one_time':
      return { start: (type) => type === ITEM_ONE_TIME, spread: null };
    case 'booked':
    case 'units_sold':
      return { start: () => true, spread: null };
    case 'recognized':
      return { start: (type) => type === ITEM_ONE_TIME, spread: (type) => type === ITEM_RECURRING || (metered && type === ITEM_METERED) };
    case 'usage':
      return { start: null, spread: (type) => type === ITEM_METERED };
  }
}

/** The segment of a line under a payment-attribute segmenter. */
function lineGrouper(snapshot: AccountSnapshot, segmenter: Exclude<Segmenter, { kind: 'customer_segment' }>): { names: readonly string[]; groupOfLine: (record: number, line: number) => number } {
  const { lines, records } = snapshot;
  switch (segmenter.kind) {
    case 'product': {
      const groups = groupValues(snapshot.products.values, segmenter);
      return { names: groups.names, groupOfLine: (_r, l) => groupOf(groups, lines.product[l] as number) };
    }
    case 'item_type': {
      const groups = groupValues(ITEM_TYPES, segmenter);
      return { names: groups.names, groupOfLine: (_r, l) => groupOf(groups, lines.type[l] as number) };
    }
    case 'currency': {
      const groups = groupValues(snapshot.currencies.values, segmenter);
      return { names: groups.names, groupOfLine: (r) => groupOf(groups, records.currency[r] as number) };
    }
    case 'payment_attribute': {
      const attribute = snapshot.payments.attributes.find((a) => a.id === segmenter.attributeId);
      const groups = groupValues(attribute ? attribute.values : [], segmenter);
      return { names: groups.names, groupOfLine: (r) => groupOf(groups, attribute ? (attribute.valueOf[records.payment[r] as number] as number) : -1) };
    }
  }
}

/** Records in counted-unit order (records are sorted by customer; use_hierarchy groups them by top-most parent). */
function recordsByUnit(snapshot: AccountSnapshot, useHierarchy: boolean): { order: Int32Array | null; unitOf: (record: number) => number } {
  const { records, customers } = snapshot;
  if (!useHierarchy) return { order: null, unitOf: (r) => records.customer[r] as number };
  const unitOf = (r: number) => customers.topParent[records.customer[r] as number] as number;
  const slots = new Int32Array(customers.count + 1);
  for (let r = 0; r < records.count; r++) slots[unitOf(r) + 1] = (slots[unitOf(r) + 1] as number) + 1;
  for (let u = 0; u < customers.count; u++) slots[u + 1] = (slots[u + 1] as number) + (slots[u] as number);
  const order = new Int32Array(records.count);
  for (let r = 0; r < records.count; r++) {
    const u = unitOf(r);
    order[slots[u] as number] = r;
    slots[u] = (slots[u] as number) + 1;
  }
  return { order, unitOf };
}

/**
 * Visits every (kind, unit, group, position) contribution of some revenue kinds in one walk
 * over the lines, unit by unit (so a caller can count distinct units per cell). Returns the
 * segment names (['Total'] without a segmenter).
 */
export function visitRevenue(snapshot: AccountSnapshot, kinds: readonly RevenueKind[], context: RevenueContext, segmenter: Segmenter | null, visit: RevenueVisitor): readonly string[] {
  const { timeline } = context;
  const { records, lines, customers } = snapshot;
  const P = timeline.length;
  const resolver = segmenter && segmenter.kind === 'customer_segment' ? new CustomerGroupResolver(snapshot, segmenter, timeline) : null;
  const grouper = segmenter && segmenter.kind !== 'customer_segment' ? lineGrouper(snapshot, segmenter) : null;
  const names = resolver ? resolver.groups.names : grouper ? grouper.names : ['Total'];
  // Per item type: the kinds that count it on its start day, and those that spread it.
  const tests = kinds.map((kind) => lineTests(kind, context.settings));
  const startKinds = ITEM_TYPES.map((_, type) => kinds.flatMap((_kind, k) => (tests[k]?.start?.(type) ? [k] : [])));
  const spreadKinds = ITEM_TYPES.map((_, type) => kinds.flatMap((_kind, k) => (tests[k]?.spread?.(type) ? [k] : [])));
  const quantityKind = kinds.map((kind) => kind === 'units_sold');
  const walker = new LineRevenue(snapshot, context.converter, timeline);
  const groupAt = new Int32Array(P);
  let resolvedUnit = -1;
  let fixedGroup = 0;
  let unit = -1;
  let line = -1;
  let quantity = 0;
  let targets: number[] = [];
  const emit = (t: number, amount: number) => {
    if (resolver && resolvedUnit !== unit) {
      resolver.fill(unit, groupAt);
      resolvedUnit = unit;
    }
    const group = resolver ? (groupAt[t] as number) : fixedGroup;
    for (const k of targets) visit(k, unit, group, t, quantityKind[k] ? quantity : amount, quantity, line);
  };
  const eachLine = (r: number, l: number, from: number, to: number, spread: boolean) => {
    const type = lines.type[l] as number;
    targets = (spread ? spreadKinds : startKinds)[type] as number[];
    if (targets.length === 0) return;
    line = l;
    quantity = lines.quantity[l] as number;
    fixedGroup = grouper ? grouper.groupOfLine(r, l) : 0;
    if (spread) walker.spread(r, l, from, to, emit);
    else walker.onStartDay(r, l, emit);
  };

  if (context.filter && context.filter.criteria.length > 0) {
    // The filter cuts lines into the days that match: walk its pieces.
    const keepStart = (type: number) => (startKinds[type] as number[]).length > 0;
    const keepSpread = (type: number) => (spreadKinds[type] as number[]).length > 0;
    const base = { useHierarchy: context.useHierarchy, filter: context.filter, handling: 'change_original' as const };
    const sets = [
      { spread: false, pieces: buildLinePieces(snapshot, { ...base, keep: keepStart, span: 'start' }) },
      { spread: true, pieces: buildLinePieces(snapshot, { ...base, keep: keepSpread, span: 'coverage' }) },
    ];
    for (unit = 0; unit < customers.count; unit++) {
      for (const { spread, pieces } of sets) {
        for (let i = pieces.unitStart[unit] as number; i < (pieces.unitStart[unit + 1] as number); i++) eachLine(pieces.record[i] as number, pieces.line[i] as number, pieces.start[i] as number, pieces.end[i] as number, spread);
      }
    }
    return names;
  }

  const { order, unitOf } = recordsByUnit(snapshot, context.useHierarchy);
  for (let k = 0; k < records.count; k++) {
    const r = order ? (order[k] as number) : k;
    if (records.current[r] !== 1 || records.deleted[r] === 1 || customers.included[records.customer[r] as number] !== 1) continue;
    unit = unitOf(r);
    for (let l = records.lineStart[r] as number; l < (records.lineStart[r + 1] as number); l++) {
      const type = lines.type[l] as number;
      if ((startKinds[type] as number[]).length > 0) eachLine(r, l, 0, 0, false);
      if ((spreadKinds[type] as number[]).length > 0) eachLine(r, l, records.startDay[r] as number, records.endDay[r] as number, true);
    }
  }
  return names;
}

/** Per group g and position t (index g * P + t): revenue, units with revenue, quantities. */
export interface RevenueSums {
  names: readonly string[];
  value: Float64Array;
  count: Float64Array;
  quantity: Float64Array;
}

/** The sums of several revenue kinds from one walk, in the order asked. */
export function revenueSums(snapshot: AccountSnapshot, kinds: readonly RevenueKind[], context: RevenueContext, segmenter: Segmenter | null): RevenueSums[] {
  const P = context.timeline.length;
  const G = segmenter === null ? 1 : segmenter.kind === 'customer_segment' ? new CustomerGroupResolver(snapshot, segmenter, context.timeline).groups.names.length : lineGrouper(snapshot, segmenter).names.length;
  const cells = G * P;
  const sums = kinds.map(() => ({ value: new Float64Array(cells), count: new Float64Array(cells), quantity: new Float64Array(cells), lastUnit: new Int32Array(cells).fill(-1) }));
  const names = visitRevenue(snapshot, kinds, context, segmenter, (k, unit, group, t, amount, quantity) => {
    const cell = group * P + t;
    const out = sums[k] as (typeof sums)[number];
    out.value[cell] = (out.value[cell] as number) + amount;
    out.quantity[cell] = (out.quantity[cell] as number) + quantity;
    if (amount !== 0 && out.lastUnit[cell] !== unit) {
      out.lastUnit[cell] = unit;
      out.count[cell] = (out.count[cell] as number) + 1;
    }
  });
  return sums.map(({ value, count, quantity }) => ({ names, value, count, quantity }));
}
