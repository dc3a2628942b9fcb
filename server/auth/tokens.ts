import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { sql, type Kysely } from 'kysely';
import { publishRevocation } from '../cable/revocations';
import type { DB, PermissionLevel } from '../db/schema';

/**
 * Sign-in tokens: JWTs signed with HS256 and the server's secret, carrying `sub` (user id),
 * `acc` (account id), `jti` (token id), `iat` (to the millisecond: a NumericDate may have a
 * fraction) and `exp`. A token is accepted while its signature holds, it has not expired, its
 * `jti` is not in `revoked_jwts` (sign-out), it was not issued before its user's last password
 * reset (the `revoked_jwts` row of `userTokensJti`), and its user still exists and has a
 * password (an invitee whose invitation is pending has none). Revocation lives in PostgreSQL,
 * so it holds on every API instance and on `/cable`; each revocation is also published to the
 * cable (server/cable/revocations.ts), so open connections of a revoked token end at once.
 */

/** Who a request acts for, once its token has been verified. */
export interface AuthContext {
  userId: string;
  accountId: string;
  permissionLevel: PermissionLevel;
  /** Id of the token that authenticated the request (what sign-out revokes). */
  jti: string;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

const ALGORITHM = 'HS256';

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function issueAccessToken(options: {
  secret: string;
  userId: string;
  accountId: string;
  now: Date;
  ttlSeconds: number;
}): Promise<IssuedToken> {
  const expiresAt = Math.floor(options.now.getTime() / 1000) + options.ttlSeconds;
  const jti = randomBytes(16).toString('base64url');
  const token = await new SignJWT({ acc: options.accountId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(options.userId)
    .setJti(jti)
    // To the millisecond, so a password reset can revoke exactly the tokens issued before it.
    .setIssuedAt(options.now.getTime() / 1000)
    .setExpirationTime(expiresAt)
    .sign(keyOf(options.secret));
  return { token, jti, expiresAt: new Date(expiresAt * 1000) };
}

interface VerifiedClaims {
  userId: string;
  accountId: string;
  jti: string;
  expiresAt: Date;
  /** Milliseconds since the epoch; 0 when the token has no `iat` (older than any revocation). */
  issuedAtMs: number;
}

/** Checks signature, algorithm, expiry and the presence of our claims; null when any fails. */
async function verifySignedClaims(secret: string, token: string, now: Date): Promise<VerifiedClaims | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: [ALGORITHM],
      currentDate: now,
      requiredClaims: ['sub', 'jti', 'exp'],
    });
    const { sub, jti, exp, acc, iat } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number' || typeof acc !== 'string') return null;
    return { userId: sub, accountId: acc, jti, expiresAt: new Date(exp * 1000), issuedAtMs: typeof iat === 'number' ? Math.round(iat * 1000) : 0 };
  } catch {
    // Malformed, badly signed, wrong algorithm or expired: all mean "not signed in".
    return null;
  }
}

/** The request's identity for a bearer token, or null when the token must be refused. */
export async function verifyAccessToken(
  db: Kysely<DB>,
  options: { secret: string; token: string; now: Date },
): Promise<AuthContext | null> {
  const claims = await verifySignedClaims(options.secret, options.token, options.now);
  if (!claims) return null;
  const row = await db
    .selectFrom('users')
    .leftJoin('revoked_jwts', (join) =>
      join.onRef('revoked_jwts.account_id', '=', 'users.account_id').on('revoked_jwts.jti', '=', claims.jti),
    )
    .leftJoin('revoked_jwts as reset', (join) =>
      join.onRef('reset.account_id', '=', 'users.account_id').on('reset.jti', '=', userTokensJti(claims.userId)),
    )
    .select(['users.permission_level', 'users.password_hash', 'revoked_jwts.jti as revoked_jti', 'reset.revoked_at as revoked_before'])
    .where('users.account_id', '=', claims.accountId)
    .where('users.id', '=', claims.userId)
    .executeTakeFirst();
  if (!row || row.password_hash === null || row.revoked_jti !== null) return null;
  if (row.revoked_before !== null && claims.issuedAtMs < row.revoked_before.getTime()) return null;
  const { issuedAtMs: _issuedAtMs, ...identity } = claims;
  return { ...identity, permissionLevel: row.permission_level };
}

/**
 * The `revoked_jwts` row that revokes every token of a user issued before its `revoked_at`
 * (a password reset). Real token ids are base64url, so this id can never be one.
 */
export function userTokensJti(userId: string): string {
  return `*issued-before:${userId}`;
}

/**
 * Revokes one token until it would have expired anyway, and drops revocations whose tokens
 * have expired (they can no longer be presented), so the table stays small.
 */
export async function revokeAccessToken(db: Kysely<DB>, auth: AuthContext, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('revoked_jwts')
      .values({ account_id: auth.accountId, jti: auth.jti, user_id: auth.userId, expires_at: auth.expiresAt, revoked_at: now })
      .onConflict((conflict) => conflict.columns(['account_id', 'jti']).doNothing())
      .execute();
    // Heard on commit by every instance, whose cable connections of this token then end.
    await publishRevocation(trx, { accountId: auth.accountId, userId: auth.userId, jti: auth.jti });
  });
  await db.deleteFrom('revoked_jwts').where('expires_at', '<', now).execute();
}

/**
 * Revokes every token of a user issued before `before` (a password reset: whoever signed in
 * with the old password is out, the session the reset starts afterwards stays). The row lives
 * until every such token would have expired (`longestTtlSeconds`, the longest lifetime a token
 * may be issued with). Call it with the transaction that changes the password: the revocation
 * and its cable event then take effect together with the change.
 */
export async function revokeTokensIssuedBefore(
  db: Kysely<DB>,
  user: { accountId: string; userId: string },
  before: Date,
  longestTtlSeconds: number,
): Promise<void> {
  const expiresAt = new Date(before.getTime() + longestTtlSeconds * 1000);
  await db
    .insertInto('revoked_jwts')
    .values({ account_id: user.accountId, jti: userTokensJti(user.userId), user_id: user.userId, expires_at: expiresAt, revoked_at: before })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'jti']).doUpdateSet({
        revoked_at: sql<Date>`greatest(revoked_jwts.revoked_at, excluded.revoked_at)`,
        expires_at: sql<Date>`greatest(revoked_jwts.expires_at, excluded.expires_at)`,
      }),
    )
    .execute();
  await publishRevocation(db, { accountId: user.accountId, userId: user.userId, jti: null });
}
