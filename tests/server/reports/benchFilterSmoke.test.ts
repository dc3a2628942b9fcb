import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/runBench';
import { ordersAlternate } from '../../../bench/support/rounds';

/**
 * `npm run bench:filter` at scale XS (300 customers over 12 months) with 2 rounds, end to end,
 * so its correctness check runs with the tests: the 20-section report unfiltered and under a
 * customer segment filter (time-sensitive Plan) and a product filter, against DuckDB's series
 * under the same filters (bench/support/duckdbMetrics.ts); the bench exits 1 unless every
 * month, series, total and product agree to the minor unit.
 */

describe('npm run bench:filter', () => {
  it('computes the filtered series equal to DuckDB\'s at scale XS and prints the JSON line last', async () => {
    const { code, stdout, stderr } = await runBench('filter.ts', ['--scale', 'XS', '--rounds', '2']);
    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/'segment' equal: every month, series, total and product agree with DuckDB's/);
    expect(stdout).toMatch(/'product' equal: every month, series, total and product agree with DuckDB's/);
    expect(stdout).toMatch(/^(PASS|MISS) segment-filtered report <= 0\.5 x duckdb/m);
    expect(stdout).toMatch(/^(PASS|MISS) product-filtered report <= 1\.5 x unfiltered/m);
    const last = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(last).toMatchObject({ bench: 'filter', scale: 'XS', equal: true, rounds: 2, warmup_rounds: 1 });
    for (const key of ['report_ms', 'report_segment_ms', 'report_product_ms', 'duckdb_segment_ms', 'duckdb_product_ms', 'peer_report_segment_ms', 'peer_report_product_ms', 'segment_duckdb_ratio', 'product_duckdb_ratio', 'segment_unfiltered_ratio', 'product_unfiltered_ratio', 'segment_unfiltered_cpu_ratio', 'product_unfiltered_cpu_ratio']) {
      expect(last[key], key).toBeTypeOf('number');
    }
    // Each filter keeps a real share of the customers, not all and not none.
    for (const key of ['segment_customer_share', 'product_customer_share']) {
      expect(last[key] as number, key).toBeGreaterThan(0.1);
      expect(last[key] as number, key).toBeLessThan(0.6);
    }
    // Both sets of rounds (ours alone; ours next to DuckDB) reverse their order every round.
    expect(ordersAlternate((last.orders as string[]).map((order) => order.split(',')))).toBe(true);
    expect(ordersAlternate((last.peer_orders as string[]).map((order) => order.split(',')))).toBe(true);
    expect(last.peer_orders).toEqual(['duckdb_product,report_product,duckdb_segment,report_segment', 'report_segment,duckdb_segment,report_product,duckdb_product']);
    expect((last.ratio_spreads as Record<string, { n: number }>).segment_duckdb_ratio?.n).toBe(2);
  }, 120_000);
});
