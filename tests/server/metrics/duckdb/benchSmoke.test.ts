import { describe, expect, it } from 'vitest';
import { migratedPGliteDumpFile, testEngine } from '../../helpers/database';
import { runBench } from '../../helpers/runBench';
import { NOW, SCALES } from '../../../../bench/support/metricsBench';
import { alternateRounds, ordersAlternate, spread } from '../../../../bench/support/rounds';
import { measureSnapshotRead } from '../../../../bench/support/snapshotRead';
import type { AccountSnapshot } from '../../../../server/metrics/snapshot/columns';

/**
 * The benchmarks' shared method (bench/support/rounds.ts): contenders alternated in rounds,
 * the order reversed every round, the warm-up dropped, the median ratio with its spread.
 */
describe('the benchmarks\' rounds', () => {
  it('alternates the order every round, drops the warm-up and takes the median of the rounds\' ratios', async () => {
    const calls: string[] = [];
    // Round r: a takes 10 * (r + 1), b 5 * (r + 1) except in round 3 (a slow spell of the machine on b alone).
    const result = await alternateRounds({
      contenders: [
        { name: 'a', run: (round) => (calls.push(`a${round}`), 10 * (round + 1)) },
        { name: 'b', run: (round) => (calls.push(`b${round}`), round === 3 ? 100 : 5 * (round + 1)) },
      ],
      ratios: { ratio: ['a', 'b'] },
      rounds: 4,
    });
    expect(calls).toEqual(['a0', 'b0', 'b1', 'a1', 'a2', 'b2', 'b3', 'a3', 'a4', 'b4']);
    expect(result.orders).toEqual([['b', 'a'], ['a', 'b'], ['b', 'a'], ['a', 'b']]);
    expect(ordersAlternate(result.orders)).toBe(true);
    expect(ordersAlternate([['a', 'b'], ['a', 'b']])).toBe(false);
    expect(result.values.a).toEqual([20, 30, 40, 50]);
    expect(result.ratioValues.ratio).toEqual([2, 2, 0.4, 2]);
    // The one disturbed round moves the median not at all, the mean a lot.
    expect(result.ratios.ratio).toEqual({ median: 2, min: 0.4, q1: 1.6, q3: 2, max: 2, n: 4 });
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, q1: 1.5, q3: 2.5, max: 3, n: 3 });
  });
});

/**
 * `npm run bench:metrics` at a tiny scale (XS: 300 customers over 12 months) and few rounds,
 * end to end: generation, snapshot, our engine, the report, the ten custom sections and DuckDB in alternating rounds,
 * the snapshot read from the engine of this test run (PGlite on disk, or the PostgreSQL server
 * DATABASE_URL names in CI's second pass), so the benchmark cannot rot. Each pass reads from its
 * own engine only: the PGlite read in the PostgreSQL pass repeated the first pass's. PGlite's
 * data directory starts from the tests' migrated cluster (tests/server/helpers/database.ts),
 * which spares it initdb (untimed setup); the migrations still run on it, a no-op.
 */

