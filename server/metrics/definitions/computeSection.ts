import { createConverter } from '../currency';
import { isoFromDay } from '../days';
import type { SegmentSeries } from '../mrrSeries';
import type { Timeline } from '../periods';
import { resolveMetricsSettings } from '../settings';
import type { AccountSnapshot } from '../snapshot/columns';
import { categoryKind, type DefinitionId } from './catalogue';
import { primaryOf, ratio, seriesOf, categoryValue, type Columns, type Measure, type Primary } from './columns';
import { expandCustomRequests } from './custom';
import { costCriteria, flowSums, visitCosts, visitDeals, type FlowSums } from './costsAndDeals';
import { emptyNeeds, runMrr, type MrrRun, type MrrRunNeeds, type MrrRunParams } from './mrrRun';
import { LTV_CHURN_PERIODS, offsetOf, periodResults, periodsPerYear, planSection, sectionTimeline, type PlannedSection } from './plan';
import { revenueSums, type RevenueKind, type RevenueSums } from './revenue';
import { TOTAL_NAME, TOTAL_SEGMENTER_ID, type CostSegmenter, type CustomerLevelSegmenter, type ResolvedSegmenter } from './segmenters';
import type { KeyNumberResult, SectionRequest, SectionResult, SegmentResult, SeriesResult, ValueUnit } from './types';

/**
 * Computes the sections of a report from an account snapshot: plain data in, plain data out
 * (types.ts). Work is shared across the sections of one call: every MRR-based section with the
 * same resolution, hierarchy, settings, filter and range reads one pass of the MRR engine that
 * computes all their segmenters at once over the longest look-back any of them needs (with
 * cohorts, trailing retention and free customers collected during that pass); revenue, cost
 * and deal sums are computed once per kind, segmenter and timeline.
 */
export function computeSections(snapshot: AccountSnapshot, requests: readonly SectionRequest[]): SectionResult[] {
  // A custom section is computed as its series' catalogue requests, with the rest (custom.ts).
  const { flat, assemble } = expandCustomRequests(requests);
  const report = new ReportComputation(snapshot);
  const planned = flat.map((request, k) => planSection(snapshot, request, `/${k}`));
  for (const plan of planned) report.declare(plan);
  return assemble(snapshot, planned.map((plan) => report.render(plan))) as SectionResult[];
}

/** One section (a report of one). */
export function computeSection(snapshot: AccountSnapshot, request: SectionRequest): SectionResult {
  return computeSections(snapshot, [request])[0] as SectionResult;
}

// ------------------------------------------------------------------ what each definition reads

export const REVENUE_KINDS: Partial<Record<DefinitionId, RevenueKind>> = {
  one_time_revenue: 'one_time',
  booked_revenue: 'booked',
  recognized_revenue: 'recognized',
  usage_revenue: 'usage',
  units_sold: 'units_sold',
};

/** Definitions computed from the MRR engine's pass (CAC reads its new customers). */
export function usesMrrRun(id: DefinitionId): boolean {
  return REVENUE_KINDS[id] === undefined && id !== 'costs' && id !== 'deals';
}

export interface MovementComponent {
  key: 'new_business' | 'expansion' | 'reactivation' | 'contraction' | 'churn' | 'fx_adjustment' | 'net';
  name: string;
  /** Signed as charted: outflows negative. */
  value: (s: SegmentSeries, i: number) => number;
  count: ((s: SegmentSeries, i: number) => number) | null;
}

export const MOVEMENT_COMPONENTS: readonly MovementComponent[] = [
  { key: 'new_business', name: 'New business', value: (s, i) => s.newBusiness[i] as number, count: (s, i) => s.newCustomers[i] as number },
  { key: 'expansion', name: 'Expansion', value: (s, i) => s.expansion[i] as number, count: (s, i) => s.expansionCustomers[i] as number },
  { key: 'reactivation', name: 'Reactivation', value: (s, i) => s.reactivation[i] as number, count: (s, i) => s.reactivatedCustomers[i] as number },
  { key: 'contraction', name: 'Contraction', value: (s, i) => negate(s.contraction[i] as number), count: (s, i) => s.contractionCustomers[i] as number },
  { key: 'churn', name: 'Churn', value: (s, i) => negate(s.churn[i] as number), count: (s, i) => s.churnedCustomers[i] as number },
  { key: 'fx_adjustment', name: 'FX adjustment', value: (s, i) => s.fxAdjustment?.[i] ?? 0, count: null },
  { key: 'net', name: 'Net', value: (s, i) => s.netChange[i] as number, count: (s, i) => netCustomers(s, i) },
];

