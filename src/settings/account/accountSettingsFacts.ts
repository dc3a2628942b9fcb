import { CORRECTIONS_HANDLINGS, EXCHANGE_RATE_SOURCES, SECONDS_PER_DAY } from '../../../models/accountSettings';
import type { AccountSettings } from '../../../models/accountSettings';

export interface SettingFact {
  label: string;
  value: string;
}

/** '0 days', '1 day', '45 days' (the window is entered in whole days). */
export function churnWindowText(seconds: number): string {
  const days = Math.round(seconds / SECONDS_PER_DAY);
  return days === 1 ? '1 day' : `${days} days`;
}

export function exchangeRateSourceText(settings: Pick<AccountSettings, 'take_exchange_rates_from'>): string {
  return EXCHANGE_RATE_SOURCES.find((source) => source.value === settings.take_exchange_rates_from)?.label ?? settings.take_exchange_rates_from;
}

export function correctionsText(settings: Pick<AccountSettings, 'corrections_handling'>): string {
  return CORRECTIONS_HANDLINGS.find((handling) => handling.value === settings.corrections_handling)?.label ?? settings.corrections_handling;
}

/** What moves report numbers, in words: the settings a number is explained by. */
export function calculationFacts(settings: AccountSettings): SettingFact[] {
  return [
    { label: 'Currency', value: settings.currency },
    { label: 'Churn window', value: churnWindowText(settings.churn_window_seconds) },
    { label: 'Exchange rates', value: exchangeRateSourceText(settings) },
    { label: 'Corrections', value: correctionsText(settings) },
    { label: 'Match movements by currency', value: settings.match_movements_by_currency ? 'Yes' : 'No' },
  ];
}

/** Every setting in words (the Account card). */
export function accountFacts(settings: AccountSettings): SettingFact[] {
  const [currency, ...rest] = calculationFacts(settings);
  return [
    ...(currency ? [currency] : []),
    { label: 'Report access', value: settings.anonymous_access_allowed ? 'Anyone with the secret URL' : 'Login required' },
    ...rest,
  ];
}
