import { describe, expect, it } from 'vitest';
import { computeSection } from '../../../server/metrics/definitions/computeSection';
import { computeCustomerMetrics } from '../../../server/metrics/customerMetrics';
import { dayFromIso, wholeMonthsBetween } from '../../../server/metrics/days';
import { business, ecb, type PaymentSpec } from './support';

/** Customer-level figures (METRICS.md section 10): the customer drawer's MRR, revenue to date and timeline. */

function monthly(customer: string, start: string, months: number, total: number, extra: Partial<PaymentSpec> = {}): PaymentSpec[] {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  return Array.from({ length: months }, (_, k) => ({ customer, start: new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10), total, ...extra }));
}

/**
 * acme (a parent) pays 100.00 a month from January; its child acme-eu pays a 300.00 quarter
 * from Feb 1 and a 20.00 setup fee; solo pays 10.00 in January; test-account is excluded.
 */
const BOOK = business({
  customers: [
    { id: 'acme', name: 'Acme' },
    { id: 'acme-eu', name: 'Acme EU', parent_id: 'acme' },
    'solo',
    { id: 'test-account', include_in_calculations_by_default: false },
  ],
  payments: [
    ...monthly('acme', '2024-01-01', 4, 10_000),
    { customer: 'acme-eu', start: '2024-02-01', months: 3, total: 30_000 },
    { customer: 'acme-eu', start: '2024-02-01', total: 2_000, type: 'one_time', product: 'setup' },
    { customer: 'solo', start: '2024-01-01', total: 1_000 },
    ...monthly('test-account', '2024-01-01', 4, 99_000),
  ],
  rates: ecb([['2024-01-01', { USD: 1.1 }]]),
});

const metrics = (id: string, today = '2024-04-15', currency: string | null = null) => computeCustomerMetrics(BOOK, id, { today, currency });

describe('customer metrics', () => {
  it("gives the customer's MRR today, its descendants' included", () => {
    expect(metrics('acme')?.mrr).toBe(20_000);
    expect(metrics('acme-eu')?.mrr).toBe(10_000);
    expect(metrics('solo')?.mrr).toBe(0);
  });

  it('gives recognized recurring revenue to date and one-time revenue to date', () => {
    // acme: January to March in full (300.00) and April 1-15 of 30 days (50.00); acme-eu: Feb 1 - Apr 15 of Feb 1 - May 1 (75 of 90 days).
    const acme = metrics('acme');
    expect(acme?.accrued_total).toBe(30_000 + 5_000 + 25_000);
    expect(acme?.one_time_accrued_total).toBe(2_000);
    expect(metrics('solo')?.accrued_total).toBe(1_000);
  });

  it('gives a month-by-month timeline whose months add up to the totals', () => {
    const acme = metrics('acme');
    expect(acme?.timeline.map((p) => p.date)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']);
    expect(acme?.timeline.map((p) => p.metrics.mrr)).toEqual([10_000, 20_000, 20_000, 20_000]);
    expect(acme?.timeline.map((p) => p.metrics.one_time_revenue)).toEqual([0, 2_000, 0, 0]);
    const recognized = acme?.timeline.reduce((sum, p) => sum + p.metrics.recognized_revenue, 0);
    expect(recognized).toBe(acme?.accrued_total);
    expect(acme?.timeline.at(-1)?.metrics).toMatchObject({ accrued_total: acme?.accrued_total, one_time_accrued_total: 2_000 });
  });

  it('matches the recognized revenue section for a one-customer business', () => {
    const alone = business({ payments: [{ customer: 'q', start: '2024-01-15', months: 3, total: 30_000 }] });
    const section = computeSection(alone, { definition_id: 'recognized_revenue', range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 4 }, today: '2024-04-30' });
    const timeline = computeCustomerMetrics(alone, 'q', { today: '2024-04-30' })?.timeline ?? [];
    expect(timeline.map((p) => p.metrics.recognized_revenue)).toEqual(section.segments[0]?.series[0]?.data_points.map((p) => p.value));
  });

  it('follows the report rules: an excluded customer shows 0 and says so', () => {
    expect(metrics('test-account')).toMatchObject({ included: false, mrr: 0, accrued_total: 0 });
    expect(metrics('acme')?.included).toBe(true);
  });

  it('converts into another currency', () => {
    const inEuro = metrics('acme', '2024-04-15', 'EUR');
    expect(inEuro?.currency).toBe('EUR');
    expect(inEuro?.mrr).toBe(Math.round(20_000 / 1.1));
  });

  it('knows nothing of another account’s customer', () => {
    expect(metrics('somebody-else')).toBeNull();
  });
});

describe('whole months as a customer', () => {
  it.each([
    ['2024-01-15', '2024-02-14', 0],
    ['2024-01-15', '2024-02-15', 1],
    ['2024-01-31', '2024-02-29', 1],
    ['2024-01-31', '2025-01-30', 11],
    ['2024-03-01', '2024-03-01', 0],
  ])('from %s to %s is %i', (from, to, months) => {
    expect(wholeMonthsBetween(dayFromIso(from), dayFromIso(to))).toBe(months);
  });
});
