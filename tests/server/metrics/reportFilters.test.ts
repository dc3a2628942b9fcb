import { describe, expect, it } from 'vitest';
import { FilterError } from '../../../server/metrics/filters';
import type { DealRow } from '../../../server/metrics/snapshot/rows';
import { business, segment, series } from './support';

/** The deal owner criterion and filter groups (a report view's filter AND a picked item). */

const deal = (id: string, customer: string | null, owner: string | null): DealRow => ({
  id,
  name: id,
  value: 1_000,
  currency: 'USD',
  stage: 'open',
  stage_changed_at: null,
  created_at: '2024-01-01T00:00:00Z',
  customer_id: customer,
  owner_name: owner,
});

describe('deal owner and group criteria', () => {
  const snapshot = business({
    payments: [
      { customer: 'a', start: '2024-01-05', months: 4, total: 40_000, product: 'A' },
      { customer: 'b', start: '2024-01-05', months: 4, total: 20_000, product: 'B' },
      { customer: 'c', start: '2024-01-05', months: 4, total: 8_000, product: 'A' },
    ],
    segments: [{ id: 'plan', name: 'Plan', value_source: 'parent_and_children', time_sensitive: true }],
    segmentValues: [
      { customer_id: 'a', segment_id: 'plan', year: 2024, month: 1, value: 'Pro' },
      { customer_id: 'b', segment_id: 'plan', year: 2024, month: 1, value: 'Pro' },
      { customer_id: 'c', segment_id: 'plan', year: 2024, month: 3, value: 'Pro' },
    ],
    deals: [deal('d1', 'a', 'Anna'), deal('d2', 'a', 'Bob'), deal('d3', 'b', 'Bob'), deal('d4', null, 'Anna'), deal('d5', 'c', null)],
  });
  const range = { from: '2024-01', to: '2024-04' };

  it('keeps the customers with at least one deal of the owner; negated, the others', () => {
    const anna = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'deal_owner', ownerNames: ['Anna'] }] } });
    expect(anna.total.mrr).toEqual([10_000, 10_000, 10_000, 10_000]);
    const bob = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'deal_owner', ownerNames: ['Bob'] }] } });
    expect(bob.total.mrr).toEqual([15_000, 15_000, 15_000, 15_000]);
    const notAnna = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'deal_owner', ownerNames: ['Anna'], negated: true }] } });
    expect(notAnna.total.mrr).toEqual([7_000, 7_000, 7_000, 7_000]);
    const nobody = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'deal_owner', ownerNames: ['Zed'] }] } });
    expect(nobody.total.mrr).toEqual([0, 0, 0, 0]);
  });

  it('applies a group first and the other criteria after it, equal to one and-filter of all of them', () => {
    const view = { operator: 'or' as const, criteria: [{ kind: 'product' as const, productKeys: ['A'] }, { kind: 'deal_owner' as const, ownerNames: ['Bob'] }] };
    const grouped = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'group', filter: view }, { kind: 'customer_segment', segmentId: 'plan', values: ['Pro'] }] } });
    // a (A, Bob) and b (Bob) all along, c (A) once it is Pro in March.
    expect(grouped.total.mrr).toEqual([15_000, 15_000, 17_000, 17_000]);
    const pro = series(snapshot, { ...range, segmenters: [{ kind: 'customer_segment', segmentId: 'plan' }] });
    expect(grouped.total.mrr).toEqual(segment(pro, 'Pro').mrr);
    const empty = series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'group', filter: { operator: 'or', criteria: [] } }, { kind: 'product', productKeys: ['B'] }] } });
    expect(empty.total.mrr).toEqual([5_000, 5_000, 5_000, 5_000]);
  });

  it('refuses a group under or, or negated', () => {
    const view = { operator: 'and' as const, criteria: [{ kind: 'product' as const, productKeys: ['A'] }] };
    expect(() => series(snapshot, { ...range, filter: { operator: 'or', criteria: [{ kind: 'group', filter: view }] } })).toThrow(FilterError);
    expect(() => series(snapshot, { ...range, filter: { operator: 'and', criteria: [{ kind: 'group', filter: view, negated: true }] } })).toThrow(FilterError);
  });
});
