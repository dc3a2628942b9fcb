/**
 * The account settings: what they are, how the settings drawer's form is checked, and how the form
 * becomes the body of PUT /account_settings. The server checks the same rules with the same
 * messages (it also knows which currencies exist).
 */

export const SECONDS_PER_DAY = 86_400;
/** Ten years: the longest churn window. */
export const MAX_CHURN_WINDOW_DAYS = 3_650;
export const MAX_CHURN_WINDOW_SECONDS = MAX_CHURN_WINDOW_DAYS * SECONDS_PER_DAY;
/** The smallest rate the server keeps (ten decimal places) and the largest. */
export const MIN_EXCHANGE_RATE = 1e-10;
export const MAX_EXCHANGE_RATE = 1e9;

export const ACCOUNT_SETTINGS_FETCH_FAILURE = 'We could not fetch your account settings';
export const ACCOUNT_SETTINGS_SAVE_FAILURE = 'We could not save your changed, please try again';
export const SETTING_REQUIRED = 'Required';
export const CHURN_WINDOW_NOT_NUMBER = 'Value should be a number ex. 12';
export const CHURN_WINDOW_TOO_LONG = `The churn window is at most ${MAX_CHURN_WINDOW_DAYS} days (ten years)`;
export const CHURN_WINDOW_RANGE = `The churn window is a whole number of seconds from 0 to ${MAX_CHURN_WINDOW_SECONDS} (ten years)`;
export const RATE_NOT_NUMBER = 'Should be a number ex. 4.24';
export const RATE_NOT_POSITIVE = 'Should be a number greater than 0';
export const RATES_REQUIRED = 'At least one row of exchange rates must be provided';
export const BAD_SINCE = 'Should be a date (YYYY-MM-DD)';
export const DUPLICATE_SINCE = 'Each date may have one row of exchange rates only';
export const DUPLICATE_ISO = 'Each currency may have one rate per date only';

export type TakeExchangeRatesFrom = 'subscription_started_at' | 'beginning_of_month' | 'account';
export type CorrectionsHandling = 'change_original' | 'when_occurred';

export const EXCHANGE_RATE_SOURCES: readonly { value: TakeExchangeRatesFrom; label: string; description: string }[] = [
  {
    value: 'subscription_started_at',
    label: 'Rate of the day the payment started',
    description: 'Each payment keeps the exchange rate of the day its subscription period started, for every month it covers.',
  },
  {
    value: 'beginning_of_month',
    label: 'Rate of the first day of each month',
    description: 'Every month converts all payments at the exchange rate of that month’s first day, so exchange rate moves change MRR.',
  },
  {
    value: 'account',
    label: 'My own exchange rates',
    description: 'Payments convert at the rates you enter below, each row holding from its date until the next row.',
  },
];

export const CORRECTIONS_HANDLINGS: readonly { value: CorrectionsHandling; label: string; description: string }[] = [
  {
    value: 'change_original',
    label: 'Restate the original month',
    description: 'A corrected payment changes the months it covers, as if it had always been right.',
  },
  {
    value: 'when_occurred',
    label: 'Show the change when it happened',
    description: 'Months already reported keep their numbers; the difference shows in the month the correction was made.',
  },
];

export interface ExchangeRateRow {
  /** YYYY-MM-DD: the rates hold from this day until the next row's day. */
  since: string;
  /** One unit of the account currency buys `rate` units of `iso`. */
  rates: { iso: string; rate: number }[];
}

export interface AccountSettings {
  currency: string;
  anonymous_access_allowed: boolean;
  churn_window_seconds: number;
  take_exchange_rates_from: TakeExchangeRatesFrom;
  match_movements_by_currency: boolean;
  corrections_handling: CorrectionsHandling;
  used_currencies: string[];
  account_exchange_rates: ExchangeRateRow[];
}

export type WritableAccountSettings = Omit<AccountSettings, 'used_currencies'>;

/** The drawer's form: every field a string (what the inputs hold); '' = not chosen. */
export interface AccountSettingsForm {
  currency: string;
  access: 'anonymous' | 'login' | '';
  churn_window_days: string;
  take_exchange_rates_from: TakeExchangeRatesFrom | '';
  corrections_handling: CorrectionsHandling | '';
  match_movements_by_currency: 'true' | 'false' | '';
  exchange_rates: { since: string; rates: Record<string, string> }[];
}

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real day written YYYY-MM-DD, in the years the server keeps (1900 to 9999). */
export function isIsoDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1900 || year > 9999) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The currencies that need a rate: the account's used currencies except the (chosen) account currency. */
export function rateCurrencies(settings: Pick<AccountSettings, 'currency' | 'used_currencies'>, formCurrency: string): string[] {
  const accountCurrency = formCurrency || settings.currency;
  return settings.used_currencies.filter((iso) => iso !== accountCurrency);
}

