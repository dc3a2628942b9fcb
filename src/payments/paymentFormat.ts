import { currencyDigits } from '../../models/money';
import { formatMoney, NUMBER_LOCALE } from '../reports/charts/format';

/** What an open-ended payment shows for its end, duration and total. */
export const ONGOING = 'ongoing';

const DURATION_FORMAT = new Intl.NumberFormat(NUMBER_LOCALE, { maximumFractionDigits: 2 });

/** Months of a payment: '3', '0.49' for a 15-day period (at most 2 decimals), 'ongoing' when open-ended. */
export function formatDuration(durationInMonths: number | null): string {
  return durationInMonths === null ? ONGOING : DURATION_FORMAT.format(durationInMonths);
}

/** Minor units in the payment's currency with its minor-unit digits ('$1,200.50', '¥1,200'); 'ongoing' for null. */
export function formatPaymentMoney(minorUnits: number | null, currency: string): string {
  return minorUnits === null ? ONGOING : formatMoney(minorUnits, currency, currencyDigits(currency));
}

/** A payment's end ('YYYY-MM-DD'), 'ongoing' when open-ended. */
export function formatEnd(endedAt: string | null): string {
  return endedAt ?? ONGOING;
}
