import { describe, expect, it } from 'vitest';
import { CATALOGUE, DEFINITION_IDS, type DefinitionId } from '../../../server/metrics/definitions/catalogue';
import { computeSection, computeSections } from '../../../server/metrics/definitions/computeSection';
import {
  costSegmenterId,
  customerSegmenterId,
  PRODUCT_SEGMENTER_ID,
  sectionDefinitionsFor,
  type AccountCatalogueInput,
} from '../../../server/metrics/definitions/segmenters';
import type { DataCategory } from '../../../server/db/schema';
import { SectionRequestError, type SectionRequest, type SectionResult } from '../../../server/metrics/definitions/types';
import { buildSnapshot } from '../../../server/metrics/snapshot/builder';
import { type AccountSnapshot } from '../../../server/metrics/snapshot/columns';
import { accountRow, business, type PaymentSpec } from './support';

/**
 * The section catalogue (METRICS.md section 7), each definition on a small business whose
 * numbers are worked out by hand in the comments.
 */

const HALF_YEAR = { start_year: 2024, start_month: 1, end_year: 2024, end_month: 6 };

/** Monthly renewals: `months` one-month payments from `start`. */
function monthly(customer: string, start: string, months: number, total: number, extra: Partial<PaymentSpec> = {}): PaymentSpec[] {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  return Array.from({ length: months }, (_, k) => ({ customer, start: new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10), total, ...extra }));
}

/**
 * Four customers over the first half of 2024, monthly:
 *   a: 100.00 a month all along (5 seats)                       -> new in Jan
 *   b: 200.00 from Feb 10 to Apr 10                              -> new in Feb, churn in Apr
 *   c: 50.00 in March, 80.00 from April                          -> new in Mar, expansion 30.00 in Apr
 *   d: 60.00 from Jan 20 to Feb 20, back at 70.00 from May 15    -> new in Jan, churn in Feb, reactivation in May
 * MRR at month ends: Jan 160, Feb 300, Mar 350, Apr 180, May 250, Jun 250 (hundreds of cents).
 */
const FOUR = business({
  payments: [
    ...monthly('a', '2024-01-05', 6, 10_000, { quantity: 5 }),
    ...monthly('b', '2024-02-10', 2, 20_000),
    { customer: 'c', start: '2024-03-01', total: 5_000 },
    { customer: 'c', start: '2024-04-01', months: 3, total: 24_000 },
    { customer: 'd', start: '2024-01-20', total: 6_000 },
    { customer: 'd', start: '2024-05-15', months: 2, total: 14_000 },
  ],
  segments: [{ id: 'country', name: 'Country', value_source: 'parent_and_children', time_sensitive: false }],
  segmentValues: [
    { customer_id: 'a', segment_id: 'country', year: 2024, month: 1, value: 'DE' },
    { customer_id: 'b', segment_id: 'country', year: 2024, month: 1, value: 'PL' },
    { customer_id: 'c', segment_id: 'country', year: 2024, month: 1, value: 'DE' },
  ],
});

function run(snapshot: AccountSnapshot, definition_id: DefinitionId, extra: Partial<SectionRequest> = {}): SectionResult {
  return computeSection(snapshot, { definition_id, range: HALF_YEAR, today: '2024-06-30', ...extra });
}

/** A series' values by period label ('2024-01': value). */
function byMonth(result: SectionResult, series = 0, segment = 0): Record<string, number | null> {
  const points = result.segments[segment]?.series[series]?.data_points ?? [];
  return Object.fromEntries(points.map((p, i) => [result.periods[i]?.label, p.value]));
}

function seriesNamed(result: SectionResult, name: string, segment = 0): Record<string, number | null> {
  const index = result.segments[segment]?.series.findIndex((s) => s.name === name) ?? -1;
  if (index < 0) throw new Error(`no series '${name}' in ${result.segments[segment]?.series.map((s) => s.name).join(', ')}`);
  return byMonth(result, index, segment);
}

const months = (values: (number | null)[]) => Object.fromEntries(values.map((v, i) => [`2024-0${i + 1}`, v]));