describe('npm run bench:metrics', () => {
  it('runs every piece at scale XS and prints the JSON line last', async () => {
    const postgres = process.env.DATABASE_URL;
    const engine = postgres ? ['--postgres-url', postgres] : ['--pglite-template', await migratedPGliteDumpFile()];
    const { code, stdout, stderr } = await runBench('metrics.ts', ['--scale', 'XS', '--rounds', '3', '--engines', testEngine, ...engine]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    const last = JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
    expect(Object.keys(last).slice(0, 12)).toEqual(['bench', 'scale', 'ours_ms', 'duckdb_ms', 'ratio', 'report_ms', 'rss_mb', 'equal', 'snapshot_pglite_ms', 'snapshot_postgres_ms', 'snapshot_pglite_tables_ms', 'snapshot_postgres_tables_ms']);
    expect(last).toMatchObject({ bench: 'metrics', scale: 'XS', equal: true, rounds: 3, warmup_rounds: 1 });
    // The custom sections' report: ten sections, equal to DuckDB's, with its ratio and medians.
    expect(last).toMatchObject({ custom_sections: 10, custom_equal: true });
    expect(last.custom_series as number).toBeGreaterThan(10 * 3 * 4);
    for (const key of ['custom_ms', 'duckdb_custom_ms', 'custom_ratio']) expect(last[key], key).toBeTypeOf('number');
    expect((last.custom_ratio_spread as { n: number }).n).toBe(3);
    expect(stdout).toMatch(/custom sections equal: \d+ series/);
    const engineKeys = postgres ? ['snapshot_postgres_ms', 'snapshot_postgres_tables_ms'] : ['snapshot_pglite_ms', 'snapshot_pglite_tables_ms'];
    for (const key of ['ours_ms', 'duckdb_ms', 'ratio', 'report_ms', 'report_ratio', 'rss_mb', ...engineKeys]) expect(last[key], key).toBeTypeOf('number');
    expect(last.duckdb_ms as number).toBeGreaterThan(0);
    // The method: the median ratio within its spread over 3 rounds, the order reversed every round, the load recorded.
    const ratio = last.ratio_spread as { median: number; min: number; q1: number; q3: number; max: number; n: number };
    expect(ratio.n).toBe(3);
    expect(ratio.median).toBe(last.ratio);
    expect(ratio.min).toBeLessThanOrEqual(ratio.q1);
    expect(ratio.q1).toBeLessThanOrEqual(ratio.median);
    expect(ratio.median).toBeLessThanOrEqual(ratio.q3);
    expect(ratio.q3).toBeLessThanOrEqual(ratio.max);
    expect((last.report_ratio_spread as { n: number }).n).toBe(3);
    expect(last.orders).toEqual(['duckdb_custom,custom,duckdb,report,ours', 'ours,report,duckdb,custom,duckdb_custom', 'duckdb_custom,custom,duckdb,report,ours']);
    const load = last.load as { cpus: number; before: number[]; after: number[]; during: number[] };
    expect(load.cpus).toBeGreaterThan(0);
    expect(load.before).toHaveLength(3);
    expect(load.after).toHaveLength(3);
    expect(load.during).toHaveLength(2);
    expect(stdout).toMatch(/round 3\/3 \(duckdb_custom, custom, duckdb, report, ours; load [\d.]+\): duckdb_custom \d+, custom \d+, duckdb \d+, report \d+, ours \d+; ratio [\d.]+, report_ratio [\d.]+, custom_ratio [\d.]+/);
    expect(stdout).toMatch(/ratio \(ours \/ duckdb\): median [\d.]+ \(min-max [\d.]+-[\d.]+, IQR [\d.]+-[\d.]+, 3 rounds\)/);
    expect(stdout).toMatch(/machine load: \d+ CPUs; load average \(1, 5, 15 min\) before/);
    expect(last.snapshot_postgres_ms === null).toBe(!postgres);
    expect(last.snapshot_postgres_tables_ms === null).toBe(!postgres);
    expect(last.snapshot_pglite_ms === null).toBe(!!postgres);
    expect(last.snapshot_pglite_tables_ms === null).toBe(!!postgres);
    expect(stdout).toContain('equal: every month, series, total and product agree to the minor unit');
    expect(stdout).toMatch(new RegExp(`${testEngine}: seeded [\\d,]+ payments .* from the stored copy \\d+ ms; the series of both equal the in-memory snapshot's`));
  }, 120_000);
});

/**
 * A snapshot as rows keyed by ids, in id order: without the ids a seeding run makes up
 * (account, attributes, segments) and without the order in which a database happened to
 * return customers and payments (the loader reads tables unordered).
 */
function comparable(snapshot: AccountSnapshot) {
  const { customers, records, lines, payments } = snapshot;
  const customerId = (c: number) => (c < 0 ? null : customers.ids[c]);
  const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const perCustomer = (start: Int32Array, values: (k: number) => unknown) =>
    customers.ids.map((id, c) => ({ key: id, rows: Array.from({ length: (start[c + 1] as number) - (start[c] as number) }, (_, k) => values((start[c] as number) + k)) })).sort(byKey);
  return {
    account: { ...snapshot.account, id: '' },
    currencies: snapshot.currencies,
    products: snapshot.products,
    customers: customers.ids
      .map((id, c) => ({
        key: id,
        name: customers.names[c],
        parent: customerId(customers.parent[c] as number),
        top: customerId(customers.topParent[c] as number),
        included: customers.included[c],
        deleted: customers.deleted[c],
      }))
      .sort(byKey),
    customerSegments: snapshot.customerSegments
      .map((s) => ({ name: s.name, valueSource: s.valueSource, timeSensitive: s.timeSensitive, rows: perCustomer(s.rowStart, (k) => [s.month[k], s.values[s.value[k] as number] ?? null]) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    paymentAttributes: payments.attributes.map((a) => ({
      name: a.name,
      values: Array.from({ length: payments.count }, (_, p) => ({ key: payments.ids.get(p), value: a.values[a.valueOf[p] as number] ?? null })).sort(byKey),
    })),
    records: Array.from({ length: records.count }, (_, r) => ({
      key: `${payments.ids.get(records.payment[r] as number)}#${records.version[r]}`,
      customer: customerId(records.customer[r] as number),
      columns: [records.startDay, records.endDay, records.durationMonths, records.totalValue, records.currency, records.monthlyAmount, records.recurringMonthly, records.meteredMonthly, records.oneTimeMonthly, records.freemium, records.product, records.quantity, records.discountForeverMonthly, records.discountFiniteMonthly, records.validFromDay, records.validToDay, records.current, records.deleted].map((column) => column[r]),
      lines: Array.from({ length: (records.lineStart[r + 1] as number) - (records.lineStart[r] as number) }, (_, k) => {
        const line = (records.lineStart[r] as number) + k;
        return [lines.record[line] === r, lines.product[line], lines.type[line], lines.quantity[line], lines.monthly[line], lines.total[line]];
      }),
    })).sort(byKey),
    costs: { ...snapshot.costs, attributes: snapshot.costs.attributes.map((a) => ({ ...a, id: '' })) },
    rates: snapshot.rates,
    accountRates: snapshot.accountRates,
  };
}

/**
 * On the engine of this test run: PGlite (copyDemoIntoPGlite) or, in the PostgreSQL pass,
 * PostgreSQL (copyDemoIntoPostgres). Without `vacuum analyze`, which changes no row and is
 * exercised by the run above.
 */
describe("the benchmark's bulk seeding", () => {
  it('writes what seedDemoAccount writes, as loadSnapshot reads it', async () => {
    const engine = process.env.DATABASE_URL
      ? { engine: 'postgresql' as const, adminUrl: process.env.DATABASE_URL }
      : { engine: 'pglite' as const, pgliteTemplate: await migratedPGliteDumpFile() };
    const options = { ...engine, ...SCALES.XS, now: NOW, analyze: false };
    const copied = await measureSnapshotRead({ ...options, seeder: 'copy' });
    const seeded = await measureSnapshotRead({ ...options, seeder: 'seedDemoAccount' });
    expect(copied.payments).toBe(seeded.payments);
    expect(comparable(copied.snapshot)).toEqual(comparable(seeded.snapshot));
  }, 120_000);
});
