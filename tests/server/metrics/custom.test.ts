import { describe, expect, it } from 'vitest';
import { CUSTOM_VALUES, newSeries, type CustomFilter, type CustomGroup, type CustomSectionConfig, type CustomSeries } from '../../../models/customSections';
import { computeSection, computeSections } from '../../../server/metrics/definitions/computeSection';
import { CUSTOM_VALUE_MEANINGS } from '../../../server/metrics/definitions/custom';
import type { SectionRequest, SectionResult, SeriesResult } from '../../../server/metrics/definitions/types';
import { computeDetails } from '../../../server/metrics/details';
import type { Resolution } from '../../../server/metrics/periods';
import { business } from './support';

/**
 * Custom sections in the engine (docs/custom-sections.md), with hand-computed numbers: each value
 * kind, each operator, groups, periods back, hidden series and reference lines, details that add
 * up to the point, and every value equal to the catalogue metric it names.
 */

// a: 10,000 a month (product A), b: 5,000 (B), c: 2,000 (A), all from 2024-01-05 for 4 months.
// Plan: a and b Pro from January; c Basic in January, Pro from March.
const snapshot = business({
  payments: [
    { customer: 'a', start: '2024-01-05', months: 4, total: 40_000, product: 'A', attributes: { channel: 'web' } },
    { customer: 'b', start: '2024-01-05', months: 4, total: 20_000, product: 'B', attributes: { channel: 'sales' } },
    { customer: 'c', start: '2024-01-05', months: 4, total: 8_000, product: 'A', attributes: { channel: 'web' } },
    // d joins in March for 2 months: 3,000 a month.
    { customer: 'd', start: '2024-03-10', months: 2, total: 6_000, product: 'B' },
  ],
  segments: [{ id: 'plan', name: 'Plan', value_source: 'parent_and_children', time_sensitive: true }],
  segmentValues: [
    { customer_id: 'a', segment_id: 'plan', year: 2024, month: 1, value: 'Pro' },
    { customer_id: 'b', segment_id: 'plan', year: 2024, month: 1, value: 'Pro' },
    { customer_id: 'c', segment_id: 'plan', year: 2024, month: 1, value: 'Basic' },
    { customer_id: 'c', segment_id: 'plan', year: 2024, month: 3, value: 'Pro' },
    { customer_id: 'd', segment_id: 'plan', year: 2024, month: 3, value: 'Basic' },
  ],
  costs: [
    { id: 'k1', value: 1_000, currency: 'USD', date: '2024-01-10', attributes: { team: 'Marketing' } },
    { id: 'k2', value: 2_500, currency: 'USD', date: '2024-02-03', attributes: { team: 'Sales' } },
    { id: 'k3', value: 500, currency: 'USD', date: '2024-02-20', attributes: { team: 'Marketing' } },
  ],
});

const base = { range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 4 }, today: '2024-06-15', currency: 'USD' };

function custom(series: CustomSeries[], groups: CustomGroup[] = [], extra: Partial<SectionRequest> = {}): SectionResult {
  const config: CustomSectionConfig = { groups, series };
  return computeSection(snapshot, { ...base, ...extra, definition_id: 'user_filtered', custom: config });
}

function one(name: string, object: CustomSeries['value']['object'], attribute: string, extra: Partial<CustomSeries> = {}, periodsBack = 0): CustomSeries {
  return { ...newSeries(name), value: { object, attribute, label: attribute, arguments: { periods_back: periodsBack } }, ...extra };
}

const values = (s: SeriesResult | undefined) => s?.data_points.map((p) => p.value);
const totalOf = (result: SectionResult) => result.segments.find((s) => s.is_total)?.series ?? [];
const filter = (object: CustomFilter['object'], field: string, operator: CustomFilter['operator'], value: string | string[], field_id: string | null = null): CustomFilter => ({ type: 'filter', object, field, field_id, operator, value });

