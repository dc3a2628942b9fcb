import dayjs from 'dayjs';
import { DEFAULT_REPORT_NAME_SUFFIXES } from '../../../models/constants';

/** The date a new report's default title starts with: its month, '2026-03' (dayjs format string). */
export const DEFAULT_REPORT_TITLE_DATE_FORMAT = 'YYYY-MM';

/** The suffix of a blank report's default title. */
export const BLANK_REPORT_NAME_SUFFIX = DEFAULT_REPORT_NAME_SUFFIXES[2];

/** A new report's default title: today's month and the template's suffix, '2026-03 business overview'. */
export function defaultReportTitle(suffix: string, today: Date = new Date()): string {
  return `${dayjs(today).format(DEFAULT_REPORT_TITLE_DATE_FORMAT)} ${suffix}`;
}
