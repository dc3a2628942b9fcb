import {
  CONFIG_UNREADABLE,
  USER_FILTERED_DEFINITION_ID,
  findCustomValue,
  groupKey,
  type CustomFilter,
  type CustomGroup,
  type CustomSectionConfig,
  type CustomSeries,
  type CustomValueUnit,
} from '../../../models/customSections';
import { currencyDigits } from '../../../models/money';
import type { DataCategory } from '../../db/schema';
import { dayFromIso } from '../days';
import type { FilterCriterion, ReportFilter } from '../filters';
import type { AccountSnapshot } from '../snapshot/columns';
import { findDefinition, type DefinitionId } from './catalogue';
import { periodResults, planSection, sectionTimeline } from './plan';
import { CURRENCY_SEGMENTER_ID, ITEM_TYPE_SEGMENTER_ID, PRODUCT_SEGMENTER_ID, TOTAL_NAME, TOTAL_SEGMENTER_ID, costSegmenterId, customerSegmenterId, paymentAttributeSegmenterId } from './segmenters';
import { SectionRequestError, type DataPoint, type KeyNumberResult, type PeriodResult, type SectionRequest, type SectionResult, type SegmentResult, type SeriesResult, type ValueUnit } from './types';

/**
 * Custom sections (docs/custom-sections.md): each series of a 'user_filtered' section is a
 * catalogue metric (what its value names) computed with the series' filters (AND the report's
 * filter) and split by its groups and the section's, then shifted by its `periods_back`. A custom
 * request expands into one catalogue request per series, computed together with the rest of the
 * report (passes shared where filters agree), and its result is assembled from theirs: the total
 * with one series per configured series, and one segment per split with a series per configured
 * series and group value. Details of a point are the underlying metric's details at the point's
 * (shifted) period, so they add up to it exactly as a catalogue section's do.
 */

export const CUSTOM_SERIES_COMPONENT_PREFIX = 'series:';
export const customComponent = (k: number) => `${CUSTOM_SERIES_COMPONENT_PREFIX}${k}`;

interface ValueMeaning {
  definition: DefinitionId;
  category: DataCategory;
  /** An mrr_movements component: the series of that movement class. */
  component?: string;
}

/** What each value of models/customSections.ts CUSTOM_VALUES computes. */
export const CUSTOM_VALUE_MEANINGS: Record<string, ValueMeaning> = {
  'payments.mrr': { definition: 'mrr', category: 'values' },
  'payments.arr': { definition: 'arr', category: 'values' },
  'payments.net_new_mrr': { definition: 'net_new_mrr', category: 'values' },
  'payments.new_business_mrr': { definition: 'mrr_movements', category: 'values', component: 'new_business' },
  'payments.expansion_mrr': { definition: 'mrr_movements', category: 'values', component: 'expansion' },
  'payments.reactivation_mrr': { definition: 'mrr_movements', category: 'values', component: 'reactivation' },
  'payments.contraction_mrr': { definition: 'mrr_movements', category: 'values', component: 'contraction' },
  'payments.churned_mrr': { definition: 'mrr_movements', category: 'values', component: 'churn' },
  'payments.booked_revenue': { definition: 'booked_revenue', category: 'values' },
  'payments.recognized_revenue': { definition: 'recognized_revenue', category: 'values' },
  'payments.one_time_revenue': { definition: 'one_time_revenue', category: 'values' },
  'payments.usage_revenue': { definition: 'usage_revenue', category: 'values' },
  'payments.units_sold': { definition: 'units_sold', category: 'units' },
  'customers.count': { definition: 'customers', category: 'counts' },
  'customers.new': { definition: 'new_customers', category: 'counts' },
  'customers.churned': { definition: 'churned_customers', category: 'counts' },
  'customers.reactivated': { definition: 'reactivated_customers', category: 'counts' },
  'customers.arpa': { definition: 'arpa', category: 'values' },
  'costs.value': { definition: 'costs', category: 'values' },
  'costs.count': { definition: 'costs', category: 'counts' },
};

export function meaningOf(series: Pick<CustomSeries, 'value'>): ValueMeaning {
  const meaning = CUSTOM_VALUE_MEANINGS[`${series.value.object}.${series.value.attribute}`];
  if (!meaning) throw new SectionRequestError(`unknown value '${series.value.object}.${series.value.attribute}'`, '/config');
  return meaning;
}

