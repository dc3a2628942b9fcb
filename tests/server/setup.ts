import { setPasswordHashCostForTests } from '../../server/auth/password';
import { LOW_PASSWORD_COST } from './helpers/passwordCost';

/**
 * Before every server test file: passwords hashed at a low scrypt cost. Hundreds of sign-ups
 * and sign-ins set up the tests' accounts, and at the production cost each takes about a
 * quarter of a second of CPU on a test machine. Verifying reads the cost from the stored hash,
 * so nothing else changes; the tests whose subject is the hashing itself (the cost stored, the
 * dummy hash's timing, attempts judged while a hash is computed) set the production cost for
 * themselves.
 */
setPasswordHashCostForTests(LOW_PASSWORD_COST);