/** -x without a negative zero (JSON and equality see -0 as 0, Object.is does not). */
export function negate(x: number): number {
  return x === 0 ? 0 : -x;
}

/** New + reactivated - churned customers: the net change of paying customers by movement. */
export function netCustomers(s: SegmentSeries, i: number): number {
  return (s.newCustomers[i] as number) + (s.reactivatedCustomers[i] as number) - (s.churnedCustomers[i] as number);
}

const UNITS: Record<DefinitionId, ValueUnit> = {
  mrr: 'minor_units',
  arr: 'minor_units',
  mrr_movements: 'minor_units',
  net_new_mrr: 'minor_units',
  customers: 'count',
  new_customers: 'count',
  churned_customers: 'count',
  reactivated_customers: 'count',
  arpa: 'minor_units',
  customer_churn_rate: 'fraction',
  gross_mrr_churn_rate: 'fraction',
  net_mrr_churn_rate: 'fraction',
  net_revenue_retention: 'fraction',
  gross_revenue_retention: 'fraction',
  ltv: 'minor_units',
  quick_ratio: 'ratio',
  customer_cohorts: 'fraction',
  mrr_cohorts: 'fraction',
  one_time_revenue: 'minor_units',
  booked_revenue: 'minor_units',
  recognized_revenue: 'minor_units',
  usage_revenue: 'minor_units',
  units_sold: 'units',
  free_customers: 'count',
  free_to_paid: 'count',
  costs: 'minor_units',
  cac: 'minor_units',
  deals: 'minor_units',
};

/** What `value` measures for a definition in a data category. */
export function unitOf(id: DefinitionId, category: SectionResult['data_category']): ValueUnit {
  switch (category) {
    case 'values':
      return UNITS[id] === 'count' || UNITS[id] === 'units' ? 'minor_units' : UNITS[id];
    case 'counts':
      return 'count';
    case 'units':
      return 'units';
    case 'month_over_month_growth':
    case 'month_over_month_retention':
      return 'fraction';
    case 'moving_average3':
      return UNITS[id];
  }
}

// ------------------------------------------------------------------ columns of the MRR-based definitions

/** Reads a series (indexed from the timeline's rangeStart) at a timeline position. */
export function seriesReader(timeline: Timeline) {
  const from = timeline.rangeStart;
  return (values: readonly number[]): Measure =>
    (t) => {
      const value = values[t - from];
      return value === undefined ? null : value;
    };
}

function customerChurnRate(s: SegmentSeries, at: ReturnType<typeof seriesReader>): Measure {
  const churned = at(s.churnedCustomers);
  const customers = at(s.customers);
  return (t) => ratio(churned(t), customers(t - 1));
}

/** LTV at t: ARPA at t / mean customer churn rate of t-6 .. t-1 (the periods with a rate); null when that mean is 0. */
export function ltvMeasure(s: SegmentSeries, at: ReturnType<typeof seriesReader>): { ltv: Measure; rates: (t: number) => (number | null)[] } {
  const churnRate = customerChurnRate(s, at);
  const mrr = at(s.mrr);
  const customers = at(s.customers);
  const rates = (t: number) => Array.from({ length: LTV_CHURN_PERIODS }, (_, k) => churnRate(t - LTV_CHURN_PERIODS + k));
  return {
    rates,
    ltv: (t) => {
      const defined = rates(t).filter((rate): rate is number => rate !== null);
      const mean = defined.length === 0 ? 0 : defined.reduce((sum, rate) => sum + rate, 0) / defined.length;
      return mean === 0 ? null : ratio(ratio(mrr(t), customers(t)), mean);
    },
  };
}

interface NamedColumns {
  name: string;
  component?: string;
  columns: Columns;
}

