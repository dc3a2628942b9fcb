import { dayFromIso, isoFromDay } from './days';
import { MOVEMENT_COMPONENTS, REVENUE_KINDS, computeSection, negate } from './definitions/computeSection';
import { visitCosts, visitDeals, type FlowContext } from './definitions/costsAndDeals';
import { buildFreemiumPieces } from './definitions/freemium';
import { cohortPosition } from './definitions/mrrRun';
import { LTV_CHURN_PERIODS, periodsPerYear, planSection, positionOfDay, sectionTimeline, type PlannedSection } from './definitions/plan';
import { visitRevenue } from './definitions/revenue';
import { TOTAL_SEGMENTER_ID, type CostSegmenter, type ResolvedSegmenter } from './definitions/segmenters';
import { SectionRequestError, type PeriodResult, type SectionRequest, type SeriesResult, type UnderlyingData, type ValueUnit } from './definitions/types';
import { unitCellContext, visitUnitCells, type CellContribution, type UnitCellContext, type UnitCellPass } from './definitions/unitCells';
import { mainPaymentOnDay, mrrOnDay, newMrrWhenOccurred, productsOnDay, runStartAt } from './definitions/unitFigures';
import { USER_FILTERED_DEFINITION_ID } from '../../models/customSections';
import { customComponent, customPoint, isCustomRequest } from './definitions/custom';
import type { MovementBuffers } from './movements';
import type { Timeline } from './periods';
import { CustomerGroupResolver, type Segmenter } from './segments';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * Drill-down (METRICS.md section 9): the customers (or costs, deals) behind a data point,
 * the top ones by value and the rest as a count and a sum, and `calculation_details` naming
 * every input of the formula. The listed values add up to the point: for money the point is
 * `total_value`, for counts `total_count`; for a rate the list is its numerator and the
 * calculation details give numerator, denominator and result. The rows come from the same
 * code that computes the series (definitions/unitCells.ts), so they cannot disagree.
 */
export interface DetailsRequest extends SectionRequest {
  /** A day inside the period of the point ('YYYY-MM-DD'; the point's `time` works). */
  date: string;
  /** The segment (segmenter) of the point; default 'total'. */
  segment_id?: string;
  /** Only the series of this segment value. */
  segment_value?: string;
  /** Only the series of this component (a movement class, a deal stage). */
  component?: string;
  /** Cohort tables: a day inside the cohort's period; default `date`. */
  cohort_date?: string;
  /** Cohort tables: 'initial' or k (the period cohort + k); default 0. */
  column?: 'initial' | number;
  /** Rows listed before the rest (default 20). */
  limit?: number;
  /**
   * MRR and customer sections: also count each row's units (the quantity of its payments live
   * on the measure day), as a units chart always does; `total_quantity` and each row's
   * `quantity` are then set (the units-sold export of details asks for them).
   */
  with_quantities?: boolean;
}

export interface MovementEnd {
  /** The payment carrying most of the MRR at that end. */
  id: string | null;
  monthly_amount: number;
}

export interface TopCustomerRow {
  id: string;
  name: string;
  deleted: boolean;
  value: number;
  subscriptions: { product_key: string }[];
  movement_from: MovementEnd | null;
  movement_to: MovementEnd | null;
  additional_values: { name: string; value: number | null }[];
  /** Units of the row at the point: set when the payload has a `total_quantity`. */
  quantity?: number;
}

export interface TopCostRow {
  id: string;
  name: string;
  value: number;
  date: string;
  invoice_number: string | null;
}

export interface TopDealRow {
  id: string;
  public_id: string | null;
  name: string;
  value: number;
  stage: string;
  days_since_moved_on: number;
  owner_name: string | null;
  external_url: string | null;
}

export interface DetailsList {
  name: string;
  total_count: number;
  total_value: number;
  top_customers: TopCustomerRow[];
  rest: { count: number; value: number };
}

export interface DetailsPayload {
  total_count: number;
  total_value: number;
  total_quantity: number | null;
  top_customers: TopCustomerRow[];
  top_costs?: TopCostRow[];
  top_deals?: TopDealRow[];
  rest: { count: number; value: number };
  calculation_details: { name: string; value: number | null }[];
  additional_lists: DetailsList[];
  initial_cohort_value?: number;
  initial_cohort_count?: number;
}

export interface DetailsItem {
  name: string;
  segment_value?: string;
  component?: string;
  underlying_data: UnderlyingData;
  /** The number on the chart. */
  value: number | null;
  details: DetailsPayload;
}

export interface DetailsResult {
  definition_id: string;
  period: PeriodResult;
  currency: string;
  unit: ValueUnit;
  items: DetailsItem[];
}

export const DEFAULT_DETAILS_LIMIT = 20;

// ------------------------------------------------------------------ rows

interface Row {
  /** Customer (unit), cost or deal index. */
  item: number;
  value: number;
  quantity: number;
  additional?: { name: string; value: number | null }[];
}

type Decorate = (row: Row) => TopCustomerRow;

