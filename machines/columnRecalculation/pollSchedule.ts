/**
 * The fallback poll of a column's recalculation: the live channel says when it ends, but a
 * message missed while disconnected must not leave 'Calculating:' on screen for ever, so
 * GET /customer_related_metric_definitions is asked after each of these waits (the last one
 * repeating): soon at first (a small account's job takes seconds), then ever more rarely.
 */
export const COLUMN_POLL_DELAYS_MS: readonly number[] = [3_000, 5_000, 10_000, 30_000, 60_000];

/** The wait before the poll after `polls` polls. */
export function columnPollDelayMs(polls: number): number {
  const last = COLUMN_POLL_DELAYS_MS.length - 1;
  return COLUMN_POLL_DELAYS_MS[Math.min(Math.max(polls, 0), last)] ?? 60_000;
}

/** The poll count kept in context stops growing at the last step (the wait stays the same after it). */
export function nextPollCount(polls: number): number {
  return Math.min(polls + 1, COLUMN_POLL_DELAYS_MS.length - 1);
}