/** The series of one MRR-engine segment for a definition (several for mrr_movements). */
function mrrColumns(id: DefinitionId, s: SegmentSeries, at: ReturnType<typeof seriesReader>, quantity: Measure | undefined, withFx: boolean): NamedColumns[] {
  const mrr = at(s.mrr);
  const customers = at(s.customers);
  const churn = at(s.churn);
  const contraction = at(s.contraction);
  const expansion = at(s.expansion);
  const reactivation = at(s.reactivation);
  const newBusiness = at(s.newBusiness);
  const churned = at(s.churnedCustomers);
  const moneyRetention: Measure = (t) => {
    const start = mrr(t - 1);
    return start === null ? null : ratio(start - (churn(t) ?? 0) - (contraction(t) ?? 0), start);
  };
  const single = (columns: Columns): NamedColumns[] => [{ name: s.name, columns }];
  switch (id) {
    case 'mrr':
      return single({ value: mrr, count: customers, quantity, retention: moneyRetention });
    case 'arr':
      return single({
        value: (t) => {
          const value = mrr(t);
          return value === null ? null : value * 12;
        },
        count: customers,
        retention: moneyRetention,
      });
    case 'customers':
      return single({
        count: customers,
        retention: (t) => {
          const start = customers(t - 1);
          return start === null ? null : ratio(start - (churned(t) ?? 0), start);
        },
      });
    case 'new_customers':
      return single({ value: newBusiness, count: at(s.newCustomers) });
    case 'churned_customers':
      return single({ value: churn, count: churned });
    case 'reactivated_customers':
      return single({ value: reactivation, count: at(s.reactivatedCustomers) });
    case 'net_new_mrr':
      return single({ value: at(s.netChange), count: at(s.netChange.map((_, i) => netCustomers(s, i))) });
    case 'arpa':
      return single({ value: (t) => ratio(mrr(t), customers(t)) });
    case 'customer_churn_rate':
      return single({ value: customerChurnRate(s, at) });
    case 'gross_mrr_churn_rate':
      return single({ value: (t) => ratio((churn(t) ?? 0) + (contraction(t) ?? 0), mrr(t - 1)) });
    case 'net_mrr_churn_rate':
      return single({ value: (t) => ratio((churn(t) ?? 0) + (contraction(t) ?? 0) - (expansion(t) ?? 0) - (reactivation(t) ?? 0), mrr(t - 1)) });
    case 'quick_ratio':
      return single({ value: (t) => ratio((newBusiness(t) ?? 0) + (expansion(t) ?? 0) + (reactivation(t) ?? 0), (contraction(t) ?? 0) + (churn(t) ?? 0)) });
    case 'ltv':
      return single({ value: ltvMeasure(s, at).ltv });
    case 'mrr_movements':
      return MOVEMENT_COMPONENTS.filter((c) => withFx || c.key !== 'fx_adjustment').map((component) => ({
        name: component.name,
        component: component.key,
        columns: {
          value: at(s.mrr.map((_, i) => component.value(s, i))),
          ...(component.count ? { count: at(s.mrr.map((_, i) => (component.count as (s: SegmentSeries, i: number) => number)(s, i))) } : {}),
        },
      }));
    default:
      throw new Error(`'${id}' is not computed from MRR series`);
  }
}

// ------------------------------------------------------------------ the report

function settingsKey(plan: PlannedSection) {
  const s = plan.settings;
  return { currency: s.currency ?? null, forever: s.subtract_forever_discount_from_mrr ?? true, finite: s.subtract_finite_discount_from_mrr ?? true };
}

/** Sections with the same key share one MRR pass. */
export function mrrRunKey(plan: PlannedSection): string {
  return JSON.stringify([plan.resolution, plan.useHierarchy, settingsKey(plan), plan.filter, plan.range, plan.today]);
}

function customerLevel(plan: PlannedSection): CustomerLevelSegmenter[] {
  return plan.segmenters.filter((s): s is CustomerLevelSegmenter => s.type === 'customer_segment' || s.type === 'subscription_segment');
}

function costSegmenters(plan: PlannedSection): Extract<ResolvedSegmenter, { type: 'cost_segment' }>[] {
  return plan.segmenters.filter((s): s is Extract<ResolvedSegmenter, { type: 'cost_segment' }> => s.type === 'cost_segment');
}

/** Declares what sections need from the shared MRR passes, then renders them, running each pass once. */
export class ReportComputation {
  private readonly mrrPlans = new Map<string, { params: MrrRunParams; needs: MrrRunNeeds }>();
  private readonly mrrRuns = new Map<string, MrrRun>();
  private readonly memo = new Map<string, unknown>();
  /** Revenue kinds asked for per walk (same timeline, settings, filter and segmenter). */
  private readonly revenueKinds = new Map<string, Set<RevenueKind>>();