function byValue(a: Row, b: Row): number {
  return Math.abs(b.value) - Math.abs(a.value) || a.item - b.item;
}

/** The top `limit` rows by absolute value (ties: by index), without sorting every row. */
function topRows(rows: readonly Row[], limit: number): Row[] {
  if (limit <= 0) return [];
  if (rows.length <= limit || limit >= 1_000) return [...rows].sort(byValue).slice(0, limit);
  const top: Row[] = [];
  for (const row of rows) {
    if (top.length === limit && byValue(row, top[limit - 1] as Row) >= 0) continue;
    let at = top.length;
    while (at > 0 && byValue(row, top[at - 1] as Row) < 0) at--;
    top.splice(at, 0, row);
    if (top.length > limit) top.pop();
  }
  return top;
}

function split<T>(rows: Row[], limit: number, decorate: (row: Row) => T): { top: T[]; rest: { count: number; value: number }; totalValue: number } {
  const top = topRows(rows, limit);
  const totalValue = rows.reduce((sum, row) => sum + row.value, 0);
  const topValue = top.reduce((sum, row) => sum + row.value, 0);
  return { top: top.map(decorate), rest: { count: rows.length - top.length, value: totalValue - topValue }, totalValue };
}

function customerPayload(rows: Row[], limit: number, decorate: Decorate, extra: Partial<DetailsPayload> = {}): DetailsPayload {
  // Rows whose units were counted carry them, so a listed row's units add up to total_quantity.
  const counted = typeof extra.total_quantity === 'number';
  const { top, rest, totalValue } = split(rows, limit, counted ? (row) => ({ ...decorate(row), quantity: row.quantity }) : decorate);
  return {
    total_count: rows.length,
    total_value: totalValue,
    total_quantity: null,
    top_customers: top,
    rest,
    calculation_details: [],
    additional_lists: [],
    ...extra,
  };
}

function customerList(name: string, rows: Row[], limit: number, decorate: Decorate): DetailsList {
  const { top, rest, totalValue } = split(rows, limit, decorate);
  return { name, total_count: rows.length, total_value: totalValue, top_customers: top, rest };
}

function customerRow(snapshot: AccountSnapshot, unit: number, value: number): TopCustomerRow {
  return {
    id: snapshot.customers.ids[unit] as string,
    name: snapshot.customers.names[unit] as string,
    deleted: snapshot.customers.deleted[unit] === 1,
    value,
    subscriptions: [],
    movement_from: null,
    movement_to: null,
    additional_values: [],
  };
}

// ------------------------------------------------------------------ the request

/**
 * A custom section's point as its series' metric's point (custom.ts `customPoint`): `inner` is the
 * details request to compute, `finish` names its items as the custom section's series.
 */
export function customDetailsRequest(snapshot: AccountSnapshot, request: DetailsRequest): { inner: DetailsRequest; finish: (result: DetailsResult) => DetailsResult } {
  const point = customPoint(snapshot, request);
  // The series' catalogue request, without what named the custom point.
  const { date: _date, component: _component, segment_id: _segment, segment_value: _value, cohort_date: _cohort, column: _column, ...sectionOnly } = point.request as DetailsRequest;
  const inner: DetailsRequest = {
    ...sectionOnly,
    date: point.date,
    ...(request.segment_id !== undefined ? { segment_id: request.segment_id } : {}),
    ...(request.segment_value !== undefined ? { segment_value: request.segment_value } : {}),
    ...(point.component !== undefined ? { component: point.component } : {}),
    ...(request.limit !== undefined ? { limit: request.limit } : {}),
    ...(request.with_quantities !== undefined ? { with_quantities: request.with_quantities } : {}),
  };
  return {
    inner,
    finish: (result) => ({
      ...result,
      definition_id: USER_FILTERED_DEFINITION_ID,
      items: result.items.map((item) => ({
        ...item,
        name: item.segment_value !== undefined ? `${point.series.name}: ${item.segment_value}` : point.series.name,
        component: customComponent(point.index),
      })),
    }),
  };
}

