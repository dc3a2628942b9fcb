import { describe, expect, it } from 'vitest';
import { CURRENCIES, currencyDigits, DEFAULT_MINOR_UNIT_DIGITS, minorToMajor } from '../../models/money';

describe('minor-unit digits of a currency', () => {
  it.each([
    ['USD', 2],
    ['jpy', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['ISK', 0],
    // ISO 4217 gives these two digits; a display may leave their cents out, the stored amounts still count hundredths.
    ['HUF', 2],
    ['IDR', 2],
    ['COP', 2],
    ['PKR', 2],
  ])('%s has %d', (currency, digits) => {
    expect(currencyDigits(currency)).toBe(digits);
  });

  it('takes two for a code the table does not list', () => {
    expect(currencyDigits('XOF')).toBe(DEFAULT_MINOR_UNIT_DIGITS);
    expect(DEFAULT_MINOR_UNIT_DIGITS).toBe(2);
  });

  it('lists each currency once, by its upper-case ISO 4217 code, with 0 to 4 digits (the table the database holds)', () => {
    const codes = CURRENCIES.map(([iso]) => iso);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [iso, name, digits] of CURRENCIES) {
      expect(iso).toMatch(/^[A-Z]{3}$/);
      expect(name.length).toBeGreaterThan(0);
      expect(digits).toBeGreaterThanOrEqual(0);
      expect(digits).toBeLessThanOrEqual(4);
    }
  });
});

describe('minor to major units', () => {
  it.each([
    [123_456, 'USD', 1234.56],
    [123_456, 'JPY', 123_456],
    [123_456, 'HUF', 1234.56],
  ])('%d minor units of %s are %d', (minor, currency, major) => {
    expect(minorToMajor(minor, currency)).toBe(major);
  });

  it('keeps three digits for KWD', () => {
    expect(minorToMajor(123_456, 'KWD')).toBeCloseTo(123.456);
  });
});
