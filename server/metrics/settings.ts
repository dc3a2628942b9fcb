import type { CorrectionsHandling, TakeExchangeRatesFrom } from '../db/schema';
import type { SnapshotAccount } from './snapshot/columns';

/**
 * Every setting that changes a number (METRICS.md sections 1, 2, 5 and 6), resolved from the
 * account settings and a report's settings. Each report shows these, so a number can always be
 * explained.
 */
export interface MetricsSettings {
  /** ISO code the report is computed in: the report setting, else the account currency. */
  readonly reportCurrency: string;
  readonly accountCurrency: string;
  /** Gaps in a customer's paid coverage up to this many days are bridged (0 = none). */
  readonly churnWindowDays: number;
  readonly takeExchangeRatesFrom: TakeExchangeRatesFrom;
  readonly matchMovementsByCurrency: boolean;
  readonly correctionsHandling: CorrectionsHandling;
  readonly includeMeteredInMrr: boolean;
  readonly subtractForeverDiscount: boolean;
  readonly subtractFiniteDiscount: boolean;
}

/** The report_settings columns that change numbers (null or missing = the default). */
export interface ReportSettingsInput {
  currency?: string | null;
  subtract_forever_discount_from_mrr?: boolean | null;
  subtract_finite_discount_from_mrr?: boolean | null;
}

const SECONDS_PER_DAY = 86_400;

export function resolveMetricsSettings(account: SnapshotAccount, report: ReportSettingsInput = {}): MetricsSettings {
  return {
    reportCurrency: report.currency ?? account.currency,
    accountCurrency: account.currency,
    churnWindowDays: Math.max(0, Math.floor(account.churnWindowSeconds / SECONDS_PER_DAY)),
    takeExchangeRatesFrom: account.takeExchangeRatesFrom,
    matchMovementsByCurrency: account.matchMovementsByCurrency,
    correctionsHandling: account.correctionsHandling,
    includeMeteredInMrr: account.includeMeteredInMrr,
    subtractForeverDiscount: report.subtract_forever_discount_from_mrr ?? true,
    subtractFiniteDiscount: report.subtract_finite_discount_from_mrr ?? true,
  };
}