  constructor(private readonly snapshot: AccountSnapshot) {}

  private revenueKey(plan: PlannedSection, segmenter: CustomerLevelSegmenter | null): string {
    return JSON.stringify(['revenue', mrrRunKey(plan), plan.lookback, segmenter?.key ?? null]);
  }

  declare(plan: PlannedSection): void {
    const kind = REVENUE_KINDS[plan.id];
    if (kind) {
      for (const segmenter of [null, ...customerLevel(plan)]) {
        const key = this.revenueKey(plan, segmenter);
        const kinds = this.revenueKinds.get(key) ?? new Set<RevenueKind>();
        kinds.add(kind);
        this.revenueKinds.set(key, kinds);
      }
    }
    if (!usesMrrRun(plan.id)) return;
    const key = mrrRunKey(plan);
    let entry = this.mrrPlans.get(key);
    if (!entry) {
      entry = {
        params: { resolution: plan.resolution, useHierarchy: plan.useHierarchy, settings: plan.settings, filter: plan.filter, range: plan.range, today: plan.today },
        needs: emptyNeeds(),
      };
      this.mrrPlans.set(key, entry);
    }
    const { needs } = entry;
    needs.lookback = Math.max(needs.lookback, plan.lookback, 1);
    const segmenters = customerLevel(plan);
    for (const s of segmenters) needs.segmenters.set(s.key, s.segmenter);
    const keys = [TOTAL_SEGMENTER_ID, ...segmenters.map((s) => s.key)];
    const add = (set: Set<string>) => keys.forEach((k) => set.add(k));
    if (plan.id === 'customer_cohorts' || plan.id === 'mrr_cohorts') add(needs.cohorts);
    if (plan.id === 'net_revenue_retention' || plan.id === 'gross_revenue_retention') {
      needs.retentionPeriods = periodsPerYear(plan.resolution);
      add(needs.retention);
    }
    if (plan.id === 'free_customers' || plan.id === 'free_to_paid') add(needs.freemium);
    if (plan.id === 'mrr' && plan.category === 'units') add(needs.quantities);
  }

  mrrRun(plan: PlannedSection): MrrRun {
    const key = mrrRunKey(plan);
    let run = this.mrrRuns.get(key);
    if (!run) {
      if (!this.mrrPlans.has(key)) this.declare(plan);
      const entry = this.mrrPlans.get(key) as { params: MrrRunParams; needs: MrrRunNeeds };
      run = runMrr(this.snapshot, entry.params, entry.needs);
      this.mrrRuns.set(key, run);
    }
    return run;
  }

  private cached<T>(key: string, make: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }

  /** Revenue sums of a kind on the section's own timeline. */
  revenue(plan: PlannedSection, kind: RevenueKind, segmenter: CustomerLevelSegmenter | null): { timeline: Timeline; offset: number; sums: RevenueSums } {
    const frame = this.frame(plan);
    const key = this.revenueKey(plan, segmenter);
    const byKind = this.cached(key, () => {
      const kinds = [...(this.revenueKinds.get(key) ?? new Set([kind]))];
      if (!kinds.includes(kind)) kinds.push(kind);
      const sums = revenueSums(this.snapshot, kinds, this.revenueContext(plan, frame.timeline), segmenter?.segmenter ?? null);
      return new Map(kinds.map((k, i) => [k, sums[i] as RevenueSums]));
    });
    let sums = byKind.get(kind);
    if (!sums) {
      sums = revenueSums(this.snapshot, [kind], this.revenueContext(plan, frame.timeline), segmenter?.segmenter ?? null)[0] as RevenueSums;
      byKind.set(kind, sums);
    }
    return { ...frame, sums };
  }

  revenueContext(plan: PlannedSection, timeline: Timeline) {
    const settings = resolveMetricsSettings(this.snapshot.account, plan.settings);
    return { timeline, converter: createConverter(this.snapshot, settings), settings, useHierarchy: plan.useHierarchy, filter: plan.filter };
  }

  /** Costs on a timeline (a section's own, or the MRR pass's for CAC). */
  costs(plan: PlannedSection, timeline: Timeline, segmenter: CostSegmenter | null, timelineKey: string): FlowSums {
    const key = JSON.stringify(['costs', timelineKey, settingsKey(plan), segmenter, costCriteria(plan.filter)]);
    const context = this.revenueContext(plan, timeline);
    return this.cached(key, () => flowSums(timeline.length, (visit) => visitCosts(this.snapshot, context, segmenter, visit)));
  }

