import { isIPv4, isIPv6 } from 'node:net';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';

/**
 * Sign-in throttling, shared by every API instance through PostgreSQL (`sign_in_attempts`).
 *
 * An attempt is refused (429) while, within the last 15 minutes, there are 10 failures for its
 * e-mail from its client address since the last successful sign-in of that e-mail from that
 * address, or 50 failures from its client address whatever the e-mails. The per-e-mail count is
 * per address, so a guesser elsewhere cannot lock the owner out; the looser per-address count
 * stops one address from trying many e-mails. Refused attempts are not recorded, so the block
 * lifts as soon as enough failures leave the window: it is never permanent and a persistent
 * guesser cannot extend it.
 *
 * An attempt is counted and recorded before its password is judged (`beginSignInAttempt`):
 * attempts from one client address take turns (a transaction-scoped advisory lock on the
 * address, held by PostgreSQL, so it holds across every instance and on PGlite alike) to count
 * the failures and insert their own row, as a failure until a correct password turns it into a
 * success. So each counts the rows of every attempt before it, judged or still being judged, and
 * with any number of guesses at once exactly the limit are judged. Both limits involve the
 * address, so that one lock covers both. The turn ends when the row is committed, before the
 * password is hashed: no lock is held during the slow part.
 */
export const SIGN_IN_THROTTLE = {
  windowMs: 15 * 60 * 1000,
  maxFailuresPerEmail: 10,
  maxFailuresPerIp: 50,
} as const;

/** Advisory lock class of the sign-in turn of a client address (other classes: server/imports/). */
const SIGN_IN_LOCK_CLASS = 51_301;

export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

/** The eight 16-bit groups of an IPv6 address (embedded IPv4 and `::` expanded); null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '');
  if (!isIPv6(text)) return null;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The client address as the throttle counts it: an IPv4 address as it is (also when written as
 * an IPv4-mapped IPv6 address), an IPv6 address by its /64 network, the block one subscriber
 * usually gets whole (counting single addresses would give such a client 2^64 fresh counts).
 */
export function throttleAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

type Scope = { emailKey: string; ip: string } | { ip: string };

/**
 * When the `limit`-th most recent counted failure leaves the window, fewer than `limit` remain:
 * that instant ends the block. Undefined when fewer than `limit` failures count now. Rows of
 * attempts still being judged count as failures.
 */
async function blockEndsAt(db: Kysely<DB>, scope: Scope, limit: number, windowStart: Date): Promise<Date | undefined> {
  let query = db
    .selectFrom('sign_in_attempts')
    .select('attempted_at')
    .where('succeeded', '=', false)
    .where('attempted_at', '>', windowStart)
    .where('ip', '=', scope.ip);
  if ('emailKey' in scope) {
    // A successful sign-in of the e-mail from the address clears their count (ids follow
    // insertion order, which also orders attempts made within the same millisecond).
    query = query
      .where('email_key', '=', scope.emailKey)
      .where(
        'id',
        '>',
        sql<number>`coalesce((select max(s.id) from sign_in_attempts s where s.email_key = ${scope.emailKey} and s.ip = ${scope.ip} and s.succeeded), 0)`,
      );
  }
  const row = await query
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .offset(limit - 1)
    .limit(1)
    .executeTakeFirst();
  return row ? new Date(row.attempted_at.getTime() + SIGN_IN_THROTTLE.windowMs) : undefined;
}

/** A recorded attempt being judged: call `succeeded()` when its password was right. */
export interface JudgedAttempt {
  judged: true;
  succeeded(): Promise<void>;
}

/** An attempt refused without being judged; nothing of it stays recorded. */
export interface RefusedAttempt {
  judged: false;
  retryAfterSeconds: number;
}

/**
 * Decides whether a sign-in attempt's password may be judged, and if so records it (as a
 * failure until `succeeded()`), in one turn of its client address: refused, and not recorded,
 * when the limits are already reached. Also purges attempts older than the window. Call it
 * outside any transaction: the row must be committed when it returns.
 */
export async function beginSignInAttempt(
  db: Kysely<DB>,
  attempt: { emailKey: string; ip: string; now: Date },
): Promise<JudgedAttempt | RefusedAttempt> {
  const ip = throttleAddress(attempt.ip);
  const { now, emailKey } = attempt;
  const windowStart = new Date(now.getTime() - SIGN_IN_THROTTLE.windowMs);
  const turn = await db.transaction().execute(async (trx) => {
    // Released at commit: the next attempt from the address counts this one's row.
    await sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK_CLASS}, hashtext(${ip}))`.execute(trx);
    const perEmail = await blockEndsAt(trx, { emailKey, ip }, SIGN_IN_THROTTLE.maxFailuresPerEmail, windowStart);
    const perIp = await blockEndsAt(trx, { ip }, SIGN_IN_THROTTLE.maxFailuresPerIp, windowStart);
    const latest = Math.max(perEmail?.getTime() ?? 0, perIp?.getTime() ?? 0);
    if (latest > now.getTime()) return { blockedUntil: latest, id: null };
    const row = await trx
      .insertInto('sign_in_attempts')
      .values({ email_key: emailKey, ip, succeeded: false, attempted_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { blockedUntil: 0, id: row.id };
  });
  const { id } = turn;
  if (id === null) return { judged: false, retryAfterSeconds: Math.ceil((turn.blockedUntil - now.getTime()) / 1000) };
  await db.deleteFrom('sign_in_attempts').where('attempted_at', '<', windowStart).execute();
  return {
    judged: true,
    succeeded: async () => {
      await db.updateTable('sign_in_attempts').set({ succeeded: true }).where('id', '=', id).execute();
    },
  };
}

/**
 * Clears the failed sign-ins of an e-mail from every address (a password reset proved control
 * of the mailbox, and the failures were guesses of the old password): records a success for
 * each address that failed within the window, and for the request's own.
 */
export async function clearSignInFailures(db: Kysely<DB>, attempt: { emailKey: string; ip: string; now: Date }): Promise<void> {
  const { emailKey, now } = attempt;
  const windowStart = new Date(now.getTime() - SIGN_IN_THROTTLE.windowMs);
  const failed = await db
    .selectFrom('sign_in_attempts')
    .select('ip')
    .distinct()
    .where('email_key', '=', emailKey)
    .where('succeeded', '=', false)
    .where('attempted_at', '>', windowStart)
    .execute();
  const ips = new Set([throttleAddress(attempt.ip), ...failed.map((row) => row.ip)]);
  await db
    .insertInto('sign_in_attempts')
    .values([...ips].map((ip) => ({ email_key: emailKey, ip, succeeded: true, attempted_at: now })))
    .execute();
}
