import { describe, expect, it } from 'vitest';
import { MAX_BITS, PaymentIdFilter } from '../../../server/imports/paymentIdFilter';
import { paymentIdOf } from '../../../server/imports/subscriptionRows';

const ids = (count: number, prefix = 'cus') => Array.from({ length: count }, (_, k) => paymentIdOf('acc', `${prefix}-${k}`, null, '2024-01-01'));

describe('PaymentIdFilter', () => {
  it('never says new of an id it holds, and says it of nearly every id it does not', () => {
    const filter = PaymentIdFilter.forRows(100_000);
    expect(filter.bits).toBe(1 << 21);
    const held = ids(100_000);
    const alarms = held.filter((id) => filter.add(id)).length;
    for (const id of held) expect(filter.add(id)).toBe(true);
    // While it fills (2^21 bits, up to 21 bits an id, 6 positions): some 1 in 50,000 expected.
    expect(alarms).toBeLessThan(20);
    // Full: some 1 in 3,000 (each stranger added too). The ids are fixed, so are the counts.
    const strangers = ids(10_000, 'other').filter((id) => filter.add(id)).length;
    expect(strangers).toBeLessThan(20);
  });

  it('is sized from the row count, 16 bits a row or more, within 2^16 and 2^27 bits (16 MB)', () => {
    expect(PaymentIdFilter.forRows(0).bits).toBe(1 << 16);
    expect(PaymentIdFilter.forRows(4096).bits).toBe(1 << 16);
    expect(PaymentIdFilter.forRows(4097).bits).toBe(1 << 17);
    expect(PaymentIdFilter.forRows(1_000_000).bits).toBe(1 << 24);
    expect(PaymentIdFilter.forRows(50_000_000).bits).toBe(MAX_BITS);
    expect(MAX_BITS / 8).toBe(16 * 1024 * 1024);
  });

  it('takes its positions from both halves of the id: ids alike in one half are still told apart', () => {
    const real = ids(10_000);
    for (const alike of [(id: string) => `subhAAAAAA${id.slice(10)}`, (id: string) => `${id.slice(0, 10)}AAAAAA`]) {
      const filter = new PaymentIdFilter(1 << 18);
      const alarms = real.map(alike).filter((id) => filter.add(id)).length;
      expect(alarms).toBeLessThan(50);
    }
  });

  it('refuses what is not an import payment id, and a size that is not a power of two', () => {
    const filter = new PaymentIdFilter(64);
    expect(() => filter.add('pay_123')).toThrow(RangeError);
    expect(() => filter.add('subhAAAAAAAAAAA-')).toThrow(RangeError);
    expect(() => new PaymentIdFilter(1000)).toThrow(RangeError);
    expect(() => new PaymentIdFilter(MAX_BITS * 2)).toThrow(RangeError);
    // A filter of 4 bits (tests): a false alarm for nearly every id after the first.
    const tiny = new PaymentIdFilter(4);
    expect(ids(20).filter((id) => tiny.add(id)).length).toBeGreaterThan(15);
  });
});
