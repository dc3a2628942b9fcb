import { createConverter, type Converter } from '../currency';
import type { ReportFilter } from '../filters';
import type { MrrRow } from '../mrr';
import { computeMrrSeries, type MrrSeriesResult, type SegmentSeries } from '../mrrSeries';
import { buildTimeline, dayPositions, positionAtOrAfter, type ReportRange, type Resolution, type Timeline } from '../periods';
import { CustomerGroupResolver, pieceGroups, type Segmenter } from '../segments';
import type { ReportSettingsInput } from '../settings';
import type { AccountSnapshot } from '../snapshot/columns';
import { buildFreemiumPieces, type FreemiumPieces } from './freemium';
import { extendRange } from './plan';
import { TOTAL_SEGMENTER_ID } from './segmenters';
import { newMrrWhenOccurred, runStartAt } from './unitFigures';

/**
 * One pass of the MRR engine shared by every MRR-based section of a report with the same
 * resolution, hierarchy, settings, filter and range: all their segmenters at once, the range
 * extended by the longest look-back any of them needs, and per-unit figures (cohorts,
 * trailing retention, free customers) collected from each unit's row during the pass.
 */

export interface MrrRunParams {
  resolution: Resolution;
  useHierarchy: boolean;
  settings: ReportSettingsInput;
  filter: ReportFilter | null;
  range: ReportRange;
  today: number;
}

/** What the sections sharing a run need from it. Keys: TOTAL_SEGMENTER_ID or a segmenter's key. */
export interface MrrRunNeeds {
  lookback: number;
  segmenters: Map<string, Segmenter>;
  cohorts: Set<string>;
  /** Trailing retention over this many periods. */
  retentionPeriods: number;
  retention: Set<string>;
  freemium: Set<string>;
  quantities: Set<string>;
}

export function emptyNeeds(): MrrRunNeeds {
  return { lookback: 1, segmenters: new Map(), cohorts: new Set(), retentionPeriods: 0, retention: new Set(), freemium: new Set(), quantities: new Set() };
}

/** Per group g, cohort position c and position t (all timeline positions): index (g * P + c) * P + t. */
export interface CohortTable {
  readonly names: readonly string[];
  readonly periods: number;
  /** MRR at t of the units whose cohort is c. */
  readonly amount: Float64Array;
  /** Units of cohort c paying at t. */
  readonly count: Float64Array;
  /** Per (g, c): the cohort's new MRR when it occurred, and its size. */
  readonly initialAmount: Float64Array;
  readonly initialCount: Float64Array;
}

/** Per group g and position t (index g * P + t), over the units paying at t - L (their group then). */
export interface RetentionSums {
  readonly names: readonly string[];
  readonly then: Float64Array;
  readonly now: Float64Array;
  /** Sum of min(now, then). */
  readonly kept: Float64Array;
  readonly count: Float64Array;
}

/** Per group g and position t (index g * P + t). */
export interface FreemiumSums {
  readonly names: readonly string[];
  /** Units with freemium coverage at t and MRR 0. */
  readonly free: Float64Array;
  /** New customers at t whose freemium started before their paid run, and their new MRR. */
  readonly converted: Float64Array;
  readonly convertedMrr: Float64Array;
}

export interface MrrRun {
  readonly result: MrrSeriesResult;
  readonly timeline: Timeline;
  readonly converter: Converter;
  /** The segments of a key: [total] for TOTAL_SEGMENTER_ID. */
  segments(key: string): readonly SegmentSeries[];
  readonly cohorts: ReadonlyMap<string, CohortTable>;
  readonly retention: ReadonlyMap<string, RetentionSums>;
  readonly freemium: ReadonlyMap<string, FreemiumSums>;
  /** Item quantities paying at each position, per group (index g * P + t). */
  readonly quantities: ReadonlyMap<string, Float64Array>;
}

interface UnitCollector {
  add(unit: number, row: MrrRow): void;
}

function groupResolver(snapshot: AccountSnapshot, segmenter: Segmenter | undefined, timeline: Timeline): CustomerGroupResolver | null {
  return segmenter && segmenter.kind === 'customer_segment' ? new CustomerGroupResolver(snapshot, segmenter, timeline) : null;
}

