import { describe, expect, it } from 'vitest';
import { createConverter, MissingExchangeRateError } from '../../../server/metrics/currency';
import { dayFromIso } from '../../../server/metrics/days';
import { resolveMetricsSettings } from '../../../server/metrics/settings';
import { business, ecb, movementsAt, series, type PaymentSpec } from './support';

// Real ECB reference rates (units per euro).
const RATES = ecb([
  ['2023-12-29', { USD: 1.105, JPY: 156.33, PLN: 4.3395 }],
  ['2024-01-12', { USD: 1.0942, JPY: 159.17, PLN: 4.3628 }],
  ['2024-01-15', { USD: 1.0945, JPY: 159.67, PLN: 4.3625 }],
  ['2024-02-01', { USD: 1.0814, JPY: 158.96, PLN: 4.3373 }],
  ['2024-02-15', { USD: 1.0743, JPY: 161.26, PLN: 4.344 }],
  ['2024-03-01', { USD: 1.0813, JPY: 162.82, PLN: 4.318 }],
  ['2024-03-15', { USD: 1.0892, JPY: 162.03, PLN: 4.2953 }],
]);

const euroQuarter: PaymentSpec[] = [{ customer: 'de', start: '2024-01-15', months: 3, total: 30_000, currency: 'EUR' }];

