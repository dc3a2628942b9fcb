import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';

/**
 * Live-channel events travel through PostgreSQL: whoever changes something (an API request, a
 * job on any worker) NOTIFYs one channel with `{stream, account_id, message}`, and every
 * server instance LISTENs to it and hands the message to its connections subscribed to the
 * stream. So a browser connected to instance A sees what a worker on machine B did.
 *
 * Publish with the database handle of the change itself: inside a transaction the
 * notification is delivered only when (and if) it commits.
 */

/** The one PostgreSQL NOTIFY channel of live-channel events. */
export const CABLE_NOTIFY_CHANNEL = 'subscope_cable';

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (a failed pg_notify would abort
 * the transaction it is in): events stay well below, and a larger one is not sent.
 */
export const CABLE_MAX_PAYLOAD_BYTES = 7_500;

/** What goes through NOTIFY: the stream, the account it belongs to, and the message for subscribers. */
export interface CableEvent {
  stream: string;
  account_id: string;
  message: unknown;
}

/** The stream of one import's status changes. */
export function importStream(accountId: string, importId: string): string {
  return `import:${accountId}:${importId}`;
}

/** The NOTIFY payload of an event, or null when it would be too large to send. */
export function cablePayload(event: CableEvent): string | null {
  const payload = JSON.stringify(event);
  return Buffer.byteLength(payload, 'utf8') < CABLE_MAX_PAYLOAD_BYTES ? payload : null;
}

/**
 * Publishes an event through `db` (a transaction's handle delivers it on commit). Returns
 * false when the event was too large to send (nothing is sent then; the subscribers' polling
 * still sees the change).
 */
export async function publish(db: Kysely<DB>, event: CableEvent): Promise<boolean> {
  const payload = cablePayload(event);
  if (payload === null) return false;
  await sql`select pg_notify(${CABLE_NOTIFY_CHANNEL}, ${payload})`.execute(db);
  return true;
}

/** An event read back from a NOTIFY payload; null when the payload is not one. */
export function parseCableEvent(payload: string): CableEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { stream, account_id: accountId, message } = value as Record<string, unknown>;
  if (typeof stream !== 'string' || typeof accountId !== 'string' || message === undefined) return null;
  return { stream, account_id: accountId, message };
}
