import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { publish, type CableEvent } from './streams';

/**
 * Sign-in tokens revoked while a cable connection uses them: a sign-out (one token) or a
 * password reset (every earlier token of the user) publishes a revocation on the cable's NOTIFY
 * channel, so every server instance hears it and checks that user's connections again at once
 * (server/cable/hub.ts), instead of at the next periodic check. The event only says whom to
 * check: the connection verifies its token against the database as on any request, and ends
 * with `disconnect` unauthorized when it no longer holds.
 */

/** A user's revocations; no channel grants such a stream, so no client can subscribe to it. */
export function sessionStream(accountId: string, userId: string): string {
  return `session:${accountId}:${userId}`;
}

export interface Revocation {
  accountId: string;
  userId: string;
  /** The one token revoked (sign-out); null for every token of the user issued before (password reset). */
  jti: string | null;
}

/** Publishes a revocation through `db` (a transaction's handle: heard when it commits). */
export async function publishRevocation(db: Kysely<DB>, revocation: Revocation): Promise<void> {
  const { accountId, userId, jti } = revocation;
  await publish(db, { stream: sessionStream(accountId, userId), account_id: accountId, message: { user_id: userId, jti } });
}

/** The revocation an event carries, or null when it is another stream's event. */
export function revocationOf(event: CableEvent): Revocation | null {
  if (!event.stream.startsWith('session:')) return null;
  const message = event.message as { user_id?: unknown; jti?: unknown } | null;
  if (typeof message !== 'object' || message === null || typeof message.user_id !== 'string') return null;
  if (event.stream !== sessionStream(event.account_id, message.user_id)) return null;
  const jti = typeof message.jti === 'string' ? message.jti : null;
  return { accountId: event.account_id, userId: message.user_id, jti };
}
