import { describe, expect, it } from 'vitest';
import { computeCustomerMetrics } from '../../../server/metrics/customerMetrics';
import { computeSection } from '../../../server/metrics/definitions/computeSection';
import { dayFromIso, DAYS_PER_MONTH, durationInMonths } from '../../../server/metrics/days';
import { computeDetails } from '../../../server/metrics/details';
import { recognizedOpenBy } from '../../../server/metrics/definitions/revenue';
import { buildSnapshot } from '../../../server/metrics/snapshot/builder';
import { accountRow, business, byPeriod, movementsAt, series, type PaymentSpec } from './support';

/**
 * Payments of any service period (METRICS.md section 1): a payment covers [started_at, ended_at)
 * whatever its length; an open-ended one (no ended_at yet) covers every day from its start.
 * Expectations computed by hand.
 */

const one = (payment: Omit<PaymentSpec, 'customer'>) => business({ payments: [{ customer: 'c', ...payment }] });

/** A revenue section's total by month, January to today's month of 2024. */
const revenue = (snapshot: ReturnType<typeof business>, definition: string, today: string) => {
  const section = computeSection(snapshot, { definition_id: definition, range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: Number(today.slice(5, 7)) }, today });
  return Object.fromEntries((section.segments[0]?.series[0]?.data_points ?? []).map((p, i) => [section.periods[i]?.label, p.value]));
};

describe('a payment of any service period', () => {
  it('a 15-day payment inside one month holds no MRR at any month end and shows no movement', () => {
    const result = series(one({ start: '2024-02-03', end: '2024-02-18', total: 5_000 }), { from: '2024-01', to: '2024-04' });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 0, '2024-02': 0, '2024-03': 0, '2024-04': 0 });
    for (const label of ['2024-01', '2024-02', '2024-03', '2024-04']) expect(movementsAt(result, label)).toMatchObject({ newBusiness: 0, churn: 0, reactivation: 0 });
  });

  it('a 15-day payment across a month end counts at that month end and churns in the next month', () => {
    // 10,000 over 15 days = 15 / (365 / 12) months: 10,000 / 0.49315… = 20,277.78 -> 20,278 a month.
    const result = series(one({ start: '2024-01-25', end: '2024-02-09', total: 10_000 }), { from: '2024-01', to: '2024-03' });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 20_278, '2024-02': 0, '2024-03': 0 });
    expect(movementsAt(result, '2024-01')).toMatchObject({ newBusiness: 20_278 });
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 20_278 });
  });

  it('a prorated payment from 2024-01-15 to 2024-02-20 lasts 36 / (365 / 12) months and keeps its given monthly amount', () => {
    expect(durationInMonths(dayFromIso('2024-01-15'), dayFromIso('2024-02-20'))).toBeCloseTo(36 / DAYS_PER_MONTH, 12);
    // Given: 4,999.50 a month, so the engine rounds the exact amount (half to even), not total / duration.
    const snapshot = one({ start: '2024-01-15', end: '2024-02-20', total: 5_918, monthly: 4_999.5 });
    expect(snapshot.records.durationMonths[0]).toBeCloseTo(36 / DAYS_PER_MONTH, 12);
    expect(snapshot.records.monthlyAmount[0]).toBe(5_000);
    const result = series(snapshot, { from: '2024-01', to: '2024-03' });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 5_000, '2024-02': 0, '2024-03': 0 });
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 5_000 });
  });

  it('without a monthly amount, a prorated payment is worth total / duration a month', () => {
    // 6,000 / (36 / 30.41666…) = 5,069.44 -> 5,069.
    const snapshot = one({ start: '2024-01-15', end: '2024-02-20', total: 6_000 });
    expect(snapshot.records.monthlyAmount[0]).toBe(5_069);
  });

  it('an ended_at a whole number of months later is the same as those months', () => {
    const byEnd = series(one({ start: '2024-01-31', end: '2024-03-31', total: 20_000 }), { from: '2024-01', to: '2024-04' });
    const byMonths = series(one({ start: '2024-01-31', months: 2, total: 20_000 }), { from: '2024-01', to: '2024-04' });
    expect(byEnd.total).toEqual(byMonths.total);
    expect(byPeriod(byEnd, (s) => s.mrr)).toEqual({ '2024-01': 10_000, '2024-02': 10_000, '2024-03': 0, '2024-04': 0 });
  });

  it('recognizes a prorated payment day by day over the days it covers', () => {
    // 7,200 over 2024-01-15..2024-02-19 (36 days): January 17 days, February 19 days.
    const snapshot = one({ start: '2024-01-15', end: '2024-02-20', total: 7_200, monthly: 6_083.33 });
    expect(revenue(snapshot, 'recognized_revenue', '2024-06-30')).toMatchObject({ '2024-01': 3_400, '2024-02': 3_800, '2024-03': 0 });
    expect(revenue(snapshot, 'booked_revenue', '2024-06-30')).toMatchObject({ '2024-01': 7_200, '2024-02': 0 });
  });
});

