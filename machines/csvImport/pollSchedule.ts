import { CSV_FILE_EXTENSION, CSV_IMPORT_MAX_POLLS, CSV_IMPORT_POLL_SCHEDULE } from '../../models/constants';
import type { PollIntervalStep } from '../../models/constants';

/**
 * How long to wait before status poll number `pollNumber` (1-based): 3 s before each of the
 * first 20 polls, 10 s up to the 70th, 20 s up to the 170th, then 60 s.
 */
export function pollIntervalMs(pollNumber: number, schedule: readonly PollIntervalStep[] = CSV_IMPORT_POLL_SCHEDULE): number {
  const step = schedule.find((candidate) => pollNumber <= candidate.throughPoll) ?? schedule.at(-1);
  if (!step) throw new Error('The poll schedule has no steps');
  return step.intervalMs;
}

/** Whether `polls` polls have used up the limit (1000): polling then gives up. */
export function isPollLimitReached(polls: number, maxPolls: number = CSV_IMPORT_MAX_POLLS): boolean {
  return polls >= maxPolls;
}

/** Only files named *.csv (any case) are imported. */
export function isCsvFileName(name: string | null | undefined): boolean {
  return typeof name === 'string' && name.toLowerCase().endsWith(CSV_FILE_EXTENSION);
}