describe('the catalogue', () => {
  it('holds every definition of METRICS.md section 7 with what a section needs to offer it', () => {
    expect(CATALOGUE.map((d) => d.id)).toEqual([...DEFINITION_IDS]);
    for (const definition of CATALOGUE) {
      expect(definition.name).not.toBe('');
      expect(definition.description).not.toBe('');
      expect(definition.formula).not.toBe('');
      expect(definition.supported_data_types.length).toBeGreaterThan(0);
      expect(definition.supported_data_types).toContain(definition.default_data_type);
      expect(definition.supported_grouping_periods.length).toBeGreaterThan(0);
      expect(definition.data_categories.length).toBeGreaterThan(0);
      expect(definition.segmenter_types[0]).toBe('total');
      expect(definition.default_call_to_action).not.toBe('');
      expect(definition.segmenter_call_to_action).not.toBe('');
    }
  });

  const account: AccountCatalogueInput = {
    customerSegments: [
      { id: 'seg-country', name: 'Country' },
      { id: 'seg-plan', name: 'Plan' },
    ],
    paymentAttributes: [{ id: 'att-channel', name: 'Channel' }],
    costAttributes: [{ id: 'att-category', name: 'Category' }],
    segmentations: [{ id: 'sgd-regions', name: 'Regions', base: customerSegmenterId('seg-country') }],
    hasDeals: false,
  };

  it("expands segmenters for the account: one customer_segment per customer attribute, the payment built-ins and attributes, cost attributes, the account's segmentations", () => {
    const mrr = sectionDefinitionsFor(account).find((d) => d.id === 'mrr');
    expect(mrr?.segmenters.map((s) => [s.id, s.type])).toEqual([
      ['total', 'total'],
      ['customer_segment:seg-country', 'customer_segment'],
      ['customer_segment:seg-plan', 'customer_segment'],
      ['subscription_segment:product', 'subscription_segment'],
      ['subscription_segment:item_type', 'subscription_segment'],
      ['subscription_segment:currency', 'subscription_segment'],
      ['subscription_segment:attribute:att-channel', 'subscription_segment'],
      ['sgd-regions', 'customer_segment'],
    ]);
    expect(mrr?.segmenters[0]).toMatchObject({ is_total: true });
    const costs = sectionDefinitionsFor(account).find((d) => d.id === 'costs');
    expect(costs?.segmenters.map((s) => s.id)).toEqual(['total', 'cost_segment:att-category']);
    const cohorts = sectionDefinitionsFor(account).find((d) => d.id === 'mrr_cohorts');
    expect(cohorts?.segmenters.map((s) => s.type)).not.toContain('subscription_segment');
  });

  it('offers deals only to an account with CRM deals', () => {
    expect(sectionDefinitionsFor(account).find((d) => d.id === 'deals')?.available).toBe(false);
    expect(sectionDefinitionsFor({ ...account, hasDeals: true }).find((d) => d.id === 'deals')?.available).toBe(true);
    expect(sectionDefinitionsFor(account).filter((d) => !d.available).map((d) => d.id)).toEqual(['deals']);
  });
});