export function computeDetails(snapshot: AccountSnapshot, request: DetailsRequest): DetailsResult {
  if (isCustomRequest(request)) {
    const { inner, finish } = customDetailsRequest(snapshot, request);
    return finish(computeDetails(snapshot, inner));
  }
  const plan = planSection(snapshot, request);
  const section = computeSection(snapshot, request);
  const limit = Math.max(0, Math.floor(request.limit ?? DEFAULT_DETAILS_LIMIT));
  const isCohort = plan.id === 'customer_cohorts' || plan.id === 'mrr_cohorts';
  const day = parseDay(isCohort ? (request.cohort_date ?? request.date) : request.date, isCohort && request.cohort_date ? '/cohort_date' : '/date');
  const periodIndex = section.periods.findIndex((p) => dayFromIso(p.first_day) <= day && day <= dayFromIso(p.last_day));
  if (periodIndex < 0) throw new SectionRequestError(`no period of the section holds ${isCohort ? 'the cohort date' : 'the date'}`, '/date');
  const period = section.periods[periodIndex] as PeriodResult;
  const segmentId = request.segment_id ?? TOTAL_SEGMENTER_ID;
  const segment = section.segments.find((s) => s.id === segmentId);
  if (!segment) throw new SectionRequestError(`the section has no segment '${segmentId}'`, '/segment_id');
  let series = segment.series.filter((s) => (request.segment_value === undefined || s.segment_value === request.segment_value) && (request.component === undefined || s.component === request.component));
  if (isCohort) series = series.filter((s) => s.component === period.label);
  const segmenter = segmentId === TOTAL_SEGMENTER_ID ? null : (plan.segmenters.find((s) => s.id === segmentId) ?? null);
  const frame = sectionTimeline(plan.resolution, plan.range, plan.lookback, plan.today);
  const t = positionOfDay(frame.timeline, dayFromIso(period.first_day));
  const drill = new Drill(snapshot, plan, frame.timeline, t, limit, request.with_quantities === true);
  const column = request.column ?? 0;
  const pointOf = (s: SeriesResult) => {
    if (isCohort) return s.data_points.find((p) => p.column === column)?.value ?? null;
    return s.data_points[periodIndex]?.value ?? null;
  };
  const payloads = drill.payloads(series, segmenter, column);
  return {
    definition_id: plan.id,
    period,
    currency: section.currency,
    unit: section.unit,
    items: series.map((s, k) => ({
      name: s.name,
      ...(s.segment_value !== undefined ? { segment_value: s.segment_value } : {}),
      ...(s.component !== undefined ? { component: s.component } : {}),
      underlying_data: plan.definition.underlying_data,
      value: pointOf(s),
      details: payloads[k] as DetailsPayload,
    })),
  };
}

function parseDay(text: string, pointer: string): number {
  try {
    return dayFromIso(text);
  } catch {
    throw new SectionRequestError(`not a day 'YYYY-MM-DD': '${text}'`, pointer);
  }
}

// ------------------------------------------------------------------ per definition

type Segment = ResolvedSegmenter | null;

interface UnitEntry {
  unit: number;
  group: number;
  now: CellContribution;
  before: CellContribution;
  mrrBefore: number;
  mrrAfter: number;
  inSegment: ((piece: number) => boolean) | null;
}

const ZERO_CELL: Omit<CellContribution, 'group' | 'position'> = {
  mrr: 0,
  customers: 0,
  newBusiness: 0,
  expansion: 0,
  reactivation: 0,
  contraction: 0,
  churn: 0,
  fx: 0,
  newCount: 0,
  expansionCount: 0,
  reactivationCount: 0,
  contractionCount: 0,
  churnCount: 0,
};

/**
 * Whether a section's drill-down can count each row's units (`with_quantities`): MRR and
 * customers (the quantity of a customer's live payments) and the revenue charts (units sold).
 */
export function detailsCountUnits(definitionId: string): boolean {
  return definitionId === 'mrr' || definitionId === 'customers' || definitionId in REVENUE_KINDS;
}

class Drill {
  private context: UnitCellContext | null = null;

  constructor(
    private readonly snapshot: AccountSnapshot,
    private readonly plan: PlannedSection,
    private readonly timeline: Timeline,
    private readonly t: number,
    private readonly limit: number,
    private readonly withQuantities = false,
  ) {}

  private cells(): UnitCellContext {
    this.context ??= unitCellContext(this.snapshot, { timeline: this.timeline, reportSettings: this.plan.settings, useHierarchy: this.plan.useHierarchy, filter: this.plan.filter });
    return this.context;
  }

  private label(position: number): string {
    return (this.timeline.labels[position] as string | undefined) ?? '';
  }

  payloads(series: SeriesResult[], segment: Segment, column: 'initial' | number): DetailsPayload[] {
    const { plan } = this;
    const groupOf = (names: readonly string[], s: SeriesResult) => (s.segment_value === undefined ? 0 : names.indexOf(s.segment_value));
    const revenueKind = REVENUE_KINDS[plan.id];
    if (revenueKind) return this.revenue(series, segment, groupOf);
    if (plan.id === 'costs' || plan.id === 'cac' || plan.id === 'deals') return this.flows(series, segment, groupOf);
    const segmenter = segment && 'segmenter' in segment ? segment.segmenter : null;
    if (plan.id === 'customer_cohorts' || plan.id === 'mrr_cohorts') return this.cohorts(series, segmenter, column, groupOf);
    if (plan.id === 'net_revenue_retention' || plan.id === 'gross_revenue_retention') return this.retention(series, segmenter, groupOf);
    if (plan.id === 'free_customers' || plan.id === 'free_to_paid') return this.freemium(series, segmenter, groupOf);
    return this.movements(series, segmenter, groupOf);
  }