  deals(plan: PlannedSection, timeline: Timeline, timelineKey: string): FlowSums {
    const context = this.revenueContext(plan, timeline);
    return this.cached(JSON.stringify(['deals', timelineKey, settingsKey(plan)]), () => flowSums(timeline.length, (visit) => visitDeals(this.snapshot, context, visit)));
  }

  /** The timeline of a section that is not computed from the MRR pass. */
  frame(plan: PlannedSection): { timeline: Timeline; offset: number; key: string } {
    const key = JSON.stringify(['frame', plan.resolution, plan.range, plan.lookback, plan.today]);
    const frame = this.cached(key, () => sectionTimeline(plan.resolution, plan.range, plan.lookback, plan.today));
    return { timeline: frame.timeline, offset: frame.offset, key };
  }

  render(plan: PlannedSection): SectionResult {
    const settings = resolveMetricsSettings(this.snapshot.account, plan.settings);
    const rendered = this.renderSegments(plan);
    const from = rendered.timeline.rangeStart + rendered.offset;
    const result: SectionResult = {
      definition_id: plan.id,
      data_type: plan.dataType,
      resolution: plan.resolution,
      data_category: plan.category,
      unit: unitOf(plan.id, plan.category),
      currency: settings.reportCurrency,
      periods: periodResults(rendered.timeline, rendered.offset),
      segments: rendered.segments,
    };
    if (rendered.key && plan.definition.key_number_kind !== null) result.key_number = keyNumber(plan, rendered.timeline, from, rendered.key);
    return result;
  }

  private renderSegments(plan: PlannedSection): { timeline: Timeline; offset: number; segments: SegmentResult[]; key: Columns | null } {
    const primary = primaryOf(plan.definition.data_categories[0] as SectionResult['data_category']);
    const revenueKind = REVENUE_KINDS[plan.id];
    if (revenueKind) return this.renderRevenue(plan, revenueKind, primary);
    if (plan.id === 'costs' || plan.id === 'deals') return this.renderFlows(plan, primary);
    if (plan.id === 'cac') return this.renderCac(plan, primary);
    return this.renderFromMrr(plan, primary);
  }

  private renderFromMrr(plan: PlannedSection, primary: Primary): { timeline: Timeline; offset: number; segments: SegmentResult[]; key: Columns | null } {
    const run = this.mrrRun(plan);
    const { timeline } = run;
    const offset = offsetOf(timeline, plan.resolution, plan.range);
    const from = timeline.rangeStart + offset;
    const at = seriesReader(timeline);
    const P = timeline.length;
    const seriesFor = (list: NamedColumns[], segmentValue: string | null) =>
      list.map(({ name, component, columns }) =>
        seriesOf(segmentValue !== null && component ? `${segmentValue} · ${name}` : name, columns, plan.category, primary, timeline, from, {
          ...(segmentValue !== null ? { segment_value: segmentValue } : {}),
          ...(component ? { component } : {}),
        }),
      );
    const keys: { key: string; id: string; name: string }[] = [
      { key: TOTAL_SEGMENTER_ID, id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME },
      ...customerLevel(plan).map((s) => ({ key: s.key, id: s.id, name: s.name })),
    ];
    const cell = (values: Float64Array, g: number): Measure => (t) => (t >= 0 && t < P ? (values[g * P + t] as number) : null);
    let keyColumns: Columns | null = null;
    const segments = keys.map(({ key, id, name }, k): SegmentResult => {
      const isTotal = k === 0;
      const columnsByGroup = this.groupColumns(plan, run, key, cell, at);
      const series: SeriesResult[] = [];
      columnsByGroup.forEach(({ groupName, list }) => {
        series.push(...seriesFor(list.map((c) => (isTotal && !c.component ? { ...c, name: plan.definition.name } : c)), isTotal ? null : groupName));
        if (isTotal && keyColumns === null) keyColumns = (list.find((c) => c.component === 'net') ?? list[0])?.columns ?? null;
      });
      if (plan.id === 'customer_cohorts' || plan.id === 'mrr_cohorts') return { id, name, is_total: isTotal, series: this.cohortSeries(plan, run, key, from, isTotal), grouped_segment_names: [] };
      return { id, name, is_total: isTotal, series, grouped_segment_names: [] };
    });
    return { timeline, offset, segments, key: keyColumns };
  }