/** First position with MRR of a unit that never held MRR at a period end before the timeline; -1 otherwise. */
export function cohortPosition(row: MrrRow): number {
  if (row.paidBeforeTimeline) return -1;
  for (let t = row.lo; t < row.hi; t++) if ((row.value[t] as number) > 0) return t;
  return -1;
}

class CohortCollector implements UnitCollector {
  readonly table: CohortTable;
  readonly members: { unit: number; cohort: number; group: number }[] = [];
  private readonly groupAt: Int32Array;

  constructor(
    names: readonly string[],
    private readonly P: number,
    private readonly from: number,
    private readonly resolver: CustomerGroupResolver | null,
  ) {
    const G = names.length;
    this.table = {
      names,
      periods: P,
      amount: new Float64Array(G * P * P),
      count: new Float64Array(G * P * P),
      initialAmount: new Float64Array(G * P),
      initialCount: new Float64Array(G * P),
    };
    this.groupAt = new Int32Array(P);
  }

  add(unit: number, row: MrrRow): void {
    const c = cohortPosition(row);
    if (c < this.from) return;
    let group = 0;
    if (this.resolver) {
      this.resolver.fill(unit, this.groupAt, c, c + 1);
      group = this.groupAt[c] as number;
    }
    const { P } = this;
    const base = (group * P + c) * P;
    const { amount, count } = this.table;
    for (let t = c; t < row.hi; t++) {
      const value = row.value[t] as number;
      if (value > 0) {
        amount[base + t] = (amount[base + t] as number) + value;
        count[base + t] = (count[base + t] as number) + 1;
      }
    }
    this.members.push({ unit, cohort: c, group });
  }
}

class RetentionCollector implements UnitCollector {
  readonly sums: RetentionSums;
  private readonly groupAt: Int32Array;

  constructor(
    names: readonly string[],
    private readonly P: number,
    private readonly L: number,
    private readonly resolver: CustomerGroupResolver | null,
  ) {
    const make = () => new Float64Array(names.length * P);
    this.sums = { names, then: make(), now: make(), kept: make(), count: make() };
    this.groupAt = new Int32Array(P);
  }

  add(unit: number, row: MrrRow): void {
    const { P, L, resolver, groupAt } = this;
    const last = Math.min(row.hi, P - L);
    if (row.lo >= last) return;
    if (resolver) resolver.fill(unit, groupAt, row.lo, last);
    const { then, now, kept, count } = this.sums;
    for (let s = row.lo; s < last; s++) {
      const before = row.value[s] as number;
      if (!(before > 0)) continue;
      const after = row.value[s + L] as number;
      const cell = (resolver ? (groupAt[s] as number) : 0) * P + s + L;
      then[cell] = (then[cell] as number) + before;
      now[cell] = (now[cell] as number) + after;
      kept[cell] = (kept[cell] as number) + Math.min(before, after);
      count[cell] = (count[cell] as number) + 1;
    }
  }
}

/** Remembers which positions the units with a freemium item paid at, and their cohort. */
class PayingRecorder implements UnitCollector {
  readonly paying = new Map<number, Uint8Array>();
  /** Cohort position and MRR there (the new business) of the units that became customers on the timeline. */
  readonly cohort = new Map<number, { position: number; mrr: number }>();

  constructor(
    private readonly freemium: FreemiumPieces,
    private readonly P: number,
  ) {}

  add(unit: number, row: MrrRow): void {
    if (this.freemium.unitStart[unit] === this.freemium.unitStart[unit + 1]) return;
    const flags = new Uint8Array(this.P);
    for (let t = row.lo; t < row.hi; t++) if ((row.value[t] as number) > 0) flags[t] = 1;
    this.paying.set(unit, flags);
    const c = cohortPosition(row);
    if (c > 0) this.cohort.set(unit, { position: c, mrr: row.value[c] as number });
  }
}

