import {
  COMPACT_NUMBER_SUFFIXES,
  NUMBER_DECIMALS_DEFAULT,
  NUMBER_DECIMALS_WHEN_SET,
  QUARTER_LABELS,
  QUARTER_START_MONTHS,
  SUMMARY_PERCENT_DECIMALS,
} from '../../../models/constants';
import { minorToMajor } from '../../../models/money';

/**
 * Number display of report sections (spec section 9): 0 decimals, or 2 where a section sets
 * `decimal`; axis labels compact with K, M, B, T; money arrives in minor units of the
 * section's currency and is shown in major units (the currency's ISO 4217 digits, models/money.ts);
 * fractions (0.05) are shown as percentages (5%).
 */

/** The product's texts are English; one locale keeps numbers identical everywhere. */
export const NUMBER_LOCALE = 'en-US';

/** What a section's `value` measures (server `ValueUnit`). */
export type ValueUnit = 'minor_units' | 'fraction' | 'ratio' | 'count' | 'units';

export interface ValueFormat {
  unit: ValueUnit;
  /** ISO 4217 code of the money (any case); needed for `minor_units`. */
  currency?: string | null;
  /** The section's `decimal` flag: 2 decimals instead of 0. */
  decimal?: boolean;
  /** Axis labels: thousands and above as K, M, B, T. */
  compact?: boolean;
}

/** Shown where a value is undefined (a rate over 0). */
export const NO_VALUE = '–';

export function decimalsOf(decimal: boolean | undefined): number {
  return decimal ? NUMBER_DECIMALS_WHEN_SET : NUMBER_DECIMALS_DEFAULT;
}

function currencyFormatter(currency: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return new Intl.NumberFormat(NUMBER_LOCALE, { signDisplay: 'negative', style: 'currency', currency: currency.toUpperCase(), ...options });
}

interface Compacted {
  scaled: number;
  suffix: string;
}

/**
 * Splits a number into a scaled value and its suffix ('' below a thousand). Rounding is done
 * at `fractionDigits` first, so 999,960 becomes 1M, never 1,000K.
 */
function compacted(value: number, fractionDigits: number): Compacted {
  const abs = Math.abs(value);
  const roundAt = (x: number) => Math.round(x * 10 ** fractionDigits) / 10 ** fractionDigits;
  let scaled = abs;
  let step = -1;
  while (step + 1 < COMPACT_NUMBER_SUFFIXES.length && roundAt(scaled) >= 1000) {
    scaled /= 1000;
    step += 1;
  }
  return { scaled: Math.sign(value) * scaled, suffix: step >= 0 ? (COMPACT_NUMBER_SUFFIXES[step] as string) : '' };
}

/**
 * Compact digits: with 0 decimals a compact label keeps one digit (1.5K, not 2K), with 2 it
 * keeps two; trailing zeros are dropped (2K, 1.25M).
 */
function compactFractionDigits(decimals: number): number {
  return Math.max(decimals, 1);
}

/** 1234 → '1.2K', 2_500_000 → '2.5M', 999 → '999' (plain numbers, no unit). */
export function formatCompact(value: number, decimals: number = NUMBER_DECIMALS_DEFAULT): string {
  const digits = compactFractionDigits(decimals);
  const { scaled, suffix } = compacted(value, digits);
  if (!suffix) return formatNumber(value, decimals);
  const text = new Intl.NumberFormat(NUMBER_LOCALE, { signDisplay: 'negative', maximumFractionDigits: digits }).format(scaled);
  return `${text}${suffix}`;
}

/** 1234.5 → '1,235' (0 decimals) or '1,234.50' (2). */
export function formatNumber(value: number, decimals: number = NUMBER_DECIMALS_DEFAULT): string {
  return new Intl.NumberFormat(NUMBER_LOCALE, { signDisplay: 'negative', minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value);
}

/** Money in minor units: 123456 USD cents → '$1,235' or '$1,234.56'; compact '$1.2K'. */
export function formatMoney(minorUnits: number, currency: string, decimals: number = NUMBER_DECIMALS_DEFAULT, compact = false): string {
  const major = minorToMajor(minorUnits, currency);
  if (compact) {
    const digits = compactFractionDigits(decimals);
    const { scaled, suffix } = compacted(major, digits);
    if (suffix) return `${currencyFormatter(currency, { minimumFractionDigits: 0, maximumFractionDigits: digits }).format(scaled)}${suffix}`;
  }
  return currencyFormatter(currency, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(major);
}

/**
 * A fraction as a percentage: 0.0525 → '5%' (0 decimals) or '5.25%' (2). `compact` (axis
 * labels) drops trailing zeros: 0.01 → '1%', 0.015 → '1.5%' with 2 decimals.
 */
export function formatPercent(fraction: number, decimals: number = NUMBER_DECIMALS_DEFAULT, compact = false): string {
  return new Intl.NumberFormat(NUMBER_LOCALE, { signDisplay: 'negative', style: 'percent', minimumFractionDigits: compact ? 0 : decimals, maximumFractionDigits: decimals }).format(fraction);
}

/** Summary and cohort tables: a fraction as a whole-number percentage (1.004 → '100%'). */
export function formatWholePercent(fraction: number): string {
  return formatPercent(fraction, SUMMARY_PERCENT_DECIMALS);
}

/** A section value in its unit; null (undefined value) is a dash. */
export function formatValue(value: number | null | undefined, format: ValueFormat): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NO_VALUE;
  const decimals = decimalsOf(format.decimal);
  switch (format.unit) {
    case 'minor_units':
      if (format.currency) return formatMoney(value, format.currency, decimals, format.compact);
      return format.compact ? formatCompact(value, decimals) : formatNumber(value, decimals);
    case 'fraction':
      return formatPercent(value, decimals, format.compact);
    case 'ratio':
    case 'count':
    case 'units':
      return format.compact ? formatCompact(value, decimals) : formatNumber(value, decimals);
  }
}

/** The server's `unit` (a free string in the API) as a known unit; unknown or null reads as a plain count. */
export function valueUnitOf(unit: string | null | undefined): ValueUnit {
  switch (unit) {
    case 'minor_units':
    case 'fraction':
    case 'ratio':
    case 'count':
    case 'units':
      return unit;
    default:
      return 'count';
  }
}

/** Zero-based month of a 'YYYY-MM-DD' day. */
function monthIndexOf(day: string): number {
  return Number(day.slice(5, 7)) - 1;
}

/**
 * The quarter label of a period starting on `firstDay`: 'Q1 2025' when the period starts in a
 * quarter's first month (0, 3, 6 or 9), else null.
 */
export function quarterLabel(firstDay: string): string | null {
  const index = (QUARTER_START_MONTHS as readonly number[]).indexOf(monthIndexOf(firstDay));
  if (index < 0) return null;
  return `${QUARTER_LABELS[index] as string} ${firstDay.slice(0, 4)}`;
}
