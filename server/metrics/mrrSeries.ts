import { createConverter } from './currency';
import { isoFromDay } from './days';
import type { ReportFilter } from './filters';
import { MovementAccumulator, type MovementBuffers } from './movements';
import { MrrRowBuilder, createMrrRow, type MrrMatrix, type MrrRow } from './mrr';
import { buildTimeline, type ReportRange, type Resolution, type Timeline } from './periods';
import type { MrrPieces } from './pieceColumns';
import { buildMrrPieces } from './pieces';
import { CustomerGroupResolver, customerGroupsPaidBefore, pieceGroups, type Segmenter } from './segments';
import { resolveMetricsSettings, type MetricsSettings, type ReportSettingsInput } from './settings';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * MRR and its movements for a report range, for the total and every requested segmenter, in
 * one pass over the units: each unit's MRR row is built once (and once more per segment of a
 * payment attribute it is split between) and classified into every series at once. Pure: the
 * snapshot and the request in, plain series out.
 */
export interface MrrSeriesRequest {
  resolution: Resolution;
  range: ReportRange;
  /** Day number of today: the current period is measured on it (never read from the clock here). */
  today: number;
  reportSettings?: ReportSettingsInput;
  useHierarchy?: boolean;
  filter?: ReportFilter | null;
  segmenters?: readonly Segmenter[];
  /** Periods before the range to compute as well (default 1: the first period's "before"). */
  lookback?: number;
  /** Also return every unit's MRR at every position (drill-down, cohorts); costs units x periods memory. */
  keepMatrix?: boolean;
  /**
   * Called with every unit's MRR row (over the whole timeline, lookback included) during the
   * one pass, so per-unit figures (cohorts, retention) need neither a second pass nor the
   * matrix. The row is reused for the next unit: read it, do not keep it.
   */
  onUnitRow?: (unit: number, row: MrrRow) => void;
}

export interface PeriodInfo {
  label: string;
  firstDay: string;
  lastDay: string;
  /** The day the period's stocks are measured: its last day, or today for the current period. */
  measureDay: string;
  current: boolean;
}

/** One segment's series, one number per period of the range; money in minor units of the report currency. */
export interface SegmentSeries {
  name: string;
  isTotal: boolean;
  mrr: number[];
  /** Units with MRR > 0 at the period's measure day. */
  customers: number[];
  newBusiness: number[];
  expansion: number[];
  reactivation: number[];
  contraction: number[];
  churn: number[];
  /** Only with match_movements_by_currency. */
  fxAdjustment: number[] | null;
  /** mrr - mrr of the period before = new + expansion + reactivation - contraction - churn + fx. */
  netChange: number[];
  newCustomers: number[];
  expansionCustomers: number[];
  reactivatedCustomers: number[];
  contractionCustomers: number[];
  churnedCustomers: number[];
}

export interface Segmentation {
  segmenter: Segmenter;
  segments: SegmentSeries[];
}

export interface MrrSeriesResult {
  settings: MetricsSettings;
  periods: PeriodInfo[];
  total: SegmentSeries;
  segmentations: Segmentation[];
  /** Every unit's MRR at every position of the timeline, when requested with keepMatrix. */
  matrix: MrrMatrix | null;
  pieces: MrrPieces;
  timeline: Timeline;
}

export const TOTAL_SEGMENT = 'Total';

interface CustomerSplit {
  segmenter: Segmenter;
  resolver: CustomerGroupResolver;
  accumulator: MovementAccumulator;
  paidBeforeTimeline: Set<number>;
  groupAt: Int32Array;
}

interface PaymentSplit {
  segmenter: Segmenter;
  names: readonly string[];
  groupOfPiece: Int32Array;
  accumulator: MovementAccumulator;
}

