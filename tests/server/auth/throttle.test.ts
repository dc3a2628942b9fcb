import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { setPasswordHashCostForTests } from '../../../server/auth/password';
import { LOW_PASSWORD_COST } from '../helpers/passwordCost';
import { loadConfig } from '../../../server/config';
import { openDatabase, type Database } from '../../../server/db/database';
import { TEST_CONFIG } from '../helpers/app';
import { createAuthTestApp, MINUTE, problemsOf, signIn, signUp, uniqueEmail, type AuthTestApp } from './support';

let t: AuthTestApp;
let address = 0;
/** Each test signs in from its own client address, so only its own failures count against it. */
const newAddress = () => `203.0.113.${(address += 1)}`;

/**
 * The throttle's subject is counting, not hashing, and this file judges about 250 passwords: at
 * the production scrypt cost (about 0.25 s each here) they took a minute. Hashes made in this
 * file (sign-ups, the dummy hash of unknown e-mails) use a low cost instead; verifying reads the
 * cost from the stored hash, so every sign-in is still judged by scrypt against the real hash.
 * The test of attempts sent at once signs its owner up at the production cost: there the time a
 * password takes to judge is the window the count must not race in.
 */

beforeAll(async () => {
  setPasswordHashCostForTests(LOW_PASSWORD_COST);
  t = await createAuthTestApp();
});
afterAll(() => t.close());

async function fail(email: string, ip: string, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    const response = await signIn(t.app, email, 'wrong-password', ip);
    expect(response.statusCode).toBe(401);
  }
}

function expectThrottled(response: Awaited<ReturnType<typeof signIn>>, retryAfterSeconds: number, minutes: number): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers['retry-after']).toBe(String(retryAfterSeconds));
  expect(response.headers.authorization).toBeUndefined();
  expect(problemsOf(response)).toEqual([
    { pointer: undefined, detail: `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.` },
  ]);
}