describe('MRR-based definitions on four hand-computed customers', () => {
  it('mrr: sum of paying customers’ MRR at each period end', () => {
    expect(byMonth(run(FOUR, 'mrr'))).toEqual(months([16_000, 30_000, 35_000, 18_000, 25_000, 25_000]));
  });

  it('arr: MRR x 12', () => {
    expect(byMonth(run(FOUR, 'arr'))).toEqual(months([192_000, 360_000, 420_000, 216_000, 300_000, 300_000]));
  });

  it('mrr_movements: new, expansion, reactivation, contraction and churn (negative), fx and net, stacked', () => {
    const result = run(FOUR, 'mrr_movements');
    expect(result.segments[0]?.series.map((s) => s.component)).toEqual(['new_business', 'expansion', 'reactivation', 'contraction', 'churn', 'fx_adjustment', 'net']);
    expect(seriesNamed(result, 'New business')).toEqual(months([16_000, 20_000, 5_000, 0, 0, 0]));
    expect(seriesNamed(result, 'Expansion')).toEqual(months([0, 0, 0, 3_000, 0, 0]));
    expect(seriesNamed(result, 'Reactivation')).toEqual(months([0, 0, 0, 0, 7_000, 0]));
    expect(seriesNamed(result, 'Churn')).toEqual(months([0, -6_000, 0, -20_000, 0, 0]));
    expect(seriesNamed(result, 'Net')).toEqual(months([16_000, 14_000, 5_000, -17_000, 7_000, 0]));
  });

  it('net_new_mrr: the net change, and new + reactivated - churned customers as its count', () => {
    const result = run(FOUR, 'net_new_mrr');
    expect(byMonth(result)).toEqual(months([16_000, 14_000, 5_000, -17_000, 7_000, 0]));
    expect(result.segments[0]?.series[0]?.data_points.map((p) => p.count)).toEqual([2, 0, 1, -1, 1, 0]);
  });

  it('customers: customers with MRR > 0 at the period end', () => {
    expect(byMonth(run(FOUR, 'customers'))).toEqual(months([2, 2, 3, 2, 3, 3]));
  });

  it('new_customers: first-time payers, with their new MRR as values', () => {
    expect(byMonth(run(FOUR, 'new_customers'))).toEqual(months([2, 1, 1, 0, 0, 0]));
    expect(byMonth(run(FOUR, 'new_customers', { data_category: 'values' }))).toEqual(months([16_000, 20_000, 5_000, 0, 0, 0]));
  });

  it('churned_customers: payers who stopped, with the MRR they took', () => {
    expect(byMonth(run(FOUR, 'churned_customers'))).toEqual(months([0, 1, 0, 1, 0, 0]));
    expect(byMonth(run(FOUR, 'churned_customers', { data_category: 'values' }))).toEqual(months([0, 6_000, 0, 20_000, 0, 0]));
  });

  it('reactivated_customers: former payers who pay again', () => {
    expect(byMonth(run(FOUR, 'reactivated_customers'))).toEqual(months([0, 0, 0, 0, 1, 0]));
    expect(byMonth(run(FOUR, 'reactivated_customers', { data_category: 'values' }))).toEqual(months([0, 0, 0, 0, 7_000, 0]));
  });

  it('arpa: MRR / paying customers, unrounded minor units', () => {
    expect(byMonth(run(FOUR, 'arpa'))).toEqual(months([8_000, 15_000, 35_000 / 3, 9_000, 25_000 / 3, 25_000 / 3]));
  });

  it('customer_churn_rate: churned in p / paying at the end of p-1, empty over no customers', () => {
    expect(byMonth(run(FOUR, 'customer_churn_rate'))).toEqual(months([null, 1 / 2, 0, 1 / 3, 0, 0]));
  });

  it('gross_mrr_churn_rate: (churn + contraction) / MRR at the end of p-1', () => {
    expect(byMonth(run(FOUR, 'gross_mrr_churn_rate'))).toEqual(months([null, 6_000 / 16_000, 0, 20_000 / 35_000, 0, 0]));
  });

  it('net_mrr_churn_rate: (churn + contraction - expansion - reactivation) / MRR at the end of p-1, negative when customers grow', () => {
    expect(byMonth(run(FOUR, 'net_mrr_churn_rate'))).toEqual(months([null, 6_000 / 16_000, 0, 17_000 / 35_000, -7_000 / 18_000, 0]));
  });

  it('quick_ratio: (new + expansion + reactivation) / (contraction + churn), empty when nothing was lost', () => {
    expect(byMonth(run(FOUR, 'quick_ratio'))).toEqual(months([null, 20_000 / 6_000, null, 3_000 / 20_000, null, null]));
  });

  it('ltv: ARPA / mean customer churn rate of the 6 periods before p (the periods that have a rate)', () => {
    // June: ARPA 250.00 / 3; rates Dec..May: -, -, 1/2, 0, 1/3, 0 -> mean 5/24 -> 40,000.
    const ltv = byMonth(run(FOUR, 'ltv'));
    expect(ltv['2024-06']).toBeCloseTo(40_000, 6);
    // January's six periods before have no rate at all: empty.
    expect(ltv['2024-01']).toBeNull();
  });

  it('ltv is empty when the mean churn rate is 0', () => {
    const loyal = business({ payments: monthly('a', '2023-06-01', 13, 10_000) });
    expect(Object.values(byMonth(run(loyal, 'ltv'))).every((v) => v === null)).toBe(true);
  });

  it('splits every MRR-based definition by customer and payment attributes, segments adding up to the total', () => {
    const result = run(FOUR, 'mrr', { segmenters: [customerSegmenterId('country'), PRODUCT_SEGMENTER_ID] });
    expect(result.segments.map((s) => [s.id, s.is_total])).toEqual([
      ['total', true],
      ['customer_segment:country', false],
      ['subscription_segment:product', false],
    ]);
    expect(result.segments[1]?.series.map((s) => s.segment_value)).toEqual(['DE', 'PL', 'Other']);
    expect(seriesNamed(result, 'DE', 1)).toEqual(months([10_000, 10_000, 15_000, 18_000, 18_000, 18_000]));
    const total = result.segments[0]?.series[0]?.data_points.map((p) => p.value);
    const sum = result.segments[1]?.series[0]?.data_points.map((_, i) => result.segments[1]?.series.reduce((acc, s) => acc + (s.data_points[i]?.value ?? 0), 0));
    expect(sum).toEqual(total);
  });
});

