import { describe, expect, it } from 'vitest';
import type { MrrSeriesResult } from '../../../server/metrics/mrrSeries';
import { FilterError } from '../../../server/metrics/filters';
import { bucketLabel, groupValues, OTHER_SEGMENT, SegmenterError } from '../../../server/metrics/segments';
import type { CustomerSegmentRow, CustomerSegmentValueRow } from '../../../server/metrics/snapshot/rows';
import { business, movementsAt, segment, series, type PaymentSpec } from './support';

const segmentRow = (id: string, overrides: Partial<CustomerSegmentRow> = {}): CustomerSegmentRow => ({
  id,
  name: id,
  value_source: 'parent_and_children',
  time_sensitive: false,
  ...overrides,
});
const value = (customer_id: string, segment_id: string, month: string, v: string | null): CustomerSegmentValueRow => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return { customer_id, segment_id, year, month: m, value: v };
};

/** Every segmentation's segments add up to the total, stock and flows, in every period. */
function expectSegmentsAddUp(result: MrrSeriesResult) {
  for (const { segments } of result.segmentations) {
    for (const key of ['mrr', 'netChange'] as const) {
      const sum = result.total[key].map((_, i) => segments.reduce((acc, s) => acc + (s[key][i] as number), 0));
      expect(sum).toEqual(result.total[key]);
    }
  }
}

describe('grouping raw values into segments', () => {
  it('keeps raw values as segments, sorted, with Other last', () => {
    expect(groupValues(['Poland', 'Germany', 'France'], {}).names).toEqual(['France', 'Germany', 'Poland', OTHER_SEGMENT]);
  });

  it('groups raw values under mapping names, and everything else under Other', () => {
    const groups = groupValues(['Germany', 'France', 'Poland', 'Brazil'], {
      mappings: [
        { value: 'Germany', name: 'EU' },
        { value: 'France', name: 'EU' },
        { value: 'Poland', name: 'EU' },
        { value: 'USA', name: 'Americas' },
      ],
    });
    expect(groups.names).toEqual(['EU', 'Americas', OTHER_SEGMENT]);
    expect(Array.from(groups.groupOfValue)).toEqual([0, 0, 0, 2]);
  });

  it.each([
    ['0', '0 - 10'],
    ['10', '0 - 10'],
    ['10.5', '0 - 10'],
    ['11', '11 - 100'],
    ['100', '11 - 100'],
    ['101', '> 100'],
    ['99999', '> 100'],
    ['-1', OTHER_SEGMENT],
    ['n/a', OTHER_SEGMENT],
    ['', OTHER_SEGMENT],
  ])('puts %s into bucket %s (first from 0, next from = previous to + 1, last "> to")', (raw, name) => {
    const buckets = [
      { from: 0, to: 10 },
      { from: 11, to: 100 },
      { from: 101, to: null },
    ];
    const groups = groupValues([raw], { buckets });
    expect(groups.names[groups.groupOfValue[0] as number]).toBe(name);
    expect(groups.names).toContain('> 100');
  });

  it('labels buckets by name when they have one', () => {
    expect(bucketLabel({ name: 'Small', from: 0, to: 10 })).toBe('Small');
    expect(bucketLabel({ name: '', from: 11, to: 50 })).toBe('11 - 50');
    expect(bucketLabel({ from: 51, to: null })).toBe('> 50');
  });

  it('gives each listed product its own segment and the rest Other', () => {
    const groups = groupValues(['pro', 'starter', 'addon'], { products: ['pro', 'addon'] });
    expect(groups.names).toEqual(['pro', 'addon', OTHER_SEGMENT]);
    expect(Array.from(groups.groupOfValue)).toEqual([0, 2, 1]);
  });
});

