/**
 * Calendar days as integers: day 0 is 1970-01-01 (UTC), day 1 the next day. Months are
 * absolute month numbers (`year * 12 + month0`, month0 0-11). Everything here is exact
 * integer arithmetic on the proleptic Gregorian calendar: no Date, no time zone, no clock.
 */

/** A day earlier than any real one (a version in force "since always"). */
export const DAY_NEVER_BEFORE = -1_000_000_000;
/** A day later than any real one (a version in force "until further notice"). */
export const DAY_NEVER_AFTER = 1_000_000_000;

const MS_PER_DAY = 86_400_000;

/** Day number of a civil date; month 1-12 (Howard Hinnant's days_from_civil). */
export function dayFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = (month + 9) % 12;
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export interface CivilDate {
  year: number;
  /** 1-12. */
  month: number;
  /** 1-31. */
  day: number;
}

/** The civil date of a day number (Howard Hinnant's civil_from_days). */
export function civilFromDay(dayNumber: number): CivilDate {
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month; month 1-12. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (MONTH_LENGTHS[month - 1] as number);
}

const ZERO = 48;

function digit(text: string, index: number): number {
  const value = text.charCodeAt(index) - ZERO;
  return value >= 0 && value <= 9 ? value : NaN;
}

/** 'YYYY-MM-DD' (a longer ISO string such as '2024-01-31T00:00:00Z' is cut to its date) to a day number. */
export function dayFromIso(text: string): number {
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3);
  const month = digit(text, 5) * 10 + digit(text, 6);
  const day = digit(text, 8) * 10 + digit(text, 9);
  if (text.length < 10 || text[4] !== '-' || text[7] !== '-' || !(month >= 1 && month <= 12) || !(day >= 1 && day <= daysInMonth(year, month))) {
    throw new RangeError(`not a calendar day 'YYYY-MM-DD': '${text}'`);
  }
  return dayFromCivil(year, month, day);
}

/** The UTC day of an instant (a Date or an ISO timestamp string). */
export function dayFromInstant(instant: Date | string): number {
  const ms = instant instanceof Date ? instant.getTime() : Date.parse(instant);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: '${String(instant)}'`);
  return Math.floor(ms / MS_PER_DAY);
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** Day number to 'YYYY-MM-DD'. */
export function isoFromDay(dayNumber: number): string {
  const { year, month, day } = civilFromDay(dayNumber);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

/** Absolute month (`year * 12 + month0`) of a day. */
export function monthOfDay(dayNumber: number): number {
  const { year, month } = civilFromDay(dayNumber);
  return year * 12 + month - 1;
}

/** First day of an absolute month. */
export function firstDayOfMonth(absoluteMonth: number): number {
  const year = Math.floor(absoluteMonth / 12);
  return dayFromCivil(year, absoluteMonth - year * 12 + 1, 1);
}

/** Last day of an absolute month. */
export function lastDayOfAbsoluteMonth(absoluteMonthNumber: number): number {
  return firstDayOfMonth(absoluteMonthNumber + 1) - 1;
}

/** Absolute month of (year, month 1-12). */
export function absoluteMonth(year: number, month: number): number {
  return year * 12 + month - 1;
}

/**
 * `months` calendar months after a day, the day clamped to the target month's length
 * (Jan 31 + 1 month = Feb 28 or 29), as METRICS.md and the payments CHECK define it.
 */
export function addMonths(dayNumber: number, months: number): number {
  const { year, month, day } = civilFromDay(dayNumber);
  const target = year * 12 + month - 1 + months;
  const targetYear = Math.floor(target / 12);
  const targetMonth = target - targetYear * 12 + 1;
  return dayFromCivil(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)));
}

/** Monday = 0 ... Sunday = 6. */
export function weekdayOfDay(dayNumber: number): number {
  return (((dayNumber + 3) % 7) + 7) % 7;
}

/** Days in the average month (365 / 12): the unit of a period that is not whole months. */
export const DAYS_PER_MONTH = 365 / 12;

/** Whole months from `from` to `to`: the largest k with from + k months (day clamped) on or before `to`. */
export function wholeMonthsBetween(from: number, to: number): number {
  if (to <= from) return 0;
  const a = civilFromDay(from);
  const b = civilFromDay(to);
  let months = b.year * 12 + b.month - (a.year * 12 + a.month);
  while (months > 0 && addMonths(from, months) > to) months--;
  return months;
}

/**
 * The length of the service period [start, end) in months, as payments store it: whole months
 * when end = start + n months (day clamped), otherwise days / (365 / 12).
 */
export function durationInMonths(start: number, end: number): number {
  const months = wholeMonthsBetween(start, end);
  return months > 0 && addMonths(start, months) === end ? months : (end - start) / DAYS_PER_MONTH;
}

/** The end of a period of `months` from `start`: month arithmetic for whole months, otherwise round(months x 365 / 12) days. */
export function endOfPeriod(start: number, months: number): number {
  return Number.isInteger(months) ? addMonths(start, months) : start + Math.max(1, Math.round(months * DAYS_PER_MONTH));
}
