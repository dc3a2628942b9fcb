import { setPasswordHashCostForTests } from '../../server/auth/password';
import { SERVER_TEST_PASSWORD_COST } from './helpers/passwordCost';

/**
 * Before every server test file: the scrypt cost of the passwords it hashes
 * (SERVER_TEST_PASSWORD_COST: low in the PGlite pass). Hundreds of sign-ups and sign-ins set up
 * the tests' accounts, and at the production cost each takes about a quarter of a second of CPU
 * on a test machine. Verifying reads the cost from the stored hash, so nothing else changes; the
 * tests whose subject is the hashing itself (the dummy hash's timing, attempts judged while a
 * hash is computed) set the cost they need for themselves. Run before each file, it also undoes
 * what an earlier file of the same worker set.
 */
setPasswordHashCostForTests(SERVER_TEST_PASSWORD_COST);
