import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accountSettingsBody,
  accountSettingsFormErrors,
  accountSettingsToForm,
  BAD_SINCE,
  CHURN_WINDOW_NOT_NUMBER,
  CHURN_WINDOW_TOO_LONG,
  CORRECTIONS_HANDLINGS,
  DUPLICATE_SINCE,
  EXCHANGE_RATE_SOURCES,
  isIsoDay,
  MAX_CHURN_WINDOW_DAYS,
  RATE_NOT_NUMBER,
  RATE_NOT_POSITIVE,
  RATES_REQUIRED,
  rateCurrencies,
  SECONDS_PER_DAY,
  SETTING_REQUIRED,
  type AccountSettings,
  type AccountSettingsForm,
  type CorrectionsHandling,
  type TakeExchangeRatesFrom,
} from '../../models/accountSettings';

const settings: AccountSettings = {
  currency: 'USD',
  anonymous_access_allowed: false,
  churn_window_seconds: 30 * SECONDS_PER_DAY,
  take_exchange_rates_from: 'account',
  match_movements_by_currency: true,
  corrections_handling: 'when_occurred',
  used_currencies: ['EUR', 'PLN', 'USD'],
  account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 0.92 }, { iso: 'PLN', rate: 4.24 }] }],
};

const validForm = (): AccountSettingsForm => accountSettingsToForm(settings);

describe('accountSettingsToForm', () => {
  it('shows the churn window in days, the access and the match choice as the inputs hold them', () => {
    expect(accountSettingsToForm(settings)).toEqual({
      currency: 'USD',
      access: 'login',
      churn_window_days: '30',
      take_exchange_rates_from: 'account',
      corrections_handling: 'when_occurred',
      match_movements_by_currency: 'true',
      exchange_rates: [{ since: '2025-01-01', rates: { EUR: '0.92', PLN: '4.24' } }],
    });
    expect(accountSettingsToForm({ ...settings, anonymous_access_allowed: true, match_movements_by_currency: false }).access).toBe('anonymous');
  });

  it('writes a tiny rate with decimals, never an exponent the rate input would refuse', () => {
    const form = accountSettingsToForm({ ...settings, account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 2e-7 }] }] });
    expect(form.exchange_rates[0]?.rates.EUR).toBe('0.0000002');
  });
});

describe('rateCurrencies', () => {
  it('asks a rate for every used currency except the account currency chosen in the form', () => {
    expect(rateCurrencies(settings, 'USD')).toEqual(['EUR', 'PLN']);
    expect(rateCurrencies(settings, 'EUR')).toEqual(['PLN', 'USD']);
    expect(rateCurrencies(settings, '')).toEqual(['EUR', 'PLN']);
  });
});

