import { describe, expect, it } from 'vitest';
import { KeySet } from '../../../server/imports/keySet';

describe('KeySet', () => {
  it('holds exactly the keys added, through many growths, whatever their characters and lengths', () => {
    const set = new KeySet(4);
    const keys = Array.from({ length: 30_000 }, (_, k) => (k % 3 === 0 ? `cus-${k}` : k % 3 === 1 ? `Łódź ${k} 😀` : `${'x'.repeat(k % 300)}${k}`));
    for (const key of keys) expect(set.add(key)).toBe(true);
    for (const key of keys) expect(set.add(key)).toBe(false);
    expect(set.size).toBe(keys.length);
    for (const key of keys) expect(set.has(key)).toBe(true);
    for (const key of ['', 'cus-1', 'cus-30000', 'Łódź 3 😀', 'x', `${'x'.repeat(299)}`]) expect(set.has(key)).toBe(false);
    set.add('');
    expect(set.has('')).toBe(true);
  });

  it('keeps a key longer than 65,535 characters (its length in two units)', () => {
    const set = new KeySet();
    const long = 'a'.repeat(70_000);
    set.add(long);
    expect(set.has(long)).toBe(true);
    expect(set.has('a'.repeat(70_000 - 65_536))).toBe(false);
    expect(set.has(`${long}a`)).toBe(false);
  });

  it('counts its bytes: two a character and the table', () => {
    const set = new KeySet(16);
    const before = set.bytes;
    set.add('abcd');
    expect(set.bytes - before).toBe((2 + 4) * 2);
  });
});