/** The segmenter id a group splits by (a segmentation by its own id). */
export function segmenterIdOf(group: Pick<CustomGroup, 'object' | 'field' | 'field_id'>): string {
  const id = group.field_id ?? '';
  switch (`${group.object}.${group.field}`) {
    case 'customer.segment':
      return customerSegmenterId(id);
    case 'payment.product':
      return PRODUCT_SEGMENTER_ID;
    case 'payment.item_type':
      return ITEM_TYPE_SEGMENTER_ID;
    case 'payment.currency':
      return CURRENCY_SEGMENTER_ID;
    case 'payment.attribute':
      return paymentAttributeSegmenterId(id);
    case 'cost.attribute':
      return costSegmenterId(id);
    case 'customer.segmentation':
    case 'payment.segmentation':
    case 'cost.segmentation':
      return id;
    default:
      throw new SectionRequestError(`'${group.object}.${group.field}' cannot split a series`, '/config');
  }
}

/** The report's reporting month (absolute, year * 12 + month0): its last month, or today's when that is earlier. */
function reportingMonth(request: SectionRequest): number {
  const last = request.range.end_year * 12 + request.range.end_month - 1;
  const today = /^(\d{4})-(\d{2})/.exec(request.today);
  const current = today ? Number(today[1]) * 12 + Number(today[2]) - 1 : last;
  return Math.min(last, current);
}

/** A filter of a series as the engine's criterion. */
export function criterionOf(filter: CustomFilter, reportMonth: number): FilterCriterion {
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  const id = filter.field_id ?? '';
  switch (`${filter.object}.${filter.field}`) {
    case 'customer.segment':
      return { kind: 'customer_segment', segmentId: id, values, ...(filter.operator === 'in_reporting_month' ? { atMonth: reportMonth } : {}) };
    case 'customer.deal_owner':
      return { kind: 'deal_owner', ownerNames: values };
    case 'payment.product':
      return { kind: 'product', productKeys: values };
    case 'payment.item_type':
      return { kind: 'item_type', itemTypes: values as Extract<FilterCriterion, { kind: 'item_type' }>['itemTypes'] };
    case 'payment.currency':
      return { kind: 'currency', currencies: values.map((v) => v.toUpperCase()) };
    case 'payment.attribute':
      return { kind: 'payment_attribute', attributeId: id, values };
    case 'cost.attribute':
      return { kind: 'cost_attribute', attributeId: id, values };
    case 'customer.segmentation':
    case 'payment.segmentation':
      // One group: the segmentation's criterion; several: any of them.
      return values.length === 1
        ? { kind: 'segmentation', segmentationId: id, group: values[0] as string }
        : { kind: 'group', filter: { operator: 'or', criteria: values.map((group) => ({ kind: 'segmentation', segmentationId: id, group })) } };
    default:
      throw new SectionRequestError(`'${filter.object}.${filter.field}' cannot filter a series`, '/config');
  }
}

/** The report filter AND the series' criteria (costs ignore the report filter, as catalogue sections do). */
function seriesFilter(report: ReportFilter | null | undefined, criteria: FilterCriterion[]): ReportFilter | null {
  const base = report && report.criteria.length > 0 ? report : null;
  if (criteria.length === 0) return base;
  if (!base) return { operator: 'and', criteria };
  return { operator: 'and', criteria: [{ kind: 'group', filter: base }, ...criteria] };
}