export function computeMrrSeries(snapshot: AccountSnapshot, request: MrrSeriesRequest): MrrSeriesResult {
  const settings = resolveMetricsSettings(snapshot.account, request.reportSettings);
  const timeline = buildTimeline({ resolution: request.resolution, range: request.range, today: request.today, lookback: request.lookback ?? 1 });
  const converter = createConverter(snapshot, settings);
  const pieces = buildMrrPieces(snapshot, { settings, useHierarchy: request.useHierarchy === true, today: request.today, filter: request.filter ?? null });
  const P = timeline.length;
  const withOrig = settings.matchMovementsByCurrency;
  const movementOptions = { matchMovementsByCurrency: withOrig, reportCurrency: converter.reportCurrency };
  const builder = new MrrRowBuilder(pieces, snapshot.records, timeline, converter, withOrig);
  const total = new MovementAccumulator(1, P, movementOptions);
  const matrix: MrrMatrix | null = request.keepMatrix ? { timeline, units: pieces.unitCount, periods: P, value: new Float64Array(pieces.unitCount * P) } : null;

  const customerSplits: CustomerSplit[] = [];
  const paymentSplits: PaymentSplit[] = [];
  const order: (CustomerSplit | PaymentSplit)[] = [];
  for (const segmenter of request.segmenters ?? []) {
    if (segmenter.kind === 'customer_segment') {
      const resolver = new CustomerGroupResolver(snapshot, segmenter, timeline);
      const split: CustomerSplit = {
        segmenter,
        resolver,
        accumulator: new MovementAccumulator(resolver.groups.names.length, P, movementOptions),
        paidBeforeTimeline: customerGroupsPaidBefore(snapshot, resolver.segment, resolver.groups, pieces, timeline, converter),
        groupAt: new Int32Array(P),
      };
      customerSplits.push(split);
      order.push(split);
    } else {
      const { groups, groupOfPiece } = pieceGroups(snapshot, segmenter, pieces);
      const split: PaymentSplit = { segmenter, names: groups.names, groupOfPiece, accumulator: new MovementAccumulator(groups.names.length, P, movementOptions) };
      paymentSplits.push(split);
      order.push(split);
    }
  }

  const row = createMrrRow(P);
  const segmentRow = createMrrRow(P);
  let list = new Int32Array(64);
  const groupsSeen: number[] = [];
  for (let unit = 0; unit < pieces.unitCount; unit++) {
    const first = pieces.unitStart[unit] as number;
    const last = pieces.unitStart[unit + 1] as number;
    if (first === last) continue;
    builder.fill(row, null, first, last);
    matrix?.value.set(row.value, unit * P);
    request.onUnitRow?.(unit, row);
    total.addRow(row, 0);
    for (const split of customerSplits) {
      // The accumulator reads groups at [lo - 1, hi] only.
      split.resolver.fill(unit, split.groupAt, Math.max(0, row.lo - 1), Math.min(P, row.hi + 1));
      split.accumulator.addRowByPosition(row, split.groupAt, split.paidBeforeTimeline, unit * split.resolver.groups.names.length);
    }
    for (const split of paymentSplits) {
      // The unit's MRR inside each segment it has pieces in; one segment is the whole row.
      const { groupOfPiece } = split;
      const firstGroup = groupOfPiece[first] as number;
      let single = true;
      for (let i = first + 1; i < last && single; i++) single = groupOfPiece[i] === firstGroup;
      if (single) {
        split.accumulator.addRow(row, firstGroup);
        continue;
      }
      if (list.length < last - first) list = new Int32Array(last - first);
      groupsSeen.length = 0;
      for (let i = first; i < last; i++) {
        const g = groupOfPiece[i] as number;
        if (!groupsSeen.includes(g)) groupsSeen.push(g);
      }
      for (const g of groupsSeen) {
        let n = 0;
        for (let i = first; i < last; i++) if (groupOfPiece[i] === g) list[n++] = i;
        builder.fill(segmentRow, list, 0, n);
        split.accumulator.addRow(segmentRow, g);
      }
    }
  }

  const series = (buffers: MovementBuffers, group: number, name: string, isTotal: boolean) => toSeries(buffers, group, name, isTotal, timeline, withOrig);
  const segmentations = order.map(
    (split): Segmentation => ({
      segmenter: split.segmenter,
      segments: ('resolver' in split ? split.resolver.groups.names : split.names).map((name, g) => series(split.accumulator.buffers, g, name, false)),
    }),
  );
  const periods: PeriodInfo[] = [];
  for (let t = timeline.rangeStart; t < timeline.length; t++) {
    periods.push({
      label: timeline.labels[t] as string,
      firstDay: isoFromDay(timeline.firstDay[t] as number),
      lastDay: isoFromDay(timeline.lastDay[t] as number),
      measureDay: isoFromDay(timeline.measureDay[t] as number),
      current: t === timeline.currentPosition,
    });
  }
  return { settings, periods, total: series(total.buffers, 0, TOTAL_SEGMENT, true), segmentations, matrix, pieces, timeline };
}

function toSeries(buffers: MovementBuffers, group: number, name: string, isTotal: boolean, timeline: Timeline, withFx: boolean): SegmentSeries {
  const P = buffers.periods;
  const from = timeline.rangeStart;
  const slice = (column: Float64Array) => Array.from(column.subarray(group * P + from, group * P + P));
  const mrr = slice(buffers.mrr);
  const netChange = mrr.map((value, k) => value - (from + k > 0 ? (buffers.mrr[group * P + from + k - 1] as number) : 0));
  return {
    name,
    isTotal,
    mrr,
    customers: slice(buffers.customers),
    newBusiness: slice(buffers.newBusiness),
    expansion: slice(buffers.expansion),
    reactivation: slice(buffers.reactivation),
    contraction: slice(buffers.contraction),
    churn: slice(buffers.churn),
    fxAdjustment: withFx ? slice(buffers.fxAdjustment) : null,
    netChange,
    newCustomers: slice(buffers.newCount),
    expansionCustomers: slice(buffers.expansionCount),
    reactivatedCustomers: slice(buffers.reactivationCount),
    contractionCustomers: slice(buffers.contractionCount),
    churnedCustomers: slice(buffers.churnCount),
  };
}
