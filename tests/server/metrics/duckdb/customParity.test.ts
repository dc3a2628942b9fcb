import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOM_SECTIONS, compareCustom, customRequests, duckCustomDigest, duckCustomRequests, engineCustomDigest, loadCustomInputs } from '../../../../bench/support/customBench';
import { buildDemoSnapshot, ecbRateRows } from '../../../../bench/support/demoSnapshot';
import { DuckMetrics, type DuckMrrRequest, type DuckMrrResult } from '../../../../bench/support/duckdbMetrics';
import { generateBusiness } from '../../../../server/demo/generate';
import { computeSections } from '../../../../server/metrics/definitions/computeSection';
import type { SectionResult } from '../../../../server/metrics/definitions/types';
import type { AccountSnapshot } from '../../../../server/metrics/snapshot/columns';

/**
 * The custom sections of `npm run bench:metrics` (bench/support/customBench.ts): ten sections,
 * each grouped by a customer attribute with three series filtered by the payments' channel, as
 * the report computes them and as DuckDB computes them in SQL (one statement per section), must
 * agree series by series, group by group, month by month, to the cent.
 */

const TODAY = '2025-09-17';
const FROM = '2023-10';
const TO = '2025-09';
const business = generateBusiness({ customers: 2_000, months: 36, endMonth: TO, today: TODAY });
const base: Omit<DuckMrrRequest, 'filter' | 'split'> = { from: FROM, to: TO, today: TODAY, reportCurrency: 'USD', matchMovementsByCurrency: true };

let duck: DuckMetrics;
let snapshot: AccountSnapshot;
let ours: SectionResult[];

async function duckResults(): Promise<DuckMrrResult[]> {
  const results: DuckMrrResult[] = [];
  for (const request of duckCustomRequests(base)) results.push(await duck.computeMrr(request));
  return results;
}

beforeAll(async () => {
  duck = await DuckMetrics.open({ threads: 2 });
  await duck.load(business);
  await loadCustomInputs(duck, business);
  snapshot = buildDemoSnapshot(business, await ecbRateRows(['USD', 'PLN']));
  ours = computeSections(snapshot, customRequests(FROM, TO, TODAY)) as SectionResult[];
});
afterAll(() => duck?.close());

const sum = (values: readonly (number | null)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);

describe('custom sections agree with DuckDB on a generated business', () => {
  it('are ten sections, no two with the same split and filter, over every customer attribute and both channels', () => {
    expect(CUSTOM_SECTIONS).toHaveLength(10);
    expect(new Set(CUSTOM_SECTIONS.map((s) => `${s.segment}|${s.channels.join()}`)).size).toBe(10);
    expect(new Set(CUSTOM_SECTIONS.map((s) => s.segment))).toEqual(new Set(['country', 'plan', 'industry', 'company_size']));
    expect(CUSTOM_SECTIONS.every((s) => s.series.length === 3)).toBe(true);
    for (const result of ours) expect(result.segments.filter((s) => !s.is_total).length).toBeGreaterThan(0);
  });

  it('every series, its total and every group, month by month and cent by cent', async () => {
    const engine = engineCustomDigest(ours);
    const theirs = duckCustomDigest(await duckResults());
    expect(compareCustom(engine, theirs)).toEqual([]);
    // 10 sections x 3 series x (the total + each group), none of them empty throughout.
    expect(engine.size).toBeGreaterThan(10 * 3 * 4);
    expect([...engine.entries()].filter(([key]) => key.endsWith(' Total')).every(([, points]) => sum(points) !== 0)).toBe(true);
  });

  it('is a business where customers change plan with MRR on both sides, each change a churn in one group and an arrival in the other', async () => {
    const result = await duck.computeMrr({ ...base, split: { kind: 'customer_segment', segment: 'plan' } });
    const groups = [...result.groups.values()];
    const total = result.total;
    expect(groups.length).toBeGreaterThan(1);
    // Stocks add up; arrivals and departures inside groups exceed the total's: moves between plans.
    for (let i = 0; i < total.mrr.length; i++) expect(groups.reduce((s, g) => s + (g.mrr[i] as number), 0)).toBe(total.mrr[i]);
    const inGroups = groups.reduce((s, g) => s + sum(g.newBusiness) + sum(g.reactivation), 0);
    expect(inGroups).toBeGreaterThan(sum(total.newBusiness) + sum(total.reactivation));
    const churnInGroups = groups.reduce((s, g) => s + sum(g.churn), 0);
    expect(churnInGroups).toBeGreaterThan(sum(total.churn));
  });

  it('notices one payment whose channel DuckDB reads differently', async () => {
    const target = business.payments.find((p) => p.channel === 'Sales' && p.started_at.startsWith('2024-06') && p.currency === 'USD' && p.correction === null);
    expect(target).toBeDefined();
    await duck.connection.run(`update payment_attribute_values set value = 'Self-serve' where payment_key = (select key from payments where id = '${target?.id}')`);
    try {
      const differences = compareCustom(engineCustomDigest(ours), duckCustomDigest(await duckResults()));
      expect(differences.length).toBeGreaterThan(0);
      expect(differences.some((line) => / Total month \d+: engine /.test(line))).toBe(true);
    } finally {
      await duck.connection.run(`update payment_attribute_values set value = 'Sales' where payment_key = (select key from payments where id = '${target?.id}')`);
    }
  });
});
