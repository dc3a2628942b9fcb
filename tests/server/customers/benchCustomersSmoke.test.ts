import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/runBench';

/**
 * `npm run bench:customers` at scale XS (300 customers over 12 months), one round of 3
 * requests a case, end to end: the seeded database, the real app, every case of the customers
 * table (the first and a deep page by name, MRR and a calculated column, the name prefix
 * search). The bench exits 1 unless each of our pages has the ids of the plain SELECT of the
 * same page, in the same order.
 */

describe('npm run bench:customers', () => {
  it('answers every case as the plain indexed SELECT does at scale XS and prints the JSON line last', async () => {
    // On the engine of the pass: PGlite, or in CI's second pass the PostgreSQL server DATABASE_URL names.
    const engine = process.env.DATABASE_URL ? ['--engine', 'postgresql', '--postgres-url', process.env.DATABASE_URL] : [];
    const { code, stdout, stderr } = await runBench('customers.ts', ['--scale', 'XS', '--rounds', '1', '--requests', '3', '--column-rounds', '1', ...engine]);
    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    for (const name of ['name_first', 'name_deep', 'mrr_first', 'mrr_deep', 'column_first', 'column_deep', 'search_prefix']) {
      expect(stdout).toMatch(new RegExp(`^${name}: equal \\(\\d+ rows\\)`, 'm'));
      expect(stdout).toMatch(new RegExp(`^(PASS|MISS) ${name} <= 1\\.5 x the plain SELECT served by the same server: .*; against the bare SELECT \\(no HTTP\\): `, 'm'));
    }
    const last = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { bench: string; scale: string; equal: boolean; customers: number; cases: Record<string, { ours_ms: number; peer_ms: number; bare_select_ms: number; ratio: number }>; column: { ratio: number } | null; rounds: number };
    expect(last).toMatchObject({ bench: 'customers', scale: 'XS', engine: process.env.DATABASE_URL ? 'postgresql' : 'pglite', equal: true, customers: 300, rounds: 1 });
    expect(Object.keys(last.cases).sort()).toEqual(['column_deep', 'column_first', 'mrr_deep', 'mrr_first', 'name_deep', 'name_first', 'search_prefix']);
    for (const figures of Object.values(last.cases)) {
      expect(figures.ours_ms).toBeGreaterThan(0);
      expect(figures.peer_ms).toBeGreaterThan(0);
      expect(figures.bare_select_ms).toBeGreaterThan(0);
    }
    expect(last.column?.ratio).toBeTypeOf('number');
  }, 240_000);
});