  /** Per segment of a key (one group for the total): the columns of the section. */
  private groupColumns(plan: PlannedSection, run: MrrRun, key: string, cell: (values: Float64Array, g: number) => Measure, at: ReturnType<typeof seriesReader>): { groupName: string; list: NamedColumns[] }[] {
    const withFx = run.result.total.fxAdjustment !== null;
    switch (plan.id) {
      case 'customer_cohorts':
      case 'mrr_cohorts':
        return [];
      case 'net_revenue_retention':
      case 'gross_revenue_retention': {
        const sums = run.retention.get(key);
        if (!sums) return [];
        return sums.names.map((groupName, g) => {
          const numerator = cell(plan.id === 'net_revenue_retention' ? sums.now : sums.kept, g);
          const denominator = cell(sums.then, g);
          return { groupName, list: [{ name: groupName, columns: { value: (t) => ratio(numerator(t), denominator(t)), count: cell(sums.count, g) } }] };
        });
      }
      case 'free_customers':
      case 'free_to_paid': {
        const sums = run.freemium.get(key);
        if (!sums) return [];
        return sums.names.map((groupName, g) => ({
          groupName,
          list: [{ name: groupName, columns: plan.id === 'free_customers' ? { count: cell(sums.free, g) } : { count: cell(sums.converted, g), value: cell(sums.convertedMrr, g) } }],
        }));
      }
      default: {
        const quantities = run.quantities.get(key);
        // FX adjustment has no customers: the counts category leaves it out.
        return run.segments(key).map((s, g) => ({ groupName: s.name, list: mrrColumns(plan.id, s, at, quantities ? cell(quantities, g) : undefined, withFx && plan.category !== 'counts') }));
      }
    }
  }

  /** CAC: costs of the period (of each cost segment) / new customers of the period, on the MRR pass's timeline. */
  private renderCac(plan: PlannedSection, primary: Primary): { timeline: Timeline; offset: number; segments: SegmentResult[]; key: Columns | null } {
    const run = this.mrrRun(plan);
    const { timeline } = run;
    const offset = offsetOf(timeline, plan.resolution, plan.range);
    const from = timeline.rangeStart + offset;
    const P = timeline.length;
    const newCustomers = seriesReader(timeline)(run.result.total.newCustomers);
    let key: Columns | null = null;
    const segments = [null, ...costSegmenters(plan)].map((segmenter): SegmentResult => {
      const sums = this.costs(plan, timeline, segmenter?.cost ?? null, mrrRunKey(plan));
      const series = sums.names.map((groupName, g) => {
        const columns: Columns = { value: (t) => (t >= 0 && t < P ? ratio(sums.value[g * P + t] as number, newCustomers(t)) : null) };
        if (!segmenter) key = columns;
        return seriesOf(segmenter ? groupName : plan.definition.name, columns, plan.category, primary, timeline, from, segmenter ? { segment_value: groupName } : {});
      });
      return segmenter
        ? { id: segmenter.id, name: segmenter.name, is_total: false, series, grouped_segment_names: [] }
        : { id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME, is_total: true, series, grouped_segment_names: [] };
    });
    return { timeline, offset, segments, key };
  }

  private cohortSeries(plan: PlannedSection, run: MrrRun, key: string, from: number, isTotal: boolean): SeriesResult[] {
    const table = run.cohorts.get(key);
    if (!table) return [];
    const { timeline } = run;
    const P = timeline.length;
    const money = plan.id === 'mrr_cohorts';
    const day = (t: number) => isoDay(timeline, t);
    const out: SeriesResult[] = [];
    table.names.forEach((groupName, g) => {
      for (let c = from; c < P; c++) {
        const initialAmount = table.initialAmount[g * P + c] as number;
        const initialCount = table.initialCount[g * P + c] as number;
        const initial = money ? initialAmount : initialCount;
        const label = timeline.labels[c] as string;
        const points: SeriesResult['data_points'] = [{ time: day(c), column: 'initial', value: initial, amount: initialAmount, count: initialCount }];
        for (let t = c; t < P; t++) {
          const amount = table.amount[(g * P + c) * P + t] as number;
          const count = table.count[(g * P + c) * P + t] as number;
          points.push({ time: day(t), column: t - c, value: ratio(money ? amount : count, initial), amount, count });
        }
        out.push({ name: isTotal ? label : `${groupName} · ${label}`, component: label, ...(isTotal ? {} : { segment_value: groupName }), data_points: points });
      }
    });
    return out;
  }

