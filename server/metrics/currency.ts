import type { TakeExchangeRatesFrom } from '../db/schema';
import { firstDayOfMonth, isoFromDay, monthOfDay } from './days';
import type { MetricsSettings } from './settings';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * Conversion into the report currency (METRICS.md section 5). A converter answers "how many
 * minor units of the report currency is one minor unit of currency k worth, at the rates of
 * day d", and which day's rates apply to a value:
 * - subscription_started_at (default): the payment's start day, for its whole duration;
 * - beginning_of_month: the first day of the month in which the value is measured;
 * - account: the day the value is measured, from the account's manual table (one unit of the
 *   account currency buys `rate` units of `iso` from `since` on; a currency missing from the
 *   table is bridged to the account currency through the ECB rates of the same day).
 * ECB rates are units per euro, so every cross rate goes through EUR.
 */

export class MissingExchangeRateError extends Error {
  override name = 'MissingExchangeRateError';
  constructor(
    readonly currency: string,
    readonly day: string,
    source: string,
  ) {
    super(`no ${source} exchange rate for ${currency} on or before ${day}`);
  }
}

export interface Converter {
  readonly mode: TakeExchangeRatesFrom;
  /** Index of the report currency in the snapshot's currencies. */
  readonly reportCurrency: number;
  /** Minor units of the report currency per minor unit of `currency`, at the rates of `day`. */
  factor(currency: number, day: number): number;
  /** The day whose rates convert MRR measured on `measureDay` of a payment that started on `startDay`. */
  rateDay(startDay: number, measureDay: number): number;
}

const POWERS_OF_TEN = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4, 1e5, 1e6];

function powerOfTen(exponent: number): number {
  return POWERS_OF_TEN[exponent + 6] ?? Math.pow(10, exponent);
}

export function createConverter(snapshot: AccountSnapshot, settings: MetricsSettings): Converter {
  const { currencies, rates, accountRates } = snapshot;
  const reportCurrency = currencies.index.get(settings.reportCurrency);
  const mode = settings.takeExchangeRatesFrom;
  const eur = currencies.index.get('EUR') ?? -1;
  const accountCurrency = currencies.index.get(settings.accountCurrency) ?? -1;
  const { digits } = currencies;

  /** Units of currency k per euro on `day` (NaN when the ECB never published it). */
  const perEur = (k: number, day: number): number => {
    if (k === eur) return 1;
    const series = rates.perEur[k];
    if (!series || rates.length === 0) return NaN;
    const offset = day - rates.baseDay;
    return series[offset <= 0 ? 0 : offset >= rates.length ? rates.length - 1 : offset] as number;
  };

  // The account table per currency: [first row, end) in the sorted rows.
  const tableStart = new Int32Array(currencies.values.length).fill(-1);
  const tableEnd = new Int32Array(currencies.values.length).fill(-1);
  for (let i = 0; i < accountRates.count; i++) {
    const k = accountRates.currency[i] as number;
    if ((tableStart[k] as number) < 0) tableStart[k] = i;
    tableEnd[k] = i + 1;
  }
  /** Units of currency k per unit of the account currency on `day`. */
  const perAccountUnit = (k: number, day: number): number => {
    if (k === accountCurrency) return 1;
    const first = tableStart[k] as number;
    if (first >= 0) {
      let lo = first;
      let hi = (tableEnd[k] as number) - 1;
      // The last row with since <= day; before the first row, the first row.
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((accountRates.sinceDay[mid] as number) <= day) lo = mid;
        else hi = mid - 1;
      }
      return accountRates.rate[lo] as number;
    }
    return perEur(k, day) / perEur(accountCurrency, day);
  };

  const perReference = mode === 'account' ? perAccountUnit : perEur;
  const source = mode === 'account' ? 'account or ECB' : 'ECB';

  const computeFactor = (k: number, day: number): number => {
    const from = perReference(k, day);
    const to = perReference(reportCurrency as number, day);
    if (!(from > 0)) throw new MissingExchangeRateError(currencies.values[k] ?? '?', isoFromDay(day), source);
    if (!(to > 0)) throw new MissingExchangeRateError(settings.reportCurrency, isoFromDay(day), source);
    return (to / from) * powerOfTen((digits[reportCurrency as number] as number) - (digits[k] as number));
  };

  // Factors per (currency, day) are asked for a million times with a few thousand distinct
  // days: remember them, densely over the days the ECB table spans (0 = not computed yet).
  const cacheBase = rates.baseDay;
  const cacheLength = rates.length;
  const cache: (Float64Array | undefined)[] = [];
  const factor = (k: number, day: number): number => {
    if (k === reportCurrency) return 1;
    const offset = day - cacheBase;
    if (offset < 0 || offset >= cacheLength) return computeFactor(k, day);
    let table = cache[k];
    if (table === undefined) {
      table = new Float64Array(cacheLength);
      cache[k] = table;
    }
    let value = table[offset] as number;
    if (value === 0) {
      value = computeFactor(k, day);
      table[offset] = value;
    }
    return value;
  };

  if (reportCurrency === undefined) {
    return {
      mode,
      reportCurrency: -1,
      factor: () => {
        throw new MissingExchangeRateError(settings.reportCurrency, '-', source);
      },
      rateDay: (startDay) => startDay,
    };
  }

  const rateDay =
    mode === 'subscription_started_at'
      ? (startDay: number) => startDay
      : mode === 'beginning_of_month'
        ? (_startDay: number, measureDay: number) => firstDayOfMonth(monthOfDay(measureDay))
        : (_startDay: number, measureDay: number) => measureDay;

  return { mode, reportCurrency, factor, rateDay };
}