describe('accountSettingsFormErrors', () => {
  it('has no errors for the stored settings', () => {
    expect(accountSettingsFormErrors(validForm(), ['EUR', 'PLN'])).toEqual({});
  });

  it('requires every choice', () => {
    const form: AccountSettingsForm = {
      currency: ' ',
      access: '',
      churn_window_days: '',
      take_exchange_rates_from: '',
      corrections_handling: '',
      match_movements_by_currency: '',
      exchange_rates: [],
    };
    expect(accountSettingsFormErrors(form, [])).toEqual({
      currency: SETTING_REQUIRED,
      access: SETTING_REQUIRED,
      churn_window_days: SETTING_REQUIRED,
      take_exchange_rates_from: SETTING_REQUIRED,
      corrections_handling: SETTING_REQUIRED,
      match_movements_by_currency: SETTING_REQUIRED,
    });
  });

  it.each([
    ['12', null],
    ['0', null],
    [` ${MAX_CHURN_WINDOW_DAYS} `, null],
    ['1.5', CHURN_WINDOW_NOT_NUMBER],
    ['-3', CHURN_WINDOW_NOT_NUMBER],
    ['12 days', CHURN_WINDOW_NOT_NUMBER],
    ['1e3', CHURN_WINDOW_NOT_NUMBER],
    [String(MAX_CHURN_WINDOW_DAYS + 1), CHURN_WINDOW_TOO_LONG],
  ])('churn window %j days: %s', (days, message) => {
    expect(accountSettingsFormErrors({ ...validForm(), churn_window_days: days }, ['EUR', 'PLN']).churn_window_days ?? null).toBe(message);
  });

  it.each([
    ['4.24', null],
    ['4', null],
    ['', SETTING_REQUIRED],
    ['4,24', RATE_NOT_NUMBER],
    ['.5', RATE_NOT_NUMBER],
    ['4.', RATE_NOT_NUMBER],
    ['-1', RATE_NOT_NUMBER],
    ['abc', RATE_NOT_NUMBER],
    ['0', RATE_NOT_POSITIVE],
    ['0.00', RATE_NOT_POSITIVE],
  ])('a rate of %j: %s', (rate, message) => {
    const form: AccountSettingsForm = { ...validForm(), exchange_rates: [{ since: '2025-01-01', rates: { EUR: rate, PLN: '4.24' } }] };
    expect(accountSettingsFormErrors(form, ['EUR', 'PLN'])['exchange_rates.0.rates.EUR'] ?? null).toBe(message);
  });

  it('requires a rate for a currency the row has no input value for yet', () => {
    const form: AccountSettingsForm = { ...validForm(), exchange_rates: [{ since: '2025-01-01', rates: { EUR: '1' } }] };
    expect(accountSettingsFormErrors(form, ['EUR', 'PLN'])).toEqual({ 'exchange_rates.0.rates.PLN': SETTING_REQUIRED });
  });

  it.each([
    ['', SETTING_REQUIRED],
    ['2025-02-30', BAD_SINCE],
    ['01/02/2025', BAD_SINCE],
    ['1899-12-31', BAD_SINCE],
  ])('a since of %j: %s', (since, message) => {
    const form: AccountSettingsForm = { ...validForm(), exchange_rates: [{ since, rates: { EUR: '1', PLN: '4' } }] };
    expect(accountSettingsFormErrors(form, ['EUR', 'PLN'])).toEqual({ 'exchange_rates.0.since': message });
  });

  it('refuses the same since twice, at the later row', () => {
    const row = { since: '2025-01-01', rates: { EUR: '1', PLN: '4' } };
    expect(accountSettingsFormErrors({ ...validForm(), exchange_rates: [row, { ...row }] }, ['EUR', 'PLN'])).toEqual({ 'exchange_rates.1.since': DUPLICATE_SINCE });
  });

  it('needs at least one row of rates in the account mode only', () => {
    expect(accountSettingsFormErrors({ ...validForm(), exchange_rates: [] }, ['EUR'])).toEqual({ exchange_rates: RATES_REQUIRED });
    expect(accountSettingsFormErrors({ ...validForm(), take_exchange_rates_from: 'beginning_of_month', exchange_rates: [] }, ['EUR'])).toEqual({});
  });

  it('does not check the hidden rate rows outside the account mode', () => {
    const form: AccountSettingsForm = { ...validForm(), take_exchange_rates_from: 'subscription_started_at', exchange_rates: [{ since: '', rates: { EUR: 'x' } }] };
    expect(accountSettingsFormErrors(form, ['EUR'])).toEqual({});
  });
});

describe('accountSettingsBody', () => {
  it('sends the churn window as days times 86 400 and the choices as booleans', () => {
    const body = accountSettingsBody({ ...validForm(), churn_window_days: '45', access: 'anonymous', match_movements_by_currency: 'false' }, ['EUR', 'PLN']);
    expect(body).toEqual({
      currency: 'USD',
      anonymous_access_allowed: true,
      churn_window_seconds: 45 * 86_400,
      take_exchange_rates_from: 'account',
      match_movements_by_currency: false,
      corrections_handling: 'when_occurred',
      account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 0.92 }, { iso: 'PLN', rate: 4.24 }] }],
    });
  });

  it('sends the rows oldest first, with no rate for the account currency itself', () => {
    const form: AccountSettingsForm = {
      ...validForm(),
      currency: 'EUR',
      exchange_rates: [
        { since: '2025-03-01', rates: { USD: '1.1', EUR: '1' } },
        { since: '2025-01-01', rates: { USD: '1.05' } },
      ],
    };
    expect(accountSettingsBody(form, ['USD']).account_exchange_rates).toEqual([
      { since: '2025-01-01', rates: [{ iso: 'USD', rate: 1.05 }] },
      { since: '2025-03-01', rates: [{ iso: 'USD', rate: 1.1 }] },
    ]);
  });

  it('keeps a rate of a currency that is no longer used', () => {
    const form: AccountSettingsForm = { ...validForm(), exchange_rates: [{ since: '2025-01-01', rates: { EUR: '0.9', GBP: '0.8' } }] };
    expect(accountSettingsBody(form, ['EUR']).account_exchange_rates).toEqual([{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 0.9 }, { iso: 'GBP', rate: 0.8 }] }]);
  });
});

