import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoSnapshot, demoAccountRow, ecbRateRows, type PeriodBusiness, type PeriodPayment } from '../../../../bench/support/demoSnapshot';
import { DuckMetrics, type DuckCustomerRow, type DuckMrrRequest, type DuckMrrResult, type DuckPaymentRow } from '../../../../bench/support/duckdbMetrics';
import { compareMrr } from '../../../../bench/support/parity';
import type { ItemType } from '../../../../server/db/schema';
import { generateBusiness, type DemoBusiness } from '../../../../server/demo/generate';
import { dayFromIso, DAYS_PER_MONTH, isoFromDay } from '../../../../server/metrics/days';
import { computeMrrSeries, type MrrSeriesResult } from '../../../../server/metrics/mrrSeries';
import { buildSnapshot } from '../../../../server/metrics/snapshot/builder';
import { type AccountRow, type ExchangeRateRow } from '../../../../server/metrics/snapshot/rows';
import { type AccountSnapshot } from '../../../../server/metrics/snapshot/columns';

/**
 * The engine against a second, independent implementation of MRR and movements in DuckDB SQL
 * (bench/support/duckdbMetrics.ts), which reads the generator's plain rows and the shipped ECB
 * CSV itself. Every month, every series, the total and every product must agree to the minor unit.
 */

