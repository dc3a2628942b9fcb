import { absoluteMonth, dayFromIso, firstDayOfMonth, isoFromDay, monthOfDay } from '../days';
import type { ReportFilter } from '../filters';
import { buildTimeline, periodFirstDay, periodOfDay, RESOLUTIONS, type ReportRange, type Resolution, type Timeline } from '../periods';
import type { ReportSettingsInput } from '../settings';
import type { AccountSnapshot } from '../snapshot/columns';
import { findDefinition, type DefinitionId, type SectionDefinition } from './catalogue';
import { resolveSegmenter, type ResolvedSegmenter } from './segmenters';
import type { DataCategory } from '../../db/schema';
import { SectionRequestError, type DataType, type PeriodResult, type SectionRequest } from './types';

/**
 * A section request checked against the catalogue and the account, with everything the
 * computation needs resolved: the definition, its segmenters, the settings, and how many
 * periods before the range its numbers look at.
 */
export interface PlannedSection {
  request: SectionRequest;
  definition: SectionDefinition;
  id: DefinitionId;
  resolution: Resolution;
  dataType: DataType;
  category: DataCategory;
  useHierarchy: boolean;
  settings: ReportSettingsInput;
  filter: ReportFilter | null;
  /** Segmenters besides the total, in the order asked. */
  segmenters: ResolvedSegmenter[];
  range: ReportRange;
  today: number;
  /** Periods before the range whose values the section's numbers read. */
  lookback: number;
}

/** Periods in 12 months: the trailing window of revenue retention. */
export function periodsPerYear(resolution: Resolution): number {
  return resolution === 'week' ? 52 : resolution === 'month' ? 12 : resolution === 'quarter' ? 4 : 1;
}

/** LTV divides by the mean customer churn rate of this many periods before p. */
export const LTV_CHURN_PERIODS = 6;

/** Periods before p a definition reads (p-1 for every rate and movement-based figure). */
function definitionLookback(id: DefinitionId, resolution: Resolution): number {
  switch (id) {
    case 'ltv':
      return LTV_CHURN_PERIODS + 1;
    case 'net_revenue_retention':
    case 'gross_revenue_retention':
      return periodsPerYear(resolution);
    case 'one_time_revenue':
    case 'booked_revenue':
    case 'recognized_revenue':
    case 'usage_revenue':
    case 'units_sold':
    case 'costs':
    case 'cac':
    case 'deals':
    case 'customer_cohorts':
    case 'mrr_cohorts':
      return 0;
    default:
      return 1;
  }
}

function categoryLookback(category: DataCategory): number {
  if (category === 'moving_average3') return 2;
  if (category === 'month_over_month_growth' || category === 'month_over_month_retention') return 1;
  return 0;
}

export function planSection(snapshot: AccountSnapshot, request: SectionRequest, pointer = ''): PlannedSection {
  const definition = findDefinition(request.definition_id);
  if (!definition) throw new SectionRequestError(`unknown definition '${request.definition_id}'`, `${pointer}/definition_id`);
  const resolution = request.resolution ?? 'month';
  if (!RESOLUTIONS.includes(resolution) || !definition.supported_grouping_periods.includes(resolution)) {
    throw new SectionRequestError(`${definition.name} does not support the resolution '${resolution}'`, `${pointer}/resolution`);
  }
  const dataType = request.data_type ?? definition.default_data_type;
  if (!definition.supported_data_types.includes(dataType)) throw new SectionRequestError(`${definition.name} cannot be shown as '${dataType}'`, `${pointer}/data_type`);
  const category = request.data_category ?? (definition.data_categories[0] as DataCategory);
  if (!definition.data_categories.includes(category)) throw new SectionRequestError(`${definition.name} has no data category '${category}'`, `${pointer}/data_category`);
  const segmenters = (request.segmenters ?? [])
    .map((ref, k) => resolveSegmenter(snapshot, ref, `${pointer}/segmenters/${k}`))
    .filter((s) => s.type !== 'total');
  segmenters.forEach((s, k) => {
    if (!definition.segmenter_types.includes(s.type)) throw new SectionRequestError(`${definition.name} cannot be split by ${s.type} '${s.name}'`, `${pointer}/segmenters/${k}`);
  });
  const { range } = request;
  const valid = (year: number, month: number) => Number.isInteger(year) && Number.isInteger(month) && month >= 1 && month <= 12;
  if (!valid(range.start_year, range.start_month) || !valid(range.end_year, range.end_month)) throw new SectionRequestError('the range needs years and months 1-12', `${pointer}/range`);
  let today: number;
  try {
    today = dayFromIso(request.today);
  } catch {
    throw new SectionRequestError(`today is not a day 'YYYY-MM-DD': '${request.today}'`, `${pointer}/today`);
  }
  const first = absoluteMonth(range.start_year, range.start_month);
  const last = absoluteMonth(range.end_year, range.end_month);
  if (last < first) throw new SectionRequestError('the range ends before it starts', `${pointer}/range`);
  if (firstDayOfMonth(first) > today) throw new SectionRequestError('the range starts after today', `${pointer}/range`);
  const currency = request.currency ?? request.report_settings?.currency ?? null;
  return {
    request,
    definition,
    id: definition.id,
    resolution,
    dataType,
    category,
    useHierarchy: request.use_hierarchy === true,
    settings: { ...request.report_settings, currency },
    filter: request.filter && request.filter.criteria.length > 0 ? request.filter : null,
    segmenters,
    range: { startYear: range.start_year, startMonth: range.start_month, endYear: range.end_year, endMonth: range.end_month },
    today,
    lookback: definitionLookback(definition.id, resolution) + categoryLookback(category),
  };
}

