import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * Password hashing with scrypt from node:crypto. The stored form carries its own cost
 * parameters, so they can be raised later without invalidating existing hashes:
 * `scrypt$N$r$p$salt(base64)$hash(base64)`.
 */
const COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 64;

/** The cost of new hashes (and of the dummy hash): COST, unless a test lowered it for its own process. */
let cost: ScryptCost = COST;

function derive(password: string, salt: Buffer, parameters: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...parameters, maxmem: 256 * parameters.N * parameters.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** False for a user without a password (an invitee who has not accepted yet). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored === null) return false;
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a random password, made once: what a sign-in for an unknown e-mail is checked against. */
let dummyHash: Promise<string> | undefined;

/**
 * Tests only (production never calls it): the cost of the hashes this process makes from now
 * on, the dummy hash included; no argument restores the production cost. Tests whose subject is
 * not the hashing (sign-in throttling counts hundreds of attempts) lower it, as scrypt at the
 * production cost takes about a quarter of a second per password on a test machine. Verifying
 * reads the cost from the stored hash, so hashes made at either cost keep verifying.
 */
export function setPasswordHashCostForTests(next: ScryptCost = COST): void {
  cost = next;
  dummyHash = undefined;
}

/**
 * Verifies a sign-in password. With no stored hash (unknown e-mail, pending invitation) it
 * still runs scrypt against a dummy hash and answers false, so both cases take the time a
 * wrong password takes and the answer's timing does not tell which e-mails exist.
 */
export async function verifyPasswordOrDummy(password: string, stored: string | null | undefined): Promise<boolean> {
  if (stored) return verifyPassword(password, stored);
  dummyHash ??= hashPassword(randomBytes(16).toString('base64'));
  await verifyPassword(password, await dummyHash);
  return false;
}
