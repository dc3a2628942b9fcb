import { describe, expect, it } from 'vitest';
import { EXPLORE_GROWTH_BUCKETS } from '../../../models/constants';
import { computeExplore, growthBucket } from '../../../server/metrics/explore';
import { business, type PaymentSpec } from './support';

/** Explore: the customers behind a data point with their age, starting MRR, MRR, revenue to date and growth bucket. */

function monthly(customer: string, start: string, months: number, total: number, extra: Partial<PaymentSpec> = {}): PaymentSpec[] {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  return Array.from({ length: months }, (_, k) => ({ customer, start: new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10), total, ...extra }));
}

describe('growth buckets (spec: Explore growth buckets)', () => {
  it.each([
    [10_000, 10_000, '0 %'],
    [10_040, 10_000, '0 %'],
    [10_100, 10_000, '1% - 100%'],
    [20_000, 10_000, '1% - 100%'],
    [20_100, 10_000, '> 100%'],
    [9_000, 10_000, 'Negative growth'],
    [5_000, 0, 'Starting MRR is 0'],
    [0, 10_000, 'Churned customers'],
    [0, 0, 'Churned customers'],
  ] as const)('MRR %i after starting at %i is in %s', (mrr, start, bucket) => {
    expect(growthBucket(mrr, start)).toBe(bucket);
  });

  it('uses exactly the spec’s bucket names', () => {
    const seen = new Set([growthBucket(1, 1), growthBucket(150, 100), growthBucket(300, 100), growthBucket(50, 100), growthBucket(1, 0), growthBucket(0, 1)]);
    expect([...seen].sort()).toEqual([...EXPLORE_GROWTH_BUCKETS].sort());
  });
});

describe('explore points of a data point', () => {
  // u started on 2023-03-10 at 50.00 and pays 120.00 from 2024; v started 2024-02-05 at 80.00; w left in April.
  const SHOP = business({
    payments: [...monthly('u', '2023-03-10', 10, 5_000), ...monthly('u', '2024-01-10', 6, 12_000), ...monthly('v', '2024-02-05', 5, 8_000), ...monthly('w', '2024-01-01', 3, 4_000)],
  });
  const explore = (definition_id: string, date: string, extra: Record<string, unknown> = {}) =>
    computeExplore(SHOP, { definition_id, range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 6 }, today: '2024-06-30', date, ...extra });

  it('gives each paying customer’s months as a customer, new MRR when it occurred, MRR, revenue to date and growth', () => {
    const { points, period } = explore('mrr', '2024-05-01');
    expect(period.measure_day).toBe('2024-05-31');
    const u = points.find((p) => p.customer.id === 'u');
    expect(u).toMatchObject({ months_being_customer: 14, new_mrr_when_occurred: 5_000, mrr: 12_000, growth_since_start: 12_000 / 5_000 - 1, growth_bucket: '> 100%' });
    // 10 months at 50.00, January to April at 120.00, and May 10-31 of May 10 - June 10 (22 of 31 days).
    expect(u?.accrued_total).toBe(50_000 + 4 * 12_000 + Math.round((12_000 * 22) / 31));
    expect(points.find((p) => p.customer.id === 'v')).toMatchObject({ months_being_customer: 3, new_mrr_when_occurred: 8_000, mrr: 8_000, growth_since_start: 0, growth_bucket: '0 %' });
  });

  it('puts the customers of a churn point in Churned customers', () => {
    const { points } = explore('mrr_movements', '2024-04-01', { component: 'churn' });
    expect(points.map((p) => [p.customer.id, p.mrr, p.growth_bucket])).toEqual([['w', 0, 'Churned customers']]);
  });
});
