import { REPORT_RANGE_MAX_MONTHS, REPORT_RANGE_MIN_MONTHS } from './constants';

/**
 * A report's range (the spec's period): first and last month shown, both included. The four
 * rules of the range picker, checked in this order, with the spec's messages verbatim; the
 * server checks the same on `PUT /business_reports/{id}`.
 */
export interface ReportPeriod {
  start_year: number;
  /** 1-12. */
  start_month: number;
  end_year: number;
  end_month: number;
}

export const RANGE_BEYOND_CURRENT_MONTH = 'Can not extend range beyound current date.';
export const RANGE_FROM_AFTER_TO = 'From date can not be ahead of the To date';
export const RANGE_TOO_SHORT = 'Total report range should be at least 3 months';
export const RANGE_TOO_LONG = 'Maximum range report can show is 6 years';

/** Months since year 0 (a month index that orders and subtracts). */
export function monthIndex(year: number, month: number): number {
  return year * 12 + (month - 1);
}

/** Months a period shows, both ends included. */
export function periodMonths(period: ReportPeriod): number {
  return monthIndex(period.end_year, period.end_month) - monthIndex(period.start_year, period.start_month) + 1;
}

/** The first message `period` breaks, with today's month as the current one; null when it is a valid range. */
export function rangeError(period: ReportPeriod, today: { year: number; month: number }): string | null {
  if (monthIndex(period.end_year, period.end_month) > monthIndex(today.year, today.month)) return RANGE_BEYOND_CURRENT_MONTH;
  if (monthIndex(period.start_year, period.start_month) > monthIndex(period.end_year, period.end_month)) return RANGE_FROM_AFTER_TO;
  const months = periodMonths(period);
  if (months < REPORT_RANGE_MIN_MONTHS) return RANGE_TOO_SHORT;
  if (months > REPORT_RANGE_MAX_MONTHS) return RANGE_TOO_LONG;
  return null;
}

/** The period of `months` months ending with today's month (a new report's default range). */
export function periodEndingIn(today: { year: number; month: number }, months: number): ReportPeriod {
  const start = monthIndex(today.year, today.month) - (months - 1);
  return { start_year: Math.floor(start / 12), start_month: (start % 12) + 1, end_year: today.year, end_month: today.month };
}

/** Short month names, January first: how ranges read ('Apr 2025 – Mar 2026'). */
export const MONTH_LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A range as the report card and the range picker show it: 'Apr 2025 – Mar 2026' (both months included). */
export function periodLabel(period: ReportPeriod): string {
  return `${MONTH_LABELS[period.start_month - 1]} ${period.start_year} – ${MONTH_LABELS[period.end_month - 1]} ${period.end_year}`;
}

/** Whether the period shows today's month (auto refresh only makes sense then). */
export function showsCurrentMonth(period: ReportPeriod, today: { year: number; month: number }): boolean {
  return monthIndex(period.end_year, period.end_month) >= monthIndex(today.year, today.month);
}