describe('customer attribute segments', () => {
  const payments: PaymentSpec[] = [
    { customer: 'a', start: '2024-01-05', months: 6, total: 60_000 },
    { customer: 'b', start: '2024-01-05', months: 6, total: 30_000 },
    { customer: 'c', start: '2024-02-05', months: 6, total: 12_000 },
  ];

  it('split customers by their value; customers without one are Other; segments add up to the total', () => {
    const snapshot = business({ payments, segments: [segmentRow('country')], segmentValues: [value('a', 'country', '2024-01', 'Germany'), value('b', 'country', '2024-01', 'Poland')] });
    const result = series(snapshot, { from: '2024-01', to: '2024-03', segmenters: [{ kind: 'customer_segment', segmentId: 'country' }] });
    expect(result.segmentations[0]!.segments.map((s) => s.name)).toEqual(['Germany', 'Poland', OTHER_SEGMENT]);
    expect(segment(result, 'Germany').mrr).toEqual([10_000, 10_000, 10_000]);
    expect(segment(result, 'Poland').mrr).toEqual([5_000, 5_000, 5_000]);
    expect(segment(result, OTHER_SEGMENT).mrr).toEqual([0, 2_000, 2_000]);
    expect(segment(result, OTHER_SEGMENT).newBusiness).toEqual([0, 2_000, 0]);
    expectSegmentsAddUp(result);
  });

  it('apply the time-sensitive value in force at each period’s end: a move is churn in the old segment and new business in the new one', () => {
    const snapshot = business({
      payments: [
        { customer: 'a', start: '2024-01-05', months: 2, total: 20_000 },
        { customer: 'a', start: '2024-03-05', months: 2, total: 30_000 },
        { customer: 'a', start: '2024-05-05', months: 2, total: 20_000 },
      ],
      segments: [segmentRow('plan', { time_sensitive: true })],
      segmentValues: [value('a', 'plan', '2024-01', 'Starter'), value('a', 'plan', '2024-03', 'Pro'), value('a', 'plan', '2024-05', 'Starter')],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-06', segmenters: [{ kind: 'customer_segment', segmentId: 'plan' }] });
    expect(segment(result, 'Starter').mrr).toEqual([10_000, 10_000, 0, 0, 10_000, 10_000]);
    expect(segment(result, 'Pro').mrr).toEqual([0, 0, 15_000, 15_000, 0, 0]);
    expect(movementsAt(result, '2024-03', segment(result, 'Starter'))).toMatchObject({ churn: 10_000 });
    expect(movementsAt(result, '2024-03', segment(result, 'Pro'))).toMatchObject({ newBusiness: 15_000 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 5_000, churn: 0, newBusiness: 0 });
    // Back to Starter, where it paid before: a reactivation there.
    expect(movementsAt(result, '2024-05', segment(result, 'Starter'))).toMatchObject({ reactivation: 10_000, newBusiness: 0 });
    expectSegmentsAddUp(result);
  });

  it('keep the latest value of a segment that is not time-sensitive for all time', () => {
    const snapshot = business({
      payments,
      segments: [segmentRow('industry')],
      segmentValues: [value('a', 'industry', '2023-01', 'Retail'), value('a', 'industry', '2024-03', 'Software')],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-03', segmenters: [{ kind: 'customer_segment', segmentId: 'industry' }] });
    expect(segment(result, 'Software').mrr).toEqual([10_000, 10_000, 10_000]);
    expect(segment(result, 'Retail').mrr).toEqual([0, 0, 0]);
  });

  it('follow value_source: parent_and_children inherits a parent’s value, parent takes the top parent’s, children only their own', () => {
    const customers = ['group', { id: 'child', parent_id: 'group' }, { id: 'own', parent_id: 'group' }];
    const spec = (source: CustomerSegmentRow['value_source']) =>
      business({
        customers,
        payments: [
          { customer: 'child', start: '2024-01-05', total: 10_000 },
          { customer: 'own', start: '2024-01-05', total: 5_000 },
        ],
        segments: [segmentRow('region', { value_source: source })],
        segmentValues: [value('group', 'region', '2024-01', 'EMEA'), value('own', 'region', '2024-01', 'APAC')],
      });
    const split = (source: CustomerSegmentRow['value_source']) => {
      const result = series(spec(source), { from: '2024-01', to: '2024-01', segmenters: [{ kind: 'customer_segment', segmentId: 'region' }] });
      return Object.fromEntries(result.segmentations[0]!.segments.map((s) => [s.name, s.mrr[0]]));
    };
    expect(split('parent_and_children')).toEqual({ APAC: 5_000, EMEA: 10_000, Other: 0 });
    expect(split('parent')).toEqual({ APAC: 0, EMEA: 15_000, Other: 0 });
    expect(split('children')).toEqual({ APAC: 5_000, EMEA: 0, Other: 10_000 });
  });

  it('classify a group by its top-most parent’s value with use_hierarchy', () => {
    const snapshot = business({
      customers: ['group', { id: 'de', parent_id: 'group' }, { id: 'pl', parent_id: 'group' }],
      payments: [
        { customer: 'de', start: '2024-01-05', total: 10_000 },
        { customer: 'pl', start: '2024-01-05', total: 5_000 },
      ],
      segments: [segmentRow('country', { value_source: 'children' })],
      segmentValues: [value('group', 'country', '2024-01', 'Germany'), value('de', 'country', '2024-01', 'Germany'), value('pl', 'country', '2024-01', 'Poland')],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-01', useHierarchy: true, segmenters: [{ kind: 'customer_segment', segmentId: 'country' }] });
    expect(segment(result, 'Germany').mrr).toEqual([15_000]);
    expect(segment(result, 'Germany').customers).toEqual([1]);
    expect(segment(result, 'Poland').mrr).toEqual([0]);
  });
});

describe('payment attribute segments', () => {
  it('see the customer’s MRR inside each product: a move from A to B is churn in A, new business in B, and only the net in the total', () => {
    const snapshot = business({
      payments: [
        { customer: 'a', start: '2024-01-05', months: 2, total: 20_000, product: 'A' },
        { customer: 'a', start: '2024-03-05', months: 2, total: 24_000, product: 'B' },
      ],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-04', segmenters: [{ kind: 'product' }] });
    expect(movementsAt(result, '2024-03', segment(result, 'A'))).toMatchObject({ churn: 10_000 });
    expect(movementsAt(result, '2024-03', segment(result, 'B'))).toMatchObject({ newBusiness: 12_000 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 2_000, churn: 0, newBusiness: 0 });
    expectSegmentsAddUp(result);
  });

  it('see expansion and contraction inside a product when the customer keeps it', () => {
    const snapshot = business({
      payments: [
        { customer: 'a', start: '2024-01-05', months: 3, total: 30_000, product: 'A' },
        { customer: 'a', start: '2024-01-05', months: 1, total: 5_000, product: 'B' },
        { customer: 'a', start: '2024-02-05', months: 2, total: 16_000, product: 'B' },
      ],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-03', segmenters: [{ kind: 'product' }] });
    expect(segment(result, 'A').mrr).toEqual([10_000, 10_000, 10_000]);
    expect(segment(result, 'B').mrr).toEqual([5_000, 8_000, 8_000]);
    expect(movementsAt(result, '2024-02', segment(result, 'B'))).toMatchObject({ expansion: 3_000 });
    expect(segment(result, 'A').customers).toEqual([1, 1, 1]);
    expectSegmentsAddUp(result);
  });

  it('split a payment with several items between its products', () => {
    const snapshot = business({ payments: [{ customer: 'a', start: '2024-01-05', total: 30_000, items: [{ product: 'seats' }, { product: 'storage' }], discounts: [{ kind: 'forever', monthly: 3_000 }] }] });
    const result = series(snapshot, { from: '2024-01', to: '2024-01', segmenters: [{ kind: 'product' }] });
    expect(segment(result, 'seats').mrr).toEqual([13_500]);
    expect(segment(result, 'storage').mrr).toEqual([13_500]);
    expect(result.total.mrr).toEqual([27_000]);
  });

  it('split by item type (with metered counted), by currency and by a custom payment attribute with mappings', () => {
    const snapshot = business({
      account: { include_metered_in_mrr: true },
      payments: [
        { customer: 'a', start: '2024-01-05', total: 10_000, attributes: { channel: 'Self-serve' } },
        { customer: 'a', start: '2024-01-05', total: 2_000, type: 'metered', product: 'api', attributes: { channel: 'Self-serve' } },
        { customer: 'b', start: '2024-01-05', total: 5_000, currency: 'EUR', attributes: { channel: 'Sales' } },
        { customer: 'c', start: '2024-01-05', total: 7_000, attributes: { channel: 'Partner' } },
      ],
      rates: [{ day: '2024-01-01', currency: 'USD', rate_per_eur: '1.2' }],
    });
    const result = series(snapshot, {
      from: '2024-01',
      to: '2024-01',
      segmenters: [
        { kind: 'item_type' },
        { kind: 'currency' },
        { kind: 'payment_attribute', attributeId: 'channel', mappings: [{ value: 'Sales', name: 'Assisted' }, { value: 'Partner', name: 'Assisted' }] },
      ],
    });
    expect(result.total.mrr).toEqual([25_000]);
    expect(segment(result, 'recurring', 0).mrr).toEqual([23_000]);
    expect(segment(result, 'metered', 0).mrr).toEqual([2_000]);
    expect(segment(result, 'EUR', 1).mrr).toEqual([6_000]);
    expect(segment(result, 'USD', 1).mrr).toEqual([19_000]);
    expect(segment(result, 'Assisted', 2).mrr).toEqual([13_000]);
    expect(segment(result, 'Assisted', 2).customers).toEqual([2]);
    expect(segment(result, OTHER_SEGMENT, 2).mrr).toEqual([12_000]);
    expectSegmentsAddUp(result);
  });
});

describe('report filters', () => {
  const snapshot = business({
    payments: [
      { customer: 'a', start: '2024-01-05', months: 2, total: 20_000, product: 'A' },
      { customer: 'a', start: '2024-03-05', months: 2, total: 24_000, product: 'B' },
      { customer: 'b', start: '2024-01-05', months: 4, total: 20_000, product: 'A' },
      { customer: 'c', start: '2024-01-05', months: 4, total: 8_000, product: 'B' },
    ],
    segments: [segmentRow('plan', { time_sensitive: true }), segmentRow('country')],
    segmentValues: [
      value('a', 'plan', '2024-01', 'Starter'),
      value('a', 'plan', '2024-03', 'Pro'),
      value('b', 'plan', '2024-01', 'Pro'),
      value('a', 'country', '2024-01', 'Germany'),
      value('b', 'country', '2024-01', 'Poland'),
      value('c', 'country', '2024-01', 'Germany'),
    ],
  });
  const range = { from: '2024-01', to: '2024-04' };

  it('by product restricts to the lines of that product, exactly like the product’s segment', () => {
    const filtered = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['A'] }] } });
    const segmented = series(snapshot, { ...range, segmenters: [{ kind: 'product' }] });
    expect(filtered.total.mrr).toEqual(segment(segmented, 'A').mrr);
    expect(filtered.total.churn).toEqual(segment(segmented, 'A').churn);
    expect(filtered.total.mrr).toEqual([15_000, 15_000, 5_000, 5_000]);
  });

  it('by a customer segment value restricts to the customers holding it, month by month when it is time-sensitive', () => {
    const filtered = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'customer_segment', segmentId: 'plan', values: ['Pro'] }] } });
    const segmented = series(snapshot, { ...range, segmenters: [{ kind: 'customer_segment', segmentId: 'plan' }] });
    expect(filtered.total.mrr).toEqual(segment(segmented, 'Pro').mrr);
    expect(filtered.total.newBusiness).toEqual(segment(segmented, 'Pro').newBusiness);
    expect(filtered.total.mrr).toEqual([5_000, 5_000, 17_000, 17_000]);
  });

  it('can be negated, and combined with and / or', () => {
    const notGermany = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'customer_segment', segmentId: 'country', values: ['Germany'], negated: true }] } });
    expect(notGermany.total.mrr).toEqual([5_000, 5_000, 5_000, 5_000]);
    const germanAndB = series(snapshot, {
      ...range,
      filter: {
        operator: 'and',
        criteria: [
          { kind: 'customer_segment', segmentId: 'country', values: ['Germany'] },
          { kind: 'product', productKeys: ['B'] },
        ],
      },
    });
    expect(germanAndB.total.mrr).toEqual([2_000, 2_000, 14_000, 14_000]);
    const polishOrB = series(snapshot, {
      ...range,
      filter: {
        operator: 'or',
        criteria: [
          { kind: 'customer_segment', segmentId: 'country', values: ['Poland'] },
          { kind: 'product', productKeys: ['B'] },
        ],
      },
    });
    expect(polishOrB.total.mrr).toEqual([7_000, 7_000, 19_000, 19_000]);
    const notA = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['A'], negated: true }] } });
    expect(notA.total.mrr).toEqual([2_000, 2_000, 14_000, 14_000]);
  });

  it('apply before anything is computed: a customer only its filtered payments describe is new when they start', () => {
    const filtered = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'product', productKeys: ['B'] }] } });
    expect(movementsAt(filtered, '2024-03')).toMatchObject({ newBusiness: 12_000 });
  });
});

