import { describe, expect, it } from 'vitest';
import { addMonths, civilFromDay, dayFromIso, isoFromDay, monthOfDay, weekdayOfDay } from '../../../server/metrics/days';
import { allocateProportionally, roundHalfEven } from '../../../server/metrics/money';
import {
  buildTimeline,
  dayPositions,
  periodFirstDay,
  periodLabel,
  periodLastDay,
  periodOfDay,
  positionAtOrAfter,
  timelineOfIndices,
  type Resolution,
} from '../../../server/metrics/periods';

const d = dayFromIso;

describe('day numbers', () => {
  it('count days since 1970-01-01 (UTC) and round-trip through ISO dates', () => {
    expect(d('1970-01-01')).toBe(0);
    expect(d('1970-01-02')).toBe(1);
    expect(d('1969-12-31')).toBe(-1);
    expect(d('2000-03-01') - d('2000-02-28')).toBe(2);
    for (let day = d('1899-12-25'); day < d('2101-01-10'); day += 13) {
      expect(dayFromIso(isoFromDay(day))).toBe(day);
      expect(Date.UTC(civilFromDay(day).year, civilFromDay(day).month - 1, civilFromDay(day).day) / 86_400_000).toBe(day);
    }
  });

  it.each(['2024-02-30', '2023-02-29', '2024-13-01', '24-01-01', 'not a day'])('rejects %s', (text) => {
    expect(() => dayFromIso(text)).toThrow(RangeError);
  });

  it.each([
    ['2024-01-31', 1, '2024-02-29'],
    ['2023-01-31', 1, '2023-02-28'],
    ['2024-01-31', 2, '2024-03-31'],
    ['2024-03-31', 1, '2024-04-30'],
    ['2024-01-15', 12, '2025-01-15'],
    ['2024-02-29', 12, '2025-02-28'],
    ['2024-11-30', 3, '2025-02-28'],
    ['2024-05-10', -1, '2024-04-10'],
  ])('adds months with the day clamped to the month length: %s + %i = %s', (from, months, to) => {
    expect(isoFromDay(addMonths(d(from), months))).toBe(to);
  });

  it('knows weekdays and months', () => {
    expect(weekdayOfDay(d('2024-01-01'))).toBe(0); // a Monday
    expect(weekdayOfDay(d('2024-01-07'))).toBe(6); // a Sunday
    expect(monthOfDay(d('2024-03-31'))).toBe(2024 * 12 + 2);
  });
});

describe('rounding of money', () => {
  it.each([
    [2.5, 2],
    [3.5, 4],
    [-2.5, -2],
    [-3.5, -4],
    [2.4999, 2],
    [2.5001, 3],
    [1088.2, 1088],
    [0.5, 0],
    [1.5, 2],
    [1.0945 * 1000, 1094],
  ])('rounds %d half to even: %d', (value, rounded) => {
    expect(roundHalfEven(value)).toBe(rounded);
  });

  it('treats float noise around .5 as a tie (1.015 * 100 is 101.49999999999999 in floats)', () => {
    expect(1.015 * 100).not.toBe(101.5);
    expect(roundHalfEven(1.015 * 100)).toBe(102);
    expect(roundHalfEven(4.35 * 100)).toBe(435);
    expect(roundHalfEven(8.345 * 100)).toBe(834);
  });

  it.each([
    [100, [1, 1, 1], [34, 33, 33]],
    [10, [1, 1, 1, 1], [3, 3, 2, 2]],
    [1000, [3, 1], [750, 250]],
    [-100, [1, 1, 1], [-34, -33, -33]],
    [7, [0, 0], [4, 3]],
    [5, [2, 1, 1], [3, 1, 1]],
  ])('splits %i by %j into whole parts that add up: %j', (amount, weights, parts) => {
    const out = new Float64Array(weights.length);
    allocateProportionally(amount, weights, out);
    expect(Array.from(out)).toEqual(parts);
    expect(Array.from(out).reduce((a, b) => a + b, 0)).toBe(amount);
  });
});

