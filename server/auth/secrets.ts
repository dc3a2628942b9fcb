import { createHash, randomBytes } from 'node:crypto';
import { randomAlphanumeric } from '../../models/random';

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

/** Letters and digits from the CSPRNG, shared with the client (models/random.ts). */
export { randomAlphanumeric };

/** An application id: prefix + 12 characters (docs/data-model.md). */
export function newId(prefix: 'acc' | 'usr' | 'inv' | 'prt' | 'imp'): string {
  return prefix + randomAlphanumeric(12);
}

/** A user's API token: 40 characters [A-Za-z0-9] (about 238 bits). */
export function newApiToken(): string {
  return randomAlphanumeric(40);
}
