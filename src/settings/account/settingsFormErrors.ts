import type { WritableAccountSettings } from '../../../models/accountSettings';
import { apiErrorText } from '../../api/errors';
import type { ApiErrorItem } from '../../api/errors';

/** The form field of each top-level field of PUT /account_settings. */
const FIELD_OF_POINTER: Record<string, string> = {
  currency: 'currency',
  anonymous_access_allowed: 'access',
  churn_window_seconds: 'churn_window_days',
  take_exchange_rates_from: 'take_exchange_rates_from',
  corrections_handling: 'corrections_handling',
  match_movements_by_currency: 'match_movements_by_currency',
  account_exchange_rates: 'exchange_rates',
};

/**
 * The @mantine/form path of a 422's JSON pointer into the body that was sent:
 * '/churn_window_seconds' → 'churn_window_days', '/account_exchange_rates/0/since' →
 * 'exchange_rates.0.since', '/account_exchange_rates/0/rates/1/rate' → 'exchange_rates.0.rates.EUR'
 * (the currency of that rate in the body). Null when the pointer names no field of the form.
 *
 * The body's rows are sorted by date and may drop rows, so a row's index is found by its date in
 * `formSinces` (the form's rows' dates).
 */
export function formPathOfPointer(pointer: string, body: WritableAccountSettings, formSinces: readonly string[]): string | null {
  const [field, rowText, part, rateText] = pointer.split('/').filter(Boolean);
  if (field === undefined) return null;
  const top = FIELD_OF_POINTER[field];
  if (!top) return null;
  if (field !== 'account_exchange_rates' || rowText === undefined) return top;
  const row = body.account_exchange_rates[Number(rowText)];
  const formRow = row ? formSinces.indexOf(row.since) : -1;
  if (!row || formRow < 0) return top;
  if (part === 'since') return `exchange_rates.${formRow}.since`;
  if (part === 'rates' && rateText !== undefined) {
    const iso = row.rates[Number(rateText)]?.iso;
    if (iso) return `exchange_rates.${formRow}.rates.${iso}`;
  }
  return top;
}

/** A refusal's errors as form errors (the first per field); errors pointing nowhere in the form are left out. */
export function formErrorsOfRefusal(errors: readonly ApiErrorItem[], body: WritableAccountSettings, formSinces: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of errors) {
    const pointer = item.source?.pointer;
    const path = pointer ? formPathOfPointer(pointer, body, formSinces) : null;
    if (path && !(path in result)) result[path] = apiErrorText(item);
  }
  return result;
}
