import type { MrrSeriesResult, SegmentSeries } from '../../server/metrics/mrrSeries';
import { SERIES_FIELDS, type DuckMrrResult, type DuckSeries } from './duckdbMetrics';

/**
 * Differences between the engine's MRR series (`computeMrrSeries` with one product segmenter)
 * and the DuckDB implementation's, as readable lines ('' never: an empty list means equal).
 * Every month of the range, every field, the total and every product; a product one side
 * does not have must be all zeros on the other.
 */
export function compareMrr(engine: MrrSeriesResult, duck: DuckMrrResult, limit = 20): string[] {
  const differences: string[] = [];
  const labels = engine.periods.map((p) => p.label);
  if (labels.join() !== duck.periods.join()) {
    differences.push(`periods: engine ${labels[0]}..${labels.at(-1)} (${labels.length}), duckdb ${duck.periods[0]}..${duck.periods.at(-1)} (${duck.periods.length})`);
    return differences;
  }
  const zero = labels.map(() => 0);
  const compare = (name: string, ours: SegmentSeries | undefined, theirs: DuckSeries | undefined) => {
    for (const field of SERIES_FIELDS) {
      const a = (ours ? ours[field] : zero) ?? zero;
      const b = theirs ? theirs[field] : zero;
      for (let i = 0; i < labels.length; i++) {
        if (a[i] !== b[i] && differences.length < limit) differences.push(`${name} ${field} ${labels[i]}: engine ${a[i]}, duckdb ${b[i]}`);
      }
    }
  };
  compare('Total', engine.total, duck.total);
  const productSegments = engine.segmentations.find((s) => s.segmenter.kind === 'product')?.segments ?? [];
  if (engine.segmentations.length > 0 && productSegments.length === 0) differences.push('the engine result has no product segmentation');
  const names = new Set([...productSegments.map((s) => s.name), ...duck.products.keys()]);
  for (const name of [...names].sort()) compare(`product '${name}'`, productSegments.find((s) => s.name === name), duck.products.get(name));
  return differences;
}
