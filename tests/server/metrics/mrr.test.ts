import { describe, expect, it } from 'vitest';
import { createConverter } from '../../../server/metrics/currency';
import { dayFromIso } from '../../../server/metrics/days';
import { computeMrrMatrix, mrrAt, type MrrMatrix } from '../../../server/metrics/mrr';
import { buildTimeline } from '../../../server/metrics/periods';
import { buildMrrPieces } from '../../../server/metrics/pieces';
import { resolveMetricsSettings } from '../../../server/metrics/settings';
import { business, byPeriod, movementsAt, series, type PaymentSpec } from './support';

const mrrOf = (payments: PaymentSpec[], spec: Parameters<typeof series>[1], account = {}) =>
  byPeriod(series(business({ account, payments }), spec), (s) => s.mrr);

describe('MRR of a customer at a period end (METRICS.md section 2)', () => {
  it.each([
    ['monthly', 1, 9_900, 9_900],
    ['quarterly', 3, 29_700, 9_900],
    ['annual', 12, 118_800, 9_900],
    ['quarterly, total not divisible by 3 (10,000 / 3 rounds half to even)', 3, 10_000, 3_333],
    ['semi-annual of 5 cents (0.83 rounds to 1)', 6, 5, 1],
  ])('normalises a %s plan to total / months', (_name, months, total, monthly) => {
    const result = series(business({ payments: [{ customer: 'a', start: '2024-01-10', months, total }] }), { from: '2024-01', to: '2024-12' });
    const expected = Array.from({ length: 12 }, (_, m) => (m < months ? monthly : 0));
    expect(result.total.mrr).toEqual(expected);
  });

  it('counts an annual plan at every month end it covers and churns it at the end of the paid year', () => {
    const result = series(business({ payments: [{ customer: 'a', start: '2024-01-10', months: 12, total: 120_000 }] }), { from: '2024-01', to: '2025-02' });
    expect(result.total.mrr.slice(0, 12)).toEqual(Array(12).fill(10_000));
    expect(movementsAt(result, '2025-01')).toMatchObject({ mrr: 0, churn: 10_000 });
  });

  it.each([
    [true, true, 7_000],
    [false, true, 8_000],
    [true, false, 9_000],
    [false, false, 10_000],
  ])('subtracts forever discounts when %s and finite discounts when %s', (forever, finite, mrr) => {
    const payments: PaymentSpec[] = [{ customer: 'a', start: '2024-03-01', total: 10_000, discounts: [{ kind: 'forever', monthly: 1_000 }, { kind: 'finite', monthly: 2_000 }] }];
    const result = series(business({ payments }), {
      from: '2024-03',
      to: '2024-03',
      reportSettings: { subtract_forever_discount_from_mrr: forever, subtract_finite_discount_from_mrr: finite },
    });
    expect(result.total.mrr).toEqual([mrr]);
    expect(result.settings.subtractForeverDiscount).toBe(forever);
    expect(result.settings.subtractFiniteDiscount).toBe(finite);
  });

  it('subtracts both kinds of discount by default', () => {
    const payments: PaymentSpec[] = [{ customer: 'a', start: '2024-03-01', total: 10_000, discounts: [{ kind: 'forever', monthly: 1_000 }, { kind: 'finite', monthly: 2_000 }] }];
    expect(series(business({ payments }), { from: '2024-03', to: '2024-03' }).total.mrr).toEqual([7_000]);
  });

  it('counts a month under a 100% discount as churn when discounts are subtracted, and as nothing when they are not', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2024-01-01', total: 10_000 },
      { customer: 'a', start: '2024-02-01', total: 10_000, discounts: [{ kind: 'finite', monthly: 10_000 }] },
      { customer: 'a', start: '2024-03-01', total: 10_000 },
    ];
    const subtracted = series(business({ payments }), { from: '2024-01', to: '2024-03' });
    expect(subtracted.total.mrr).toEqual([10_000, 0, 10_000]);
    expect(movementsAt(subtracted, '2024-02')).toMatchObject({ churn: 10_000, customers: 0 });
    expect(movementsAt(subtracted, '2024-03')).toMatchObject({ reactivation: 10_000, newBusiness: 0 });
    const kept = series(business({ payments }), { from: '2024-01', to: '2024-03', reportSettings: { subtract_finite_discount_from_mrr: false } });
    expect(kept.total.mrr).toEqual([10_000, 10_000, 10_000]);
    expect(movementsAt(kept, '2024-02')).toMatchObject({ churn: 0, contraction: 0 });
  });

  it('never goes below zero, and a discount larger than its payment does not eat another payment', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2024-03-01', total: 10_000, discounts: [{ kind: 'forever', monthly: 15_000 }] },
      { customer: 'a', start: '2024-03-05', total: 5_000 },
    ];
    expect(mrrOf(payments, { from: '2024-03', to: '2024-03' })).toEqual({ '2024-03': 5_000 });
  });

  it('excludes metered items by default and includes them with include_metered_in_mrr', () => {
    const payments: PaymentSpec[] = [
      { customer: 'a', start: '2024-03-01', total: 10_000 },
      { customer: 'a', start: '2024-03-01', total: 2_500, type: 'metered', product: 'api_calls' },
    ];
    expect(mrrOf(payments, { from: '2024-03', to: '2024-03' })).toEqual({ '2024-03': 10_000 });
    expect(mrrOf(payments, { from: '2024-03', to: '2024-03' }, { include_metered_in_mrr: true })).toEqual({ '2024-03': 12_500 });
  });

  it.each(['one_time', 'freemium'] as const)('never counts %s items as MRR', (type) => {
    const payments: PaymentSpec[] = [{ customer: 'a', start: '2024-03-01', total: 99_000, type }];
    expect(mrrOf(payments, { from: '2024-03', to: '2024-03' }, { include_metered_in_mrr: true })).toEqual({ '2024-03': 0 });
  });

  it('splits a payment with several items evenly between them, and only its recurring share is MRR', () => {
    const payments: PaymentSpec[] = [{ customer: 'a', start: '2024-03-01', total: 30_001, items: [{ product: 'seats' }, { product: 'setup', type: 'one_time' }, { product: 'addon' }] }];
    // 30,001 / 3 items = 10,001 + 10,000 + 10,000 (largest remainder to the first item).
    expect(mrrOf(payments, { from: '2024-03', to: '2024-03' })).toEqual({ '2024-03': 20_001 });
  });

  it('makes customers with include_in_calculations_by_default false vanish, with their children', () => {
    const snapshot = business({
      customers: [{ id: 'internal', include_in_calculations_by_default: false }, { id: 'child', parent_id: 'internal' }, 'real'],
      payments: [
        { customer: 'internal', start: '2024-03-01', total: 50_000 },
        { customer: 'child', start: '2024-03-01', total: 7_000 },
        { customer: 'real', start: '2024-03-01', total: 10_000 },
      ],
    });
    for (const useHierarchy of [false, true]) {
      const result = series(snapshot, { from: '2024-03', to: '2024-03', useHierarchy });
      expect(result.total.mrr).toEqual([10_000]);
      expect(result.total.customers).toEqual([1]);
    }
  });

  it('keeps counting a soft-deleted customer (reports stay explainable; only the exclusion flag removes a customer)', () => {
    const snapshot = business({ customers: [{ id: 'gone', deleted_at: '2024-06-01T00:00:00Z' }], payments: [{ customer: 'gone', start: '2024-03-01', total: 4_000 }] });
    expect(snapshot.customers.deleted[0]).toBe(1);
    expect(series(snapshot, { from: '2024-03', to: '2024-03' }).total.mrr).toEqual([4_000]);
  });

  it('rolls a customer’s MRR up into its top-most parent with use_hierarchy, which is counted and classified once', () => {
    const snapshot = business({
      customers: ['group', { id: 'de', parent_id: 'group' }, { id: 'pl', parent_id: 'group' }, { id: 'pl-sub', parent_id: 'pl' }],
      payments: [
        { customer: 'de', start: '2024-01-01', months: 3, total: 30_000 },
        { customer: 'pl', start: '2024-01-01', months: 2, total: 10_000 },
        { customer: 'pl-sub', start: '2024-02-01', months: 2, total: 4_000 },
        { customer: 'group', start: '2024-02-01', total: 1_000 },
      ],
    });
    const flat = series(snapshot, { from: '2024-01', to: '2024-04' });
    const rolled = series(snapshot, { from: '2024-01', to: '2024-04', useHierarchy: true });
    expect(flat.total.mrr).toEqual([15_000, 18_000, 12_000, 0]);
    expect(rolled.total.mrr).toEqual(flat.total.mrr);
    expect(flat.total.customers).toEqual([2, 4, 2, 0]);
    expect(rolled.total.customers).toEqual([1, 1, 1, 0]);
    expect(movementsAt(flat, '2024-02')).toMatchObject({ newBusiness: 3_000, expansion: 0 });
    expect(movementsAt(rolled, '2024-02')).toMatchObject({ newBusiness: 0, expansion: 3_000 });
    expect(movementsAt(flat, '2024-03')).toMatchObject({ churn: 6_000, contraction: 0 });
    expect(movementsAt(rolled, '2024-03')).toMatchObject({ churn: 0, contraction: 6_000 });
    expect(movementsAt(rolled, '2024-04')).toMatchObject({ churn: 12_000 });
  });
});

