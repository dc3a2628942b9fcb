import { DEFAULT_REPORT_DEFINITIONS, type DefinitionId } from '../../server/metrics/definitions/catalogue';
import { PRODUCT_SEGMENTER_ID } from '../../server/metrics/definitions/segmenters';
import type { SectionRequest } from '../../server/metrics/definitions/types';
import type { MrrSeriesRequest, MrrSeriesResult, SegmentSeries } from '../../server/metrics/mrrSeries';
import { dayFromIso } from '../../server/metrics/days';
import type { DuckMrrRequest } from './duckdbMetrics';
import { methodFields, roundTo, roundedSpread, type MachineLoad, type RoundsResult, type Spread } from './rounds';

/**
 * What `npm run bench:metrics` measures, shared by the benchmark (bench/metrics.ts) and its
 * smoke test: the scales, the one computation both implementations run, the report, the JSON line.
 */

export type Scale = 'XS' | 'S' | 'M';

export interface ScaleSpec {
  customers: number;
  months: number;
}

/** XS is for the smoke test only. */
export const SCALES: Record<Scale, ScaleSpec> = {
  XS: { customers: 300, months: 12 },
  S: { customers: 10_000, months: 72 },
  M: { customers: 100_000, months: 72 },
};

/** The generated history ends in this month, on this day (fixed, so runs compare). */
export const END_MONTH = '2025-04';
export const TODAY = '2025-04-20';
export const NOW = new Date(`${TODAY}T12:00:00.000Z`);

export function firstMonth(months: number): string {
  const [year, month] = END_MONTH.split('-').map(Number) as [number, number];
  const abs = year * 12 + month - 1 - (months - 1);
  const m = (abs % 12) + 1;
  return `${Math.floor(abs / 12)}-${m < 10 ? '0' : ''}${m}`;
}

function yearMonth(text: string): { year: number; month: number } {
  const [year, month] = text.split('-').map(Number) as [number, number];
  return { year, month };
}

/** MRR and movements for every month of the history, for the total and by product, as the engine computes them. */
export function engineRequest(months: number): MrrSeriesRequest {
  const from = yearMonth(firstMonth(months));
  const to = yearMonth(END_MONTH);
  return {
    resolution: 'month',
    range: { startYear: from.year, startMonth: from.month, endYear: to.year, endMonth: to.month },
    today: dayFromIso(TODAY),
    segmenters: [{ kind: 'product' }],
  };
}

/** The same computation for DuckDB (account defaults: USD, match movements by currency). */
export function duckRequest(months: number): DuckMrrRequest {
  return { from: firstMonth(months), to: END_MONTH, today: TODAY, reportCurrency: 'USD', matchMovementsByCurrency: true };
}

/**
 * The default report: the catalogue's twenty subscription sections (MRR through booked
 * revenue), monthly over the whole history at their default data type and category, the
 * total only, except MRR and MRR movements, which are also split by product.
 */
export const REPORT_DEFINITIONS: readonly DefinitionId[] = DEFAULT_REPORT_DEFINITIONS;

export function reportRequests(months: number): SectionRequest[] {
  const from = yearMonth(firstMonth(months));
  const to = yearMonth(END_MONTH);
  const range = { start_year: from.year, start_month: from.month, end_year: to.year, end_month: to.month };
  return REPORT_DEFINITIONS.map((definition_id) => ({
    definition_id,
    range,
    resolution: 'month',
    today: TODAY,
    segmenters: definition_id === 'mrr' || definition_id === 'mrr_movements' ? [PRODUCT_SEGMENTER_ID] : [],
  }));
}

const SERIES_KEYS = [
  'mrr',
  'customers',
  'newBusiness',
  'expansion',
  'reactivation',
  'contraction',
  'churn',
  'fxAdjustment',
  'netChange',
  'newCustomers',
  'expansionCustomers',
  'reactivatedCustomers',
  'contractionCustomers',
  'churnedCustomers',
] as const satisfies readonly (keyof SegmentSeries)[];

/** The plain numbers of an engine result (what a child process sends back to compare). */
export interface SeriesDigest {
  periods: string[];
  segments: { name: string; series: (number[] | null)[] }[];
}