describe('conversion into the report currency (METRICS.md section 5)', () => {
  it('subscription_started_at (default): a payment converts at its start day’s rate for its whole duration', () => {
    const result = series(business({ payments: euroQuarter, rates: RATES }), { from: '2024-01', to: '2024-03' });
    expect(result.settings.takeExchangeRatesFrom).toBe('subscription_started_at');
    // 100.00 EUR a month x 1.0945 USD/EUR on 2024-01-15 = 109.45 USD, in January, February and March.
    expect(result.total.mrr).toEqual([10_945, 10_945, 10_945]);
  });

  it('beginning_of_month: each month’s MRR converts at the rate of that month’s first day (the latest published on or before it)', () => {
    const result = series(business({ account: { take_exchange_rates_from: 'beginning_of_month' }, payments: euroQuarter, rates: RATES }), { from: '2024-01', to: '2024-03' });
    // Jan 1 has no rate: Dec 29's 1.1050 applies. Feb 1: 1.0814. Mar 1: 1.0813.
    expect(result.total.mrr).toEqual([11_050, 10_814, 10_813]);
  });

  it('account: one unit of the account currency buys `rate` units of `iso` from `since` on, measured on the period’s day', () => {
    const snapshot = business({
      account: { take_exchange_rates_from: 'account' },
      payments: euroQuarter,
      rates: RATES,
      accountRates: [
        { since: '2024-01-01', iso: 'EUR', rate: 0.92 },
        { since: '2024-03-10', iso: 'EUR', rate: 0.9 },
      ],
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-03' });
    // 100.00 EUR / 0.92 = 108.6957 USD -> 10,870 cents; from Mar 10 on: / 0.90 = 11,111.11 -> 11,111.
    expect(result.total.mrr).toEqual([10_870, 10_870, 11_111]);
  });

  it('account: a currency missing from the table is bridged to the account currency through the ECB rates of the day', () => {
    const snapshot = business({
      account: { take_exchange_rates_from: 'account' },
      payments: [{ customer: 'pl', start: '2024-02-01', total: 100_000, currency: 'PLN' }],
      rates: RATES,
      accountRates: [{ since: '2024-01-01', iso: 'EUR', rate: 0.92 }],
    });
    // On Feb 29 the latest ECB rates are Feb 15's: 1,000.00 PLN = 1000 / 4.344 EUR = 230.20 EUR x 1.0743 = 247.31 USD.
    expect(series(snapshot, { from: '2024-02', to: '2024-02' }).total.mrr).toEqual([24_731]);
  });

  it('crosses rates through EUR and respects minor-unit digits (PLN -> USD, USD -> JPY)', () => {
    const snapshot = business({
      payments: [
        { customer: 'pl', start: '2024-01-15', total: 10_000, currency: 'PLN' },
        { customer: 'us', start: '2024-01-15', total: 1_000, currency: 'USD' },
      ],
      rates: RATES,
    });
    // 100.00 PLN x 1.0945 / 4.3625 = 25.0888 USD -> 2,509 cents, plus 10.00 USD.
    expect(series(snapshot, { from: '2024-01', to: '2024-01' }).total.mrr).toEqual([2_509 + 1_000]);
    // In yen (0 decimals): 10.00 USD / 1.0945 x 159.67 = 1,458.84 JPY -> 1,459; 100.00 PLN / 4.3625 x 159.67 = 3,660.06 -> 3,660.
    expect(series(snapshot, { from: '2024-01', to: '2024-01', reportSettings: { currency: 'JPY' } }).total.mrr).toEqual([1_459 + 3_660]);
  });

  it('uses the latest earlier rate on a day without one (a payment started on a Saturday)', () => {
    const snapshot = business({ payments: [{ customer: 'de', start: '2024-01-13', total: 10_000, currency: 'EUR' }], rates: RATES });
    expect(series(snapshot, { from: '2024-01', to: '2024-01' }).total.mrr).toEqual([10_942]);
  });

  it('takes the report setting’s currency over the account’s', () => {
    const snapshot = business({ payments: [{ customer: 'us', start: '2024-01-15', total: 10_945 }], rates: RATES });
    const result = series(snapshot, { from: '2024-01', to: '2024-01', reportSettings: { currency: 'EUR' } });
    expect(result.settings.reportCurrency).toBe('EUR');
    expect(result.total.mrr).toEqual([10_000]);
  });

  it('rounds each converted payment half to even', () => {
    const rates = ecb([['2024-01-01', { USD: 1.25 }]]);
    const snapshot = business({
      payments: [
        { customer: 'a', start: '2024-01-10', total: 2, currency: 'EUR' }, // 2.5 -> 2
        { customer: 'b', start: '2024-01-10', total: 6, currency: 'EUR' }, // 7.5 -> 8
        { customer: 'c', start: '2024-01-10', total: 5, currency: 'EUR' }, // 6.25 -> 6
      ],
      rates,
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-01', keepMatrix: true });
    expect(result.total.mrr).toEqual([16]);
    const position = result.timeline.rangeStart;
    const perCustomer = ['a', 'b', 'c'].map((id) => result.matrix!.value[snapshot.customers.index.get(id)! * result.matrix!.periods + position]);
    expect(perCustomer).toEqual([2, 8, 6]);
  });

  it('fails loudly, naming the currency, when no rate exists', () => {
    const snapshot = business({ payments: [{ customer: 'uk', start: '2024-01-15', total: 10_000, currency: 'GBP' }], rates: RATES });
    expect(() => series(snapshot, { from: '2024-01', to: '2024-01' })).toThrow(MissingExchangeRateError);
    expect(() => series(snapshot, { from: '2024-01', to: '2024-01' })).toThrow(/GBP/);
  });

  it('converts at exactly 1 when the payment is in the report currency, with or without rates', () => {
    const snapshot = business({ payments: [{ customer: 'us', start: '2024-01-15', total: 12_345 }] });
    const converter = createConverter(snapshot, resolveMetricsSettings(snapshot.account));
    expect(converter.factor(snapshot.currencies.index.get('USD')!, dayFromIso('2024-01-15'))).toBe(1);
    expect(series(snapshot, { from: '2024-01', to: '2024-01' }).total.mrr).toEqual([12_345]);
  });
});

describe('match_movements_by_currency', () => {
  const euroMonthly = (amounts: number[]): PaymentSpec[] =>
    amounts.map((total, k) => ({ customer: 'de', start: `2024-0${k + 1}-15`, total, currency: 'EUR' }));

  it('on: a customer whose currency is the same at both ends moves by (orig_after - orig_before) x rate_after, the rest is fx_adjustment', () => {
    const snapshot = business({ payments: euroMonthly([10_000, 10_000, 12_000]), rates: RATES });
    const result = series(snapshot, { from: '2024-01', to: '2024-03' });
    // Started Jan 15 (1.0945), Feb 15 (1.0743), Mar 15 (1.0892).
    expect(result.total.mrr).toEqual([10_945, 10_743, 13_070]);
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 0, contraction: 0, fx: -202 });
    // 2,000 EUR cents x (13,070 / 12,000) = 2,178.33 -> 2,178 expansion; 13,070 - 10,743 - 2,178 = 149 fx.
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 2_178, fx: 149 });
  });

  it('on, beginning_of_month: unchanged euro MRR shows only as fx_adjustment', () => {
    const snapshot = business({ account: { take_exchange_rates_from: 'beginning_of_month' }, payments: euroQuarter, rates: RATES });
    const result = series(snapshot, { from: '2024-01', to: '2024-03' });
    expect(result.total.fxAdjustment).toEqual([0, 10_814 - 11_050, 10_813 - 10_814]);
    expect(result.total.contraction).toEqual([0, 0, 0]);
  });

  it('off: movements compare converted values and there is no fx series', () => {
    const snapshot = business({ account: { match_movements_by_currency: false }, payments: euroMonthly([10_000, 10_000, 12_000]), rates: RATES });
    const result = series(snapshot, { from: '2024-01', to: '2024-03' });
    expect(result.total.fxAdjustment).toBeNull();
    expect(movementsAt(result, '2024-02')).toMatchObject({ contraction: 202, expansion: 0, fx: null });
    expect(movementsAt(result, '2024-03')).toMatchObject({ expansion: 13_070 - 10_743 });
  });

  it('on: a customer who changes currency is compared in converted values, with no fx', () => {
    const snapshot = business({
      payments: [
        { customer: 'x', start: '2024-01-15', total: 10_000, currency: 'EUR' },
        { customer: 'x', start: '2024-02-15', total: 11_000, currency: 'USD' },
      ],
      rates: RATES,
    });
    const result = series(snapshot, { from: '2024-01', to: '2024-02' });
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 55, fx: 0 });
  });

  it('on: a customer paying in the report currency never has fx', () => {
    const snapshot = business({ payments: [{ customer: 'us', start: '2024-01-15', total: 10_000 }, { customer: 'us', start: '2024-02-15', total: 12_000 }], rates: RATES });
    const result = series(snapshot, { from: '2024-01', to: '2024-02' });
    expect(movementsAt(result, '2024-02')).toMatchObject({ expansion: 2_000, fx: 0 });
  });
});
