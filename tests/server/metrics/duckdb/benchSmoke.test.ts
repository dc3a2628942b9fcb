import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NOW, SCALES } from '../../../../bench/support/metricsBench';
import { measureSnapshotRead } from '../../../../bench/support/snapshotRead';
import type { AccountSnapshot } from '../../../../server/metrics/snapshot';

/**
 * `npm run bench:metrics` at a tiny scale (XS: 300 customers over 12 months), end to end:
 * generation, snapshot, our engine, the report, DuckDB and the snapshot read from PGlite on
 * disk (and from PostgreSQL when DATABASE_URL names a server), so the benchmark cannot rot.
 */

const ROOT = path.resolve(fileURLToPath(new URL('../../../..', import.meta.url)));

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/metrics.ts', ...args], { cwd: ROOT, env: { ...process.env, TZ: 'UTC' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run bench:metrics', () => {
  it('runs every piece at scale XS and prints the JSON line last', async () => {
    const postgres = process.env.DATABASE_URL;
    const { code, stdout, stderr } = await runBench(['--scale', 'XS', '--engines', postgres ? 'pglite,postgresql' : 'pglite', ...(postgres ? ['--postgres-url', postgres] : [])]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    const last = JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
    expect(Object.keys(last)).toEqual(['bench', 'scale', 'ours_ms', 'duckdb_ms', 'ratio', 'report_ms', 'rss_mb', 'equal', 'snapshot_pglite_ms', 'snapshot_postgres_ms']);
    expect(last).toMatchObject({ bench: 'metrics', scale: 'XS', equal: true });
    for (const key of ['ours_ms', 'duckdb_ms', 'ratio', 'report_ms', 'rss_mb', 'snapshot_pglite_ms']) expect(last[key]).toBeTypeOf('number');
    expect(last.duckdb_ms as number).toBeGreaterThan(0);
    expect(last.snapshot_postgres_ms === null).toBe(!postgres);
    expect(stdout).toContain('equal: every month, series, total and product agree to the minor unit');
    expect(stdout).toMatch(/pglite: seeded [\d,]+ payments .* its series equal the in-memory snapshot's/);
  }, 120_000);
});

/** A snapshot without the ids a seeding run makes up (account, attributes, segments). */
function comparable(snapshot: AccountSnapshot) {
  return {
    account: { ...snapshot.account, id: '' },
    currencies: snapshot.currencies,
    products: snapshot.products,
    customers: snapshot.customers,
    customerSegments: snapshot.customerSegments.map((s) => ({ ...s, id: '', attributeId: '' })).sort((a, b) => a.name.localeCompare(b.name)),
    payments: {
      count: snapshot.payments.count,
      ids: Array.from({ length: snapshot.payments.ids.length }, (_, i) => snapshot.payments.ids.get(i)),
      attributes: snapshot.payments.attributes.map((a) => ({ ...a, id: '' })),
    },
    records: snapshot.records,
    lines: snapshot.lines,
    costs: { ...snapshot.costs, attributes: snapshot.costs.attributes.map((a) => ({ ...a, id: '' })) },
    rates: snapshot.rates,
    accountRates: snapshot.accountRates,
  };
}

describe("the benchmark's bulk seeding", () => {
  it('writes what seedDemoAccount writes, as loadSnapshot reads it', async () => {
    const options = { engine: 'pglite' as const, ...SCALES.XS, now: NOW };
    const copied = await measureSnapshotRead({ ...options, seeder: 'copy' });
    const seeded = await measureSnapshotRead({ ...options, seeder: 'seedDemoAccount' });
    expect(copied.payments).toBe(seeded.payments);
    expect(comparable(copied.snapshot)).toEqual(comparable(seeded.snapshot));
  }, 120_000);
});