export function digest(result: MrrSeriesResult): SeriesDigest {
  const all = [result.total, ...result.segmentations.flatMap((s) => s.segments)];
  return { periods: result.periods.map((p) => p.label), segments: all.map((s) => ({ name: s.name, series: SERIES_KEYS.map((key) => s[key]) })) };
}

export function sameDigest(a: SeriesDigest, b: SeriesDigest): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The benchmark's last line. */
export interface BenchLine {
  bench: 'metrics';
  scale: Scale;
  /** Medians over the rounds. */
  ours_ms: number;
  duckdb_ms: number;
  /** The median of the rounds' ours / duckdb. */
  ratio: number;
  report_ms: number;
  rss_mb: number;
  equal: boolean;
  snapshot_pglite_ms: number | null;
  snapshot_postgres_ms: number | null;
  snapshot_pglite_tables_ms: number | null;
  snapshot_postgres_tables_ms: number | null;
  /** The custom sections' report (bench/support/customBench.ts): sections, series compared, medians, ratio and parity. */
  custom_sections: number;
  custom_series: number;
  custom_ms: number;
  duckdb_custom_ms: number;
  custom_ratio: number;
  custom_ratio_spread: Spread;
  custom_equal: boolean;
  /** The spread of the rounds' ratios, and of report / duckdb (its median the report's target). */
  ratio_spread: Spread;
  report_ratio: number;
  report_ratio_spread: Spread;
  /** Each contender's figures over the rounds, ms. */
  ours_spread: Spread;
  duckdb_spread: Spread;
  report_spread: Spread;
  custom_spread: Spread;
  duckdb_custom_spread: Spread;
  rounds: number;
  warmup_rounds: number;
  orders: string[];
  load: MachineLoad;
}

export function benchLine(values: {
  scale: Scale;
  ours_ms: number;
  duckdb_ms: number;
  ratio: Spread;
  report_ms: number;
  report_ratio: Spread;
  rss_mb: number;
  equal: boolean;
  snapshot_pglite_ms: number | null;
  snapshot_postgres_ms: number | null;
  snapshot_pglite_tables_ms: number | null;
  snapshot_postgres_tables_ms: number | null;
  custom_sections: number;
  custom_series: number;
  custom_ms: number;
  duckdb_custom_ms: number;
  custom_ratio: Spread;
  custom_equal: boolean;
  rounds: RoundsResult<'ours' | 'report' | 'duckdb' | 'custom' | 'duckdb_custom'>;
  load: MachineLoad;
}): string {
  const round = (value: number) => Math.round(value);
  const orNull = (value: number | null) => (value === null ? null : round(value));
  const method = methodFields(values.rounds, values.load);
  const line: BenchLine = {
    bench: 'metrics',
    scale: values.scale,
    ours_ms: round(values.ours_ms),
    duckdb_ms: round(values.duckdb_ms),
    ratio: roundTo(values.ratio.median, 3),
    report_ms: round(values.report_ms),
    rss_mb: round(values.rss_mb),
    equal: values.equal,
    snapshot_pglite_ms: orNull(values.snapshot_pglite_ms),
    snapshot_postgres_ms: orNull(values.snapshot_postgres_ms),
    snapshot_pglite_tables_ms: orNull(values.snapshot_pglite_tables_ms),
    snapshot_postgres_tables_ms: orNull(values.snapshot_postgres_tables_ms),
    custom_sections: values.custom_sections,
    custom_series: values.custom_series,
    custom_ms: round(values.custom_ms),
    duckdb_custom_ms: round(values.duckdb_custom_ms),
    custom_ratio: roundTo(values.custom_ratio.median, 3),
    custom_ratio_spread: roundedSpread(values.custom_ratio, 3),
    custom_equal: values.custom_equal,
    ratio_spread: roundedSpread(values.ratio, 3),
    report_ratio: roundTo(values.report_ratio.median, 3),
    report_ratio_spread: roundedSpread(values.report_ratio, 3),
    ours_spread: roundedSpread(values.rounds.figures.ours, 1),
    duckdb_spread: roundedSpread(values.rounds.figures.duckdb, 1),
    report_spread: roundedSpread(values.rounds.figures.report, 1),
    custom_spread: roundedSpread(values.rounds.figures.custom, 1),
    duckdb_custom_spread: roundedSpread(values.rounds.figures.duckdb_custom, 1),
    ...method,
  };
  return JSON.stringify(line);
}