export function runMrr(snapshot: AccountSnapshot, params: MrrRunParams, needs: MrrRunNeeds): MrrRun {
  const { resolution, today } = params;
  const range = extendRange(resolution, params.range, needs.lookback);
  const timeline = buildTimeline({ resolution, range, today, lookback: 1 });
  const P = timeline.length;
  const keys = [...needs.segmenters.keys()];
  const segmenterOf = (key: string) => needs.segmenters.get(key);
  const namesOf = (key: string, resolver: CustomerGroupResolver | null): readonly string[] => {
    if (key === TOTAL_SEGMENTER_ID) return ['Total'];
    if (resolver) return resolver.groups.names;
    throw new Error(`per-unit figures need a customer segmenter, not '${key}'`);
  };

  const collectors: UnitCollector[] = [];
  const cohortCollectors = new Map<string, CohortCollector>();
  for (const key of needs.cohorts) {
    const resolver = groupResolver(snapshot, segmenterOf(key), timeline);
    const collector = new CohortCollector(namesOf(key, resolver), P, 1, resolver);
    cohortCollectors.set(key, collector);
    collectors.push(collector);
  }
  const retentionCollectors = new Map<string, RetentionCollector>();
  if (needs.retentionPeriods > 0) {
    for (const key of needs.retention) {
      const resolver = groupResolver(snapshot, segmenterOf(key), timeline);
      const collector = new RetentionCollector(namesOf(key, resolver), P, needs.retentionPeriods, resolver);
      retentionCollectors.set(key, collector);
      collectors.push(collector);
    }
  }
  const settingsForPieces = { useHierarchy: params.useHierarchy, filter: params.filter };
  let freemiumPieces: FreemiumPieces | null = null;
  let recorder: PayingRecorder | null = null;
  if (needs.freemium.size > 0) {
    freemiumPieces = buildFreemiumPieces(snapshot, { ...settingsForPieces, settings: params.settings });
    recorder = new PayingRecorder(freemiumPieces, P);
    collectors.push(recorder);
  }

  const result = computeMrrSeries(snapshot, {
    resolution,
    range,
    today,
    reportSettings: params.settings,
    useHierarchy: params.useHierarchy,
    filter: params.filter,
    segmenters: keys.map((key) => needs.segmenters.get(key) as Segmenter),
    onUnitRow: collectors.length === 0 ? undefined : (unit, row) => collectors.forEach((collector) => collector.add(unit, row)),
  });
  const converter = createConverter(snapshot, result.settings);
  const { pieces } = result;

  const cohorts = new Map<string, CohortTable>();
  const initials = new Map<number, number>();
  const initialOf = (unit: number, cohort: number) => {
    let mrr = initials.get(unit);
    if (mrr === undefined) {
      mrr = newMrrWhenOccurred(snapshot, pieces, converter, unit, timeline.measureDay[cohort] as number).mrr;
      initials.set(unit, mrr);
    }
    return mrr;
  };
  for (const [key, collector] of cohortCollectors) {
    const { table } = collector;
    for (const member of collector.members) {
      const cell = member.group * P + member.cohort;
      table.initialAmount[cell] = (table.initialAmount[cell] as number) + initialOf(member.unit, member.cohort);
      table.initialCount[cell] = (table.initialCount[cell] as number) + 1;
    }
    cohorts.set(key, table);
  }

  const freemium = new Map<string, FreemiumSums>();
  if (freemiumPieces && recorder) {
    for (const key of needs.freemium) {
      const resolver = groupResolver(snapshot, segmenterOf(key), timeline);
      const runStart = (unit: number, c: number) => runStartAt(pieces, unit, timeline.measureDay[c] as number);
      freemium.set(key, freemiumSums(freemiumPieces, recorder, resolver, namesOf(key, resolver), timeline, runStart));
    }
  }

  const quantities = new Map<string, Float64Array>();
  for (const key of needs.quantities) quantities.set(key, quantitySeries(snapshot, result, segmenterOf(key), timeline));

  const segmentIndex = new Map(keys.map((key, k) => [key, k]));
  return {
    result,
    timeline,
    converter,
    segments: (key) => (key === TOTAL_SEGMENTER_ID ? [result.total] : (result.segmentations[segmentIndex.get(key) as number]?.segments ?? [])),
    cohorts,
    retention: new Map([...retentionCollectors].map(([key, collector]) => [key, collector.sums])),
    freemium,
    quantities,
  };
}