/** A rate as the input shows it: plain decimals, never an exponent. */
function rateText(rate: number): string {
  const text = String(rate);
  if (!/e/i.test(text)) return text;
  return rate.toFixed(10).replace(/\.?0+$/, '');
}

export function accountSettingsToForm(settings: AccountSettings): AccountSettingsForm {
  return {
    currency: settings.currency,
    access: settings.anonymous_access_allowed ? 'anonymous' : 'login',
    churn_window_days: String(Math.round(settings.churn_window_seconds / SECONDS_PER_DAY)),
    take_exchange_rates_from: settings.take_exchange_rates_from,
    corrections_handling: settings.corrections_handling,
    match_movements_by_currency: settings.match_movements_by_currency ? 'true' : 'false',
    exchange_rates: settings.account_exchange_rates.map((row) => ({
      since: row.since,
      rates: Object.fromEntries(row.rates.map((rate) => [rate.iso, rateText(rate.rate)])),
    })),
  };
}

function rateError(text: string | undefined): string | null {
  const value = (text ?? '').trim();
  if (value === '') return SETTING_REQUIRED;
  if (!DECIMAL.test(value)) return RATE_NOT_NUMBER;
  if (Number(value) < MIN_EXCHANGE_RATE) return RATE_NOT_POSITIVE;
  return null;
}

/**
 * Every problem of the form, keyed by @mantine/form paths ('currency', 'exchange_rates.0.since',
 * 'exchange_rates.0.rates.EUR', ...). The rate rows are checked only in the account mode, the
 * only mode that shows (and uses) them; `currencies` are the ones each row needs a rate for.
 */
export function accountSettingsFormErrors(form: AccountSettingsForm, currencies: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  if (form.currency.trim() === '') errors.currency = SETTING_REQUIRED;
  if (form.access === '') errors.access = SETTING_REQUIRED;
  const days = form.churn_window_days.trim();
  if (days === '') errors.churn_window_days = SETTING_REQUIRED;
  else if (!DIGITS.test(days)) errors.churn_window_days = CHURN_WINDOW_NOT_NUMBER;
  else if (Number(days) > MAX_CHURN_WINDOW_DAYS) errors.churn_window_days = CHURN_WINDOW_TOO_LONG;
  if (form.take_exchange_rates_from === '') errors.take_exchange_rates_from = SETTING_REQUIRED;
  if (form.corrections_handling === '') errors.corrections_handling = SETTING_REQUIRED;
  if (form.match_movements_by_currency === '') errors.match_movements_by_currency = SETTING_REQUIRED;
  if (form.take_exchange_rates_from !== 'account') return errors;
  if (form.exchange_rates.length === 0) errors.exchange_rates = RATES_REQUIRED;
  const seen = new Set<string>();
  form.exchange_rates.forEach((row, k) => {
    const since = row.since.trim();
    if (since === '') errors[`exchange_rates.${k}.since`] = SETTING_REQUIRED;
    else if (!isIsoDay(since)) errors[`exchange_rates.${k}.since`] = BAD_SINCE;
    else if (seen.has(since)) errors[`exchange_rates.${k}.since`] = DUPLICATE_SINCE;
    seen.add(since);
    for (const iso of currencies) {
      const problem = rateError(row.rates[iso]);
      if (problem) errors[`exchange_rates.${k}.rates.${iso}`] = problem;
    }
  });
  return errors;
}

/**
 * The body of PUT /account_settings from a valid form: days times 86 400, the choices as
 * booleans, the rows oldest first and each row's rates by currency. A row keeps the rate of each of `currencies` and any other
 * rate it already held (a currency no longer used), never one for the account currency itself;
 * a rate that is not a number is left out.
 */
export function accountSettingsBody(form: AccountSettingsForm, currencies: readonly string[]): WritableAccountSettings {
  const currency = form.currency.trim();
  const rows = form.exchange_rates
    .map((row) => {
      const isos = [...new Set([...currencies, ...Object.keys(row.rates)])].filter((iso) => iso !== currency);
      const rates = isos
        .map((iso) => ({ iso, text: (row.rates[iso] ?? '').trim() }))
        .filter(({ text }) => DECIMAL.test(text) && Number(text) >= MIN_EXCHANGE_RATE)
        .map(({ iso, text }) => ({ iso, rate: Number(text) }))
        .sort((a, b) => a.iso.localeCompare(b.iso));
      return { since: row.since.trim(), rates };
    })
    .filter((row) => isIsoDay(row.since))
    .sort((a, b) => a.since.localeCompare(b.since));
  return {
    currency,
    anonymous_access_allowed: form.access === 'anonymous',
    churn_window_seconds: Number(form.churn_window_days.trim()) * SECONDS_PER_DAY,
    take_exchange_rates_from: form.take_exchange_rates_from || 'subscription_started_at',
    match_movements_by_currency: form.match_movements_by_currency === 'true',
    corrections_handling: form.corrections_handling || 'change_original',
    account_exchange_rates: rows,
  };
}
