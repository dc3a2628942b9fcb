import { describe, expect, it } from 'vitest';
import { KeyIndex } from '../../../server/metrics/keyIndex';

describe('KeyIndex', () => {
  it('finds keys that are slices of one big string, and knows absent ones', () => {
    const index = new KeyIndex();
    const joined = ['pay-a', 'pay-b', 'pay-cc', ''].join('\u001f');
    const source = index.source(joined);
    expect(index.add(source, 0, 5)).toBe(0);
    expect(index.add(source, 6, 11)).toBe(1);
    expect(index.add(source, 12, 18)).toBe(2);
    expect(index.add(source, 19, 19)).toBe(3);
    expect(index.findString('pay-b')).toBe(1);
    expect(index.findString('pay-cc')).toBe(2);
    expect(index.findString('')).toBe(3);
    expect(index.findString('pay-c')).toBe(-1);
    expect(index.find('xx pay-a yy', 3, 8)).toBe(0);
    expect(index.get(2)).toBe('pay-cc');
  });

  it('refuses a key twice', () => {
    const index = new KeyIndex();
    expect(index.addString('cus-1')).toBe(0);
    expect(index.addString('cus-1')).toBe(-1);
    expect(index.count).toBe(1);
  });

  it('keeps every key findable while it grows, with or without room reserved', () => {
    for (const reserve of [0, 50_000]) {
      const index = new KeyIndex();
      index.reserve(reserve);
      const keys = Array.from({ length: 50_000 }, (_, i) => `subh${i.toString(36).padStart(12, '0')}`);
      keys.forEach((key, i) => expect(index.addString(key)).toBe(i));
      keys.forEach((key, i) => {
        if (i % 97 === 0) expect(index.findString(key)).toBe(i);
      });
      expect(index.findString('subh-missing')).toBe(-1);
      expect(index.toStringColumn().get(12_345)).toBe(keys[12_345]);
      expect(index.toStringColumn().indexOf(keys[49_999]!)).toBe(49_999);
    }
  });

  it('finds near a hint and far from it alike', () => {
    const index = new KeyIndex();
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    for (const key of keys) index.addString(key);
    expect(index.findNear('k11', 0, 3, 10)).toBe(11);
    expect(index.findNear('k10', 0, 3, 10)).toBe(10);
    expect(index.findNear('k900', 0, 4, 10)).toBe(900);
    expect(index.findNear('k5', 0, 2, 999)).toBe(5);
    expect(index.findNear('nope', 0, 4, 3)).toBe(-1);
  });

  it('compares characters beyond Latin-1', () => {
    const index = new KeyIndex();
    index.addString('klient-żółw');
    index.addString('klient-😀');
    expect(index.findString('klient-żółw')).toBe(0);
    expect(index.findString('klient-😀')).toBe(1);
    expect(index.findString('klient-zolw')).toBe(-1);
  });
});
