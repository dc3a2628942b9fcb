import { describe, expect, it } from 'vitest';
import { CSV_IMPORT_POLL_SCHEDULE, LIVE_SAFETY_POLL_MS } from '../../models/constants';
import { isCsvFileName, nextPollDelayMs, pollIntervalMs } from '../../models/imports';

describe('import rules shared by client and server', () => {
  it('takes .csv files only, in any case', () => {
    expect(isCsvFileName('payments.csv')).toBe(true);
    expect(isCsvFileName('PLANS.CSV')).toBe(true);
    expect(isCsvFileName('payments.csv.xlsx')).toBe(false);
    expect(isCsvFileName('payments')).toBe(false);
    expect(isCsvFileName('csv')).toBe(false);
    expect(isCsvFileName(null)).toBe(false);
    expect(isCsvFileName(undefined)).toBe(false);
  });

  it('waits 3 s for the first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s', () => {
    expect([1, 20, 21, 70, 71, 170, 171, 1_000].map((poll) => pollIntervalMs(poll))).toEqual([
      3_000, 3_000, 10_000, 10_000, 20_000, 20_000, 60_000, 60_000,
    ]);
    expect(pollIntervalMs(5, [{ throughPoll: Number.POSITIVE_INFINITY, intervalMs: 7 }])).toBe(7);
    expect(() => pollIntervalMs(1, [])).toThrow();
    expect(CSV_IMPORT_POLL_SCHEDULE.at(-1)?.throughPoll).toBe(Number.POSITIVE_INFINITY);
  });

  it('polls on the schedule, or every LIVE_SAFETY_POLL_MS after the first poll while a live channel reports', () => {
    expect(nextPollDelayMs({ polls: 0, live: false })).toBe(3_000);
    expect(nextPollDelayMs({ polls: 0, live: true })).toBe(3_000);
    expect(nextPollDelayMs({ polls: 1, live: true })).toBe(LIVE_SAFETY_POLL_MS);
    expect(nextPollDelayMs({ polls: 20, live: false })).toBe(10_000);
  });
});