describe('custom series values', () => {
  it('sums payments’ MRR, month by month, over the section’s periods', () => {
    const result = custom([one('MRR', 'payments', 'mrr')]);
    expect(result.definition_id).toBe('user_filtered');
    expect(result.periods.map((p) => p.first_day)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']);
    expect(values(totalOf(result)[0])).toEqual([17_000, 17_000, 20_000, 20_000]);
    expect(totalOf(result)[0]).toMatchObject({ name: 'MRR', component: 'series:0', unit: 'minor_units' });
    expect(result.unit).toBe('minor_units');
  });

  it('counts paying, new and churned customers', () => {
    const result = custom([one('Paying', 'customers', 'count'), one('New', 'customers', 'new'), one('Churned', 'customers', 'churned')]);
    const [paying, added, churned] = totalOf(result);
    expect(values(paying)).toEqual([3, 3, 4, 4]);
    expect(values(added)).toEqual([3, 0, 1, 0]);
    expect(values(churned)).toEqual([0, 0, 0, 0]);
    expect(paying?.unit).toBe('count');
  });

  it('shows a movement class with the movements section’s sign, and new business MRR', () => {
    const result = custom([one('New business', 'payments', 'new_business_mrr'), one('Net new', 'payments', 'net_new_mrr')]);
    const [added, net] = totalOf(result);
    expect(values(added)).toEqual([17_000, 0, 3_000, 0]);
    expect(values(net)).toEqual([17_000, 0, 3_000, 0]);
  });

  it('sums costs by their day, filtered and split by a cost attribute', () => {
    const result = custom(
      [
        one('Costs', 'costs', 'value'),
        one('Marketing', 'costs', 'value', { filters: [filter('cost', 'attribute', 'eq', 'Marketing', 'team')] }),
        one('Number of costs', 'costs', 'count'),
      ],
      [],
    );
    const [all, marketing, count] = totalOf(result);
    expect(values(all)).toEqual([1_000, 3_000, 0, 0]);
    expect(values(marketing)).toEqual([1_000, 500, 0, 0]);
    expect(values(count)).toEqual([1, 2, 0, 0]);
    const split = custom([one('Costs', 'costs', 'value', { groups: [{ type: 'group', object: 'cost', field: 'attribute', field_id: 'team' }] })]);
    const byTeam = split.segments.find((s) => s.id === 'cost_segment:team');
    expect(byTeam?.series.map((s) => [s.name, values(s)])).toEqual([
      ['Costs: Marketing', [1_000, 500, 0, 0]],
      ['Costs: Sales', [0, 2_500, 0, 0]],
      // As in catalogue sections, 'Other' holds what has no value.
      ['Costs: Other', [0, 0, 0, 0]],
    ]);
  });
});

describe('custom series filters', () => {
  it('eq and in: a product, a payment attribute, a customer attribute month by month', () => {
    const result = custom([
      one('A', 'payments', 'mrr', { filters: [filter('payment', 'product', 'eq', 'A')] }),
      one('A or B', 'payments', 'mrr', { filters: [filter('payment', 'product', 'in', ['A', 'B'])] }),
      one('Web', 'payments', 'mrr', { filters: [filter('payment', 'attribute', 'eq', 'web', 'channel')] }),
      one('Pro', 'payments', 'mrr', { filters: [filter('customer', 'segment', 'eq', 'Pro', 'plan')] }),
      one('Pro on A', 'payments', 'mrr', { filters: [filter('customer', 'segment', 'in', ['Pro'], 'plan'), filter('payment', 'product', 'eq', 'A')] }),
    ]);
    const [a, ab, web, pro, proA] = totalOf(result);
    expect(values(a)).toEqual([12_000, 12_000, 12_000, 12_000]);
    expect(values(ab)).toEqual([17_000, 17_000, 20_000, 20_000]);
    expect(values(web)).toEqual([12_000, 12_000, 12_000, 12_000]);
    // c turns Pro in March; d is Basic.
    expect(values(pro)).toEqual([15_000, 15_000, 17_000, 17_000]);
    expect(values(proA)).toEqual([10_000, 10_000, 12_000, 12_000]);
  });

  it('in_reporting_month: the value in the report’s month decides for every point', () => {
    // April is the reporting month: a, b and c are Pro then, over all four months.
    const april = custom([one('Pro in April', 'payments', 'mrr', { filters: [filter('customer', 'segment', 'in_reporting_month', ['Pro'], 'plan')] })]);
    expect(values(totalOf(april)[0])).toEqual([17_000, 17_000, 17_000, 17_000]);
    // A report ending in February: c was Basic then, so it counts in every month, d not at all (no value yet).
    const february = computeSection(snapshot, {
      ...base,
      range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: 2 },
      definition_id: 'user_filtered',
      custom: { groups: [], series: [one('Basic in February', 'payments', 'mrr', { filters: [filter('customer', 'segment', 'in_reporting_month', ['Basic'], 'plan')] })] },
    });
    expect(values(totalOf(february)[0])).toEqual([2_000, 2_000]);
  });

  it('obeys the report filter too', () => {
    const result = custom([one('MRR', 'payments', 'mrr')], [], { filter: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['B'] }] } });
    expect(values(totalOf(result)[0])).toEqual([5_000, 5_000, 8_000, 8_000]);
  });
});