/** The splits of a series: the section's, then its own, each once. */
export function groupsOf(config: CustomSectionConfig, series: CustomSeries): CustomGroup[] {
  const seen = new Set<string>();
  return [...config.groups, ...series.groups].filter((group) => {
    const key = groupKey(group);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Months in a period of the resolution, to move a range back by whole periods. */
const MONTHS_PER_PERIOD = { week: 0, month: 1, quarter: 3, year: 12 } as const;

/** The range of the series' request: the section's, starting `back` periods earlier. */
function shiftedRange(request: SectionRequest, back: number): SectionRequest['range'] {
  if (back <= 0) return request.range;
  const resolution = request.resolution ?? 'month';
  // Weeks: enough whole months before the start to hold `back` more weeks.
  const months = resolution === 'week' ? Math.ceil((back * 7) / 28) + 1 : back * MONTHS_PER_PERIOD[resolution];
  const start = request.range.start_year * 12 + request.range.start_month - 1 - months;
  return { ...request.range, start_year: Math.floor(start / 12), start_month: (start % 12) + 1 };
}

/** The catalogue request one series of a custom section computes. */
export function seriesRequest(request: SectionRequest, config: CustomSectionConfig, series: CustomSeries): SectionRequest {
  const meaning = meaningOf(series);
  const criteria = series.filters.map((filter) => criterionOf(filter, reportingMonth(request)));
  const { custom: _custom, ...rest } = request;
  return {
    ...rest,
    definition_id: meaning.definition,
    range: shiftedRange(request, series.value.arguments.periods_back ?? 0),
    data_type: findDefinition(meaning.definition)?.default_data_type ?? 'line_chart',
    data_category: meaning.category,
    segmenters: groupsOf(config, series).map(segmenterIdOf),
    filter: seriesFilter(request.filter, criteria),
  };
}

const UNITS: Record<CustomValueUnit, ValueUnit> = { money: 'minor_units', count: 'count', units: 'units' };

export function isCustomRequest(request: SectionRequest): request is SectionRequest & { custom: CustomSectionConfig } {
  return request.definition_id === USER_FILTERED_DEFINITION_ID;
}

function configOf(request: SectionRequest, pointer: string): CustomSectionConfig {
  if (!request.custom || !Array.isArray(request.custom.series) || request.custom.series.length === 0) throw new SectionRequestError(CONFIG_UNREADABLE, `${pointer}/custom`);
  return request.custom;
}

/** The periods a custom section shows: its own range's, whatever its series read. */
function sectionPeriods(snapshot: AccountSnapshot, request: SectionRequest): PeriodResult[] {
  const plan = planSection(snapshot, { ...request, definition_id: 'mrr', data_type: 'line_chart', data_category: 'values', segmenters: [], filter: null });
  const frame = sectionTimeline(plan.resolution, plan.range, 0, plan.today);
  return periodResults(frame.timeline, frame.offset);
}

/**
 * Where each of the section's periods is in a series' own result: its position `back` periods
 * earlier (-1: before the series' first period).
 */
function positionsIn(periods: readonly PeriodResult[], own: readonly PeriodResult[], back: number): number[] {
  const first = periods[0];
  const base = first ? own.findIndex((p) => p.first_day === first.first_day) : -1;
  return periods.map((_, i) => (base < 0 ? -1 : base + i - back));
}

function shiftPoints(points: readonly DataPoint[], positions: readonly number[], periods: readonly PeriodResult[]): DataPoint[] {
  return positions.map((at, i) => {
    const point = at >= 0 ? points[at] : undefined;
    const time = (periods[i] as PeriodResult).first_day;
    return point ? { ...point, time } : { time, value: null };
  });
}

/** The series of the underlying result that shows the value (a movement class, or the only one). */
function pick(series: readonly SeriesResult[], meaning: ValueMeaning): SeriesResult[] {
  return meaning.component === undefined ? [...series] : series.filter((s) => s.component === meaning.component);
}

/** A reference line typed in major units, in the points' units. */
function referenceOf(series: CustomSeries, unit: ValueUnit, currency: string): number | null {
  if (series.reference === null) return null;
  return unit === 'minor_units' ? Math.round(series.reference * 10 ** currencyDigits(currency)) : series.reference;
}

/** Assembles a custom section's result from its series' results (one per configured series, in order). */
export function assembleCustom(snapshot: AccountSnapshot, request: SectionRequest, results: readonly SectionResult[]): SectionResult {
  const config = configOf(request, '');
  const periods = sectionPeriods(snapshot, request);
  const first = results[0] as SectionResult;
  const currency = first.currency;
  const total: SeriesResult[] = [];
  const segments = new Map<string, SegmentResult>();
  config.series.forEach((series, k) => {
    const result = results[k] as SectionResult;
    const meaning = meaningOf(series);
    const back = series.value.arguments.periods_back ?? 0;
    const positions = positionsIn(periods, result.periods, back);
    const unit = UNITS[findCustomValue(series.value.object, series.value.attribute)?.unit ?? 'money'];
    const extra = {
      component: customComponent(k),
      unit,
      ...(series.hidden ? { hidden: true } : {}),
      y_reference_line: referenceOf(series, unit, currency),
    };
    for (const segment of result.segments) {
      const picked = pick(segment.series, meaning);
      if (segment.is_total) {
        const one = picked[0];
        total.push({ name: series.name, ...extra, data_points: one ? shiftPoints(one.data_points, positions, periods) : periods.map((p) => ({ time: p.first_day, value: null })) });
        continue;
      }
      let view = segments.get(segment.id);
      if (!view) {
        view = { id: segment.id, name: segment.name, is_total: false, series: [], grouped_segment_names: [] };
        segments.set(segment.id, view);
      }
      for (const name of segment.grouped_segment_names) if (!view.grouped_segment_names.includes(name)) view.grouped_segment_names.push(name);
      for (const s of picked) {
        const value = s.segment_value ?? s.name;
        view.series.push({ name: `${series.name}: ${value}`, segment_value: value, ...extra, data_points: shiftPoints(s.data_points, positions, periods) });
      }
    }
  });
  const totalSegment: SegmentResult = { id: TOTAL_SEGMENTER_ID, name: TOTAL_NAME, is_total: true, series: total, grouped_segment_names: [] };
  return {
    definition_id: USER_FILTERED_DEFINITION_ID,
    data_type: request.data_type ?? 'line_chart',
    resolution: request.resolution ?? 'month',
    data_category: 'values',
    unit: (total.find((s) => !s.hidden) ?? total[0])?.unit ?? 'minor_units',
    currency,
    periods,
    segments: [totalSegment, ...segments.values()],
    key_number: keyNumberOf(periods, total),
  };
}

/** The first shown series' value at the last complete period. */
function keyNumberOf(periods: readonly PeriodResult[], total: readonly SeriesResult[]): KeyNumberResult {
  const shown = total.find((s) => !s.hidden) ?? total[0];
  const kind = shown?.unit === 'minor_units' ? 'currency' : 'other';
  for (let i = periods.length - 1; i >= 0; i--) {
    if (!(periods[i] as PeriodResult).complete) continue;
    return { value: shown?.data_points[i]?.value ?? null, kind, time: (periods[i] as PeriodResult).first_day };
  }
  return { value: null, kind, time: null };
}

/**
 * The requests to compute for a list of section requests: each catalogue request as it is, each
 * custom one as one request per series; `assemble` turns their results back into one result per
 * request given. A result that failed (an Error) makes its custom section fail with it.
 */
export function expandCustomRequests<R extends SectionRequest>(requests: readonly R[]): { flat: R[]; assemble: <T extends SectionResult | Error>(snapshot: AccountSnapshot, results: readonly T[]) => (SectionResult | T)[] } {
  const flat: R[] = [];
  const slices: { request: R; from: number; count: number; custom: boolean }[] = [];
  requests.forEach((request, k) => {
    if (!isCustomRequest(request)) {
      slices.push({ request, from: flat.length, count: 1, custom: false });
      flat.push(request);
      return;
    }
    const config = configOf(request, `/${k}`);
    slices.push({ request, from: flat.length, count: config.series.length, custom: true });
    for (const series of config.series) flat.push(seriesRequest(request, config, series) as R);
  });
  return {
    flat,
    assemble: (snapshot, results) =>
      slices.map((slice) => {
        if (!slice.custom) return results[slice.from] as SectionResult | (typeof results)[number];
        const own = results.slice(slice.from, slice.from + slice.count);
        const failed = own.find((result) => result instanceof Error);
        if (failed) return failed;
        return assembleCustom(snapshot, slice.request, own as SectionResult[]);
      }),
  };
}

/**
 * A point of a custom section as a point of its series' metric: the series (`component`
 * 'series:k'), the day of the period it is read from, the movement class. `finish` labels the
 * underlying details as the custom section's.
 */
export function customPoint(snapshot: AccountSnapshot, request: SectionRequest & { date: string; component?: string }): { series: CustomSeries; index: number; request: SectionRequest; date: string; component: string | undefined; period: PeriodResult } {
  const config = configOf(request, '');
  const index = request.component?.startsWith(CUSTOM_SERIES_COMPONENT_PREFIX) ? Number(request.component.slice(CUSTOM_SERIES_COMPONENT_PREFIX.length)) : Number.NaN;
  const series = Number.isInteger(index) ? config.series[index] : undefined;
  if (!series) throw new SectionRequestError('name the series of the point: component series:<k>', '/component');
  const periods = sectionPeriods(snapshot, request);
  let day: number;
  try {
    day = dayFromIso(request.date);
  } catch {
    throw new SectionRequestError(`not a day 'YYYY-MM-DD': '${request.date}'`, '/date');
  }
  const at = periods.findIndex((p) => dayFromIso(p.first_day) <= day && day <= dayFromIso(p.last_day));
  if (at < 0) throw new SectionRequestError('no period of the section holds the date', '/date');
  const underlying = seriesRequest(request, config, series);
  const back = series.value.arguments.periods_back ?? 0;
  // The series' own periods: those of its shifted range.
  const own = sectionPeriods(snapshot, underlying);
  const position = (positionsIn(periods, own, back)[at] ?? -1) as number;
  const source = own[position];
  if (!source) throw new SectionRequestError('the point has no value: it is before the data the series reads', '/date');
  return { series, index, request: underlying, date: source.first_day, component: meaningOf(series).component, period: source };
}
