import type { SectionRequest, SectionResult } from '../../server/metrics/definitions/types';
import type { ReportFilter } from '../../server/metrics/filters';
import type { MrrSeriesResult } from '../../server/metrics/mrrSeries';
import { segmentId } from './demoSnapshot';
import type { DuckFilter } from './duckdbMetrics';
import { methodFields, roundTo, roundedSpread, type MachineLoad, type RoundsResult, type Spread } from './rounds';

/**
 * What `npm run bench:filter` measures (bench/filter.ts), shared with its smoke test: the two
 * report filters, each as the engine and as DuckDB read it, and the JSON line.
 */

export type FilterName = 'segment' | 'product';

export interface BenchFilter {
  /** What the log lines call it. */
  label: string;
  engine: ReportFilter;
  duck: DuckFilter;
}

/**
 * Plan = Growth: a time-sensitive customer attribute (customers change plans, so a customer is
 * in the filter in some months and not in others), about a third of the paying customers.
 * Product = pro: a payment-line criterion, about a quarter of them.
 */
export const BENCH_FILTERS: Record<FilterName, BenchFilter> = {
  segment: {
    label: "customer segment Plan = 'Growth' (time-sensitive)",
    engine: { operator: 'and', criteria: [{ kind: 'customer_segment', segmentId: segmentId('plan'), values: ['Growth'] }] },
    duck: { operator: 'and', criteria: [{ kind: 'customer_segment', segment: 'plan', values: ['Growth'] }] },
  },
  product: {
    label: "product 'pro'",
    engine: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['pro'] }] },
    duck: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['pro'] }] },
  },
};

export function withFilter(requests: readonly SectionRequest[], filter: ReportFilter): SectionRequest[] {
  return requests.map((request) => ({ ...request, filter }));
}

/**
 * Differences between the report's MRR section (its total) and the engine's MRR series for the
 * same filter: the report the rounds time is the computation that was compared with DuckDB.
 */
export function compareReportMrr(report: readonly SectionResult[], series: MrrSeriesResult, limit = 10): string[] {
  const section = report.find((s) => s.definition_id === 'mrr');
  const total = section?.segments.find((s) => s.is_total)?.series[0];
  if (!section || !total) return ['the report has no MRR section with a total'];
  const differences: string[] = [];
  const labels = series.periods.map((p) => p.label);
  if (total.data_points.length !== labels.length) return [`the report's MRR has ${total.data_points.length} points, the series ${labels.length}`];
  total.data_points.forEach((point, i) => {
    if (point.value !== series.total.mrr[i] && differences.length < limit) differences.push(`report MRR ${labels[i]}: ${point.value}, series ${series.total.mrr[i]}`);
  });
  return differences;
}

/** The benchmark's last line. */
export interface FilterBenchLine {
  bench: 'filter';
  scale: string;
  /** Engine rounds (ours alone), medians, ms. */
  report_ms: number;
  report_segment_ms: number;
  report_product_ms: number;
  /** Peer rounds, medians, ms (the filtered reports again, each next to DuckDB's run). */
  duckdb_segment_ms: number;
  duckdb_product_ms: number;
  peer_report_segment_ms: number;
  peer_report_product_ms: number;
  /** Peer rounds: medians of the rounds' filtered report / DuckDB's filtered series (target <= 0.5). */
  segment_duckdb_ratio: number;
  product_duckdb_ratio: number;
  /** Engine rounds: filtered report / unfiltered report of the same round (target <= 1.5). */
  segment_unfiltered_ratio: number;
  product_unfiltered_ratio: number;
  /** Information, no target: the same two ratios in CPU time (medians of the rounds'), which waiting for a CPU does not distort. */
  segment_unfiltered_cpu_ratio: number;
  product_unfiltered_cpu_ratio: number;
  /** Share of the unfiltered customers (last complete month) each filter keeps. */
  segment_customer_share: number;
  product_customer_share: number;
  equal: boolean;
  targets_met: boolean;
  rss_mb: number;
  ratio_spreads: Record<string, Spread>;
  figure_spreads: Record<string, Spread>;
  rounds: number;
  warmup_rounds: number;
  /** Engine rounds' orders; `peer_orders` the peer rounds'. */
  orders: string[];
  peer_orders: string[];
  load: MachineLoad;
}

export type EngineContender = 'report' | 'report_segment' | 'report_product';
export type PeerContender = 'report_segment' | 'report_product' | 'duckdb_segment' | 'duckdb_product';

export function filterBenchLine(values: {
  scale: string;
  engineRounds: RoundsResult<EngineContender>;
  peerRounds: RoundsResult<PeerContender>;
  cpuRatios: { segment_unfiltered_cpu_ratio: Spread; product_unfiltered_cpu_ratio: Spread };
  shares: Record<FilterName, number>;
  equal: boolean;
  targetsMet: boolean;
  rssMb: number;
  load: MachineLoad;
}): string {
  const { engineRounds, peerRounds } = values;
  const ratios: Record<string, Spread> = { ...engineRounds.ratios, ...peerRounds.ratios };
  const ms = (s: Spread) => Math.round(s.median);
  const ratio = (name: string) => roundTo((ratios[name] as Spread).median, 3);
  const peerMethod = methodFields(peerRounds, values.load);
  const line: FilterBenchLine = {
    bench: 'filter',
    scale: values.scale,
    report_ms: ms(engineRounds.figures.report),
    report_segment_ms: ms(engineRounds.figures.report_segment),
    report_product_ms: ms(engineRounds.figures.report_product),
    duckdb_segment_ms: ms(peerRounds.figures.duckdb_segment),
    duckdb_product_ms: ms(peerRounds.figures.duckdb_product),
    peer_report_segment_ms: ms(peerRounds.figures.report_segment),
    peer_report_product_ms: ms(peerRounds.figures.report_product),
    segment_duckdb_ratio: ratio('segment_duckdb_ratio'),
    product_duckdb_ratio: ratio('product_duckdb_ratio'),
    segment_unfiltered_ratio: ratio('segment_unfiltered_ratio'),
    product_unfiltered_ratio: ratio('product_unfiltered_ratio'),
    segment_unfiltered_cpu_ratio: roundTo(values.cpuRatios.segment_unfiltered_cpu_ratio.median, 3),
    product_unfiltered_cpu_ratio: roundTo(values.cpuRatios.product_unfiltered_cpu_ratio.median, 3),
    segment_customer_share: roundTo(values.shares.segment, 3),
    product_customer_share: roundTo(values.shares.product, 3),
    equal: values.equal,
    targets_met: values.targetsMet,
    rss_mb: Math.round(values.rssMb),
    ratio_spreads: Object.fromEntries(Object.entries(ratios).map(([name, s]) => [name, roundedSpread(s, 3)])),
    figure_spreads: {
      ...Object.fromEntries(Object.entries(engineRounds.figures).map(([name, s]) => [name, roundedSpread(s as Spread, 1)])),
      ...Object.fromEntries(Object.entries(peerRounds.figures).map(([name, s]) => [`peer_${name}`, roundedSpread(s as Spread, 1)])),
    },
    ...methodFields(engineRounds, values.load),
    peer_orders: peerMethod.orders,
  };
  return JSON.stringify(line);
}