describe('data categories (METRICS.md section 7)', () => {
  const mrr = (category: DataCategory) => byMonth(run(FOUR, 'mrr', { data_category: category }));

  it('values: money in minor units; counts: customers; units: item quantities', () => {
    expect(mrr('values')).toEqual(months([16_000, 30_000, 35_000, 18_000, 25_000, 25_000]));
    expect(mrr('counts')).toEqual(months([2, 2, 3, 2, 3, 3]));
    // a has 5 seats, everybody else 1.
    expect(mrr('units')).toEqual(months([6, 6, 7, 6, 7, 7]));
  });

  it('month_over_month_growth: v(p) / v(p-1) - 1, empty after a 0', () => {
    expect(mrr('month_over_month_growth')).toEqual(months([null, 30_000 / 16_000 - 1, 35_000 / 30_000 - 1, 18_000 / 35_000 - 1, 25_000 / 18_000 - 1, 0]));
  });

  it('month_over_month_retention: (start - churn - contraction) / start for money, (start - churned) / start for counts', () => {
    expect(mrr('month_over_month_retention')).toEqual(months([null, 10_000 / 16_000, 1, 15_000 / 35_000, 1, 1]));
    expect(byMonth(run(FOUR, 'customers', { data_category: 'month_over_month_retention' }))).toEqual(months([null, 1 / 2, 1, 2 / 3, 1, 1]));
  });

  it('moving_average3: the mean of the last three points, periods before the range included', () => {
    expect(mrr('moving_average3')).toEqual(months([16_000 / 3, 46_000 / 3, 27_000, 83_000 / 3, 26_000, 68_000 / 3]));
  });

  it('says what its values measure', () => {
    expect(run(FOUR, 'mrr').unit).toBe('minor_units');
    expect(run(FOUR, 'mrr', { data_category: 'counts' }).unit).toBe('count');
    expect(run(FOUR, 'customer_churn_rate').unit).toBe('fraction');
    expect(run(FOUR, 'quick_ratio').unit).toBe('ratio');
    expect(run(FOUR, 'mrr', { data_category: 'month_over_month_growth' }).unit).toBe('fraction');
  });
});

describe('key numbers: the value at the last complete period', () => {
  it('takes the last period that is over, not the current one', () => {
    // Today is June 30: June is still running, May is the last complete month.
    expect(run(FOUR, 'mrr').key_number).toEqual({ value: 25_000, kind: 'currency', time: '2024-05-01' });
    expect(run(FOUR, 'mrr', { today: '2024-06-12' }).key_number).toEqual({ value: 25_000, kind: 'currency', time: '2024-05-01' });
  });

  it('takes the range’s last period when the range ended before today', () => {
    expect(run(FOUR, 'mrr', { range: { ...HALF_YEAR, end_month: 3 } }).key_number).toEqual({ value: 35_000, kind: 'currency', time: '2024-03-01' });
  });

  it('has the kind of its data category: currency, percent, other', () => {
    expect(run(FOUR, 'customer_churn_rate').key_number).toMatchObject({ value: 0, kind: 'percent' });
    expect(run(FOUR, 'customers').key_number).toMatchObject({ value: 3, kind: 'other' });
    expect(run(FOUR, 'mrr', { data_category: 'month_over_month_growth' }).key_number).toMatchObject({ value: 25_000 / 18_000 - 1, kind: 'percent' });
    expect(run(FOUR, 'mrr_movements').key_number).toMatchObject({ value: 7_000, kind: 'currency' });
  });

  it('is empty when no period of the range is complete, and absent for cohort tables', () => {
    expect(run(FOUR, 'mrr', { range: { ...HALF_YEAR, start_month: 6 } }).key_number).toEqual({ value: null, kind: 'currency', time: null });
    expect(run(FOUR, 'mrr_cohorts').key_number).toBeUndefined();
  });
});