describe('periods', () => {
  it('weeks run Monday to Sunday and carry their ISO 8601 week label', () => {
    const week = periodOfDay('week', d('2025-01-01'));
    expect(isoFromDay(periodFirstDay('week', week))).toBe('2024-12-30');
    expect(isoFromDay(periodLastDay('week', week))).toBe('2025-01-05');
    expect(periodLabel('week', week)).toBe('2025-W01');
    expect(periodLabel('week', periodOfDay('week', d('2021-01-03')))).toBe('2020-W53');
    expect(periodLabel('week', periodOfDay('week', d('2024-12-29')))).toBe('2024-W52');
    expect(periodLabel('week', periodOfDay('week', d('2026-06-15')))).toBe('2026-W25');
    for (let day = d('2019-12-20'); day < d('2026-01-20'); day++) {
      const index = periodOfDay('week', day);
      expect(weekdayOfDay(periodFirstDay('week', index))).toBe(0);
      expect(periodLastDay('week', index) - periodFirstDay('week', index)).toBe(6);
      expect(day >= periodFirstDay('week', index) && day <= periodLastDay('week', index)).toBe(true);
    }
  });

  it.each([
    ['2025-01-01', '2025-Q1', '2025-01-01', '2025-03-31'],
    ['2025-03-31', '2025-Q1', '2025-01-01', '2025-03-31'],
    ['2025-04-01', '2025-Q2', '2025-04-01', '2025-06-30'],
    ['2025-08-15', '2025-Q3', '2025-07-01', '2025-09-30'],
    ['2025-12-31', '2025-Q4', '2025-10-01', '2025-12-31'],
  ])('quarters start in months 0, 3, 6, 9: %s is in %s', (day, label, first, last) => {
    const index = periodOfDay('quarter', d(day));
    expect(periodLabel('quarter', index)).toBe(label);
    expect(isoFromDay(periodFirstDay('quarter', index))).toBe(first);
    expect(isoFromDay(periodLastDay('quarter', index))).toBe(last);
  });

  it.each<[Resolution, string, string, string, string]>([
    ['month', '2024-02-10', '2024-02', '2024-02-01', '2024-02-29'],
    ['year', '2024-07-04', '2024', '2024-01-01', '2024-12-31'],
  ])('%s periods: %s is in %s', (resolution, day, label, first, last) => {
    const index = periodOfDay(resolution, d(day));
    expect(periodLabel(resolution, index)).toBe(label);
    expect(isoFromDay(periodFirstDay(resolution, index))).toBe(first);
    expect(isoFromDay(periodLastDay(resolution, index))).toBe(last);
  });

  it('measures stocks on a period’s last day, and the current period on today', () => {
    const timeline = buildTimeline({ resolution: 'month', range: { startYear: 2025, startMonth: 1, endYear: 2025, endMonth: 4 }, today: d('2025-04-17') });
    expect(timeline.labels).toEqual(['2024-12', '2025-01', '2025-02', '2025-03', '2025-04']);
    expect(timeline.rangeStart).toBe(1);
    expect(Array.from(timeline.measureDay, isoFromDay)).toEqual(['2024-12-31', '2025-01-31', '2025-02-28', '2025-03-31', '2025-04-17']);
    expect(timeline.currentPosition).toBe(4);
  });

  it('never reaches past the period holding today, and keeps periods that overlap the range', () => {
    const weeks = buildTimeline({ resolution: 'week', range: { startYear: 2025, startMonth: 1, endYear: 2025, endMonth: 3 }, today: d('2025-06-01') });
    expect(weeks.labels[weeks.rangeStart]).toBe('2025-W01'); // Mon 2024-12-30 - Sun 2025-01-05
    expect(weeks.labels.at(-1)).toBe('2025-W14'); // Mon 2025-03-31 - Sun 2025-04-06
    expect(isoFromDay(weeks.measureDay.at(-1) as number)).toBe('2025-04-06');
    const clipped = buildTimeline({ resolution: 'quarter', range: { startYear: 2025, startMonth: 2, endYear: 2025, endMonth: 12 }, today: d('2025-05-20') });
    expect(clipped.labels).toEqual(['2024-Q4', '2025-Q1', '2025-Q2']);
    expect(isoFromDay(clipped.measureDay.at(-1) as number)).toBe('2025-05-20');
    expect(() => buildTimeline({ resolution: 'month', range: { startYear: 2026, startMonth: 1, endYear: 2026, endMonth: 3 }, today: d('2025-05-20') })).toThrow(/after today/);
  });

  it('finds the first position measured on or after a day', () => {
    const timeline = timelineOfIndices('month', periodOfDay('month', d('2025-01-01')), periodOfDay('month', d('2025-03-01')), d('2025-03-10'));
    const positions = dayPositions(timeline);
    expect(positionAtOrAfter(positions, d('2024-06-01'))).toBe(0);
    expect(positionAtOrAfter(positions, d('2025-01-31'))).toBe(0);
    expect(positionAtOrAfter(positions, d('2025-02-01'))).toBe(1);
    expect(positionAtOrAfter(positions, d('2025-03-10'))).toBe(2);
    expect(positionAtOrAfter(positions, d('2025-03-11'))).toBe(3);
  });
});