  private renderRevenue(plan: PlannedSection, kind: RevenueKind, primary: Primary): { timeline: Timeline; offset: number; segments: SegmentResult[]; key: Columns | null } {
    const { timeline, offset } = this.frame(plan);
    const from = timeline.rangeStart + offset;
    const P = timeline.length;
    let key: Columns | null = null;
    const segmenters = [null, ...customerLevel(plan)];
    const segments = segmenters.map((segmenter): SegmentResult => {
      const { sums } = this.revenue(plan, kind, segmenter);
      const cell = (values: Float64Array, g: number): Measure => (t) => (t >= 0 && t < P ? (values[g * P + t] as number) : null);
      const series = sums.names.map((groupName, g) => {
        const columns: Columns = kind === 'units_sold' ? { quantity: cell(sums.value, g), count: cell(sums.count, g) } : { value: cell(sums.value, g), count: cell(sums.count, g), quantity: cell(sums.quantity, g) };
        if (!segmenter) key = columns;
        return seriesOf(segmenter ? groupName : plan.definition.name, columns, plan.category, primary, timeline, from, segmenter ? { segment_value: groupName } : {});
      });
      return segmenter
        ? { id: segmenter.id, name: segmenter.name, is_total: false, series, grouped_segment_names: [] }
        : { id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME, is_total: true, series, grouped_segment_names: [] };
    });
    return { timeline, offset, segments, key };
  }

  private renderFlows(plan: PlannedSection, primary: Primary): { timeline: Timeline; offset: number; segments: SegmentResult[]; key: Columns | null } {
    const frame = this.frame(plan);
    const { timeline, offset } = frame;
    const from = timeline.rangeStart + offset;
    const P = timeline.length;
    const cell = (values: Float64Array, g: number): Measure => (t) => (t >= 0 && t < P ? (values[g * P + t] as number) : null);
    if (plan.id === 'deals') {
      const sums = this.deals(plan, timeline, frame.key);
      const series = sums.names.map((stage, g) => seriesOf(stage, { value: cell(sums.value, g), count: cell(sums.count, g) }, plan.category, primary, timeline, from, { component: stage }));
      const sum = (values: Float64Array): Measure => (t) => sums.names.reduce((total, _name, g) => total + (values[g * P + t] as number), 0);
      return { timeline, offset, segments: [{ id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME, is_total: true, series, grouped_segment_names: [] }], key: { value: sum(sums.value), count: sum(sums.count) } };
    }
    let key: Columns | null = null;
    const segments = [null, ...costSegmenters(plan)].map((segmenter): SegmentResult => {
      const sums = this.costs(plan, timeline, segmenter?.cost ?? null, frame.key);
      const series = sums.names.map((groupName, g) => {
        const columns: Columns = { value: cell(sums.value, g), count: cell(sums.count, g) };
        if (!segmenter) key = columns;
        return seriesOf(segmenter ? groupName : plan.definition.name, columns, plan.category, primary, timeline, from, segmenter ? { segment_value: groupName } : {});
      });
      return segmenter
        ? { id: segmenter.id, name: segmenter.name, is_total: false, series, grouped_segment_names: [] }
        : { id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME, is_total: true, series, grouped_segment_names: [] };
    });
    return { timeline, offset, segments, key };
  }
}

function isoDay(timeline: Timeline, t: number): string {
  return isoFromDay(timeline.firstDay[t] as number);
}

/** The total's number at the last complete period of the range (null when none is complete). */
function keyNumber(plan: PlannedSection, timeline: Timeline, from: number, columns: Columns): KeyNumberResult {
  const kind = categoryKind(plan.definition, plan.category);
  const primary = primaryOf(plan.definition.data_categories[0] as SectionResult['data_category']);
  for (let t = timeline.length - 1; t >= from; t--) {
    if ((timeline.lastDay[t] as number) < timeline.today) return { value: categoryValue(columns, plan.category, primary, t), kind, time: isoDay(timeline, t) };
  }
  return { value: null, kind, time: null };
}