describe('cohort tables', () => {
  /**
   * March cohort: e starts on Mar 3 at 40.00 and adds 50.00 on Mar 20 (initial 40.00, month 0
   * 90.00), f starts on Mar 10 at 60.00 and leaves after April. April cohort: g at 30.00.
   */
  const COHORTS = business({
    payments: [
      ...monthly('e', '2024-03-03', 4, 4_000),
      ...monthly('e', '2024-03-20', 3, 5_000, { product: 'addon' }),
      ...monthly('f', '2024-03-10', 2, 6_000),
      ...monthly('g', '2024-04-02', 3, 3_000),
    ],
  });
  const cohorts = (id: 'mrr_cohorts' | 'customer_cohorts') => computeSection(COHORTS, { definition_id: id, range: { start_year: 2024, start_month: 3, end_year: 2024, end_month: 6 }, today: '2024-06-30' });
  const row = (result: SectionResult, label: string) => Object.fromEntries(result.segments[0]?.series.find((s) => s.name === label)?.data_points.map((p) => [String(p.column), p.value]) ?? []);

  it("mrr_cohorts: 'initial' is the new MRR on the day each customer started, 'month 0' the MRR at the cohort period's end, and later columns can exceed 100 %", () => {
    const result = cohorts('mrr_cohorts');
    // Initial 40 + 60 = 100.00; end of March 90 + 60 = 150.00 (150 %); April 150.00; May: e only (90.00); June: e's add-on ended, 40.00.
    expect(row(result, '2024-03')).toEqual({ initial: 10_000, 0: 1.5, 1: 1.5, 2: 0.9, 3: 0.4 });
    expect(row(result, '2024-04')).toEqual({ initial: 3_000, 0: 1, 1: 1, 2: 1 });
    const march = result.segments[0]?.series[0]?.data_points;
    expect(march?.[1]).toMatchObject({ time: '2024-03-01', column: 0, amount: 15_000, count: 2 });
  });

  it('customer_cohorts: column k = share of the cohort paying at the end of period cohort + k', () => {
    expect(row(cohorts('customer_cohorts'), '2024-03')).toEqual({ initial: 2, 0: 1, 1: 1, 2: 0.5, 3: 0.5 });
  });

  it('makes cohorts of exactly the new customers of each period', () => {
    const sizes = cohorts('customer_cohorts').segments[0]?.series.map((s) => s.data_points[0]?.value);
    const fresh = computeSection(COHORTS, { definition_id: 'new_customers', range: { start_year: 2024, start_month: 3, end_year: 2024, end_month: 6 }, today: '2024-06-30' });
    expect(sizes).toEqual(fresh.segments[0]?.series[0]?.data_points.map((p) => p.value));
  });

  it('is not offered weekly', () => {
    expect(() => run(FOUR, 'mrr_cohorts', { resolution: 'week' })).toThrow(SectionRequestError);
  });
});

describe('trailing-12-month revenue retention', () => {
  // x paid 100.00 and y 50.00 at the end of January 2024; a year later x pays 120.00 and y has left.
  const RETENTION = business({
    payments: [...monthly('x', '2024-01-01', 12, 10_000), ...monthly('x', '2025-01-01', 3, 12_000), ...monthly('y', '2024-01-01', 6, 5_000), ...monthly('z', '2024-06-01', 9, 7_000)],
    segments: [{ id: 'country', name: 'Country', value_source: 'parent_and_children', time_sensitive: false }],
    segmentValues: [
      { customer_id: 'x', segment_id: 'country', year: 2024, month: 1, value: 'DE' },
      { customer_id: 'y', segment_id: 'country', year: 2024, month: 1, value: 'PL' },
    ],
  });
  const retention = (id: 'net_revenue_retention' | 'gross_revenue_retention') =>
    computeSection(RETENTION, { definition_id: id, range: { start_year: 2025, start_month: 1, end_year: 2025, end_month: 3 }, today: '2025-03-31', segmenters: [customerSegmenterId('country')] });

  it('net_revenue_retention: MRR now of the customers paying 12 months before / their MRR then', () => {
    // z started in June 2024: not in January's base.
    expect(byMonth(retention('net_revenue_retention'))['2025-01']).toBe(12_000 / 15_000);
  });

  it('gross_revenue_retention: sum of min(now, then) / then, so expansion never lifts it above 100 %', () => {
    expect(byMonth(retention('gross_revenue_retention'))['2025-01']).toBe(10_000 / 15_000);
  });

  it('splits by the customer attribute the customers had 12 months before', () => {
    const net = retention('net_revenue_retention');
    expect(net.segments[1]?.series.map((s) => [s.segment_value, s.data_points[0]?.value])).toEqual([
      ['DE', 1.2],
      ['PL', 0],
      ['Other', null],
    ]);
  });
});

describe('revenue definitions from payments', () => {
  /**
   * h: 300.00 for three months from Jan 15 (3 seats), a 50.00 setup fee on Jan 15, and 9.00 of
   * metered usage for February. 2024 is a leap year: Jan 15 - Apr 15 is 91 days.
   */
  const REVENUE = business({
    payments: [
      { customer: 'h', start: '2024-01-15', months: 3, total: 30_000, quantity: 3 },
      { customer: 'h', start: '2024-01-15', total: 5_000, type: 'one_time', product: 'setup' },
      { customer: 'h', start: '2024-02-01', total: 900, type: 'metered', product: 'api-calls', quantity: 1_200 },
    ],
  });
  const revenue = (id: DefinitionId, extra: Partial<SectionRequest> = {}) => byMonth(computeSection(REVENUE, { definition_id: id, range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 4 }, today: '2024-04-30', ...extra }));
  const jan2apr = (values: number[]) => Object.fromEntries(values.map((v, i) => [`2024-0${i + 1}`, v]));

  it('one_time_revenue: one-time item totals on the payment’s start day', () => {
    expect(revenue('one_time_revenue')).toEqual(jan2apr([5_000, 0, 0, 0]));
  });

  it('booked_revenue: every payment total on its start day', () => {
    expect(revenue('booked_revenue')).toEqual(jan2apr([35_000, 900, 0, 0]));
  });

  it('recognized_revenue: recurring totals spread by day with cumulative rounding (adding up to the total), plus one-time on its day', () => {
    // By Feb 1: round(30,000 x 17/91) = 5,604; by Mar 1: round(30,000 x 46/91) = 15,165; by Apr 1: 25,385.
    expect(revenue('recognized_revenue')).toEqual(jan2apr([5_604 + 5_000, 9_561, 10_220, 4_615]));
  });

  it('usage_revenue: metered totals spread over their coverage', () => {
    expect(revenue('usage_revenue')).toEqual(jan2apr([0, 900, 0, 0]));
  });

  it('units_sold: item quantities of payments starting in the period', () => {
    expect(revenue('units_sold')).toEqual(jan2apr([4, 1_200, 0, 0]));
  });

  it('counts the current period up to today only', () => {
    // Up to and including Apr 7: 84 of the 91 days.
    expect(revenue('recognized_revenue', { today: '2024-04-07' })['2024-04']).toBe(Math.round((30_000 * 84) / 91) - 25_385);
  });
});

describe('free customers', () => {
  // f is free in January and February, then pays 30.00 from March to April; g stays free.
  const FREE = business({
    payments: [
      { customer: 'f', start: '2024-01-01', months: 2, total: 0, type: 'freemium', product: 'free' },
      { customer: 'f', start: '2024-03-01', months: 2, total: 6_000 },
      { customer: 'g', start: '2024-01-01', months: 6, total: 0, type: 'freemium', product: 'free' },
    ],
  });

  it('free_customers: a freemium item covering the period end and MRR 0 then', () => {
    expect(byMonth(run(FREE, 'free_customers'))).toEqual(months([2, 2, 1, 1, 1, 1]));
  });

  it('free_to_paid: new customers whose free period came first, with their new MRR', () => {
    expect(byMonth(run(FREE, 'free_to_paid'))).toEqual(months([0, 0, 1, 0, 0, 0]));
    expect(byMonth(run(FREE, 'free_to_paid', { data_category: 'values' }))['2024-03']).toBe(3_000);
  });
});

describe('costs, CAC and deals', () => {
  const customers = ['n1', 'n2', 'n3'].map((id) => ({ id, name: id, parent_id: null, include_in_calculations_by_default: true }));
  const SPEND = buildSnapshot({
    account: accountRow(),
    currencies: [
      { iso: 'USD', minor_unit_digits: 2 },
      { iso: 'EUR', minor_unit_digits: 2 },
    ],
    objectAttributes: [{ id: 'category', name: 'Category', object: 'cost' }],
    customers,
    payments: [
      { id: 'p1', customer_id: 'n1', started_at: '2024-02-03', duration_in_months: 1, total_value: 10_000, currency: 'USD' },
      { id: 'p2', customer_id: 'n2', started_at: '2024-02-10', duration_in_months: 1, total_value: 10_000, currency: 'USD' },
      { id: 'p3', customer_id: 'n3', started_at: '2024-03-10', duration_in_months: 1, total_value: 10_000, currency: 'EUR' },
    ],
    costs: [
      { id: 'k1', value: 30_000, currency: 'USD', date: '2024-02-05', name: 'Ads', invoice_number: 'INV-1' },
      { id: 'k2', value: 50_000, currency: 'USD', date: '2024-02-28', name: 'Salaries' },
      { id: 'k3', value: 10_000, currency: 'EUR', date: '2024-03-01', name: 'Ads' },
    ],
    costSegmentValues: [
      { cost_id: 'k1', attribute_id: 'category', value: 'marketing' },
      { cost_id: 'k2', attribute_id: 'category', value: 'payroll' },
      { cost_id: 'k3', attribute_id: 'category', value: 'marketing' },
    ],
    deals: [
      { id: 'deal1', name: 'Acme', value: 100_000, currency: 'USD', stage: 'Negotiation', stage_changed_at: '2024-02-11T10:00:00Z', created_at: '2024-01-05T00:00:00Z' },
      { id: 'deal2', name: 'Globex', value: 40_000, currency: 'USD', stage: 'Won', stage_changed_at: null, created_at: '2024-03-02T00:00:00Z' },
      { id: 'deal3', name: 'Initech', value: 25_000, currency: 'USD', stage: 'Negotiation', stage_changed_at: '2024-03-20T00:00:00Z', created_at: '2024-02-01T00:00:00Z' },
    ],
    exchangeRates: [
      { day: '2024-01-02', currency: 'USD', rate_per_eur: '1.1' },
      { day: '2024-03-01', currency: 'USD', rate_per_eur: '1.2' },
    ],
  });
  const spend = (id: DefinitionId, extra: Partial<SectionRequest> = {}) => computeSection(SPEND, { definition_id: id, range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 3 }, today: '2024-03-31', ...extra });
  const q1 = (values: (number | null)[]) => Object.fromEntries(values.map((v, i) => [`2024-0${i + 1}`, v]));

  it('costs: cost values by date, each converted at the rate of its date, split by a cost attribute', () => {
    const result = spend('costs', { segmenters: [costSegmenterId('category')] });
    // k3: 100.00 EUR at 1.2 on Mar 1 = 120.00 USD.
    expect(byMonth(result)).toEqual(q1([0, 80_000, 12_000]));
    expect(seriesNamed(result, 'marketing', 1)).toEqual(q1([0, 30_000, 12_000]));
    expect(seriesNamed(result, 'payroll', 1)).toEqual(q1([0, 50_000, 0]));
  });

  it('cac: costs / new customers; with a cost segmenter, each cost segment’s costs / the same new customers', () => {
    const result = spend('cac', { segmenters: [costSegmenterId('category')] });
    expect(byMonth(result)).toEqual(q1([null, 40_000, 12_000]));
    expect(seriesNamed(result, 'marketing', 1)).toEqual(q1([null, 15_000, 12_000]));
  });

  it('deals: deal value by current stage, in the period the deal entered it', () => {
    const result = spend('deals');
    expect(result.segments[0]?.series.map((s) => s.name)).toEqual(['Negotiation', 'Won']);
    expect(seriesNamed(result, 'Negotiation')).toEqual(q1([0, 100_000, 25_000]));
    expect(seriesNamed(result, 'Won')).toEqual(q1([0, 0, 40_000]));
    // March is still running on March 31: February is the last complete month.
    expect(result.key_number).toMatchObject({ value: 100_000, kind: 'currency', time: '2024-02-01' });
  });
});

