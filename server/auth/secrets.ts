import { createHash, randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random secrets and ids. Tokens sent by e-mail (password reset, invitation) carry 256 random
 * bits and are stored only as their SHA-256, so a copy of the database cannot be used to
 * reset a password or accept an invitation.
 */

/** A new single-use token: 256 random bits, base64url (43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How a token is stored and looked up: SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Bytes of the system CSPRNG drawn 4 KiB at a time: a sync or an import makes tens of thousands
 * of ids, and one call into the CSPRNG per id cost more than the rest of making them. Each byte
 * is used once, then the pool is filled anew.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

/** `length` characters [A-Za-z0-9] from the system CSPRNG (rejection sampling, no bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** An application id: prefix + 12 characters (docs/data-model.md). */
export function newId(prefix: 'acc' | 'usr' | 'inv' | 'prt' | 'imp'): string {
  return prefix + randomAlphanumeric(12);
}

/** A user's API token: 40 characters [A-Za-z0-9] (about 238 bits). */
export function newApiToken(): string {
  return randomAlphanumeric(40);
}