describe('unknown references', () => {
  const snapshot = business({ payments: [{ customer: 'a', start: '2024-01-05', total: 1_000 }], paymentAttributes: ['channel'] });
  const range = { from: '2024-01', to: '2024-01' };

  it.each([
    ['a customer segment', { kind: 'customer_segment', segmentId: 'nope' }],
    ['a payment attribute', { kind: 'payment_attribute', attributeId: 'nope' }],
  ] as const)('fail a segmenter naming %s that does not exist', (_name, segmenter) => {
    expect(() => series(snapshot, { ...range, segmenters: [segmenter] })).toThrow(SegmenterError);
  });

  it.each([
    ['a customer segment', { kind: 'customer_segment', segmentId: 'nope', values: ['x'] }],
    ['a payment attribute', { kind: 'payment_attribute', attributeId: 'nope', values: ['x'] }],
  ] as const)('fail a filter naming %s that does not exist', (_name, criterion) => {
    expect(() => series(snapshot, { ...range, filter: { operator: 'and', criteria: [criterion] } })).toThrow(FilterError);
  });

  it('accept an attribute that exists but has no values yet: everything is Other', () => {
    const result = series(snapshot, { ...range, segmenters: [{ kind: 'payment_attribute', attributeId: 'channel' }] });
    expect(segment(result, OTHER_SEGMENT).mrr).toEqual([1_000]);
  });
});