function engineSeries(snapshot: AccountSnapshot, request: DuckMrrRequest): MrrSeriesResult {
  const [startYear, startMonth] = request.from.split('-').map(Number) as [number, number];
  const [endYear, endMonth] = request.to.split('-').map(Number) as [number, number];
  return computeMrrSeries(snapshot, {
    resolution: 'month',
    range: { startYear, startMonth, endYear, endMonth },
    today: dayFromIso(request.today),
    reportSettings: { currency: request.reportCurrency },
    segmenters: [{ kind: 'product' }],
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * The generated business with some payments' periods changed, as imports and the payment form
 * now write them: every 9th uncorrected payment prorated (ended 10 to 45 days after its start; every
 * other one with an exact monthly amount given), every 13th open-ended (only its exact monthly amount).
 */
function withPeriods(business: DemoBusiness): PeriodBusiness {
  const payments = business.payments.map((p, index): PeriodPayment => {
    if (p.correction !== null || p.total_value === 0) return p;
    if (index % 13 === 6) return { ...p, ended_at: null, duration_in_months: null, total_value: null, monthly_amount: p.total_value / p.duration_in_months };
    if (index % 9 !== 4) return p;
    const days = 10 + (index % 36);
    const start = dayFromIso(p.started_at);
    return {
      ...p,
      ended_at: isoFromDay(start + days),
      duration_in_months: days / DAYS_PER_MONTH,
      ...(index % 2 === 0 ? { monthly_amount: p.total_value / p.duration_in_months } : {}),
    };
  });
  return { ...business, payments };
}

let rates: ExchangeRateRow[];
beforeAll(async () => {
  rates = await ecbRateRows(['USD', 'PLN']);
});

describe('MRR and movements agree with DuckDB on a generated business', () => {
  // History from 2022-10; the report starts a year later, so customers who paid before the
  // range come back as reactivations. The history runs past the end of the shipped ECB table
  // (2025-05-09), and today is inside the last month.
  const TODAY = '2025-09-17';
  const business = withPeriods(generateBusiness({ customers: 2_000, months: 36, endMonth: '2025-09', today: TODAY }));
  let duck: DuckMetrics;
  let snapshot: AccountSnapshot;

  beforeAll(async () => {
    duck = await DuckMetrics.open({ threads: 2 });
    await duck.load(business);
    snapshot = buildDemoSnapshot(business, rates);
  });
  afterAll(() => duck?.close());

  it('is a business that exercises the rules being compared', () => {
    const payments = business.payments;
    expect(payments.some((p) => p.started_at > '2025-05-09' && p.currency !== 'USD')).toBe(true);
    expect(payments.some((p) => p.discount?.kind === 'forever')).toBe(true);
    expect(payments.some((p) => p.discount?.kind === 'finite')).toBe(true);
    expect(payments.some((p) => p.correction !== null)).toBe(true);
    expect(new Set(payments.filter((p) => Number.isInteger(p.duration_in_months)).map((p) => p.duration_in_months))).toEqual(new Set([1, 3, 12]));
    expect(payments.filter((p) => p.ended_at === null).length).toBeGreaterThan(100);
    expect(payments.filter((p) => p.duration_in_months !== null && !Number.isInteger(p.duration_in_months)).length).toBeGreaterThan(100);
    expect(payments.some((p) => p.monthly_amount !== undefined && p.monthly_amount !== null && !Number.isInteger(p.monthly_amount))).toBe(true);
    expect(new Set(payments.map((p) => p.currency))).toEqual(new Set(['USD', 'EUR', 'PLN']));
    expect(business.customers.some((c) => !c.include_in_calculations_by_default)).toBe(true);
    expect(business.customers.some((c) => c.parent_id !== null)).toBe(true);
  });

  it.each([
    ['USD', true],
    ['USD', false],
    ['EUR', true],
    ['PLN', true],
  ])('in %s (match movements by currency: %s), month by month and cent by cent', async (currency, matching) => {
    const request: DuckMrrRequest = { from: '2023-10', to: '2025-09', today: TODAY, reportCurrency: currency, matchMovementsByCurrency: matching };
    const ours = engineSeries(matching ? snapshot : buildDemoSnapshot(business, rates, demoAccountRow({ match_movements_by_currency: false })), request);
    const theirs = await duck.computeMrr(request);
    expect(compareMrr(ours, theirs)).toEqual([]);
    expect(theirs.periods).toHaveLength(24);
    // Every movement class (and fx when matching) occurs, in the total and inside products.
    for (const series of [theirs.total, theirs.products.get('growth')]) {
      for (const field of ['newBusiness', 'expansion', 'reactivation', 'contraction', 'churn'] as const) expect(sum(series?.[field] ?? [])).toBeGreaterThan(0);
      expect(sum(series?.fxAdjustment ?? []) !== 0).toBe(matching);
    }
    expect(sum(theirs.products.get('starter')?.reactivatedCustomers ?? [])).toBeGreaterThan(0);
  });

  it('notices a single payment that is off by one minor unit a month', async () => {
    const request: DuckMrrRequest = { from: '2023-10', to: '2025-09', today: TODAY, reportCurrency: 'USD', matchMovementsByCurrency: true };
    const target = business.payments.find((p) => p.currency === 'USD' && p.duration_in_months === 1 && p.ended_at !== null && p.started_at.startsWith('2024-06') && p.discount === null);
    expect(target).toBeDefined();
    await duck.connection.run(`update payments set total_value = total_value + 1 where id = '${target?.id}'`);
    let theirs: DuckMrrResult;
    try {
      theirs = await duck.computeMrr(request);
    } finally {
      await duck.connection.run(`update payments set total_value = total_value - 1 where id = '${target?.id}'`);
    }
    const ours = engineSeries(snapshot, request);
    const june = ours.periods.findIndex((p) => p.label === '2024-06');
    expect(compareMrr(ours, theirs)).toContain(`Total mrr 2024-06: engine ${ours.total.mrr[june]}, duckdb ${(ours.total.mrr[june] as number) + 1}`);
  });
});

// ------------------------------------------------------------------ rules the generator never produces

interface FixturePayment {
  customer: string;
  start: string;
  months?: number;
  /** The first day after the period (null: open-ended; then `monthly` is required and `total` ignored). */
  end?: string | null;
  total: number;
  monthly?: number;
  currency?: string;
  /** Default: one recurring 'plan' item; [] = a payment without items. */
  items?: { product: string; type?: ItemType }[];
  discount?: { kind: 'forever' | 'finite'; monthly: number };
}

const FIXTURE_CUSTOMERS: DuckCustomerRow[] = [
  ...['multi', 'over', 'hundred', 'old', 'noitems', 'metered', 'mixed', 'late', 'clamped', 'future', 'eur', 'kid', 'short', 'prorated'].map((id) => ({
    id,
    parent_id: id === 'kid' ? 'group' : null,
    include_in_calculations_by_default: true,
  })),
  { id: 'group', parent_id: null, include_in_calculations_by_default: true },
  { id: 'internal', parent_id: null, include_in_calculations_by_default: false },
  { id: 'internal_kid', parent_id: 'internal', include_in_calculations_by_default: true },
  { id: 'excluded_kid', parent_id: 'group', include_in_calculations_by_default: false },
];

const FIXTURE_PAYMENTS: FixturePayment[] = [
  // Three items: 10,001 a month splits 3,334 / 3,334 / 3,333; the two recurring parts less the
  // discount (5,668) are spread 2,834 / 2,834; then the customer moves to the add-on only.
  ...['2024-01-05', '2024-02-05'].map((start) => ({
    customer: 'multi',
    start,
    total: 10_001,
    items: [{ product: 'seats' }, { product: 'extra' }, { product: 'setup', type: 'one_time' as const }],
    discount: { kind: 'forever' as const, monthly: 1_000 },
  })),
  { customer: 'multi', start: '2024-03-05', total: 7_003, items: [{ product: 'extra' }, { product: 'api', type: 'metered' }, { product: 'extra' }] },
  { customer: 'multi', start: '2024-04-05', months: 3, total: 30_001, currency: 'PLN', items: [{ product: 'plan' }, { product: 'addon' }], discount: { kind: 'finite', monthly: 2_501 } },
  // A discount larger than its payment cancels that payment only.
  { customer: 'over', start: '2024-03-01', total: 10_000, discount: { kind: 'forever', monthly: 20_000 } },
  { customer: 'over', start: '2024-03-04', total: 5_000 },
  // A 100% discount makes the month unpaid: churn, then reactivation.
  { customer: 'hundred', start: '2024-05-10', total: 9_900 },
  { customer: 'hundred', start: '2024-06-10', total: 9_900, discount: { kind: 'finite', monthly: 9_900 } },
  { customer: 'hundred', start: '2024-07-10', total: 9_900 },
  // Before the ECB's first PLN rate (its first rate applies), then back long after: a reactivation.
  { customer: 'old', start: '1998-12-15', months: 12, total: 120_007, currency: 'PLN' },
  { customer: 'old', start: '2024-09-01', months: 12, total: 100_006, currency: 'PLN' },
  { customer: 'noitems', start: '2024-02-20', months: 3, total: 10_000, items: [] },
  { customer: 'metered', start: '2024-02-20', total: 4_000, items: [{ product: 'api', type: 'metered' }] },
  { customer: 'metered', start: '2024-02-20', total: 0, items: [{ product: 'free', type: 'freemium' }] },
  { customer: 'metered', start: '2024-03-20', total: 6_000, items: [{ product: 'plan' }, { product: 'api', type: 'metered' }] },
  // Two currencies at once: no fx split.
  { customer: 'mixed', start: '2024-03-15', months: 12, total: 120_000, currency: 'EUR' },
  { customer: 'mixed', start: '2024-06-15', total: 2_000, items: [{ product: 'addon' }] },
  { customer: 'mixed', start: '2024-07-15', total: 2_500, items: [{ product: 'addon' }] },
  // After the shipped table ends (2025-05-09): the latest earlier rate.
  ...['2025-04-30', '2025-05-30', '2025-06-30', '2025-07-30'].map((start, k) => ({ customer: 'late', start, total: 8_000 + k * 500, currency: 'PLN' })),
  // Jan 31 + 1 month = Feb 29: the February month end is not covered.
  { customer: 'clamped', start: '2024-01-31', total: 3_000, currency: 'EUR' },
  { customer: 'clamped', start: '2024-03-31', total: 3_000, currency: 'EUR' },
  // Starting today counts; starting after today does not.
  { customer: 'future', start: '2025-08-14', total: 1_234 },
  { customer: 'future', start: '2025-08-15', total: 4_321, items: [{ product: 'addon' }] },
  { customer: 'eur', start: '2024-11-11', months: 12, total: 99_999, currency: 'EUR' },
  { customer: 'eur', start: '2025-02-11', total: 4_999, currency: 'EUR', items: [{ product: 'addon' }] },
  { customer: 'kid', start: '2024-04-01', total: 5_555 },
  // Periods that are not whole months: inside one month (never at a month end), across one, prorated with an exact amount, open-ended in euros.
  { customer: 'short', start: '2024-05-03', end: '2024-05-18', total: 5_000 },
  { customer: 'short', start: '2024-06-25', end: '2024-07-10', total: 10_000 },
  { customer: 'prorated', start: '2024-01-15', end: '2024-02-20', total: 6_000, monthly: 4_999.5 },
  { customer: 'prorated', start: '2024-02-20', end: null, total: 0, monthly: 10_000 / 3, currency: 'EUR' },
  // Left out: internal accounts and their children.
  { customer: 'internal', start: '2024-04-01', total: 7_777 },
  { customer: 'internal_kid', start: '2024-04-01', total: 8_888 },
  { customer: 'excluded_kid', start: '2024-04-01', total: 9_999 },
];

function fixtureRows(): DuckPaymentRow[] {
  return FIXTURE_PAYMENTS.map((p, index) => ({
    id: `pay${String(index).padStart(3, '0')}`,
    customer_id: p.customer,
    started_at: p.start,
    ...(p.end === undefined
      ? { duration_in_months: p.months ?? 1, total_value: p.total }
      : p.end === null
        ? { ended_at: null, duration_in_months: null, total_value: null }
        : { ended_at: p.end, duration_in_months: (dayFromIso(p.end) - dayFromIso(p.start)) / DAYS_PER_MONTH, total_value: p.total }),
    monthly_amount: p.monthly ?? null,
    currency: p.currency ?? 'USD',
    items: (p.items ?? [{ product: 'plan' }]).map((item) => ({ product_key: item.product, type: item.type ?? 'recurring', quantity: 1 })),
    discount: p.discount ? { kind: p.discount.kind, monthly_amount: p.discount.monthly } : null,
  }));
}

function fixtureSnapshot(payments: readonly DuckPaymentRow[], account: AccountRow): AccountSnapshot {
  return buildSnapshot({
    account,
    customers: FIXTURE_CUSTOMERS,
    payments: payments.map((p) => ({
      id: p.id,
      customer_id: p.customer_id,
      started_at: p.started_at,
      ...(p.ended_at === undefined ? {} : { ended_at: p.ended_at }),
      duration_in_months: p.duration_in_months,
      total_value: p.total_value,
      monthly_amount: p.monthly_amount ?? null,
      currency: p.currency,
    })),
    paymentItems: payments.flatMap((p) =>
      p.items.map((item, position) => ({ payment_id: p.id, position, product_key: item.product_key ?? 'Other', type: item.type as ItemType, quantity: item.quantity })),
    ),
    paymentDiscounts: payments.flatMap((p) => (p.discount ? [{ payment_id: p.id, kind: p.discount.kind, monthly_amount: p.discount.monthly_amount }] : [])),
    exchangeRates: rates,
  });
}

describe('MRR and movements agree with DuckDB on hand-made edge cases', () => {
  const payments = fixtureRows();
  let duck: DuckMetrics;

  beforeAll(async () => {
    duck = await DuckMetrics.open({ threads: 1 });
    await duck.load({ customers: FIXTURE_CUSTOMERS, payments });
  });
  afterAll(() => duck?.close());

  it.each([
    ['USD', true],
    ['USD', false],
    ['EUR', true],
    ['PLN', false],
  ])('in %s (match movements by currency: %s)', async (currency, matching) => {
    const request: DuckMrrRequest = { from: '2024-01', to: '2025-08', today: '2025-08-14', reportCurrency: currency, matchMovementsByCurrency: matching };
    const snapshot = fixtureSnapshot(payments, demoAccountRow({ match_movements_by_currency: matching }));
    const ours = engineSeries(snapshot, request);
    const theirs = await duck.computeMrr(request);
    expect(compareMrr(ours, theirs)).toEqual([]);
    expect(ours.total.mrr.some((mrr) => mrr > 0)).toBe(true);
  });

  it('splits a three-item payment as docs/metrics.md says', async () => {
    const theirs = await duck.computeMrr({ from: '2024-01', to: '2024-03', today: '2025-08-14', reportCurrency: 'USD', matchMovementsByCurrency: true });
    expect(theirs.products.get('seats')?.mrr).toEqual([2_834, 2_834, 0]);
    expect(theirs.products.get('seats')?.churn[2]).toBe(2_834);
    // 7,003 over three items is 2,335 / 2,334 / 2,334; the metered one does not count.
    expect(theirs.products.get('extra')?.mrr).toEqual([2_834, 2_834, 2_335 + 2_334]);
    expect(theirs.products.get('extra')?.expansion[2]).toBe(2_335 + 2_334 - 2_834);
  });
});
