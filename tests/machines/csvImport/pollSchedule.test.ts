import { describe, expect, it } from 'vitest';
import { isPollLimitReached } from '../../../machines/csvImport/pollSchedule';
import { isCsvFileName, pollIntervalMs } from '../../../models/imports';
import { CSV_IMPORT_MAX_POLLS } from '../../../models/constants';

describe('CSV import polling schedule', () => {
  it.each([
    [1, 3_000],
    [20, 3_000],
    [21, 10_000],
    [70, 10_000],
    [71, 20_000],
    [170, 20_000],
    [171, 60_000],
    [999, 60_000],
    [1_000, 60_000],
  ])('waits %i → %i ms', (poll, interval) => {
    expect(pollIntervalMs(poll)).toBe(interval);
  });

  it('adds up to about 14.5 hours of polling before giving up', () => {
    let total = 0;
    for (let poll = 1; poll <= CSV_IMPORT_MAX_POLLS; poll += 1) total += pollIntervalMs(poll);
    expect(total).toBe(20 * 3_000 + 50 * 10_000 + 100 * 20_000 + 830 * 60_000);
  });

  it('gives up after 1000 polls', () => {
    expect(isPollLimitReached(999)).toBe(false);
    expect(isPollLimitReached(1_000)).toBe(true);
    expect(isPollLimitReached(2, 3)).toBe(false);
    expect(isPollLimitReached(3, 3)).toBe(true);
  });

  it('takes only .csv file names', () => {
    expect(isCsvFileName('payments.csv')).toBe(true);
    expect(isCsvFileName('PAYMENTS.CSV')).toBe(true);
    expect(isCsvFileName('payments.csv.xlsx')).toBe(false);
    expect(isCsvFileName('payments.txt')).toBe(false);
    expect(isCsvFileName('csv')).toBe(false);
    expect(isCsvFileName(null)).toBe(false);
  });
});
