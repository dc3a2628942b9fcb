import { describe, expect, it } from 'vitest';
import type { PaymentVersionRow } from '../../../server/metrics/snapshot/rows';
import { business, movementsAt, series, type BusinessSpec } from './support';

function version(overrides: Partial<PaymentVersionRow> & Pick<PaymentVersionRow, 'payment_id' | 'version' | 'valid_from' | 'valid_to'>): PaymentVersionRow {
  return {
    customer_id: 'a',
    started_at: '2024-01-15',
    duration_in_months: 3,
    total_value: 30_000,
    currency: 'USD',
    items: [{ product_key: 'plan', type: 'recurring', quantity: 1 }],
    discounts: [],
    deleted: false,
    ...overrides,
  };
}

/** A quarterly payment first recorded at 300.00, corrected to 600.00 on Feb 20 at noon. */
const corrected = (handling: 'change_original' | 'when_occurred'): BusinessSpec => ({
  account: { corrections_handling: handling },
  payments: [{ id: 'p1', customer: 'a', start: '2024-01-15', months: 3, total: 60_000 }],
  versions: [version({ payment_id: 'p1', version: 1, valid_from: '2024-01-15T00:00:00Z', valid_to: '2024-02-20T12:00:00Z' })],
});

describe('corrections_handling (METRICS.md section 6)', () => {
  it('change_original (default) uses the latest version of every payment for every period', () => {
    const result = series(business(corrected('change_original')), { from: '2024-01', to: '2024-04' });
    expect(result.total.mrr).toEqual([20_000, 20_000, 20_000, 0]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 0 });
  });

  it('when_occurred keeps the version current at a period’s end and shows the correction as a movement in its period', () => {
    const result = series(business(corrected('when_occurred')), { from: '2024-01', to: '2024-04' });
    expect(result.settings.correctionsHandling).toBe('when_occurred');
    expect(result.total.mrr).toEqual([10_000, 20_000, 20_000, 0]);
    expect(movementsAt(result, '2024-01')).toMatchObject({ newBusiness: 10_000 });
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 10_000 });
  });

  it('when_occurred applies a correction from the day it was made: a period measured that day already sees it', () => {
    const result = series(business(corrected('when_occurred')), { from: '2024-02', to: '2024-02', today: '2024-02-20', lookback: 0 });
    expect(result.total.mrr).toEqual([20_000]);
    const before = series(business(corrected('when_occurred')), { from: '2024-02', to: '2024-02', today: '2024-02-19', lookback: 0 });
    expect(before.total.mrr).toEqual([10_000]);
  });

  it('when_occurred counts version 1 as in force for every period before a later version exists (imported history describes the past)', () => {
    const snapshot = business({
      account: { corrections_handling: 'when_occurred' },
      payments: [{ id: 'p1', customer: 'a', start: '2024-01-15', months: 3, total: 60_000 }],
      versions: [version({ payment_id: 'p1', version: 1, valid_from: '2024-06-01T09:00:00Z', valid_to: '2024-07-01T09:00:00Z' })],
    });
    expect(series(snapshot, { from: '2024-01', to: '2024-03' }).total.mrr).toEqual([10_000, 10_000, 10_000]);
  });

  it('when_occurred keeps a deleted payment in the periods that ended before the deletion, and churns it in the period of the deletion', () => {
    const spec = (handling: 'change_original' | 'when_occurred'): BusinessSpec => ({
      account: { corrections_handling: handling },
      payments: [
        { id: 'p1', customer: 'a', start: '2024-01-15', months: 3, total: 30_000, deleted: true },
        { id: 'p2', customer: 'b', start: '2024-01-15', months: 3, total: 15_000 },
      ],
      versions: [version({ payment_id: 'p1', version: 1, valid_from: '2024-01-15T00:00:00Z', valid_to: '2024-03-05T10:00:00Z' })],
    });
    expect(series(business(spec('change_original')), { from: '2024-01', to: '2024-03' }).total.mrr).toEqual([5_000, 5_000, 5_000]);
    const occurred = series(business(spec('when_occurred')), { from: '2024-01', to: '2024-03' });
    expect(occurred.total.mrr).toEqual([15_000, 15_000, 5_000]);
    expect(movementsAt(occurred, '2024-03')).toMatchObject({ churn: 10_000 });
  });

  it('when_occurred leaves the periods of a payment corrected after it ended as they were reported', () => {
    const spec = (handling: 'change_original' | 'when_occurred'): BusinessSpec => ({
      account: { corrections_handling: handling },
      payments: [{ id: 'p1', customer: 'a', start: '2024-01-10', months: 1, total: 12_000 }],
      versions: [version({ payment_id: 'p1', version: 1, started_at: '2024-01-10', duration_in_months: 1, total_value: 10_000, valid_from: '2024-01-10T00:00:00Z', valid_to: '2024-03-02T00:00:00Z' })],
    });
    expect(series(business(spec('change_original')), { from: '2024-01', to: '2024-03' }).total.mrr).toEqual([12_000, 0, 0]);
    const occurred = series(business(spec('when_occurred')), { from: '2024-01', to: '2024-03' });
    expect(occurred.total.mrr).toEqual([10_000, 0, 0]);
    expect(occurred.total.expansion).toEqual([0, 0, 0]);
  });

  it('when_occurred follows a version that moved the payment to another customer', () => {
    const snapshot = business({
      account: { corrections_handling: 'when_occurred' },
      customers: ['a', 'b'],
      payments: [{ id: 'p1', customer: 'b', start: '2024-01-15', months: 3, total: 30_000 }],
      versions: [version({ payment_id: 'p1', version: 1, customer_id: 'a', valid_from: '2024-01-15T00:00:00Z', valid_to: '2024-02-10T00:00:00Z' })],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-03', segmenters: [] });
    expect(result.total.mrr).toEqual([10_000, 10_000, 10_000]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ churn: 10_000, newBusiness: 10_000 });
  });
});