describe('an open-ended payment', () => {
  const open = () => one({ start: '2024-01-15', end: null, total: null, monthly: 3_000 });

  it('counts toward MRR at every month end up to the current month', () => {
    const result = series(open(), { from: '2024-01', to: '2024-05', today: '2024-05-10' });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 3_000, '2024-02': 3_000, '2024-03': 3_000, '2024-04': 3_000, '2024-05': 3_000 });
    expect(movementsAt(result, '2024-01')).toMatchObject({ newBusiness: 3_000 });
    for (const label of ['2024-02', '2024-03', '2024-04', '2024-05']) expect(movementsAt(result, label)).toMatchObject({ churn: 0, newBusiness: 0 });
  });

  it('churns in the month its end is set to', () => {
    const ended = one({ start: '2024-01-15', end: '2024-04-10', total: 8_500, monthly: 3_000 });
    const result = series(ended, { from: '2024-01', to: '2024-05', today: '2024-05-10' });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 3_000, '2024-02': 3_000, '2024-03': 3_000, '2024-04': 0, '2024-05': 0 });
    expect(movementsAt(result, '2024-04')).toMatchObject({ churn: 3_000 });
  });

  it('recognizes its monthly amount for each service month from its start, only up to today', () => {
    // Service months Jan 15 - Feb 15 (31 days), Feb 15 - Mar 15 (29), Mar 15 - Apr 15 (31), Apr 15 - May 15 (30).
    // By Feb 1: 17 of 31 days; by Mar 1: one month and 15 of 29 days; by Apr 1: two and 17 of 31; by May 1: three and 16 of 30; by May 11: three and 26 of 30.
    const jan = Math.round((3_000 * 17) / 31);
    const byFeb15 = 3_000;
    const byMar1 = byFeb15 + Math.round((3_000 * 15) / 29);
    const feb = byMar1 - jan;
    const mar = 6_000 + Math.round((3_000 * 17) / 31) - byMar1;
    const byApr1 = 6_000 + Math.round((3_000 * 17) / 31);
    const apr = 9_000 + Math.round((3_000 * 16) / 30) - byApr1;
    const may = 9_000 + Math.round((3_000 * 26) / 30) - (9_000 + Math.round((3_000 * 16) / 30));
    expect(revenue(open(), 'recognized_revenue', '2024-05-10')).toEqual({ '2024-01': jan, '2024-02': feb, '2024-03': mar, '2024-04': apr, '2024-05': may });
    expect(recognizedOpenBy(3_000, dayFromIso('2024-01-15'), dayFromIso('2024-05-11'))).toBe(jan + feb + mar + apr + may);
  });

  it('books nothing until it has an end, then its total on its start day', () => {
    expect(revenue(open(), 'booked_revenue', '2024-05-10')).toEqual({ '2024-01': 0, '2024-02': 0, '2024-03': 0, '2024-04': 0, '2024-05': 0 });
    const ended = one({ start: '2024-01-15', end: '2024-04-10', total: 8_500, monthly: 3_000 });
    expect(revenue(ended, 'booked_revenue', '2024-05-10')).toMatchObject({ '2024-01': 8_500, '2024-02': 0 });
  });

  it('gives the customer drawer MRR now and revenue to date', () => {
    // By Mar 13 inclusive: the first service month (Jan 15 - Feb 15) and 28 of the second's 29 days.
    expect(computeCustomerMetrics(open(), 'c', { today: '2024-03-13' })).toMatchObject({ mrr: 3_000, accrued_total: 3_000 + Math.round((3_000 * 28) / 29) });
    // By Mar 14 inclusive: two whole service months.
    const metrics = computeCustomerMetrics(open(), 'c', { today: '2024-03-14' });
    expect(metrics).toMatchObject({ mrr: 3_000, accrued_total: 6_000 });
  });

  it('lists the customer in the MRR details with its monthly amount', () => {
    const details = computeDetails(open(), { definition_id: 'mrr', range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 5 }, today: '2024-05-10', date: '2024-05-01' });
    const [item] = details.items;
    expect(item?.value).toBe(3_000);
    expect(item?.details.total_value).toBe(3_000);
    expect(item?.details.top_customers.map((c) => c.value)).toEqual([3_000]);
  });
});

describe('a finite discount with months', () => {
  it('is subtracted from the payment’s MRR for its months from the start, then MRR expands', () => {
    const snapshot = one({ start: '2024-01-10', months: 6, total: 60_000, discounts: [{ kind: 'finite', monthly: 2_000, months: 2 }] });
    const result = series(snapshot, { from: '2024-01', to: '2024-04' });
    // The discount applies on Jan 10 - Mar 10: January and February ends at 8,000, March at 10,000.
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 8_000, '2024-02': 8_000, '2024-03': 10_000, '2024-04': 10_000 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 2_000 });
  });

  it('is left out when finite discounts are not subtracted, and a forever discount lasts the whole payment', () => {
    const snapshot = one({ start: '2024-01-10', months: 6, total: 60_000, discounts: [{ kind: 'finite', monthly: 2_000, months: 2 }, { kind: 'forever', monthly: 500 }] });
    const result = series(snapshot, { from: '2024-01', to: '2024-04', reportSettings: { subtract_finite_discount_from_mrr: false } });
    expect(byPeriod(result, (s) => s.mrr)).toEqual({ '2024-01': 9_500, '2024-02': 9_500, '2024-03': 9_500, '2024-04': 9_500 });
  });
});

describe('rows the builder refuses', () => {
  const build = (payment: Record<string, unknown>) => () =>
    buildSnapshot({
      account: accountRow(),
      customers: [{ id: 'c', parent_id: null, include_in_calculations_by_default: true }],
      payments: [{ id: 'p', customer_id: 'c', started_at: '2024-01-15', duration_in_months: null, total_value: null, currency: 'USD', ...payment }],
    });

  it.each([
    ['an open-ended payment without a monthly amount', { ended_at: null }, 'an open-ended payment needs monthly_amount'],
    ['an end on the start day', { ended_at: '2024-01-15', duration_in_months: 1, total_value: 100 }, 'ended_at must be after started_at'],
    ['a negative monthly amount', { ended_at: null, monthly_amount: -1 }, 'monthly_amount must be a finite number >= 0'],
    ['a period without a total', { ended_at: '2024-02-15', duration_in_months: 1, total_value: null }, 'total_value must be a number'],
  ])('%s', (_name, payment, message) => {
    expect(build(payment)).toThrow(message);
  });
});