describe('custom sections: groups, periods back, hidden series, reference lines', () => {
  it('splits every series by the section’s groups, and a series by its own', () => {
    const result = custom(
      [one('MRR', 'payments', 'mrr'), one('Customers', 'customers', 'count', { groups: [{ type: 'group', object: 'payment', field: 'product', field_id: null }] })],
      [{ type: 'group', object: 'customer', field: 'segment', field_id: 'plan' }],
    );
    expect(result.segments.map((s) => s.id)).toEqual(['total', 'customer_segment:plan', 'subscription_segment:product']);
    const plan = result.segments.find((s) => s.id === 'customer_segment:plan');
    const byName = Object.fromEntries((plan?.series ?? []).map((s) => [s.name, values(s)]));
    expect(byName['MRR: Pro']).toEqual([15_000, 15_000, 17_000, 17_000]);
    expect(byName['MRR: Basic']).toEqual([2_000, 2_000, 3_000, 3_000]);
    expect(byName['Customers: Pro']).toEqual([2, 2, 3, 3]);
    const product = result.segments.find((s) => s.id === 'subscription_segment:product');
    expect(product?.series.every((s) => s.component === 'series:1')).toBe(true);
    expect(Object.fromEntries((product?.series ?? []).map((s) => [s.segment_value, values(s)]))).toEqual({ A: [2, 2, 2, 2], B: [1, 1, 2, 2], Other: [0, 0, 0, 0] });
  });

  it('shows each point’s value from periods earlier', () => {
    const result = custom([one('MRR a month before', 'payments', 'mrr', {}, 1), one('MRR', 'payments', 'mrr')]);
    const [before, now] = totalOf(result);
    expect(values(before)).toEqual([0, 17_000, 17_000, 20_000]);
    expect(values(now)).toEqual([17_000, 17_000, 20_000, 20_000]);
    expect(before?.data_points.map((p) => p.time)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']);
    const quarterly = custom([one('A quarter before', 'payments', 'mrr', {}, 1)], [], { resolution: 'quarter', range: { start_year: 2024, start_month: 4, end_year: 2024, end_month: 6 } });
    expect(values(totalOf(quarterly)[0])).toEqual([20_000]);
  });

  it('keeps a hidden series (flagged) and turns a reference typed in dollars into cents', () => {
    const result = custom([one('Shown', 'payments', 'mrr', { reference: 150 }), one('Hidden', 'customers', 'count', { hidden: true, reference: 3 })]);
    const [shown, hidden] = totalOf(result);
    expect(shown).toMatchObject({ y_reference_line: 15_000 });
    expect(shown?.hidden).toBeUndefined();
    expect(hidden).toMatchObject({ hidden: true, y_reference_line: 3 });
    // The key number is the first shown series' at the last complete period.
    expect(result.key_number).toEqual({ value: 20_000, kind: 'currency', time: '2024-04-01' });
  });
});

describe('custom details', () => {
  it('lists what is behind a point and adds up to it', () => {
    const request = {
      ...base,
      definition_id: 'user_filtered',
      custom: { groups: [], series: [one('Other', 'customers', 'count'), one('A', 'payments', 'mrr', { filters: [filter('payment', 'product', 'eq', 'A')] }, 1)] },
    };
    const section = computeSection(snapshot, request);
    const point = totalOf(section)[1]?.data_points[2];
    expect(point?.value).toBe(12_000);
    const details = computeDetails(snapshot, { ...request, date: '2024-03-01', component: 'series:1' });
    expect(details.definition_id).toBe('user_filtered');
    // A month back: February's MRR of product A.
    expect(details.period.first_day).toBe('2024-02-01');
    expect(details.items).toHaveLength(1);
    expect(details.items[0]).toMatchObject({ name: 'A', component: 'series:1', value: 12_000 });
    const payload = details.items[0]?.details;
    expect(payload?.total_value).toBe(12_000);
    expect(payload?.top_customers.map((row) => [row.name, row.value])).toEqual([
      ['a', 10_000],
      ['c', 2_000],
    ]);
    expect(() => computeDetails(snapshot, { ...request, date: '2024-03-01' })).toThrow(/series/);
  });

  it('details of a split series’ point hold that group only', () => {
    const request = { ...base, definition_id: 'user_filtered', custom: { groups: [{ type: 'group' as const, object: 'customer' as const, field: 'segment', field_id: 'plan' }], series: [one('MRR', 'payments', 'mrr')] } };
    const details = computeDetails(snapshot, { ...request, date: '2024-01-15', component: 'series:0', segment_id: 'customer_segment:plan', segment_value: 'Basic' });
    expect(details.items.map((item) => [item.name, item.value, item.details.total_value])).toEqual([['MRR: Basic', 2_000, 2_000]]);
  });
});

describe('a custom series of a catalogue metric equals it', () => {
  const RESOLUTIONS: Resolution[] = ['week', 'month', 'quarter', 'year'];
  const range = { start_year: 2023, start_month: 11, end_year: 2024, end_month: 6 };
  for (const value of CUSTOM_VALUES) {
    const meaning = CUSTOM_VALUE_MEANINGS[`${value.object}.${value.attribute}`];
    it(`${value.object} ${value.attribute} (${meaning?.definition}), every resolution`, () => {
      if (!meaning) throw new Error('no meaning');
      for (const resolution of RESOLUTIONS) {
        const [customResult, catalogue] = computeSections(snapshot, [
          { ...base, range, resolution, definition_id: 'user_filtered', custom: { groups: [], series: [one('x', value.object, value.attribute)] } },
          { ...base, range, resolution, definition_id: meaning.definition, data_category: meaning.category },
        ]);
        const expected = catalogue?.segments[0]?.series.find((s) => meaning.component === undefined || s.component === meaning.component);
        expect(expected, resolution).toBeDefined();
        expect(values(customResult?.segments[0]?.series[0]), `${resolution}`).toEqual(values(expected));
        expect(customResult?.periods).toEqual(catalogue?.periods);
      }
    });
  }
});
