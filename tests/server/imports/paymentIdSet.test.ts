import { describe, expect, it } from 'vitest';
import { PaymentIdSet } from '../../../server/imports/paymentIdSet';
import { paymentIdOf } from '../../../server/imports/subscriptionRows';

describe('PaymentIdSet', () => {
  it('answers the first row of an id seen before, and null for a new one, through many growths', () => {
    const set = new PaymentIdSet(4);
    const ids = Array.from({ length: 50_000 }, (_, k) => paymentIdOf('acc', `cus-${k % 977}`, null, `2024-01-${String((k % 28) + 1).padStart(2, '0')}`));
    const firstRow = new Map<string, number>();
    ids.forEach((id, k) => {
      const expected = firstRow.get(id) ?? null;
      expect(set.add(id, k + 1)).toBe(expected);
      if (expected === null) firstRow.set(id, k + 1);
    });
    expect(set.size).toBe(firstRow.size);
    expect(firstRow.size).toBe(977 * 28);
  });

  it('sized for a row count, holds that many ids at most 70 % full and still grows past them', () => {
    expect(PaymentIdSet.forRows(0)).toBeInstanceOf(PaymentIdSet);
    const set = PaymentIdSet.forRows(100_000);
    const ids = Array.from({ length: 120_000 }, (_, k) => paymentIdOf('acc', `cus-${k}`, null, '2024-01-01'));
    ids.forEach((id, k) => expect(set.add(id, k + 1)).toBeNull());
    ids.forEach((id, k) => expect(set.add(id, 200_000 + k)).toBe(k + 1));
    expect(set.size).toBe(120_000);
  });

  it('tells apart ids that differ in one character of either half', () => {
    const set = new PaymentIdSet();
    expect(set.add('subhAAAAAAAAAAAA', 1)).toBeNull();
    expect(set.add('subhAAAAABAAAAAA', 2)).toBeNull();
    expect(set.add('subhAAAAAAAAAAAB', 3)).toBeNull();
    expect(set.add('subhAAAAAAAAAAAA', 4)).toBe(1);
    expect(set.add('subh999999999999', 5)).toBeNull();
    expect(set.add('subh999999999999', 6)).toBe(5);
  });

  it('refuses what is not an import payment id', () => {
    const set = new PaymentIdSet();
    expect(() => set.add('pay_123', 1)).toThrow(RangeError);
    expect(() => set.add('subhAAAAAAAAAAA-', 1)).toThrow(RangeError);
  });
});