describe('POST /api/v11/users/sign_in throttling', () => {
  it('refuses an e-mail from an address after 10 failures from it within 15 minutes, even with the right password, until they age out', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    await fail(owner.email, ip, 10);
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 15 * 60, 15);
    // The e-mail in any case is the same e-mail.
    expectThrottled(await signIn(t.app, owner.email.toUpperCase(), owner.password, ip), 15 * 60, 15);
    t.clock.advance(15 * MINUTE);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
  });

  it('does not lock the owner out: failures from another address count against that address only', async () => {
    const owner = await signUp(t.app);
    const guesser = newAddress();
    await fail(owner.email, guesser, 10);
    expectThrottled(await signIn(t.app, owner.email, 'one-more-guess', guesser), 15 * 60, 15);
    const home = newAddress();
    expect((await signIn(t.app, owner.email, owner.password, home)).statusCode).toBe(200);
    // The owner's own mistakes still count, against the owner's address.
    await fail(owner.email, home, 10);
    expectThrottled(await signIn(t.app, owner.email, owner.password, home), 15 * 60, 15);
    // And the owner's success did not reset the guesser's count.
    expectThrottled(await signIn(t.app, owner.email, 'one-more-guess', guesser), 15 * 60, 15);
  });

  // Scrypt at the production cost runs for every judged attempt here: slow on a busy machine, hence the longer timeout.
  it('judges 10 of 200 wrong passwords sent at once to two instances for one e-mail from one address, and refuses the rest', { timeout: 180_000 }, async () => {
    // The second instance has a connection pool of its own on PostgreSQL, as on another machine.
    const otherDb: Database = t.db.url ? await openDatabase({ kind: 'postgresql', url: t.db.url, poolSize: 4 }) : t.db;
    const other = await buildApp({ db: otherDb, config: TEST_CONFIG, now: t.clock.now });
    await other.ready();
    // The owner's hash at the production cost: each judged attempt takes as long as in production.
    setPasswordHashCostForTests();
    try {
      const owner = await signUp(t.app);
      const stored = await t.db.kysely.selectFrom('users').select('password_hash').where('id', '=', owner.user.id).executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      const ip = newAddress();
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn(i % 2 ? other : t.app, owner.email, 'wrong-password', ip)));
      const judged = responses.filter((response) => response.statusCode === 401).length;
      const refused = responses.filter((response) => response.statusCode === 429).length;
      expect({ judged, refused }).toEqual({ judged: 10, refused: 190 });
      expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(429);
    } finally {
      setPasswordHashCostForTests(LOW_PASSWORD_COST);
      await other.close();
      if (otherDb !== t.db) await otherDb.close();
    }
  });

  it('counts an IPv6 client by its /64 network', async () => {
    const owner = await signUp(t.app);
    const network = `2001:db8:${(address += 1).toString(16)}:7`;
    for (let i = 1; i <= 10; i += 1) await fail(owner.email, `${network}::${i.toString(16)}`, 1);
    expectThrottled(await signIn(t.app, owner.email, owner.password, `${network}:ffff:ffff:ffff:fff0`), 15 * 60, 15);
    expect((await signIn(t.app, owner.email, owner.password, `2001:db8:${(address += 1).toString(16)}:7::1`)).statusCode).toBe(200);
  });

  it('counts down as failures leave the window and blocks again on a new failure: never permanently', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    for (let i = 0; i < 10; i += 1) {
      await fail(owner.email, ip, 1);
      t.clock.advance(MINUTE);
    }
    // The oldest failure is 10 minutes old: 5 minutes until it leaves the window.
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 5 * 60, 5);
    t.clock.advance(5 * MINUTE - 1000);
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 1, 1);
    t.clock.advance(1000);
    // Nine failures remain in the window: one more attempt is judged, and fails.
    await fail(owner.email, ip, 1);
    // The second-oldest failure now decides: it is 14 minutes old.
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 60, 1);
    t.clock.advance(MINUTE);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
  });

  it('does not count refused attempts, so hammering does not extend the block', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    await fail(owner.email, ip, 10);
    for (let i = 0; i < 5; i += 1) {
      t.clock.advance(MINUTE);
      expect((await signIn(t.app, owner.email, 'still-wrong', ip)).statusCode).toBe(429);
    }
    t.clock.advance(10 * MINUTE);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
  });

  it('clears the e-mail count on a successful sign-in', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    await fail(owner.email, ip, 9);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
    await fail(owner.email, ip, 9);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
  });

  it('counts failures for unknown e-mails too', async () => {
    const email = uniqueEmail('nobody');
    const ip = newAddress();
    await fail(email, ip, 10);
    expectThrottled(await signIn(t.app, email, 'wrong-password', ip), 15 * 60, 15);
  });

  it('refuses an address after 50 failures within 15 minutes, whatever the e-mails; other addresses are unaffected', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    for (let i = 0; i < 50; i += 1) await fail(uniqueEmail('guess'), ip, 1);
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 15 * 60, 15);
    expect((await signIn(t.app, owner.email, owner.password, newAddress())).statusCode).toBe(200);
    t.clock.advance(15 * MINUTE);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
  });

  it('is shared by every server instance on the database', async () => {
    const other = await buildApp({ db: t.db, config: TEST_CONFIG, now: t.clock.now });
    await other.ready();
    try {
      const owner = await signUp(t.app);
      const ip = newAddress();
      await fail(owner.email, ip, 10);
      expectThrottled(await signIn(other, owner.email, owner.password, ip), 15 * 60, 15);
    } finally {
      await other.close();
    }
  });
});

/**
 * The client address behind a reverse proxy (TRUST_PROXY, server/config.ts): only what the
 * trusted proxies say counts, so a client cannot choose its address with X-Forwarded-For and
 * escape the per-address counts.
 */