describe('churn window (churn_window_seconds)', () => {
  // Paid Jan 15 - Feb 15, then from Mar 5: a 19-day gap (Feb 15 - Mar 4, 2024 is a leap year) holding the February month end.
  const gap: PaymentSpec[] = [
    { customer: 'a', start: '2024-01-15', total: 10_000 },
    { customer: 'a', start: '2024-03-05', months: 2, total: 24_000 },
  ];
  const days = (n: number) => ({ churn_window_seconds: n * 86_400 });

  it('without a window, a gap over a period end is churn at the end of the paid period and a reactivation after', () => {
    const result = series(business({ payments: gap }), { from: '2024-01', to: '2024-04' });
    expect(result.total.mrr).toEqual([10_000, 0, 12_000, 12_000]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 10_000 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ reactivation: 12_000 });
  });

  it.each([19, 30])('bridges a gap no longer than the window (%i days), keeping the MRR from before the gap', (window) => {
    const result = series(business({ account: days(window), payments: gap }), { from: '2024-01', to: '2024-04' });
    expect(result.total.mrr).toEqual([10_000, 10_000, 12_000, 12_000]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 0, contraction: 0 });
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 2_000, reactivation: 0 });
  });

  it('does not bridge a gap longer than the window: churn stays dated at the end of the paid period', () => {
    const result = series(business({ account: days(18), payments: gap }), { from: '2024-01', to: '2024-04' });
    expect(result.total.mrr).toEqual([10_000, 0, 12_000, 12_000]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 10_000 });
  });

  it('keeps a customer whose renewal is not in yet while the open gap is within the window, and churns it at the end of its paid period once it is not', () => {
    const payments: PaymentSpec[] = [{ customer: 'a', start: '2024-02-15', total: 10_000 }];
    const pending = series(business({ account: days(7), payments }), { from: '2024-02', to: '2024-03', today: '2024-03-20' });
    expect(pending.total.mrr).toEqual([10_000, 10_000]);
    const late = series(business({ account: days(7), payments }), { from: '2024-02', to: '2024-03', today: '2024-03-22' });
    expect(late.total.mrr).toEqual([10_000, 0]);
    expect(movementsAt(late, '2024-03')).toMatchObject({ churn: 10_000 });
    // Paid until Feb 27: the churn belongs to February even though the window ends in March.
    const february = series(business({ account: days(7), payments: [{ customer: 'a', start: '2024-01-27', total: 10_000 }] }), { from: '2024-01', to: '2024-03' });
    expect(february.total.mrr).toEqual([10_000, 0, 0]);
    expect(movementsAt(february, '2024-02')).toMatchObject({ churn: 10_000 });
  });

  it('looks at the counted unit’s coverage: with use_hierarchy a gap between two children of a group is bridged', () => {
    const snapshot = business({
      account: days(7),
      customers: ['group', { id: 'old', parent_id: 'group' }, { id: 'new', parent_id: 'group' }],
      payments: [
        { customer: 'old', start: '2024-01-26', total: 10_000 },
        { customer: 'new', start: '2024-03-01', total: 10_000 },
      ],
    });
    expect(series(snapshot, { from: '2024-01', to: '2024-03', useHierarchy: true }).total.mrr).toEqual([10_000, 10_000, 10_000]);
    expect(series(snapshot, { from: '2024-01', to: '2024-03' }).total.mrr).toEqual([10_000, 0, 10_000]);
  });

  it('extends exactly the pieces paying on the last day before the gap', () => {
    const snapshot = business({
      account: days(10),
      payments: [
        { customer: 'a', start: '2024-01-01', months: 2, total: 20_000 },
        { customer: 'a', start: '2024-01-20', total: 5_000 }, // ends Feb 20, inside the first
        { customer: 'a', start: '2024-03-05', total: 30_000 },
      ],
    });
    const settings = resolveMetricsSettings(snapshot.account);
    const pieces = buildMrrPieces(snapshot, { settings, useHierarchy: false, today: dayFromIso('2024-12-31') });
    const ends = Array.from(pieces.end.subarray(0, pieces.count));
    expect(ends).toEqual([dayFromIso('2024-03-05'), dayFromIso('2024-02-20'), dayFromIso('2024-04-05')]);
  });
});

