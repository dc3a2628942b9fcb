import type { ScryptCost } from '../../../server/auth/password';

/**
 * The scrypt cost of the passwords server tests hash (tests/server/setup.ts): N = 2^10 instead
 * of production's 2^15, a few milliseconds instead of about a quarter of a second of CPU each.
 */
export const LOW_PASSWORD_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };
