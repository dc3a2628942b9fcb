import { describe, expect, it } from 'vitest';
import { costSegmenterId, customerSegmenterId, PRODUCT_SEGMENTER_ID } from '../../../server/metrics/definitions/segmenters';
import { SectionRequestError } from '../../../server/metrics/definitions/types';
import { computeDetails, type DetailsRequest } from '../../../server/metrics/details';
import { buildSnapshot } from '../../../server/metrics/snapshot/builder';
import { accountRow, business, type PaymentSpec } from './support';

/** Drill-down (METRICS.md section 9) on hand-computed cases; details.properties.test.ts checks that it always adds up. */

function monthly(customer: string, start: string, months: number, total: number, extra: Partial<PaymentSpec> = {}): PaymentSpec[] {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  return Array.from({ length: months }, (_, k) => ({ customer, start: new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10), total, ...extra }));
}

const SHOP = business({
  customers: [{ id: 'big', name: 'Big Corp' }, { id: 'mid', name: 'Mid Ltd' }, { id: 'small', name: 'Small Inc', deleted_at: '2024-05-01T00:00:00Z' }, 'gone'],
  payments: [
    ...monthly('big', '2024-01-01', 6, 30_000, { product: 'pro', id: undefined }),
    ...monthly('mid', '2024-01-01', 2, 10_000, { product: 'basic' }),
    ...monthly('mid', '2024-03-01', 4, 15_000, { product: 'pro' }),
    ...monthly('small', '2024-01-01', 6, 2_000, { product: 'basic' }),
    ...monthly('gone', '2024-01-01', 2, 5_000, { product: 'basic' }),
  ],
  segments: [{ id: 'country', name: 'Country', value_source: 'parent_and_children', time_sensitive: false }],
  segmentValues: [
    { customer_id: 'big', segment_id: 'country', year: 2024, month: 1, value: 'DE' },
    { customer_id: 'mid', segment_id: 'country', year: 2024, month: 1, value: 'PL' },
  ],
});

const request = (definition_id: string, date: string, extra: Partial<DetailsRequest> = {}): DetailsRequest => ({
  definition_id,
  range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 6 },
  today: '2024-06-30',
  date,
  ...extra,
});

describe('details of a data point', () => {
  it('lists the customers behind MRR, top ones by value and the rest as a count and a sum', () => {
    const { items, period } = computeDetails(SHOP, request('mrr', '2024-03-15', { limit: 2 }));
    expect(period.label).toBe('2024-03');
    const [mrr] = items;
    expect(mrr?.value).toBe(30_000 + 15_000 + 2_000);
    expect(mrr?.underlying_data).toBe('subscriptions');
    expect(mrr?.details).toMatchObject({ total_count: 3, total_value: 47_000, rest: { count: 1, value: 2_000 } });
    expect(mrr?.details.top_customers.map((c) => [c.id, c.name, c.value])).toEqual([
      ['big', 'Big Corp', 30_000],
      ['mid', 'Mid Ltd', 15_000],
    ]);
    expect(mrr?.details.calculation_details).toEqual([
      { name: 'MRR at the end of 2024-03', value: 47_000 },
      { name: 'Paying customers', value: 3 },
    ]);
  });

  it('gives a stock’s rows (MRR, customers, ARR, ARPA at a month) no movement ends: only their value', () => {
    for (const definition of ['mrr', 'customers', 'arr', 'arpa']) {
      // March 2024: Mid Ltd moved from 10,000 to 15,000, yet a stock lists what each has now.
      const rows = computeDetails(SHOP, request(definition, '2024-03-15')).items[0]?.details.top_customers ?? [];
      expect(rows.length, definition).toBeGreaterThan(0);
      expect(rows.map((row) => [row.movement_from, row.movement_to]), definition).toEqual(rows.map(() => [null, null]));
    }
    const mid = computeDetails(SHOP, request('mrr', '2024-03-15')).items[0]?.details.top_customers.find((row) => row.id === 'mid');
    expect(mid).toMatchObject({ value: 15_000, subscriptions: [{ product_key: 'pro' }] });
  });

  it('shows each customer’s products and its movement from and to, with the payments paying most at each end', () => {
    const [expansion] = computeDetails(SHOP, request('mrr_movements', '2024-03-01', { component: 'expansion' })).items;
    const [mid] = expansion?.details.top_customers ?? [];
    expect(mid).toMatchObject({ id: 'mid', value: 5_000, subscriptions: [{ product_key: 'pro' }] });
    expect(mid?.movement_from).toEqual({ id: 'pay0008', monthly_amount: 10_000 });
    expect(mid?.movement_to).toEqual({ id: 'pay0009', monthly_amount: 15_000 });
  });

  it('marks soft-deleted customers, who still count', () => {
    const rows = computeDetails(SHOP, request('mrr', '2024-06-01')).items[0]?.details.top_customers ?? [];
    expect(rows.find((c) => c.id === 'small')).toMatchObject({ deleted: true, value: 2_000 });
  });

  it('gives one item per series of a stacked section, or only the series asked for', () => {
    const all = computeDetails(SHOP, request('mrr_movements', '2024-03-01'));
    expect(all.items.map((i) => [i.component, i.value])).toEqual([
      ['new_business', 0],
      ['expansion', 5_000],
      ['reactivation', 0],
      ['contraction', 0],
      ['churn', -5_000],
      ['fx_adjustment', 0],
      ['net', 0],
    ]);
    const [churn] = computeDetails(SHOP, request('mrr_movements', '2024-03-01', { component: 'churn' })).items;
    expect(churn?.details.top_customers.map((c) => [c.id, c.value, c.movement_to?.monthly_amount])).toEqual([['gone', -5_000, 0]]);
  });

  it('names the numerator, the denominator and the result of a rate, and lists both', () => {
    const [rate] = computeDetails(SHOP, request('customer_churn_rate', '2024-03-01')).items;
    expect(rate?.value).toBe(1 / 4);
    expect(rate?.details.calculation_details).toEqual([
      { name: 'Churned customers', value: 1 },
      { name: 'Paying customers at the end of 2024-02', value: 4 },
      { name: 'Customer churn rate', value: 1 / 4 },
    ]);
    expect(rate?.details.top_customers.map((c) => c.id)).toEqual(['gone']);
    expect(rate?.details.additional_lists[0]).toMatchObject({ name: 'Paying customers at the end of 2024-02', total_count: 4, total_value: 47_000 });
  });

  it('lists the customers of a segment value, the segment they were in', () => {
    const { items } = computeDetails(SHOP, request('mrr', '2024-03-01', { segmenters: [customerSegmenterId('country')], segment_id: customerSegmenterId('country'), segment_value: 'Other' }));
    expect(items.map((i) => i.segment_value)).toEqual(['Other']);
    expect(items[0]?.details.top_customers.map((c) => c.id)).toEqual(['small']);
    const byProduct = computeDetails(SHOP, request('mrr_movements', '2024-03-01', { segmenters: [PRODUCT_SEGMENTER_ID], segment_id: PRODUCT_SEGMENTER_ID, segment_value: 'basic', component: 'churn' }));
    // mid moved from basic to pro: churn in basic, new business in pro.
    expect(byProduct.items[0]?.details.top_customers.map((c) => [c.id, c.value])).toEqual([
      ['mid', -10_000],
      ['gone', -5_000],
    ]);
  });

  it('refuses a date outside the section and an unknown segment', () => {
    expect(() => computeDetails(SHOP, request('mrr', '2023-12-31'))).toThrow(SectionRequestError);
    expect(() => computeDetails(SHOP, request('mrr', '2024-03-01', { segment_id: PRODUCT_SEGMENTER_ID }))).toThrow(/no segment/);
  });
});

describe('details of cohorts, retention, revenue, costs and deals', () => {
  it("gives a cohort cell's customers with the cohort's initial value and size", () => {
    const cohorts = business({ payments: [...monthly('e', '2024-03-03', 3, 4_000), ...monthly('e', '2024-03-20', 2, 5_000, { product: 'addon' }), ...monthly('f', '2024-03-10', 1, 6_000)] });
    const base = { ...request('mrr_cohorts', '2024-03-01'), range: { start_year: 2024, start_month: 3, end_year: 2024, end_month: 6 } };
    const [month1] = computeDetails(cohorts, { ...base, column: 1 }).items;
    expect(month1?.value).toBe(9_000 / 10_000);
    expect(month1?.details).toMatchObject({ initial_cohort_value: 10_000, initial_cohort_count: 2, total_value: 9_000, total_count: 1 });
    expect(month1?.details.top_customers[0]).toMatchObject({ id: 'e', value: 9_000, additional_values: [{ name: 'New MRR when it occurred', value: 4_000 }] });
    const [initial] = computeDetails(cohorts, { ...base, column: 'initial' }).items;
    expect(initial?.value).toBe(10_000);
    expect(initial?.details.total_value).toBe(10_000);
  });

  it('gives trailing retention’s customers with their MRR then and now', () => {
    const retained = business({ payments: [...monthly('x', '2024-01-01', 12, 10_000), ...monthly('x', '2025-01-01', 1, 12_000), ...monthly('y', '2024-01-01', 3, 5_000)] });
    const [nrr] = computeDetails(retained, { ...request('net_revenue_retention', '2025-01-01'), range: { start_year: 2025, start_month: 1, end_year: 2025, end_month: 1 }, today: '2025-01-31' }).items;
    expect(nrr?.value).toBe(12_000 / 15_000);
    expect(nrr?.details.total_value).toBe(12_000);
    expect(nrr?.details.calculation_details.at(-1)).toEqual({ name: 'Net revenue retention', value: 12_000 / 15_000 });
    expect(nrr?.details.top_customers.find((c) => c.id === 'y')?.additional_values).toEqual([
      { name: 'MRR at the end of 2024-01', value: 5_000 },
      { name: 'MRR at the end of 2025-01', value: 0 },
    ]);
  });

  it('gives revenue’s customers with the products that earned it', () => {
    const [recognized] = computeDetails(SHOP, request('booked_revenue', '2024-03-01')).items;
    expect(recognized?.details.top_customers.map((c) => [c.id, c.value, c.subscriptions])).toEqual([
      ['big', 30_000, [{ product_key: 'pro' }]],
      ['mid', 15_000, [{ product_key: 'pro' }]],
      ['small', 2_000, [{ product_key: 'basic' }]],
    ]);
    expect(recognized?.details.total_quantity).toBe(3);
  });

  const SPEND = buildSnapshot({
    account: accountRow(),
    objectAttributes: [{ id: 'category', name: 'Category', object: 'cost' }],
    customers: [{ id: 'n1', name: 'N1', parent_id: null, include_in_calculations_by_default: true }],
    payments: [{ id: 'p1', customer_id: 'n1', started_at: '2024-02-03', duration_in_months: 1, total_value: 10_000, currency: 'USD' }],
    costs: [
      { id: 'k1', value: 30_000, currency: 'USD', date: '2024-02-05', name: 'Ads', invoice_number: 'INV-1' },
      { id: 'k2', value: 50_000, currency: 'USD', date: '2024-02-28', name: 'Salaries' },
    ],
    costSegmentValues: [
      { cost_id: 'k1', attribute_id: 'category', value: 'marketing' },
      { cost_id: 'k2', attribute_id: 'category', value: 'payroll' },
    ],
    deals: [{ id: 'deal1', public_id: 'D-1', name: 'Acme', value: 100_000, currency: 'USD', stage: 'Won', stage_changed_at: '2024-02-11T10:00:00Z', created_at: '2024-01-05T00:00:00Z', external_url: 'https://crm.example/D-1' }],
  });
  const spend = (definition_id: string, extra: Partial<DetailsRequest> = {}) =>
    computeDetails(SPEND, { definition_id, range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 3 }, today: '2024-03-31', date: '2024-02-01', ...extra });

  it('lists the costs behind costs and CAC, with CAC’s formula and its new customers', () => {
    const [costs] = spend('costs').items;
    expect(costs?.underlying_data).toBe('costs');
    expect(costs?.details.top_costs).toEqual([
      { id: 'k2', name: 'Salaries', value: 50_000, date: '2024-02-28', invoice_number: null },
      { id: 'k1', name: 'Ads', value: 30_000, date: '2024-02-05', invoice_number: 'INV-1' },
    ]);
    const cac = spend('cac', { segmenters: [costSegmenterId('category')], segment_id: costSegmenterId('category'), segment_value: 'marketing' }).items[0];
    expect(cac?.value).toBe(30_000);
    expect(cac?.details.calculation_details).toEqual([
      { name: 'Costs', value: 30_000 },
      { name: 'New customers', value: 1 },
      { name: 'CAC', value: 30_000 },
    ]);
    expect(cac?.details.additional_lists[0]?.top_customers.map((c) => c.id)).toEqual(['n1']);
  });

  it('lists the deals behind a stage', () => {
    const [won] = spend('deals').items;
    expect(won?.underlying_data).toBe('deals');
    expect(won?.details.top_deals).toEqual([
      { id: 'deal1', public_id: 'D-1', name: 'Acme', value: 100_000, stage: 'Won', days_since_moved_on: 49, owner_name: null, external_url: 'https://crm.example/D-1' },
    ]);
  });
});
