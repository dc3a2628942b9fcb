import { CSV_FILE_EXTENSION, CSV_IMPORT_POLL_SCHEDULE, LIVE_SAFETY_POLL_MS } from './constants';
import type { PollIntervalStep } from './constants';

/**
 * Rules every CSV import shares, on the client and the server: which files are taken, and when
 * an import's status is polled.
 */

/** Only files named *.csv (any case) are imported. */
export function isCsvFileName(name: string | null | undefined): boolean {
  return typeof name === 'string' && name.toLowerCase().endsWith(CSV_FILE_EXTENSION);
}

/**
 * The wait before status poll number `poll` (1-based), from the spec's schedule: 3 s before each
 * of the first 20 polls, 10 s up to the 70th, 20 s up to the 170th, then 60 s.
 */
export function pollIntervalMs(poll: number, schedule: readonly PollIntervalStep[] = CSV_IMPORT_POLL_SCHEDULE): number {
  const step = schedule.find((candidate) => poll <= candidate.throughPoll) ?? schedule.at(-1);
  if (!step) throw new Error('The poll schedule has no steps');
  return step.intervalMs;
}

/**
 * The wait before the next status poll of an import that may have a live channel: the first
 * poll always on the schedule (it catches a change made before the subscription was in place),
 * later ones every LIVE_SAFETY_POLL_MS while the channel is live, otherwise on the schedule.
 */
export function nextPollDelayMs(progress: { polls: number; live: boolean }): number {
  return progress.live && progress.polls > 0 ? LIVE_SAFETY_POLL_MS : pollIntervalMs(progress.polls + 1);
}
