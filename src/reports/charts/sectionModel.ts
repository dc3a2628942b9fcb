import type { operations } from '../../api/schema';
import { UNGROUPED_SEGMENT_LABEL } from '../../../models/constants';
import { quarterLabel, valueUnitOf } from './format';
import type { ValueFormat } from './format';

/** A section as `GET /business_reports/by_secret` answers it. */
export type ReportSection =
  operations['getReportBySecret']['responses'][200]['content']['application/json']['sections'][number];
export type SectionSegment = ReportSection['segments'][number];
export type SectionSeries = SectionSegment['series'][number];
export type SectionDataPoint = SectionSeries['data_points'][number];
export type SectionPeriod = ReportSection['periods'][number];

export type ChartKind = 'line_chart' | 'bar_chart' | 'stacked_bar_chart';

/** What a click on a data point (or a cohort cell) names, enough to open its details. */
export interface SectionPointInfo {
  sectionId: string;
  segmentId: string;
  seriesName: string;
  segmentValue?: string;
  component?: string;
  /** First day of the period of the point ('YYYY-MM-DD'); for a cohort cell, of cohort + k. */
  time: string;
  value: number | null;
  /** Cohort cells: 'initial' or k. */
  column?: 'initial' | number;
  /** Cohort cells: the cohort's first day. */
  cohortDate?: string;
}

export const EMPTY_STATE_MESSAGES = {
  missingSegment: 'This chart is missing selected segment. Edit report to add missing segmentation.',
  quarterlyUnsupported: 'This chart is not supported in quarterly resolution.',
  nothingFound: 'Nothing found. Edit report and add missing segments.',
} as const;
export type EmptyStateKind = keyof typeof EMPTY_STATE_MESSAGES;

const TOTAL_SEGMENT_ID = 'total';

/**
 * The segment a section's chart shows: the one asked for; else the first segmenter the section
 * was split by (its `segment_ids`, besides the total); else the total. `requestedId` is the id
 * that was looked for, so a missing one can be told apart from a section without segments.
 */
export function segmentToShow(section: ReportSection, segmentId?: string): { segment: SectionSegment | null; requestedId: string | null } {
  const requestedId = segmentId ?? section.segment_ids.find((id) => id !== TOTAL_SEGMENT_ID) ?? null;
  if (requestedId !== null) return { segment: section.segments.find((segment) => segment.id === requestedId) ?? null, requestedId };
  return { segment: section.segments.find((segment) => segment.is_total) ?? section.segments[0] ?? null, requestedId: null };
}

/** The server says the definition cannot be computed by quarter (plan.ts: "... does not support the resolution 'quarter'"). */
function refusesQuarters(section: ReportSection): boolean {
  return section.resolution === 'quarter' && /resolution\s+'?quarter/i.test(section.error ?? '');
}

function hasValues(segment: SectionSegment): boolean {
  return segment.series.some((series) => series.data_points.some((point) => point.value !== null));
}

/**
 * Which empty state a section shows instead of its chart, or null to draw it. In order:
 * 1. 'not supported in quarterly resolution': the report displays quarters and the section is
 *    weekly (weeks do not fall into quarters), or the section is set to quarters and the server
 *    refused that resolution for its definition;
 * 2. 'missing selected segment': the section was split by a segmenter (or the caller asked for
 *    a segment) and the answer has segments, but not that one (the segmentation was deleted or
 *    is not computed yet);
 * 3. 'Nothing found': no segments at all (a failed or empty computation), or the shown segment
 *    has no series, or none of its points has a value.
 */
export function sectionEmptyState(section: ReportSection, options: { displayQuarters?: boolean; segmentId?: string } = {}): EmptyStateKind | null {
  if ((options.displayQuarters && section.resolution === 'week') || refusesQuarters(section)) return 'quarterlyUnsupported';
  if (section.segments.length === 0) return 'nothingFound';
  const { segment, requestedId } = segmentToShow(section, options.segmentId);
  if (!segment) return requestedId !== null ? 'missingSegment' : 'nothingFound';
  if (!hasValues(segment)) return 'nothingFound';
  return null;
}

/** How a series is named on a legend: its name; a segment's series without a value is 'Other'. */
export function seriesDisplayName(series: SectionSeries, segment: SectionSegment): string {
  if (!segment.is_total && series.segment_value !== undefined && series.segment_value.trim() === '') return UNGROUPED_SEGMENT_LABEL;
  return series.name.trim() === '' ? UNGROUPED_SEGMENT_LABEL : series.name;
}

