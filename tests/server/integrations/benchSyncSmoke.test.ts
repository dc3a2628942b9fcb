import { describe, expect, it } from 'vitest';
import { ordersAlternate } from '../../../bench/support/rounds';
import { runBench } from '../helpers/runBench';

/**
 * `npm run bench:sync` small, end to end, so the benchmark cannot rot: the fake Stripe in its
 * own process with 150 subscriptions, the real runner's first sync against the paging peer in
 * a warm-up and 2 alternating rounds (the SDK's bare reading too, and on PostgreSQL the floor), every round's rows checked, the
 * JSON line last.
 */

describe('npm run bench:sync', () => {
  it('syncs a small Stripe account against the peer and prints the JSON line last', async () => {
    const engine = process.env.DATABASE_URL ? ['--engine', 'postgresql', '--postgres-url', process.env.DATABASE_URL] : ['--engine', 'pglite'];
    const { code, stdout, stderr } = await runBench('sync.ts', ['--subscriptions', '150', '--rounds', '2', ...engine]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const last = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(last).toMatchObject({ bench: 'sync', subscriptions: 150, customers: 150, payments: 270, engine: process.env.DATABASE_URL ? 'postgresql' : 'pglite', rounds: 2, warmup_rounds: 1, ratio_target: 1.5, rss_target_mb: 500 });
    for (const key of ['ratio', 'rss_mb', 'ours_ms', 'peer_ms', 'commit_share', 'sdk_ms', 'sdk_ratio']) expect(last[key], key).toBeTypeOf('number');
    const ratio = last.ratio_spread as { median: number; min: number; max: number; n: number };
    expect(ratio.n).toBe(2);
    expect(ratio.min).toBeLessThanOrEqual(ratio.median);
    expect(ratio.median).toBeLessThanOrEqual(ratio.max);
    if (process.env.DATABASE_URL) {
      // On PostgreSQL the floor runs too: the peer's reading while ours' rows are COPYed in again.
      expect(last.orders).toEqual(['floor,sdk,peer,ours', 'ours,peer,sdk,floor']);
      for (const key of ['floor_ms', 'floor_ratio', 'ours_to_floor']) expect(last[key], key).toBeTypeOf('number');
      expect(stdout).toMatch(/round 2\/2 \(ours, peer, sdk, floor; load [\d.]+\)/);
    } else {
      expect(last.orders).toEqual(['sdk,peer,ours', 'ours,peer,sdk']);
      expect(last.floor_ms).toBeNull();
      expect(stdout).toMatch(/round 2\/2 \(ours, peer, sdk; load [\d.]+\)/);
    }
    expect(ordersAlternate((last.orders as string[]).map((order) => order.split(',')))).toBe(true);
  }, 180_000);
});
