import { describe, expect, it } from 'vitest';
import {
  periodEndingIn,
  periodLabel,
  periodMonths,
  rangeError,
  showsCurrentMonth,
} from '../../models/reportRange';

const today = { year: 2026, month: 3 };
const period = (start: string, end: string) => {
  const [sy, sm] = start.split('-').map(Number) as [number, number];
  const [ey, em] = end.split('-').map(Number) as [number, number];
  return { start_year: sy, start_month: sm, end_year: ey, end_month: em };
};

describe('report range rules (spec: first document, section 5)', () => {
  it('checks the rules in order, in the spec’s words: current month, order, at least 3 months, at most 72', () => {
    const [beyondCurrentMonth, fromAfterTo, tooShort, tooLong] = [
      'Can not extend range beyound current date.',
      'From date can not be ahead of the To date',
      'Total report range should be at least 3 months',
      'Maximum range report can show is 6 years',
    ];
    expect(rangeError(period('2025-01', '2026-04'), today)).toBe(beyondCurrentMonth);
    // Both past the current month and reversed: the first rule speaks.
    expect(rangeError(period('2026-06', '2026-05'), today)).toBe(beyondCurrentMonth);
    expect(rangeError(period('2025-12', '2025-11'), today)).toBe(fromAfterTo);
    expect(rangeError(period('2025-11', '2026-01'), today)).toBeNull();
    expect(rangeError(period('2025-12', '2026-01'), today)).toBe(tooShort);
    expect(rangeError(period('2026-03', '2026-03'), today)).toBe(tooShort);
    expect(rangeError(period('2020-04', '2026-03'), today)).toBeNull();
    expect(rangeError(period('2020-03', '2026-03'), today)).toBe(tooLong);
  });

  it("reads a range as 'Apr 2025 – Mar 2026'", () => {
    expect(periodLabel(period('2025-04', '2026-03'))).toBe('Apr 2025 – Mar 2026');
    expect(periodLabel(period('2024-01', '2024-12'))).toBe('Jan 2024 – Dec 2024');
  });

  it('counts months with both ends included, across years', () => {
    expect(periodMonths(period('2025-11', '2026-01'))).toBe(3);
    expect(periodMonths(period('2020-04', '2026-03'))).toBe(72);
  });

  it('gives a new report the months ending with the current one, and tells whether a range shows it', () => {
    expect(periodEndingIn(today, 12)).toEqual(period('2025-04', '2026-03'));
    expect(periodEndingIn({ year: 2026, month: 1 }, 3)).toEqual(period('2025-11', '2026-01'));
    expect(showsCurrentMonth(period('2025-04', '2026-03'), today)).toBe(true);
    expect(showsCurrentMonth(period('2025-04', '2026-02'), today)).toBe(false);
  });
});
