import type { ScryptCost } from '../../../server/auth/password';

/** A low scrypt cost: N = 2^10 instead of production's 2^15, a few milliseconds instead of about a quarter of a second of CPU each. */
export const LOW_PASSWORD_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

/**
 * The cost of the passwords server tests hash (tests/server/setup.ts sets it before every file):
 * the low cost in the PGlite pass; the production cost (undefined) in CI's PostgreSQL pass, whose
 * one run at the low cost saw the demo seed's test stall for over a minute (not understood, and
 * not seen again in local runs), so that pass keeps the setup it passed with before.
 */
export const SERVER_TEST_PASSWORD_COST: ScryptCost | undefined = process.env.DATABASE_URL ? undefined : LOW_PASSWORD_COST;