/** Stable key of a series within its segment (names may repeat across components). */
export function seriesKey(series: SectionSeries, index: number): string {
  return `${index}:${series.component ?? ''}:${series.segment_value ?? ''}:${series.name}`;
}

export function valueFormatOf(section: ReportSection): ValueFormat {
  return { unit: valueUnitOf(section.unit), currency: section.currency, decimal: section.decimal };
}

export interface ChartSeriesModel {
  key: string;
  name: string;
  /** One value per period of the section (null where the series has no point). */
  data: (number | null)[];
  source: SectionSeries;
  /** Values this series collects (shown on hover of 'Other'). */
  groupedNames: readonly string[];
}

export interface ChartModel {
  kind: ChartKind;
  segment: SectionSegment;
  /** Category labels of the x axis, one per period. */
  categories: string[];
  /** The periods' own labels, for tooltips. */
  periodLabels: string[];
  periodDays: string[];
  series: ChartSeriesModel[];
}

/**
 * The horizontal reference line of a chart: the section's reference value, else (a custom
 * section) the first drawn series' own line (`y_reference_line`), as the section editor's
 * preview draws it; null for none.
 */
export function referenceValueOf(section: ReportSection, model: ChartModel): number | null {
  if (typeof section.reference_value === 'number') return section.reference_value;
  const line = model.series.find((series) => typeof series.source.y_reference_line === 'number')?.source.y_reference_line;
  return typeof line === 'number' ? line : null;
}

export function chartKindOf(dataType: string): ChartKind {
  return dataType === 'bar_chart' || dataType === 'stacked_bar_chart' ? dataType : 'line_chart';
}

/**
 * X-axis labels. With the report's display of quarters: a quarterly section labels each period
 * 'Q1 2025'..'Q4 2025'; a monthly section labels the months that start a quarter (0, 3, 6, 9)
 * that way and leaves the other months' ticks blank. Otherwise the periods' own labels.
 */
export function categoryLabels(section: ReportSection, displayQuarters: boolean): string[] {
  if (!displayQuarters || (section.resolution !== 'quarter' && section.resolution !== 'month')) return section.periods.map((period) => period.label);
  return section.periods.map((period) => quarterLabel(period.first_day) ?? (section.resolution === 'quarter' ? period.label : ''));
}

/**
 * The chart of one segment of a section. A custom section's hidden series (`hidden`: computed,
 * its details answer, but not drawn) are left out.
 */
export function chartModelOf(section: ReportSection, segment: SectionSegment, displayQuarters: boolean): ChartModel {
  const periodDays = section.periods.map((period) => period.first_day);
  const series = segment.series.flatMap((source, index): ChartSeriesModel[] => {
    if (source.hidden === true) return [];
    const byDay = new Map(source.data_points.map((point) => [point.time, point.value]));
    const name = seriesDisplayName(source, segment);
    return [
      {
        key: seriesKey(source, index),
        name,
        data: periodDays.map((day) => byDay.get(day) ?? null),
        source,
        groupedNames: name === UNGROUPED_SEGMENT_LABEL ? segment.grouped_segment_names : [],
      },
    ];
  });
  return {
    kind: chartKindOf(section.data_type),
    segment,
    categories: categoryLabels(section, displayQuarters),
    periodLabels: section.periods.map((period) => period.label),
    periodDays,
    series,
  };
}

export interface CohortCell {
  column: 'initial' | number;
  point: SectionDataPoint;
}

export interface CohortRow {
  key: string;
  label: string;
  cohortDate: string;
  series: SectionSeries;
  initial: SectionDataPoint | null;
  /** Cells by period k (0 = 'month 0'); undefined where the cohort has not reached k. */
  cells: (SectionDataPoint | undefined)[];
}

export interface CohortModel {
  rows: CohortRow[];
  /** Number of period columns (0 .. columns - 1). */
  columns: number;
}

export function cohortModelOf(segment: SectionSegment): CohortModel {
  let columns = 0;
  const rows = segment.series.map((series, index): CohortRow => {
    const initial = series.data_points.find((point) => point.column === 'initial') ?? null;
    const cells: (SectionDataPoint | undefined)[] = [];
    for (const point of series.data_points) {
      if (typeof point.column === 'number' && point.column >= 0) cells[point.column] = point;
    }
    columns = Math.max(columns, cells.length);
    return {
      key: seriesKey(series, index),
      label: seriesDisplayName(series, segment),
      cohortDate: initial?.time ?? series.data_points[0]?.time ?? '',
      series,
      initial,
      cells,
    };
  });
  return { rows, columns };
}
