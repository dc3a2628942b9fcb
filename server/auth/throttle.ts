import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';

/**
 * Sign-in throttling, shared by every API instance through PostgreSQL (`sign_in_attempts`).
 *
 * An attempt is refused (429) while, within the last 15 minutes, there are 10 failures for
 * its e-mail since that e-mail's last successful sign-in, or 50 failures from its client
 * address. Refused attempts are not recorded, so the block lifts as soon as enough failures
 * leave the window: it is never permanent and a persistent guesser cannot extend it.
 */
export const SIGN_IN_THROTTLE = {
  windowMs: 15 * 60 * 1000,
  maxFailuresPerEmail: 10,
  maxFailuresPerIp: 50,
} as const;

export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

/**
 * When the `limit`-th most recent counted failure leaves the window, fewer than `limit`
 * remain: that instant ends the block. Undefined when fewer than `limit` failures count now.
 */
async function blockEndsAt(
  db: Kysely<DB>,
  where: { emailKey: string } | { ip: string },
  limit: number,
  windowStart: Date,
): Promise<Date | undefined> {
  let query = db
    .selectFrom('sign_in_attempts')
    .select('attempted_at')
    .where('succeeded', '=', false)
    .where('attempted_at', '>', windowStart);
  if ('emailKey' in where) {
    // A successful sign-in clears the e-mail's count (ids follow insertion order, which also
    // orders attempts made within the same millisecond).
    query = query.where('email_key', '=', where.emailKey).where(
      'id',
      '>',
      sql<number>`coalesce((select max(s.id) from sign_in_attempts s where s.email_key = ${where.emailKey} and s.succeeded), 0)`,
    );
  } else {
    query = query.where('ip', '=', where.ip);
  }
  const row = await query
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .offset(limit - 1)
    .limit(1)
    .executeTakeFirst();
  return row ? new Date(row.attempted_at.getTime() + SIGN_IN_THROTTLE.windowMs) : undefined;
}

/** Seconds until an attempt for this e-mail from this address may be made; undefined when it may now. */
export async function signInRetryAfterSeconds(
  db: Kysely<DB>,
  attempt: { emailKey: string; ip: string; now: Date },
): Promise<number | undefined> {
  const windowStart = new Date(attempt.now.getTime() - SIGN_IN_THROTTLE.windowMs);
  const ends = await Promise.all([
    blockEndsAt(db, { emailKey: attempt.emailKey }, SIGN_IN_THROTTLE.maxFailuresPerEmail, windowStart),
    blockEndsAt(db, { ip: attempt.ip }, SIGN_IN_THROTTLE.maxFailuresPerIp, windowStart),
  ]);
  const latest = Math.max(...ends.map((end) => end?.getTime() ?? 0));
  if (latest <= attempt.now.getTime()) return undefined;
  return Math.ceil((latest - attempt.now.getTime()) / 1000);
}

/** Records an attempt that was judged (not refused), and purges attempts older than the window. */
export async function recordSignInAttempt(
  db: Kysely<DB>,
  attempt: { emailKey: string; ip: string; now: Date; succeeded: boolean },
): Promise<void> {
  await db
    .insertInto('sign_in_attempts')
    .values({ email_key: attempt.emailKey, ip: attempt.ip, succeeded: attempt.succeeded, attempted_at: attempt.now })
    .execute();
  await db
    .deleteFrom('sign_in_attempts')
    .where('attempted_at', '<', new Date(attempt.now.getTime() - SIGN_IN_THROTTLE.windowMs))
    .execute();
}
