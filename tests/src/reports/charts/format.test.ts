import { describe, expect, it } from 'vitest';
import { currencyDigits, minorToMajor } from '../../../../models/money';
import {
  decimalsOf,
  formatCompact,
  formatMoney,
  formatNumber,
  formatPercent,
  formatValue,
  formatWholePercent,
  NO_VALUE,
  quarterLabel,
  valueUnitOf,
} from '../../../../src/reports/charts/format';

describe('decimals', () => {
  it('shows 0 decimals, or 2 when the section sets decimal', () => {
    expect(decimalsOf(false)).toBe(0);
    expect(decimalsOf(undefined)).toBe(0);
    expect(decimalsOf(true)).toBe(2);
    expect(formatNumber(1234.567, 0)).toBe('1,235');
    expect(formatNumber(1234.5, 2)).toBe('1,234.50');
  });
});

describe('compact numbers for axis labels', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1_000, '1K'],
    [1_500, '1.5K'],
    [12_345, '12.3K'],
    [2_500_000, '2.5M'],
    [7_000_000_000, '7B'],
    [3_200_000_000_000, '3.2T'],
    [4_000_000_000_000_000, '4,000T'],
    [-1_500, '-1.5K'],
    [999_960, '1M'],
  ])('writes %d as %s', (value, text) => {
    expect(formatCompact(value)).toBe(text);
  });

  it('keeps two decimals when the section sets decimal', () => {
    expect(formatCompact(1_234_567, 2)).toBe('1.23M');
    expect(formatCompact(12.5, 2)).toBe('12.50');
  });
});

describe('money from minor units', () => {
  it('takes the number of minor-unit digits from the currency (ISO 4217)', () => {
    expect(currencyDigits('USD')).toBe(2);
    expect(currencyDigits('jpy')).toBe(0);
    expect(currencyDigits('KWD')).toBe(3);
    expect(minorToMajor(123_456, 'USD')).toBe(1234.56);
    expect(minorToMajor(123_456, 'JPY')).toBe(123_456);
    expect(minorToMajor(123_456, 'KWD')).toBeCloseTo(123.456);
  });

  it('formats cents as dollars with 0 or 2 decimals', () => {
    expect(formatMoney(123_456, 'USD', 0)).toBe('$1,235');
    expect(formatMoney(123_456, 'USD', 2)).toBe('$1,234.56');
    expect(formatMoney(-5_000, 'usd', 0)).toBe('-$50');
    expect(formatMoney(500_000, 'EUR', 0)).toBe('€5,000');
  });

  it('formats yen without dividing', () => {
    expect(formatMoney(123_456, 'JPY', 0)).toBe('¥123,456');
  });

  it('writes compact money on axes: $1.5K, $2.5M', () => {
    expect(formatMoney(150_000, 'USD', 0, true)).toBe('$1.5K');
    expect(formatMoney(250_000_000, 'USD', 0, true)).toBe('$2.5M');
    expect(formatMoney(50_000, 'USD', 0, true)).toBe('$500');
  });
});

describe('percentages of fractions', () => {
  it('shows a fraction as a percentage with the section decimals', () => {
    expect(formatPercent(0.0525, 0)).toBe('5%');
    expect(formatPercent(0.0525, 2)).toBe('5.25%');
    expect(formatPercent(-0.1, 0)).toBe('-10%');
  });

  it('rounds summary and cohort percentages to whole numbers', () => {
    expect(formatWholePercent(1.004)).toBe('100%');
    expect(formatWholePercent(0.755)).toBe('76%');
    expect(formatWholePercent(0.333)).toBe('33%');
  });
});

describe('formatValue by unit', () => {
  it.each([
    [{ unit: 'minor_units', currency: 'USD' }, 123_456, '$1,235'],
    [{ unit: 'minor_units', currency: 'USD', decimal: true }, 123_456, '$1,234.56'],
    [{ unit: 'minor_units', currency: 'USD', compact: true }, 123_456, '$1.2K'],
    [{ unit: 'fraction' }, 0.123, '12%'],
    [{ unit: 'fraction', decimal: true }, 0.123, '12.30%'],
    // Axis labels (compact) without trailing zeros.
    [{ unit: 'fraction', decimal: true, compact: true }, 0.01, '1%'],
    [{ unit: 'fraction', decimal: true, compact: true }, -0.015, '-1.5%'],
    [{ unit: 'ratio', decimal: true }, 2.5, '2.50'],
    [{ unit: 'count' }, 1_234, '1,234'],
    [{ unit: 'count', compact: true }, 1_234, '1.2K'],
    [{ unit: 'units', compact: true }, 5_000_000, '5M'],
    // A negative value that rounds to nothing is nothing, not '-$0' (a 1-cent FX adjustment).
    [{ unit: 'minor_units', currency: 'USD' }, -1, '$0'],
    [{ unit: 'minor_units', currency: 'USD', compact: true }, -1, '$0'],
    [{ unit: 'minor_units', currency: 'USD' }, -5_000, '-$50'],
    [{ unit: 'fraction' }, -0.001, '0%'],
    [{ unit: 'count', decimal: true }, -0.001, '0.00'],
  ] as const)('%o formats %d as %s', (format, value, text) => {
    expect(formatValue(value, format)).toBe(text);
  });

  it('writes an undefined value (a rate over 0) as a dash', () => {
    expect(formatValue(null, { unit: 'fraction' })).toBe(NO_VALUE);
    expect(formatValue(undefined, { unit: 'count' })).toBe(NO_VALUE);
  });

  it('reads an unknown unit as a plain count', () => {
    expect(valueUnitOf('fraction')).toBe('fraction');
    expect(valueUnitOf(null)).toBe('count');
    expect(valueUnitOf('parsecs')).toBe('count');
  });
});

describe('quarter labels', () => {
  it.each([
    ['2025-01-01', 'Q1 2025'],
    ['2025-04-01', 'Q2 2025'],
    ['2025-07-01', 'Q3 2025'],
    ['2025-10-01', 'Q4 2025'],
    ['2025-02-01', null],
    ['2025-12-01', null],
  ])('labels a period starting %s as %s', (day, label) => {
    expect(quarterLabel(day)).toBe(label);
  });
});
