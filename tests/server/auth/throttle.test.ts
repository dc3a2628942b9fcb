import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { TEST_CONFIG } from '../helpers/app';
import { createAuthTestApp, MINUTE, problemsOf, signIn, signUp, uniqueEmail, type AuthTestApp } from './support';

let t: AuthTestApp;
let address = 0;
/** Each test signs in from its own client address, so only its own failures count against it. */
const newAddress = () => `203.0.113.${(address += 1)}`;

beforeAll(async () => {
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
  it('refuses an e-mail after 10 failures within 15 minutes, even with the right password, until they age out', async () => {
    const owner = await signUp(t.app);
    const ip = newAddress();
    await fail(owner.email, ip, 10);
    expectThrottled(await signIn(t.app, owner.email, owner.password, ip), 15 * 60, 15);
    // From another address too: the count is the e-mail's.
    expectThrottled(await signIn(t.app, owner.email.toUpperCase(), owner.password, newAddress()), 15 * 60, 15);
    t.clock.advance(15 * MINUTE);
    expect((await signIn(t.app, owner.email, owner.password, ip)).statusCode).toBe(200);
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
