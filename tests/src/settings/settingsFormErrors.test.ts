import { describe, expect, it } from 'vitest';
import type { WritableAccountSettings } from '../../../models/accountSettings';
import { parseSinceInput } from '../../../src/settings/account/ExchangeRatesTable';
import { formErrorsOfRefusal, formPathOfPointer } from '../../../src/settings/account/settingsFormErrors';

const body: WritableAccountSettings = {
  currency: 'USD',
  anonymous_access_allowed: false,
  churn_window_seconds: 0,
  take_exchange_rates_from: 'account',
  match_movements_by_currency: true,
  corrections_handling: 'change_original',
  // Sent oldest first: the form's second row is the body's first.
  account_exchange_rates: [
    { since: '2024-01-01', rates: [{ iso: 'EUR', rate: 0.9 }, { iso: 'PLN', rate: 4 }] },
    { since: '2024-06-01', rates: [{ iso: 'EUR', rate: 0.95 }] },
  ],
};
const formSinces = ['2024-06-01', '2024-01-01'];

describe('a refused save at the fields of the drawer', () => {
  it.each([
    ['/currency', 'currency'],
    ['/anonymous_access_allowed', 'access'],
    ['/churn_window_seconds', 'churn_window_days'],
    ['/take_exchange_rates_from', 'take_exchange_rates_from'],
    ['/corrections_handling', 'corrections_handling'],
    ['/match_movements_by_currency', 'match_movements_by_currency'],
    ['/account_exchange_rates', 'exchange_rates'],
    ['/account_exchange_rates/0/since', 'exchange_rates.1.since'],
    ['/account_exchange_rates/0/rates/1/rate', 'exchange_rates.1.rates.PLN'],
    ['/account_exchange_rates/1/rates/0/iso', 'exchange_rates.0.rates.EUR'],
    ['/account_exchange_rates/7/since', 'exchange_rates'],
    ['/used_currencies', null],
    ['', null],
  ])('puts %s at %s', (pointer, path) => {
    expect(formPathOfPointer(pointer, body, formSinces)).toBe(path);
  });

  it('keeps the first message of a field and leaves out errors without a field', () => {
    expect(
      formErrorsOfRefusal(
        [
          { source: { pointer: '/churn_window_seconds' }, detail: 'first' },
          { source: { pointer: '/churn_window_seconds' }, detail: 'second' },
          { detail: 'nowhere' },
        ],
        body,
        formSinces,
      ),
    ).toEqual({ churn_window_days: 'first' });
  });
});

describe('the since date as typed', () => {
  it.each([
    ['01-02-2024', '2024-02-01'],
    ['1.2.2024', '2024-02-01'],
    ['2024-02-01', '2024-02-01'],
    ['31-02-2024', null],
    ['2024', null],
    ['', null],
  ])('%s is %s', (typed, day) => {
    expect(parseSinceInput(typed)).toBe(day);
  });
});