  /**
   * Decorates a unit's row with its products and, for a movement (`ends`), the payments at both
   * ends of it. A stock (MRR, customers, ARR, ARPA, LTV: what a unit has at the point) has no
   * ends: its rows carry `movement_from`/`movement_to` null, and the dialog shows only the value.
   */
  private unitDecorator(entries: ReadonlyMap<string, UnitEntry> | null, ends = true): Decorate {
    const { snapshot, timeline, t } = this;
    const context = this.cells();
    return (row) => {
      const out = customerRow(snapshot, row.item, row.value);
      const entry = entries?.get(String(row.item));
      const inSegment = entry?.inSegment ?? undefined;
      const after = timeline.measureDay[t] as number;
      const before = t > 0 ? (timeline.measureDay[t - 1] as number) : after;
      const payingNow = entry ? entry.mrrAfter > 0 : true;
      out.subscriptions = productsOnDay(snapshot, context.pieces, row.item, payingNow ? after : before, inSegment).map((product_key) => ({ product_key }));
      if (entry && ends) {
        out.movement_from = { id: mainPaymentOnDay(snapshot, context.pieces, row.item, before, inSegment), monthly_amount: entry.mrrBefore };
        out.movement_to = { id: mainPaymentOnDay(snapshot, context.pieces, row.item, after, inSegment), monthly_amount: entry.mrrAfter };
      }
      out.additional_values = row.additional ?? [];
      return out;
    };
  }

  /** The pass over units for stocks, movements and rates: entries per (unit, group) that touched t or t-1. */
  private unitEntries(segmenter: Segmenter | null): { pass: UnitCellPass; entries: UnitEntry[] } {
    const { t } = this;
    const entries: UnitEntry[] = [];
    const pass = visitUnitCells(this.cells(), segmenter, [t], (visit) => {
      const { cells } = visit;
      for (let k = 0; k < cells.length; k++) {
        const group = (cells[k] as CellContribution).group;
        if (cells.findIndex((c) => c.group === group) !== k) continue;
        const now = cells.find((c) => c.group === group && c.position === t) ?? { ...ZERO_CELL, group, position: t };
        const before = cells.find((c) => c.group === group && c.position === t - 1) ?? { ...ZERO_CELL, group, position: t - 1 };
        entries.push({
          unit: visit.unit,
          group,
          now,
          before,
          mrrBefore: t > 0 ? (visit.row.value[t - 1] as number) : 0,
          mrrAfter: visit.row.value[t] as number,
          inSegment: visit.inSegment,
        });
      }
    });
    return { pass, entries };
  }

