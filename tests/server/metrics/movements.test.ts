import { describe, expect, it } from 'vitest';
import { business, byPeriod, movementsAt, series, type PaymentSpec } from './support';

/** Monthly renewals of one subscription from `start` for `months` months. */
function monthly(customer: string, start: string, months: number, total: number, extra: Partial<PaymentSpec> = {}): PaymentSpec[] {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  return Array.from({ length: months }, (_, k) => ({
    customer,
    start: new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10),
    total,
    ...extra,
  }));
}

describe('MRR movements (METRICS.md section 4)', () => {
  it('counts a first subscription as new business in the period it first holds MRR at the end', () => {
    const result = series(business({ payments: monthly('a', '2024-02-10', 3, 10_000) }), { from: '2024-01', to: '2024-05' });
    expect(movementsAt(result, '2024-02')).toMatchObject({ newBusiness: 10_000, reactivation: 0, expansion: 0 });
    expect(byPeriod(result, (s) => s.newCustomers)).toEqual({ '2024-01': 0, '2024-02': 1, '2024-03': 0, '2024-04': 0, '2024-05': 0 });
  });

  it('counts a second subscription of a paying customer as expansion, not new business', () => {
    const payments = [...monthly('a', '2024-01-05', 4, 10_000), ...monthly('a', '2024-02-12', 3, 5_000, { product: 'addon' })];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-04' });
    expect(movementsAt(result, '2024-02')).toMatchObject({ mrr: 15_000, expansion: 5_000, newBusiness: 0, customers: 1 });
    expect(result.total.expansionCustomers[1]).toBe(1);
  });

  it('counts cancelling one of two subscriptions as contraction', () => {
    const payments = [...monthly('a', '2024-01-05', 4, 10_000), ...monthly('a', '2024-01-05', 2, 5_000, { product: 'addon' })];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-04' });
    expect(result.total.mrr).toEqual([15_000, 15_000, 10_000, 10_000]);
    expect(movementsAt(result, '2024-03')).toMatchObject({ contraction: 5_000, churn: 0 });
  });

  it('counts cancelling the last subscription as churn at the end of the paid period', () => {
    // The last payment covers Apr 10 - May 10: the customer still pays at the end of April.
    const result = series(business({ payments: monthly('a', '2024-01-10', 4, 10_000) }), { from: '2024-01', to: '2024-06' });
    expect(result.total.mrr).toEqual([10_000, 10_000, 10_000, 10_000, 0, 0]);
    expect(byPeriod(result, (s) => s.churn)).toEqual({ '2024-01': 0, '2024-02': 0, '2024-03': 0, '2024-04': 0, '2024-05': 10_000, '2024-06': 0 });
    expect(result.total.churnedCustomers[4]).toBe(1);
  });

  it('counts a return after churn as reactivation', () => {
    const payments = [...monthly('a', '2024-01-10', 2, 10_000), ...monthly('a', '2024-05-03', 2, 12_000)];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-06' });
    expect(movementsAt(result, '2024-03')).toMatchObject({ churn: 10_000 });
    expect(movementsAt(result, '2024-05')).toMatchObject({ reactivation: 12_000, newBusiness: 0 });
    expect(result.total.reactivatedCustomers[4]).toBe(1);
  });

  it('counts a return as reactivation when the customer paid before the report range', () => {
    const payments = [...monthly('a', '2023-03-10', 3, 10_000), ...monthly('a', '2024-03-01', 2, 10_000)];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-04' });
    expect(movementsAt(result, '2024-03')).toMatchObject({ reactivation: 10_000, newBusiness: 0 });
  });

  it('counts price changes at renewal as expansion and contraction', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2024-01-15', total: 10_000 },
      { customer: 'a', start: '2024-02-15', total: 13_000 },
      { customer: 'a', start: '2024-03-15', total: 9_000 },
    ];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-03' });
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 3_000 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ contraction: 4_000 });
  });

  it('shows nothing for a customer who starts and leaves inside one period, and its later return is new business', () => {
    const payments: PaymentSpec[] = [
      { customer: 'brief', start: '2024-01-10', total: 10_000 }, // Jan 10 - Feb 10: inside Q1
      { customer: 'brief', start: '2024-08-01', total: 10_000 },
    ];
    const snapshot = business({ payments });
    const quarterly = series(snapshot, { from: '2024-01', to: '2024-09', resolution: 'quarter' });
    expect(quarterly.periods.map((p) => p.label)).toEqual(['2024-Q1', '2024-Q2', '2024-Q3']);
    expect(quarterly.total.mrr).toEqual([0, 0, 0]);
    for (const key of ['newBusiness', 'churn', 'reactivation', 'expansion', 'contraction'] as const) expect(quarterly.total[key]).toEqual([0, 0, 0]);
    // At monthly resolution the same history is new, churn, then reactivation.
    const monthlyView = series(snapshot, { from: '2024-01', to: '2024-09' });
    expect(movementsAt(monthlyView, '2024-01')).toMatchObject({ newBusiness: 10_000 });
    expect(movementsAt(monthlyView, '2024-02')).toMatchObject({ churn: 10_000 });
    expect(movementsAt(monthlyView, '2024-08')).toMatchObject({ reactivation: 10_000 });
    // A brief first stint never reaches a quarter end: the quarter view first sees the customer in Q3, as new.
    const later = series(business({ payments: [...payments, { customer: 'brief', start: '2024-09-01', total: 10_000 }] }), { from: '2024-01', to: '2024-09', resolution: 'quarter' });
    expect(movementsAt(later, '2024-Q3')).toMatchObject({ newBusiness: 10_000, reactivation: 0 });
  });

  it('nets changes inside a quarter: a quarter compares its end with the previous quarter’s end', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2023-12-01', months: 4, total: 40_000 }, // 10,000 a month until Apr 1
      { customer: 'a', start: '2024-01-20', total: 30_000 }, // a one-month spike inside Q1
      { customer: 'a', start: '2024-04-01', months: 3, total: 36_000 }, // 12,000 in Q2
    ];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-06', resolution: 'quarter' });
    expect(result.total.mrr).toEqual([10_000, 12_000]);
    expect(movementsAt(result, '2024-Q1')).toMatchObject({ expansion: 0, contraction: 0 });
    expect(movementsAt(result, '2024-Q2')).toMatchObject({ expansion: 2_000 });
  });

  it('measures weekly stocks on Sundays and yearly ones on December 31', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2024-01-08', total: 10_000 }, // Mon Jan 8 - Feb 8
      { customer: 'b', start: '2024-01-15', total: 5_000 }, // Mon Jan 15 - Feb 15
    ];
    const weekly = series(business({ payments }), { from: '2024-01', to: '2024-02', resolution: 'week' });
    const mrr = byPeriod(weekly, (s) => s.mrr);
    expect(mrr['2024-W01']).toBe(0); // Sun Jan 7
    expect(mrr['2024-W02']).toBe(10_000); // Sun Jan 14
    expect(mrr['2024-W03']).toBe(15_000);
    expect(mrr['2024-W05']).toBe(15_000); // Sun Feb 4
    expect(mrr['2024-W06']).toBe(5_000); // Sun Feb 11: a paid until Feb 8
    expect(mrr['2024-W07']).toBe(0); // Sun Feb 18: b paid until Feb 15
    expect(byPeriod(weekly, (s) => s.churn)['2024-W06']).toBe(10_000);
    const yearly = series(business({ payments: [{ customer: 'a', start: '2024-12-31', total: 10_000 }, { customer: 'b', start: '2024-06-01', total: 5_000 }] }), {
      from: '2024-01',
      to: '2025-02',
      resolution: 'year',
    });
    expect(yearly.total.mrr).toEqual([10_000, 0]);
    expect(yearly.total.newBusiness).toEqual([10_000, 0]);
    expect(yearly.total.churn).toEqual([0, 10_000]);
  });

  it('keeps MRR(p) - MRR(p-1) = new + expansion + reactivation - contraction - churn for a mixed book', () => {
    const payments = [
      ...monthly('a', '2024-01-05', 6, 10_000),
      ...monthly('b', '2024-02-05', 2, 8_000),
      ...monthly('b', '2024-05-05', 2, 9_000),
      ...monthly('c', '2024-01-20', 3, 4_000),
      ...monthly('c', '2024-04-20', 3, 6_000),
      { customer: 'd', start: '2024-03-01', months: 12, total: 120_000 },
    ];
    const result = series(business({ payments }), { from: '2024-01', to: '2024-08' });
    const t = result.total;
    t.mrr.forEach((mrr, i) => {
      const net = t.newBusiness[i]! + t.expansion[i]! + t.reactivation[i]! - t.contraction[i]! - t.churn[i]! + (t.fxAdjustment?.[i] ?? 0);
      expect(t.netChange[i]).toBe(net);
    });
    expect(t.mrr).toEqual([14_000, 22_000, 32_000, 26_000, 35_000, 35_000, 10_000, 10_000]);
  });
});
