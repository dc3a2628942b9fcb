import type { DataPoint, SectionResult, SegmentResult, SeriesResult, ValueUnit } from '../../metrics/definitions/types';
import { CUSTOM_SERIES_COMPONENT_PREFIX } from '../../metrics/definitions/custom';
import { currencyDigits } from '../../../models/money';
import { TOTAL_SEGMENTER_ID } from '../../metrics/definitions/segmenters';

/**
 * The tables the section exports write (docs/exports.md): a header row and rows of cells,
 * numbers as numbers, so the CSV and XLSX writers (files.ts) decide how each is written.
 */
export type Cell = string | number | null;

export interface ExportTable {
  header: string[];
  rows: Cell[][];
}

/** `GET /business_report/sections/{id}/export_data?variant=`: which number of each data point. */
export type DataVariant = 'money' | 'customer_count' | 'units_sold';
export const DATA_VARIANTS: readonly DataVariant[] = ['money', 'customer_count', 'units_sold'];

/** A number as the chart shows it: money in major units (123456 USD cents: 1234.56), a fraction as a percentage (0.05: 5). */
export function shownNumber(value: number, unit: ValueUnit | null, currency: string | null): number {
  if (unit === 'minor_units' && currency) {
    const digits = currencyDigits(currency);
    return Math.round(value) / 10 ** digits;
  }
  if (unit === 'fraction') return Math.round(value * 100 * 1e6) / 1e6;
  return value;
}

/** The unit a column title carries: '(USD)', '(%)', nothing for counts. */
export function unitSuffix(unit: ValueUnit | null, currency: string | null): string {
  if (unit === 'minor_units' && currency) return ` (${currency})`;
  if (unit === 'fraction') return ' (%)';
  return '';
}

export class ExportRequestError extends Error {
  override name = 'ExportRequestError';
  constructor(
    message: string,
    /** JSON pointer of the offending query field. */
    readonly pointer: string,
  ) {
    super(message);
  }
}

/** The segment (segmenter view) of a computed section: 'total' by default. */
export function segmentOf(result: SectionResult, segmentId: string | undefined): SegmentResult {
  const id = segmentId ?? TOTAL_SEGMENTER_ID;
  const segment = result.segments.find((s) => s.id === id);
  if (!segment) throw new ExportRequestError(`The section has no segment '${id}'`, '/querystring/segment_id');
  return segment;
}

/** The series of a segment, or the one of `segmentValue`. */
export function seriesOf(segment: SegmentResult, segmentValue: string | undefined): SeriesResult[] {
  if (segmentValue === undefined) return segment.series;
  const series = segment.series.filter((s) => s.segment_value === segmentValue);
  if (series.length === 0) throw new ExportRequestError(`The segment has no value '${segmentValue}'`, '/querystring/segment_value');
  return series;
}

function seriesTitle(series: SeriesResult): string {
  // A custom section's series is named by its own name (its component only numbers it).
  const numbered = series.component?.startsWith(CUSTOM_SERIES_COMPONENT_PREFIX) === true;
  return series.component !== undefined && series.component !== series.name && !numbered ? `${series.name} – ${series.component}` : series.name;
}

function pointNumber(point: DataPoint | undefined, variant: DataVariant | undefined, unit: ValueUnit, currency: string): number | null {
  if (!point) return null;
  switch (variant) {
    case 'customer_count':
      return point.count ?? null;
    case 'units_sold':
      return point.quantity ?? null;
    default:
      return point.value === null ? null : shownNumber(point.value, unit, currency);
  }
}

/**
 * The section's series as the chart shows them: a row per period ('Period' label and its first
 * day), a column per series (the total, or each segment value, or each component). `variant`
 * picks the point's value (default and `money`), its customer count or its units sold. A cohort
 * table is written as the page shows it (cohortTable).
 */
export function sectionDataTable(result: SectionResult, options: { segmentId?: string; segmentValue?: string; variant?: DataVariant }): ExportTable {
  const segment = segmentOf(result, options.segmentId);
  const series = seriesOf(segment, options.segmentValue);
  if (isCohortResult(result)) return cohortTable(result, series, options.variant);
  // A custom section's series each have their unit (money next to counts).
  const unitOf = (s: SeriesResult) => s.unit ?? result.unit;
  const suffix = (s: SeriesResult) =>
    options.variant === 'customer_count' ? ' (customers)' : options.variant === 'units_sold' ? ' (units)' : unitSuffix(unitOf(s), result.currency);
  const header = ['Period', 'Start date', ...series.map((s) => `${seriesTitle(s)}${suffix(s)}`)];
  const byTime = series.map((s) => ({ unit: unitOf(s), points: new Map(s.data_points.map((point) => [point.time, point])) }));
  const rows = result.periods.map((period) => [
    period.label,
    period.first_day,
    ...byTime.map(({ unit, points }) => pointNumber(points.get(period.first_day), options.variant, unit, result.currency)),
  ]);
  return { header, rows };
}

export function isCohortResult(result: Pick<SectionResult, 'definition_id' | 'data_type'>): boolean {
  return result.data_type === 'cohort' || result.definition_id === 'customer_cohorts' || result.definition_id === 'mrr_cohorts';
}

/** 'month 3' (the page's cohort column label; 'quarter 3' and so on for other resolutions). */
export function cohortColumnLabel(resolution: string, k: number): string {
  return `${resolution === 'quarter' || resolution === 'year' || resolution === 'week' ? resolution : 'month'} ${k}`;
}

/**
 * A cohort table as the page shows it: a row per cohort, `initial` (the cohort's new MRR in
 * major units for money, else its customers), then its share of initial at the end of period
 * 0, 1, 2 … as percentages. `customer_count` and `units_sold` write those numbers of every cell.
 */
function cohortTable(result: SectionResult, series: SeriesResult[], variant: DataVariant | undefined): ExportTable {
  const money = result.definition_id === 'mrr_cohorts' || result.data_category === 'values';
  const columns = Math.max(0, ...series.map((s) => s.data_points.filter((p) => p.column !== 'initial').length));
  const labels = Array.from({ length: columns }, (_, k) => cohortColumnLabel(result.resolution, k));
  const other = variant === 'customer_count' ? ' (customers)' : variant === 'units_sold' ? ' (units)' : null;
  const header = ['Cohort', `initial${other ?? (money ? ` (${result.currency})` : ' (customers)')}`, ...labels.map((label) => `${label}${other ?? ' (%)'}`)];
  const cell = (point: DataPoint | undefined, initial: boolean): Cell => {
    if (!point) return null;
    if (variant === 'customer_count') return point.count ?? null;
    if (variant === 'units_sold') return point.quantity ?? null;
    if (initial) return money ? shownNumber(point.amount ?? point.value ?? 0, 'minor_units', result.currency) : (point.count ?? point.value ?? null);
    return point.value === null ? null : shownNumber(point.value, 'fraction', null);
  };
  const rows = series.map((s) => [
    s.component ?? s.name,
    cell(s.data_points.find((p) => p.column === 'initial'), true),
    ...labels.map((_, k) => cell(s.data_points.find((p) => p.column === k), false)),
  ]);
  return { header, rows };
}