  private movements(series: SeriesResult[], segmenter: Segmenter | null, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t, limit } = this;
    const { pass, entries } = this.unitEntries(segmenter);
    const P = pass.buffers.periods;
    return series.map((s) => {
      const g = groupOf(pass.names, s);
      const mine = entries.filter((e) => e.group === g);
      const byUnit = new Map(mine.map((e) => [String(e.unit), e]));
      const decorate = this.unitDecorator(byUnit);
      const stock = this.unitDecorator(byUnit, false);
      const B = (field: keyof MovementBuffers, position: number): number => (position >= 0 && position < P && g >= 0 ? ((pass.buffers[field] as Float64Array)[g * P + position] as number) : 0);
      const rowsOf = (include: (e: UnitEntry) => boolean, value: (e: UnitEntry) => number): Row[] => mine.filter(include).map((e) => ({ item: e.unit, value: value(e), quantity: 0 }));
      const prev = this.label(t - 1);
      const paying = () => rowsOf((e) => e.now.customers > 0, (e) => e.now.mrr);
      const rate = (numerator: number, denominator: number) => (denominator === 0 ? null : numerator / denominator);
      switch (plan.id) {
        case 'mrr':
        case 'customers': {
          const rows = paying();
          const quantity = plan.category === 'units' || this.withQuantities ? this.quantities(rows, byUnit) : null;
          return customerPayload(rows, limit, stock, {
            total_quantity: quantity,
            calculation_details: [
              { name: `MRR at ${this.measureLabel(t)}`, value: B('mrr', t) },
              { name: 'Paying customers', value: B('customers', t) },
            ],
          });
        }
        case 'arr': {
          const rows = paying().map((row) => ({ ...row, value: row.value * 12 }));
          return customerPayload(rows, limit, stock, { calculation_details: [{ name: `MRR at ${this.measureLabel(t)}`, value: B('mrr', t) }, { name: 'Months', value: 12 }, { name: 'ARR', value: B('mrr', t) * 12 }] });
        }
        case 'arpa':
          return customerPayload(paying(), limit, stock, {
            calculation_details: [
              { name: `MRR at ${this.measureLabel(t)}`, value: B('mrr', t) },
              { name: 'Paying customers', value: B('customers', t) },
              { name: 'ARPA', value: rate(B('mrr', t), B('customers', t)) },
            ],
          });
        case 'ltv': {
          const rates = Array.from({ length: LTV_CHURN_PERIODS }, (_, k) => t - LTV_CHURN_PERIODS + k).map((p) => ({ name: `Customer churn rate ${this.label(p)}`, value: rate(B('churnCount', p), B('customers', p - 1)) }));
          const defined = rates.map((r) => r.value).filter((v): v is number => v !== null);
          const mean = defined.length === 0 ? 0 : defined.reduce((sum, v) => sum + v, 0) / defined.length;
          const arpa = rate(B('mrr', t), B('customers', t));
          return customerPayload(paying(), limit, stock, {
            calculation_details: [
              { name: `MRR at ${this.measureLabel(t)}`, value: B('mrr', t) },
              { name: 'Paying customers', value: B('customers', t) },
              { name: 'ARPA', value: arpa },
              ...rates,
              { name: `Mean customer churn rate of the ${LTV_CHURN_PERIODS} periods before`, value: mean },
              { name: 'LTV', value: mean === 0 || arpa === null ? null : arpa / mean },
            ],
          });
        }
        case 'new_customers':
          return customerPayload(rowsOf((e) => e.now.newCount > 0, (e) => e.now.newBusiness), limit, decorate, { calculation_details: [{ name: 'New business MRR', value: B('newBusiness', t) }] });
        case 'churned_customers':
          return customerPayload(rowsOf((e) => e.now.churnCount > 0, (e) => e.now.churn), limit, decorate, { calculation_details: [{ name: 'Churned MRR', value: B('churn', t) }] });
        case 'reactivated_customers':
          return customerPayload(rowsOf((e) => e.now.reactivationCount > 0, (e) => e.now.reactivation), limit, decorate, { calculation_details: [{ name: 'Reactivation MRR', value: B('reactivation', t) }] });
        case 'net_new_mrr':
          return this.movementPayload('net', mine, decorate, B);
        case 'mrr_movements':
          return this.movementPayload(s.component ?? 'net', mine, decorate, B);
        case 'customer_churn_rate': {
          const churned = B('churnCount', t);
          const base = B('customers', t - 1);
          return customerPayload(rowsOf((e) => e.now.churnCount > 0, (e) => e.now.churn), limit, decorate, {
            calculation_details: [
              { name: 'Churned customers', value: churned },
              { name: `Paying customers at ${this.measureLabel(t - 1)}`, value: base },
              { name: 'Customer churn rate', value: rate(churned, base) },
            ],
            additional_lists: [customerList(`Paying customers at ${this.measureLabel(t - 1)}`, rowsOf((e) => e.before.customers > 0, (e) => e.before.mrr), limit, stock)],
          });
        }
        case 'gross_mrr_churn_rate': {
          const numerator = B('churn', t) + B('contraction', t);
          return customerPayload(rowsOf((e) => e.now.churnCount + e.now.contractionCount > 0, (e) => e.now.churn + e.now.contraction), limit, decorate, {
            calculation_details: [
              { name: 'Churn', value: B('churn', t) },
              { name: 'Contraction', value: B('contraction', t) },
              { name: `MRR at ${this.measureLabel(t - 1)}`, value: B('mrr', t - 1) },
              { name: 'Gross MRR churn rate', value: rate(numerator, B('mrr', t - 1)) },
            ],
          });
        }
        case 'net_mrr_churn_rate': {
          const numerator = B('churn', t) + B('contraction', t) - B('expansion', t) - B('reactivation', t);
          const moved = (e: UnitEntry) => e.now.churnCount + e.now.contractionCount + e.now.expansionCount + e.now.reactivationCount > 0;
          return customerPayload(rowsOf(moved, (e) => e.now.churn + e.now.contraction - e.now.expansion - e.now.reactivation), limit, decorate, {
            calculation_details: [
              { name: 'Churn', value: B('churn', t) },
              { name: 'Contraction', value: B('contraction', t) },
              { name: 'Expansion', value: B('expansion', t) },
              { name: 'Reactivation', value: B('reactivation', t) },
              { name: `MRR at ${prev ? this.measureLabel(t - 1) : 'the period before'}`, value: B('mrr', t - 1) },
              { name: 'Net MRR churn rate', value: rate(numerator, B('mrr', t - 1)) },
            ],
          });
        }
        case 'quick_ratio': {
          const gained = B('newBusiness', t) + B('expansion', t) + B('reactivation', t);
          const lost = B('contraction', t) + B('churn', t);
          return customerPayload(rowsOf((e) => e.now.newCount + e.now.expansionCount + e.now.reactivationCount > 0, (e) => e.now.newBusiness + e.now.expansion + e.now.reactivation), limit, decorate, {
            calculation_details: [
              { name: 'New business', value: B('newBusiness', t) },
              { name: 'Expansion', value: B('expansion', t) },
              { name: 'Reactivation', value: B('reactivation', t) },
              { name: 'Contraction', value: B('contraction', t) },
              { name: 'Churn', value: B('churn', t) },
              { name: 'Quick ratio', value: rate(gained, lost) },
            ],
            additional_lists: [customerList('Contraction and churn', rowsOf((e) => e.now.contractionCount + e.now.churnCount > 0, (e) => e.now.contraction + e.now.churn), limit, decorate)],
          });
        }
        default:
          throw new Error(`no drill-down for '${plan.id}'`);
      }
    });
  }

  private movementPayload(component: string, mine: UnitEntry[], decorate: Decorate, B: (field: keyof MovementBuffers, position: number) => number): DetailsPayload {
    const { t, limit } = this;
    const c = MOVEMENT_COMPONENTS.find((m) => m.key === component);
    if (!c) throw new SectionRequestError(`no movement '${component}'`, '/component');
    const net = (e: UnitEntry) => e.now.newBusiness + e.now.expansion + e.now.reactivation - e.now.contraction - e.now.churn + e.now.fx;
    const pick: Record<string, [(e: UnitEntry) => boolean, (e: UnitEntry) => number]> = {
      new_business: [(e) => e.now.newCount > 0, (e) => e.now.newBusiness],
      expansion: [(e) => e.now.expansionCount > 0, (e) => e.now.expansion],
      reactivation: [(e) => e.now.reactivationCount > 0, (e) => e.now.reactivation],
      contraction: [(e) => e.now.contractionCount > 0, (e) => negate(e.now.contraction)],
      churn: [(e) => e.now.churnCount > 0, (e) => negate(e.now.churn)],
      fx_adjustment: [(e) => e.now.fx !== 0, (e) => e.now.fx],
      net: [(e) => net(e) !== 0 || e.now.newCount + e.now.reactivationCount + e.now.churnCount > 0, net],
    };
    const [include, value] = pick[c.key] as [(e: UnitEntry) => boolean, (e: UnitEntry) => number];
    const rows: Row[] = mine.filter(include).map((e) => ({ item: e.unit, value: value(e), quantity: 0 }));
    const movements = [
      { name: 'New business', value: B('newBusiness', t) },
      { name: 'Expansion', value: B('expansion', t) },
      { name: 'Reactivation', value: B('reactivation', t) },
      { name: 'Contraction', value: negate(B('contraction', t)) },
      { name: 'Churn', value: negate(B('churn', t)) },
      { name: 'FX adjustment', value: B('fxAdjustment', t) },
    ];
    const calculation =
      c.key === 'net'
        ? [
            ...movements,
            { name: 'Net', value: B('mrr', t) - B('mrr', t - 1) },
            { name: `MRR at ${this.measureLabel(t - 1)}`, value: B('mrr', t - 1) },
            { name: `MRR at ${this.measureLabel(t)}`, value: B('mrr', t) },
            { name: 'New customers', value: B('newCount', t) },
            { name: 'Reactivated customers', value: B('reactivationCount', t) },
            { name: 'Churned customers', value: negate(B('churnCount', t)) },
            { name: 'Net customers', value: B('newCount', t) + B('reactivationCount', t) - B('churnCount', t) },
          ]
        : movements.filter((m) => m.name === c.name);
    return customerPayload(rows, limit, decorate, { calculation_details: calculation });
  }

  private measureLabel(position: number): string {
    const day = this.timeline.measureDay[position];
    if (day === undefined) return 'the period before';
    return `the end of ${this.label(position)}`;
  }

  /** Item quantities of each listed unit's pieces paying at t. */
  private quantities(rows: Row[], entries: ReadonlyMap<string, UnitEntry>): number {
    const { snapshot, t } = this;
    const { pieces } = this.cells();
    const day = this.timeline.measureDay[t] as number;
    let total = 0;
    for (const row of rows) {
      const inSegment = entries.get(String(row.item))?.inSegment;
      for (let i = pieces.unitStart[row.item] as number; i < (pieces.unitStart[row.item + 1] as number); i++) {
        if ((pieces.start[i] as number) > day || day >= (pieces.end[i] as number) || (inSegment && !inSegment(i))) continue;
        const q = snapshot.lines.quantity[pieces.line[i] as number] as number;
        row.quantity += q;
        total += q;
      }
    }
    return total;
  }

  private retention(series: SeriesResult[], segmenter: Segmenter | null, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t, limit } = this;
    const L = periodsPerYear(plan.resolution);
    const start = t - L;
    const rows = new Map<number, Row[]>();
    const pass = visitUnitCells(this.cells(), segmenter, [t], (visit) => {
      if (start < 0) return;
      const then = visit.row.value[start] as number;
      if (!(then > 0)) return;
      const now = visit.row.value[t] as number;
      const group = visit.groupAt ? (visit.groupAt[start] as number) : 0;
      const value = plan.id === 'net_revenue_retention' ? now : Math.min(now, then);
      const list = rows.get(group) ?? [];
      list.push({ item: visit.unit, value, quantity: 0, additional: [{ name: `MRR at ${this.measureLabel(start)}`, value: then }, { name: `MRR at ${this.measureLabel(t)}`, value: now }] });
      rows.set(group, list);
    });
    const decorate = this.unitDecorator(null);
    return series.map((s) => {
      const list = rows.get(groupOf(pass.names, s)) ?? [];
      const then = list.reduce((sum, row) => sum + ((row.additional?.[0]?.value as number) ?? 0), 0);
      const numerator = list.reduce((sum, row) => sum + row.value, 0);
      const name = plan.id === 'net_revenue_retention' ? 'Net revenue retention' : 'Gross revenue retention';
      return customerPayload(list, limit, decorate, {
        calculation_details: [
          { name: `Customers paying at ${this.measureLabel(start)}`, value: list.length },
          { name: `Their MRR at ${this.measureLabel(start)}`, value: then },
          { name: plan.id === 'net_revenue_retention' ? `Their MRR at ${this.measureLabel(t)}` : `Their MRR at ${this.measureLabel(t)}, at most their MRR then`, value: numerator },
          { name, value: then === 0 ? null : numerator / then },
        ],
      });
    });
  }

  private cohorts(series: SeriesResult[], segmenter: Segmenter | null, column: 'initial' | number, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t: c, limit, snapshot } = this;
    const context = this.cells();
    const money = plan.id === 'mrr_cohorts';
    const target = column === 'initial' ? c : c + column;
    const members = new Map<number, { item: number; initial: number; value: number }[]>();
    const pass = visitUnitCells(context, segmenter, [c], (visit) => {
      if (cohortPosition(visit.row) !== c) return;
      const group = visit.groupAt ? (visit.groupAt[c] as number) : 0;
      const initial = newMrrWhenOccurred(snapshot, context.pieces, context.converter, visit.unit, this.timeline.measureDay[c] as number).mrr;
      const list = members.get(group) ?? [];
      list.push({ item: visit.unit, initial, value: target < this.timeline.length ? (visit.row.value[target] as number) : 0 });
      members.set(group, list);
    });
    const decorate = this.unitDecorator(null);
    return series.map((s) => {
      const list = members.get(groupOf(pass.names, s)) ?? [];
      const initialValue = list.reduce((sum, m) => sum + m.initial, 0);
      const initialCount = list.length;
      const rows: Row[] =
        column === 'initial'
          ? list.map((m) => ({ item: m.item, value: m.initial, quantity: 0 }))
          : list.filter((m) => m.value > 0).map((m) => ({ item: m.item, value: m.value, quantity: 0, additional: [{ name: 'New MRR when it occurred', value: m.initial }] }));
      const amount = rows.reduce((sum, row) => sum + row.value, 0);
      const base = money ? initialValue : initialCount;
      return customerPayload(rows, limit, decorate, {
        initial_cohort_value: initialValue,
        initial_cohort_count: initialCount,
        calculation_details:
          column === 'initial'
            ? [
                { name: 'Customers in the cohort', value: initialCount },
                { name: 'New MRR when it occurred', value: initialValue },
              ]
            : [
                { name: money ? 'Initial (new MRR when it occurred)' : 'Customers in the cohort', value: base },
                { name: money ? `MRR at ${this.measureLabel(target)}` : `Paying at ${this.measureLabel(target)}`, value: money ? amount : rows.length },
                { name: 'Share', value: base === 0 ? null : (money ? amount : rows.length) / base },
              ],
      });
    });
  }

  private freemium(series: SeriesResult[], segmenter: Segmenter | null, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t, limit, snapshot, timeline } = this;
    const context = this.cells();
    const free = buildFreemiumPieces(snapshot, { settings: plan.settings, useHierarchy: plan.useHierarchy, filter: plan.filter });
    const resolver = segmenter && segmenter.kind === 'customer_segment' ? new CustomerGroupResolver(snapshot, segmenter, timeline) : null;
    const names = resolver ? resolver.groups.names : ['Total'];
    const groupAt = new Int32Array(timeline.length);
    const groupAtT = (unit: number, position: number) => {
      if (!resolver) return 0;
      resolver.fill(unit, groupAt, position, position + 1);
      return groupAt[position] as number;
    };
    const measure = timeline.measureDay[t] as number;
    const rows = new Map<number, Row[]>();
    const push = (group: number, row: Row) => {
      const list = rows.get(group);
      if (list) list.push(row);
      else rows.set(group, [row]);
    };
    if (plan.id === 'free_customers') {
      for (let unit = 0; unit < free.unitCount; unit++) {
        let covered = false;
        for (let i = free.unitStart[unit] as number; i < (free.unitStart[unit + 1] as number) && !covered; i++) covered = (free.start[i] as number) <= measure && measure < (free.end[i] as number);
        if (covered && mrrOnDay(snapshot, context.pieces, context.converter, unit, measure) === 0) push(groupAtT(unit, t), { item: unit, value: 0, quantity: 0 });
      }
    } else {
      visitUnitCells(context, null, [t], (visit) => {
        const first = free.unitStart[visit.unit] as number;
        const last = free.unitStart[visit.unit + 1] as number;
        if (first === last || cohortPosition(visit.row) !== t || t === 0) return;
        let earliest = Infinity;
        for (let i = first; i < last; i++) earliest = Math.min(earliest, free.start[i] as number);
        if (earliest < runStartAt(context.pieces, visit.unit, measure)) push(groupAtT(visit.unit, t), { item: visit.unit, value: visit.row.value[t] as number, quantity: 0 });
      });
    }
    const decorate = this.unitDecorator(null);
    return series.map((s) => customerPayload(rows.get(groupOf(names, s)) ?? [], limit, decorate));
  }

  private revenue(series: SeriesResult[], segment: Segment, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t, limit, snapshot } = this;
    const kind = REVENUE_KINDS[plan.id] as NonNullable<(typeof REVENUE_KINDS)[keyof typeof REVENUE_KINDS]>;
    const context = this.cells();
    const segmenter = segment && 'segmenter' in segment ? segment.segmenter : null;
    const perGroup = new Map<number, Map<number, Row & { products: Set<string> }>>();
    const names = visitRevenue(snapshot, [kind], { timeline: this.timeline, converter: context.converter, settings: context.settings, useHierarchy: plan.useHierarchy, filter: plan.filter }, segmenter, (_kind, unit, group, position, amount, quantity, line) => {
      if (position !== t) return;
      let units = perGroup.get(group);
      if (!units) {
        units = new Map();
        perGroup.set(group, units);
      }
      let row = units.get(unit);
      if (!row) {
        row = { item: unit, value: 0, quantity: 0, products: new Set() };
        units.set(unit, row);
      }
      row.value += amount;
      row.quantity += quantity;
      const product = snapshot.lines.product[line] as number;
      if (product >= 0) row.products.add(snapshot.products.values[product] as string);
    });
    return series.map((s) => {
      const units = [...(perGroup.get(groupOf(names, s))?.values() ?? [])].filter((row) => row.value !== 0);
      const products = new Map(units.map((row) => [row.item, row.products]));
      const decorate: Decorate = (row) => ({ ...customerRow(snapshot, row.item, row.value), subscriptions: [...(products.get(row.item) ?? [])].sort().map((product_key) => ({ product_key })) });
      const quantity = units.reduce((sum, row) => sum + row.quantity, 0);
      return customerPayload(units, limit, decorate, { total_quantity: quantity });
    });
  }

  private flows(series: SeriesResult[], segment: Segment, groupOf: (names: readonly string[], s: SeriesResult) => number): DetailsPayload[] {
    const { plan, t, limit, snapshot } = this;
    const context = this.cells();
    const flow: FlowContext = { timeline: this.timeline, converter: context.converter, filter: this.plan.filter };
    const rowsByGroup = new Map<number, Row[]>();
    const collect = (item: number, group: number, position: number, amount: number) => {
      if (position !== t) return;
      const list = rowsByGroup.get(group);
      if (list) list.push({ item, value: amount, quantity: 0 });
      else rowsByGroup.set(group, [{ item, value: amount, quantity: 0 }]);
    };
    if (plan.id === 'deals') {
      const names = visitDeals(snapshot, flow, collect);
      const { deals } = snapshot;
      const decorate = (row: Row): TopDealRow => ({
        id: deals.ids[row.item] as string,
        public_id: deals.publicIds[row.item] ?? null,
        name: deals.names[row.item] as string,
        value: row.value,
        stage: deals.stages[deals.stage[row.item] as number] as string,
        days_since_moved_on: Math.max(0, plan.today - (deals.day[row.item] as number)),
        owner_name: deals.ownerNames[row.item] ?? null,
        external_url: deals.externalUrls[row.item] ?? null,
      });
      return series.map((s) => {
        const rows = rowsByGroup.get(s.component === undefined ? -1 : names.indexOf(s.component)) ?? [];
        const { top, rest, totalValue } = split(rows, limit, decorate);
        return { total_count: rows.length, total_value: totalValue, total_quantity: null, top_customers: [], top_deals: top, rest, calculation_details: [], additional_lists: [] };
      });
    }
    const cost: CostSegmenter | null = segment && 'cost' in segment ? segment.cost : null;
    const names = visitCosts(snapshot, flow, cost, collect);
    const { costs } = snapshot;
    const decorate = (row: Row): TopCostRow => ({
      id: costs.ids[row.item] as string,
      name: costs.names[row.item] as string,
      value: row.value,
      date: isoFromDay(costs.day[row.item] as number),
      invoice_number: costs.invoiceNumbers[row.item] ?? null,
    });
    let newCustomers: Row[] = [];
    if (plan.id === 'cac') {
      visitUnitCells(context, null, [t], (visit) => {
        const cell = visit.cells.find((c) => c.position === t);
        if (cell && cell.newCount > 0) newCustomers.push({ item: visit.unit, value: cell.newBusiness, quantity: 0 });
      });
      newCustomers = newCustomers.sort(byValue);
    }
    return series.map((s) => {
      const rows = rowsByGroup.get(groupOf(names, s)) ?? [];
      const { top, rest, totalValue } = split(rows, limit, decorate);
      const payload: DetailsPayload = { total_count: rows.length, total_value: totalValue, total_quantity: null, top_customers: [], top_costs: top, rest, calculation_details: [], additional_lists: [] };
      if (plan.id === 'cac') {
        payload.calculation_details = [
          { name: 'Costs', value: totalValue },
          { name: 'New customers', value: newCustomers.length },
          { name: 'CAC', value: newCustomers.length === 0 ? null : totalValue / newCustomers.length },
        ];
        payload.additional_lists = [customerList('New customers', newCustomers, limit, (row) => customerRow(snapshot, row.item, row.value))];
      }
      return payload;
    });
  }
}


