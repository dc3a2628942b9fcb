import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { DB, PermissionLevel } from '../db/schema';

/**
 * Sign-in tokens: JWTs signed with HS256 and the server's secret, carrying `sub` (user id),
 * `acc` (account id), `jti` (token id), `iat` and `exp`. A token is accepted while its
 * signature holds, it has not expired, its `jti` is not in `revoked_jwts` (sign-out) and its
 * user still exists and has a password (an invitee whose invitation is pending has none).
 * Revocation lives in PostgreSQL, so a sign-out holds on every API instance and on `/cable`.
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
  const issuedAt = Math.floor(options.now.getTime() / 1000);
  const expiresAt = issuedAt + options.ttlSeconds;
  const jti = randomBytes(16).toString('base64url');
  const token = await new SignJWT({ acc: options.accountId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(options.userId)
    .setJti(jti)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(keyOf(options.secret));
  return { token, jti, expiresAt: new Date(expiresAt * 1000) };
}

interface VerifiedClaims {
  userId: string;
  accountId: string;
  jti: string;
  expiresAt: Date;
}

/** Checks signature, algorithm, expiry and the presence of our claims; null when any fails. */
async function verifySignedClaims(secret: string, token: string, now: Date): Promise<VerifiedClaims | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: [ALGORITHM],
      currentDate: now,
      requiredClaims: ['sub', 'jti', 'exp'],
    });
    const { sub, jti, exp, acc } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number' || typeof acc !== 'string') return null;
    return { userId: sub, accountId: acc, jti, expiresAt: new Date(exp * 1000) };
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
    .select(['users.permission_level', 'users.password_hash', 'revoked_jwts.jti as revoked_jti'])
    .where('users.account_id', '=', claims.accountId)
    .where('users.id', '=', claims.userId)
    .executeTakeFirst();
  if (!row || row.password_hash === null || row.revoked_jti !== null) return null;
  return { ...claims, permissionLevel: row.permission_level };
}

/**
 * Revokes one token until it would have expired anyway, and drops revocations whose tokens
 * have expired (they can no longer be presented), so the table stays small.
 */
export async function revokeAccessToken(db: Kysely<DB>, auth: AuthContext, now: Date): Promise<void> {
  await db
    .insertInto('revoked_jwts')
    .values({ account_id: auth.accountId, jti: auth.jti, user_id: auth.userId, expires_at: auth.expiresAt, revoked_at: now })
    .onConflict((conflict) => conflict.columns(['account_id', 'jti']).doNothing())
    .execute();
  await db.deleteFrom('revoked_jwts').where('expires_at', '<', now).execute();
}