function freemiumSums(
  freemium: FreemiumPieces,
  recorder: PayingRecorder,
  resolver: CustomerGroupResolver | null,
  names: readonly string[],
  timeline: Timeline,
  runStart: (unit: number, c: number) => number,
): FreemiumSums {
  const P = timeline.length;
  const make = () => new Float64Array(names.length * P);
  const sums: FreemiumSums = { names, free: make(), converted: make(), convertedMrr: make() };
  const positions = dayPositions(timeline);
  const groupAt = new Int32Array(P);
  const covered = new Uint8Array(P);
  for (let unit = 0; unit < freemium.unitCount; unit++) {
    const first = freemium.unitStart[unit] as number;
    const last = freemium.unitStart[unit + 1] as number;
    if (first === last) continue;
    covered.fill(0);
    let earliest = Infinity;
    for (let i = first; i < last; i++) {
      earliest = Math.min(earliest, freemium.start[i] as number);
      const t1 = positionAtOrAfter(positions, freemium.end[i] as number);
      for (let t = positionAtOrAfter(positions, freemium.start[i] as number); t < t1; t++) covered[t] = 1;
    }
    if (resolver) resolver.fill(unit, groupAt);
    const paying = recorder.paying.get(unit);
    for (let t = 0; t < P; t++) {
      if (covered[t] === 1 && (!paying || paying[t] === 0)) {
        const cell = (resolver ? (groupAt[t] as number) : 0) * P + t;
        sums.free[cell] = (sums.free[cell] as number) + 1;
      }
    }
    const cohort = recorder.cohort.get(unit);
    if (cohort && earliest < runStart(unit, cohort.position)) {
      const cell = (resolver ? (groupAt[cohort.position] as number) : 0) * P + cohort.position;
      sums.converted[cell] = (sums.converted[cell] as number) + 1;
      sums.convertedMrr[cell] = (sums.convertedMrr[cell] as number) + cohort.mrr;
    }
  }
  return sums;
}

/** Item quantities of the MRR-bearing lines paying at each position, per group of a segmenter. */
function quantitySeries(snapshot: AccountSnapshot, result: MrrSeriesResult, segmenter: Segmenter | undefined, timeline: Timeline): Float64Array {
  const { pieces } = result;
  const P = timeline.length;
  const positions = dayPositions(timeline);
  const quantity = snapshot.lines.quantity;
  if (!segmenter || segmenter.kind !== 'customer_segment') {
    const grouped = segmenter ? pieceGroups(snapshot, segmenter, pieces) : null;
    const G = grouped ? grouped.groups.names.length : 1;
    const diff = new Float64Array(G * P + 1);
    for (let i = 0; i < pieces.count; i++) {
      const t0 = positionAtOrAfter(positions, pieces.start[i] as number);
      const t1 = positionAtOrAfter(positions, pieces.end[i] as number);
      if (t0 >= t1) continue;
      const base = (grouped ? (grouped.groupOfPiece[i] as number) : 0) * P;
      const q = quantity[pieces.line[i] as number] as number;
      diff[base + t0] = (diff[base + t0] as number) + q;
      diff[base + t1] = (diff[base + t1] as number) - q;
    }
    const out = new Float64Array(G * P);
    for (let g = 0; g < G; g++) {
      let running = 0;
      for (let t = 0; t < P; t++) {
        running += diff[g * P + t] as number;
        out[g * P + t] = running;
      }
    }
    return out;
  }
  const resolver = new CustomerGroupResolver(snapshot, segmenter, timeline);
  const out = new Float64Array(resolver.groups.names.length * P);
  const groupAt = new Int32Array(P);
  for (let unit = 0; unit < pieces.unitCount; unit++) {
    const first = pieces.unitStart[unit] as number;
    const last = pieces.unitStart[unit + 1] as number;
    if (first === last) continue;
    resolver.fill(unit, groupAt);
    for (let i = first; i < last; i++) {
      const t1 = positionAtOrAfter(positions, pieces.end[i] as number);
      const q = quantity[pieces.line[i] as number] as number;
      for (let t = positionAtOrAfter(positions, pieces.start[i] as number); t < t1; t++) {
        const cell = (groupAt[t] as number) * P + t;
        out[cell] = (out[cell] as number) + q;
      }
    }
  }
  return out;
}