describe('a report of many sections', () => {
  const every: SectionRequest[] = CATALOGUE.filter((d) => !d.requires_deals).map((d) => ({
    definition_id: d.id,
    range: HALF_YEAR,
    today: '2024-06-30',
    segmenters: d.segmenter_types.includes('customer_segment') ? [customerSegmenterId('country')] : [],
  }));

  it('computes the same numbers together as one by one (the shared MRR pass changes nothing)', () => {
    const together = computeSections(FOUR, every);
    every.forEach((request, k) => expect(together[k]).toEqual(computeSection(FOUR, request)));
  });

  it('refuses what a definition does not support, pointing at the field', () => {
    const base = { range: HALF_YEAR, today: '2024-06-30' };
    const problem = (request: SectionRequest) => {
      try {
        computeSections(FOUR, [request]);
      } catch (error) {
        return error instanceof SectionRequestError ? error.pointer : String(error);
      }
      return null;
    };
    expect(problem({ ...base, definition_id: 'nope' })).toBe('/0/definition_id');
    expect(problem({ ...base, definition_id: 'customers', data_category: 'units' })).toBe('/0/data_category');
    expect(problem({ ...base, definition_id: 'costs', segmenters: [customerSegmenterId('country')] })).toBe('/0/segmenters/0');
    expect(problem({ ...base, definition_id: 'mrr', segmenters: ['customer_segment:unknown'] })).toBe('/0/segmenters/0');
    expect(problem({ ...base, definition_id: 'mrr', data_type: 'cohort' })).toBe('/0/data_type');
    expect(problem({ ...base, definition_id: 'mrr', range: { ...HALF_YEAR, start_year: 2030 } })).toBe('/0/range');
  });
});

describe('filters, hierarchy and resolutions', () => {
  const GROUP = business({
    customers: [{ id: 'holding' }, { id: 'sub1', parent_id: 'holding' }, { id: 'sub2', parent_id: 'holding' }, 'indie'],
    payments: [
      ...monthly('sub1', '2024-01-01', 6, 10_000, { product: 'pro' }),
      ...monthly('sub2', '2024-01-01', 3, 5_000, { product: 'basic' }),
      ...monthly('indie', '2024-02-01', 5, 3_000, { product: 'basic' }),
      { customer: 'indie', start: '2024-02-01', total: 1_500, type: 'one_time', product: 'setup' },
    ],
  });

  it('counts top-most parents as the customers with use_hierarchy, with the same MRR', () => {
    expect(byMonth(run(GROUP, 'customers', { use_hierarchy: true }))).toEqual(months([1, 2, 2, 2, 2, 2]));
    expect(byMonth(run(GROUP, 'customers'))).toEqual(months([2, 3, 3, 2, 2, 2]));
    expect(byMonth(run(GROUP, 'mrr', { use_hierarchy: true }))).toEqual(byMonth(run(GROUP, 'mrr')));
    // sub2 leaving is contraction of the holding, not churn.
    expect(byMonth(run(GROUP, 'churned_customers', { use_hierarchy: true }))['2024-04']).toBe(0);
  });

  it('restricts MRR and revenue sections alike with a report filter: a filtered section is that segment of the unfiltered one', () => {
    const filter = { operator: 'and' as const, criteria: [{ kind: 'product' as const, productKeys: ['basic', 'setup'] }] };
    const filtered = byMonth(run(GROUP, 'booked_revenue', { filter }));
    const split = run(GROUP, 'booked_revenue', { segmenters: [PRODUCT_SEGMENTER_ID] });
    const basic = seriesNamed(split, 'basic', 1);
    const setup = seriesNamed(split, 'setup', 1);
    expect(filtered).toEqual(Object.fromEntries(Object.keys(basic).map((label) => [label, (basic[label] ?? 0) + (setup[label] ?? 0)])));
    expect(byMonth(run(GROUP, 'mrr', { filter }))).toEqual(months([5_000, 8_000, 8_000, 3_000, 3_000, 3_000]));
  });

  it('adds up recognized revenue the same at every resolution (cumulative rounding)', () => {
    const odd = business({ payments: [{ customer: 'q', start: '2024-01-17', months: 12, total: 100_001 }] });
    const quarterly = computeSection(odd, { definition_id: 'recognized_revenue', range: HALF_YEAR, today: '2024-06-30', resolution: 'quarter' });
    const monthlyValues = Object.values(byMonth(run(odd, 'recognized_revenue'))) as number[];
    expect(quarterly.segments[0]?.series[0]?.data_points.map((p) => p.value)).toEqual([monthlyValues.slice(0, 3).reduce((a, b) => a + b, 0), monthlyValues.slice(3).reduce((a, b) => a + b, 0)]);
    const weekly = computeSection(odd, { definition_id: 'recognized_revenue', range: HALF_YEAR, today: '2024-06-30', resolution: 'week' });
    const weeklyTotal = weekly.segments[0]?.series[0]?.data_points.reduce((sum, p) => sum + (p.value ?? 0), 0);
    // Weeks overlapping the range: Mon Jan 1 to Sun Jun 30, the same days as the six months.
    expect(weeklyTotal).toBe(monthlyValues.reduce((a, b) => a + b, 0));
  });
});