describe('sign-in throttling behind a proxy (TRUST_PROXY)', () => {
  const PROXY = '10.0.0.2';

  async function appWith(trustProxyEnv: string | undefined): Promise<FastifyInstance> {
    const { trustProxy } = loadConfig({ JWT_SECRET: TEST_CONFIG.jwtSecret, ...(trustProxyEnv === undefined ? {} : { TRUST_PROXY: trustProxyEnv }) });
    const app = await buildApp({ db: t.db, config: { ...TEST_CONFIG, trustProxy }, now: t.clock.now });
    await app.ready();
    return app;
  }

  function signInVia(app: FastifyInstance, email: string, password: string, remoteAddress: string, forwardedFor: string) {
    return app.inject({
      method: 'POST',
      url: '/api/v11/users/sign_in',
      payload: { user: { email, password } },
      remoteAddress,
      headers: { 'x-forwarded-for': forwardedFor },
    });
  }

  /** 10 failures of one client, each claiming another address before the one the proxy appended. */
  async function spoofedFailures(app: FastifyInstance, email: string, remoteAddress: string, client: string): Promise<void> {
    for (let i = 0; i < 10; i += 1) {
      const response = await signInVia(app, email, 'wrong-password', remoteAddress, `198.18.${i}.${i + 1}, 198.19.0.${i + 1}, ${client}`);
      expect(response.statusCode).toBe(401);
    }
  }

  it.each([['true'], ['1'], ['10.0.0.0/8'], [' 127.0.0.1 , 10.0.0.0/8 ']])(
    'TRUST_PROXY=%j: the client is the address the proxy appended, whatever it claims before it',
    async (setting) => {
      const app = await appWith(setting);
      try {
        const owner = await signUp(t.app);
        const client = newAddress();
        await spoofedFailures(app, owner.email, PROXY, client);
        expectThrottled(await signInVia(app, owner.email, owner.password, PROXY, `198.18.200.1, ${client}`), 15 * 60, 15);
        // Another client behind the same proxy is not affected.
        expect((await signInVia(app, owner.email, owner.password, PROXY, `${client}, ${newAddress()}`)).statusCode).toBe(200);
      } finally {
        await app.close();
      }
    },
  );

  it.each([[undefined], ['false']])('TRUST_PROXY=%j: X-Forwarded-For is ignored, the connecting address is the client', async (setting) => {
    const app = await appWith(setting);
    try {
      const owner = await signUp(t.app);
      const client = newAddress();
      await spoofedFailures(app, owner.email, client, newAddress());
      expectThrottled(await signInVia(app, owner.email, owner.password, client, newAddress()), 15 * 60, 15);
    } finally {
      await app.close();
    }
  });

  it('TRUST_PROXY with addresses: a client that is not one of them cannot name another client', async () => {
    const app = await appWith('10.0.0.0/8');
    try {
      const owner = await signUp(t.app);
      const client = newAddress();
      await spoofedFailures(app, owner.email, client, newAddress());
      expectThrottled(await signInVia(app, owner.email, owner.password, client, `${PROXY}, ${newAddress()}`), 15 * 60, 15);
    } finally {
      await app.close();
    }
  });

  it('parses TRUST_PROXY: never "trust every hop"', () => {
    const parse = (value: string) => loadConfig({ JWT_SECRET: TEST_CONFIG.jwtSecret, TRUST_PROXY: value }).trustProxy;
    expect(parse('false')).toBe(false);
    expect(parse('')).toBe(false);
    expect(parse('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8,127.0.0.1');
    const oneHop = parse('true');
    expect(typeof oneHop).toBe('function');
    if (typeof oneHop !== 'function') return;
    expect([0, 1, 2].map((hop) => oneHop('203.0.113.9', hop))).toEqual([true, false, false]);
    const twoHops = parse('2');
    if (typeof twoHops !== 'function') throw new Error('a hop count is a trust function');
    expect([0, 1, 2].map((hop) => twoHops('203.0.113.9', hop))).toEqual([true, true, false]);
  });
});