/** Global index of the first period of a range. */
export function rangeFirstIndex(resolution: Resolution, range: ReportRange): number {
  return periodOfDay(resolution, firstDayOfMonth(absoluteMonth(range.startYear, range.startMonth)));
}

/** The range moved back so that its periods start at least `periods` periods earlier. */
export function extendRange(resolution: Resolution, range: ReportRange, periods: number): ReportRange {
  if (periods <= 0) return range;
  const month = monthOfDay(periodFirstDay(resolution, rangeFirstIndex(resolution, range) - periods));
  const year = Math.floor(month / 12);
  return { ...range, startYear: year, startMonth: month - year * 12 + 1 };
}

/**
 * The timeline a section's numbers are computed on: its range extended by `lookback` periods,
 * plus the core's own look-back period. `offset` is the position of the range's first period
 * among the series positions (timeline positions from `rangeStart`).
 */
export interface SectionTimeline {
  timeline: Timeline;
  range: ReportRange;
  /** Series index (timeline position - rangeStart) of the section's first period. */
  offset: number;
}

export function sectionTimeline(resolution: Resolution, range: ReportRange, lookback: number, today: number): SectionTimeline {
  const extended = extendRange(resolution, range, lookback);
  const timeline = buildTimeline({ resolution, range: extended, today, lookback: 1 });
  return { timeline, range: extended, offset: offsetOf(timeline, resolution, range) };
}

/** Series index of the first period of `range` in a timeline that starts at or before it. */
export function offsetOf(timeline: Timeline, resolution: Resolution, range: ReportRange): number {
  return rangeFirstIndex(resolution, range) - (timeline.firstIndex + timeline.rangeStart);
}

/** The periods of a timeline from series index `offset` on. */
export function periodResults(timeline: Timeline, offset: number): PeriodResult[] {
  const out: PeriodResult[] = [];
  for (let t = timeline.rangeStart + offset; t < timeline.length; t++) {
    const lastDay = timeline.lastDay[t] as number;
    out.push({
      label: timeline.labels[t] as string,
      first_day: isoFromDay(timeline.firstDay[t] as number),
      last_day: isoFromDay(lastDay),
      measure_day: isoFromDay(timeline.measureDay[t] as number),
      current: t === timeline.currentPosition,
      complete: lastDay < timeline.today,
    });
  }
  return out;
}

/** Day -> timeline position over the timeline's days (-1 outside), for loops that look up many days. */
export interface DayIndex {
  readonly base: number;
  readonly table: Int32Array;
}

const dayIndexes = new WeakMap<Timeline, DayIndex>();

export function dayIndexOf(timeline: Timeline): DayIndex {
  let index = dayIndexes.get(timeline);
  if (!index) {
    const P = timeline.length;
    const base = P > 0 ? (timeline.firstDay[0] as number) : 0;
    const table = new Int32Array(P > 0 ? (timeline.lastDay[P - 1] as number) - base + 1 : 0);
    for (let t = 0; t < P; t++) table.fill(t, (timeline.firstDay[t] as number) - base, (timeline.lastDay[t] as number) - base + 1);
    index = { base, table };
    dayIndexes.set(timeline, index);
  }
  return index;
}

/** Timeline position of the period holding `day`, or -1 when it is not on the timeline. */
export function positionOfDay(timeline: Timeline, day: number): number {
  const { base, table } = dayIndexOf(timeline);
  const offset = day - base;
  return offset >= 0 && offset < table.length ? (table[offset] as number) : -1;
}
