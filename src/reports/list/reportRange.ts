import type { ReportPeriod } from '../../../models/reportRange';

const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

function monthLabel(year: number, month: number): string {
  return `${MONTH_ABBREVIATIONS[month - 1] ?? month} ${year}`;
}

/** A report's range as its card shows it: 'Apr 2025 – Mar 2026' (both months included). */
export function formatReportRange(period: ReportPeriod): string {
  return `${monthLabel(period.start_year, period.start_month)} – ${monthLabel(period.end_year, period.end_month)}`;
}
