import { absoluteMonth, civilFromDay, dayFromCivil, firstDayOfMonth, lastDayOfAbsoluteMonth, monthOfDay } from './days';

/**
 * Reporting periods (METRICS.md section 3). Every resolution numbers its periods with a
 * global integer index, so a period is found from a day in O(1) and periods are contiguous:
 * - week: Monday to Sunday; index 0 is the week of Monday 1969-12-29; labelled with its ISO
 *   8601 week ('2025-W01': the week holding the year's first Thursday);
 * - month: the absolute month (`year * 12 + month0`), labelled '2025-01';
 * - quarter: `floor(absoluteMonth / 3)`, Q1..Q4 starting in months 0, 3, 6, 9, labelled '2025-Q1';
 * - year: the calendar year, labelled '2025'.
 *
 * A stock is measured on a period's last day; the period holding `today` (the current,
 * incomplete one) is measured on `today` instead. `today` is an input, never the clock.
 */

export type Resolution = 'week' | 'month' | 'quarter' | 'year';
export const RESOLUTIONS: readonly Resolution[] = ['week', 'month', 'quarter', 'year'];

/** Global index of the period holding `day`. */
export function periodOfDay(resolution: Resolution, day: number): number {
  switch (resolution) {
    case 'week':
      return Math.floor((day + 3) / 7);
    case 'month':
      return monthOfDay(day);
    case 'quarter':
      return Math.floor(monthOfDay(day) / 3);
    case 'year':
      return civilFromDay(day).year;
  }
}

/** First day of the period with global index `index`. */
export function periodFirstDay(resolution: Resolution, index: number): number {
  switch (resolution) {
    case 'week':
      return index * 7 - 3;
    case 'month':
      return firstDayOfMonth(index);
    case 'quarter':
      return firstDayOfMonth(index * 3);
    case 'year':
      return dayFromCivil(index, 1, 1);
  }
}

/** Last day (inclusive) of the period with global index `index`. */
export function periodLastDay(resolution: Resolution, index: number): number {
  return periodFirstDay(resolution, index + 1) - 1;
}

/** The period's label: '2025-W01', '2025-01', '2025-Q1', '2025'. */
export function periodLabel(resolution: Resolution, index: number): string {
  switch (resolution) {
    case 'week': {
      const thursday = periodFirstDay('week', index) + 3;
      const isoYear = civilFromDay(thursday).year;
      const week = Math.floor((thursday - dayFromCivil(isoYear, 1, 1)) / 7) + 1;
      return `${isoYear}-W${week < 10 ? '0' : ''}${week}`;
    }
    case 'month': {
      const year = Math.floor(index / 12);
      const month = index - year * 12 + 1;
      return `${year}-${month < 10 ? '0' : ''}${month}`;
    }
    case 'quarter': {
      const year = Math.floor(index / 4);
      return `${year}-Q${index - year * 4 + 1}`;
    }
    case 'year':
      return String(index);
  }
}

/** A report's months, 1-12 (`business_reports.start_year` ... `end_month`). */
export interface ReportRange {
  startYear: number;
  startMonth: number;
  endYear: number;
  endMonth: number;
}

/**
 * The periods a computation runs over: the report range's periods, preceded by `lookback`
 * periods whose values serve as "before" (movements compare a period with the one before it).
 * Position p of every array describes the p-th period; positions `rangeStart` and later are
 * the report's own periods.
 */
export interface Timeline {
  readonly resolution: Resolution;
  readonly today: number;
  /** Global index of the period at position 0. */
  readonly firstIndex: number;
  readonly length: number;
  /** Position of the first period of the report range (= lookback). */
  readonly rangeStart: number;
  readonly firstDay: Int32Array;
  readonly lastDay: Int32Array;
  /** The day the period's stocks are measured: its last day, or `today` for the current period. */
  readonly measureDay: Int32Array;
  readonly labels: readonly string[];
  /** Position of the period holding `today`, or -1. */
  readonly currentPosition: number;
}

/** A timeline over the global period indices [firstIndex, lastIndex]; periods starting after today are dropped. */
export function timelineOfIndices(resolution: Resolution, firstIndex: number, lastIndex: number, today: number, rangeStart = 0): Timeline {
  const todayIndex = periodOfDay(resolution, today);
  const last = Math.min(lastIndex, todayIndex);
  const length = Math.max(0, last - firstIndex + 1);
  const firstDay = new Int32Array(length);
  const lastDay = new Int32Array(length);
  const measureDay = new Int32Array(length);
  const labels: string[] = [];
  let currentPosition = -1;
  for (let p = 0; p < length; p++) {
    const index = firstIndex + p;
    firstDay[p] = periodFirstDay(resolution, index);
    lastDay[p] = periodLastDay(resolution, index);
    measureDay[p] = Math.min(lastDay[p] as number, today);
    if (index === todayIndex) currentPosition = p;
    labels.push(periodLabel(resolution, index));
  }
  return { resolution, today, firstIndex, length, rangeStart: Math.min(rangeStart, length), firstDay, lastDay, measureDay, labels, currentPosition };
}

/**
 * The periods of a report range: every period that overlaps the range's months, up to the
 * period holding `today` (a range never reaches past the current month), preceded by
 * `lookback` earlier periods (default 1, the "before" of the first period's movements).
 */
export function buildTimeline(options: { resolution: Resolution; range: ReportRange; today: number; lookback?: number }): Timeline {
  const { resolution, range, today } = options;
  const lookback = options.lookback ?? 1;
  if (!Number.isInteger(lookback) || lookback < 0) throw new RangeError('lookback must be a non-negative integer');
  const rangeFirstDay = firstDayOfMonth(absoluteMonth(range.startYear, range.startMonth));
  const rangeLastDay = lastDayOfAbsoluteMonth(absoluteMonth(range.endYear, range.endMonth));
  if (rangeLastDay < rangeFirstDay) throw new RangeError('the report range ends before it starts');
  if (rangeFirstDay > today) throw new RangeError('the report range starts after today');
  const firstIndex = periodOfDay(resolution, rangeFirstDay);
  const lastIndex = periodOfDay(resolution, Math.min(rangeLastDay, today));
  return timelineOfIndices(resolution, firstIndex - lookback, lastIndex, today, lookback);
}

/**
 * Maps a day to the first timeline position whose measure day is on or after it, in O(1):
 * a payment covering [start, end) holds MRR at positions [atOrAfter(start), atOrAfter(end)).
 */
export interface DayPositions {
  readonly base: number;
  readonly table: Int32Array;
  readonly length: number;
}

export function dayPositions(timeline: Timeline): DayPositions {
  const { length, measureDay } = timeline;
  if (length === 0) return { base: 0, table: new Int32Array(1), length: 0 };
  const base = measureDay[0] as number;
  const span = (measureDay[length - 1] as number) - base + 1;
  const table = new Int32Array(span);
  let position = 0;
  for (let offset = 0; offset < span; offset++) {
    while ((measureDay[position] as number) < base + offset) position++;
    table[offset] = position;
  }
  return { base, table, length };
}

/** First position whose measure day is >= day (`length` when none). */
export function positionAtOrAfter(positions: DayPositions, day: number): number {
  const offset = day - positions.base;
  if (offset <= 0) return 0;
  if (offset >= positions.table.length) return positions.length;
  return positions.table[offset] as number;
}