describe('the choices offered', () => {
  it('offers each exchange-rate source and corrections handling once, with a label and description', () => {
    expect(EXCHANGE_RATE_SOURCES.map((source) => source.value)).toEqual(['subscription_started_at', 'beginning_of_month', 'account']);
    expect(CORRECTIONS_HANDLINGS.map((handling) => handling.value)).toEqual(['change_original', 'when_occurred']);
    for (const choice of [...EXCHANGE_RATE_SOURCES, ...CORRECTIONS_HANDLINGS]) {
      expect(choice.label.length).toBeGreaterThan(0);
      expect(choice.description.length).toBeGreaterThan(0);
    }
  });
});

describe('isIsoDay', () => {
  it.each([
    ['2024-02-29', true],
    ['2025-02-29', false],
    ['2025-13-01', false],
    ['9999-12-31', true],
    ['2025-1-01', false],
  ])('%s: %s', (text, expected) => {
    expect(isIsoDay(text)).toBe(expected);
  });
});

const ISO_CODES = ['EUR', 'GBP', 'PLN', 'USD', 'JPY', 'CHF'];

const settingsArbitrary: fc.Arbitrary<AccountSettings> = fc
  .record({
    currency: fc.constantFrom(...ISO_CODES),
    anonymous_access_allowed: fc.boolean(),
    days: fc.integer({ min: 0, max: MAX_CHURN_WINDOW_DAYS }),
    take_exchange_rates_from: fc.constantFrom<TakeExchangeRatesFrom>('subscription_started_at', 'beginning_of_month', 'account'),
    match_movements_by_currency: fc.boolean(),
    corrections_handling: fc.constantFrom<CorrectionsHandling>('change_original', 'when_occurred'),
    used: fc.subarray(ISO_CODES),
    days_since: fc.uniqueArray(fc.integer({ min: 0, max: 20_000 }), { maxLength: 4 }),
    rate_units: fc.array(fc.record({ units: fc.integer({ min: 1, max: 10_000_000 }), scale: fc.integer({ min: 0, max: 6 }) }), { minLength: 24, maxLength: 24 }),
  })
  .map((draw) => {
    const used = [...draw.used].sort();
    const isos = used.filter((iso) => iso !== draw.currency);
    const sinces = [...draw.days_since].sort((a, b) => a - b).map((day) => new Date(Date.UTC(1990, 0, 1) + day * 86_400_000).toISOString().slice(0, 10));
    let next = 0;
    const rate = (): number => {
      const { units, scale } = draw.rate_units[next++ % draw.rate_units.length]!;
      return units / 10 ** scale;
    };
    return {
      currency: draw.currency,
      anonymous_access_allowed: draw.anonymous_access_allowed,
      churn_window_seconds: draw.days * SECONDS_PER_DAY,
      take_exchange_rates_from: draw.take_exchange_rates_from,
      match_movements_by_currency: draw.match_movements_by_currency,
      corrections_handling: draw.corrections_handling,
      used_currencies: used,
      account_exchange_rates: sinces.map((since) => ({ since, rates: isos.map((iso) => ({ iso, rate: rate() })) })),
    };
  })
  .filter((candidate) => candidate.take_exchange_rates_from !== 'account' || candidate.account_exchange_rates.length > 0);

describe('form round trip', () => {
  it('gives back the writable settings of a whole-day churn window, and the form of stored settings is valid', () => {
    fc.assert(
      fc.property(settingsArbitrary, (stored) => {
        const { used_currencies: _used, ...writable } = stored;
        const form = accountSettingsToForm(stored);
        const currencies = rateCurrencies(stored, form.currency);
        expect(accountSettingsFormErrors(form, currencies)).toEqual({});
        expect(accountSettingsBody(form, currencies)).toEqual(writable);
      }),
      { numRuns: 300 },
    );
  });
});
