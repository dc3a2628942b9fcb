import dayjs from 'dayjs';

/** How the inspector prints values, state values and times. */

/** Indented JSON for a Code block (`undefined` printed as such). */
export function formatJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function statePaths(value: unknown, prefix: string): string[] {
  if (value === null || value === undefined) return prefix ? [prefix] : [];
  if (typeof value !== 'object') return [prefix ? `${prefix}.${String(value)}` : String(value)];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return prefix ? [prefix] : [];
  return entries.flatMap(([key, inner]) => statePaths(inner, prefix ? `${prefix}.${key}` : key));
}

/** A state value in one line: `signedIn`, `polling.waiting`, `upload.idle, poll.waiting` (parallel). */
export function stateLabel(value: unknown): string {
  const paths = statePaths(value, '');
  return paths.length === 0 ? '—' : paths.join(', ');
}

/** A trace time: `14:03:07.412` (local). */
export function formatClock(ms: number): string {
  return dayjs(ms).format('HH:mm:ss.SSS');
}

/** A server time: `2024-05-01 14:03:07` (local). */
export function formatDateTime(value: string | number): string {
  const date = dayjs(value);
  return date.isValid() ? date.format('YYYY-MM-DD HH:mm:ss') : String(value);
}

/** An event without its `type`: what the payload toggle shows (null when there is nothing else). */
export function eventPayload(event: { type: string; [key: string]: unknown }): Record<string, unknown> | null {
  const { type: _type, ...rest } = event;
  return Object.keys(rest).length === 0 ? null : rest;
}