describe('current period', () => {
  it('is measured on today, not on its last day', () => {
    const payments: PaymentSpec[] = [
      { customer: 'ended', start: '2024-02-16', total: 10_000 }, // ends Mar 16
      { customer: 'running', start: '2024-03-10', total: 20_000 },
      { customer: 'future', start: '2024-03-25', total: 40_000 }, // starts after today
    ];
    const result = series(business({ payments }), { from: '2024-02', to: '2024-03', today: '2024-03-20' });
    expect(result.periods.map((p) => [p.label, p.measureDay, p.current])).toEqual([
      ['2024-02', '2024-02-29', false],
      ['2024-03', '2024-03-20', true],
    ]);
    expect(result.total.mrr).toEqual([10_000, 20_000]);
  });
});

describe('the MRR matrix (customers x periods)', () => {
  it('holds every unit’s MRR at every period end; with use_hierarchy the top-most parent’s row holds its group', () => {
    const snapshot = business({
      customers: ['group', { id: 'de', parent_id: 'group' }, 'solo'],
      payments: [
        { customer: 'de', start: '2024-01-10', months: 2, total: 20_000 },
        { customer: 'group', start: '2024-02-10', total: 3_000 },
        { customer: 'solo', start: '2024-02-01', months: 3, total: 9_000 },
      ],
    });
    const settings = resolveMetricsSettings(snapshot.account);
    const timeline = buildTimeline({ resolution: 'month', range: { startYear: 2024, startMonth: 1, endYear: 2024, endMonth: 3 }, today: dayFromIso('2024-03-31') });
    const converter = createConverter(snapshot, settings);
    const row = (matrix: MrrMatrix, id: string) => Array.from({ length: matrix.periods }, (_, t) => mrrAt(matrix, snapshot.customers.index.get(id)!, t));
    const flat = computeMrrMatrix(buildMrrPieces(snapshot, { settings, useHierarchy: false, today: timeline.today }), snapshot.records, timeline, converter);
    expect(timeline.labels).toEqual(['2023-12', '2024-01', '2024-02', '2024-03']);
    expect(row(flat, 'de')).toEqual([0, 10_000, 10_000, 0]);
    expect(row(flat, 'group')).toEqual([0, 0, 3_000, 0]);
    expect(row(flat, 'solo')).toEqual([0, 0, 3_000, 3_000]);
    const rolled = computeMrrMatrix(buildMrrPieces(snapshot, { settings, useHierarchy: true, today: timeline.today }), snapshot.records, timeline, converter);
    expect(row(rolled, 'group')).toEqual([0, 10_000, 13_000, 0]);
    expect(row(rolled, 'de')).toEqual([0, 0, 0, 0]);
    const viaSeries = series(snapshot, { from: '2024-01', to: '2024-03', keepMatrix: true }).matrix!;
    expect(Array.from(viaSeries.value)).toEqual(Array.from(flat.value));
  });
});
