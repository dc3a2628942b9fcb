import { afterEach, describe, expect, it, vi } from 'vitest';
import { orderedAlphanumeric, randomAlphanumeric } from '../../models/random';

const rising = (ids: readonly string[]) => ids.slice(1).every((id, k) => id > (ids[k] as string));

describe('random letters and digits', () => {
  it('have the length asked for, from [A-Za-z0-9], and do not repeat', () => {
    const ids = Array.from({ length: 1_000 }, () => randomAlphanumeric(16));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(new Set(ids).size).toBe(1_000);
  });
});

describe('ordered ids', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('begin with the time in milliseconds, in base 62 digits that sort as bytes', () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 12, 0, 0, 0));
    const id = orderedAlphanumeric(12);
    expect(id).toMatch(/^[A-Za-z0-9]{12}$/);
    const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const time = [...id.slice(0, 7)].reduce((sum, char) => sum * 62 + digits.indexOf(char), 0);
    expect(time).toBe(Date.UTC(2026, 10, 28, 12, 0, 0, 0));
  });

  it('rise and never repeat when many are made in one millisecond (the random part counts up, carrying)', () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28));
    const ids = Array.from({ length: 20_000 }, () => orderedAlphanumeric(13));
    expect(new Set(ids).size).toBe(ids.length);
    expect(rising(ids)).toBe(true);
    // 20,000 counts carry out of the last digit (base 62) hundreds of times.
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBeGreaterThan(300);
  });

  it('keep rising when the clock goes back', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 12));
    const before = orderedAlphanumeric(12);
    now.mockReturnValue(Date.UTC(2026, 10, 28, 11));
    const after = orderedAlphanumeric(12);
    expect(after > before).toBe(true);
    expect(after.slice(0, 7)).toBe(before.slice(0, 7));
  });

  it('of a later millisecond sort after every id of an earlier one', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 12));
    const earlier = Array.from({ length: 500 }, () => orderedAlphanumeric(12));
    now.mockReturnValue(Date.UTC(2026, 10, 28, 12) + 1);
    const later = orderedAlphanumeric(12);
    expect(earlier.every((id) => id < later)).toBe(true);
  });

  it('are refused shorter than 12 characters', () => {
    expect(() => orderedAlphanumeric(11)).toThrow(RangeError);
  });
});
