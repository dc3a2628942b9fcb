import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { TEST_CONFIG } from '../helpers/app';
import {
  createAuthTestApp,
  expectSignInRequired,
  getMe,
  HOUR,
  linkTokenFor,
  outboxFor,
  problemsOf,
  signIn,
  signUp,
  uniqueEmail,
  type ApiUser,
  type AuthTestApp,
} from './support';

let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

const NEW_PASSWORD = 'violet-harbour-tram-77';
const INVALID_TOKEN = [{ pointer: '/user/reset_password_token', detail: 'is invalid or has expired' }];

const requestReset = (email: string) => t.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email } } });

const reset = (token: string, password = NEW_PASSWORD, confirmation = password) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/v11/users/password',
    payload: { user: { reset_password_token: token, password, password_confirmation: confirmation } },
  });

describe('POST /api/v11/users/password', () => {
  it('e-mails a single link {origin}/reset_password/{token} and stores only its hash', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const response = await requestReset(owner.email);
    expect(response.statusCode).toBe(200);
    const mails = await outboxFor(t.app, owner.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe('Reset your Subscope password');
    expect(mails[0]?.text).toContain('Hello Ada,');
    expect(mails[0]?.text).toMatch(/^http:\/\/localhost:3000\/reset_password\/[A-Za-z0-9_-]{43}$/m);
    expect(mails[0]?.html).toContain('/reset_password/');
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    const rows = await t.db.kysely.selectFrom('password_reset_tokens').select('token_hash').where('user_id', '=', owner.user.id).execute();
    expect(rows).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex') }]);
  });

  it('answers an unknown e-mail exactly like a known one, and e-mails nobody', async () => {
    const owner = await signUp(t.app);
    const known = await requestReset(owner.email);
    const unknownEmail = uniqueEmail('nobody');
    const unknown = await requestReset(unknownEmail);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    expect(unknown.json()).toEqual({
      message: 'If your e-mail address is registered, you will receive a link to reset your password in a few minutes.',
    });
    expect(await outboxFor(t.app, unknownEmail)).toEqual([]);
    expect(await requestReset('not an e-mail')).toMatchObject({ statusCode: 200, body: known.body });
  });

  it('finds the user whatever the case and spacing of the e-mail', async () => {
    const owner = await signUp(t.app);
    await requestReset(` ${owner.email.toUpperCase()} `);
    expect(await outboxFor(t.app, owner.email)).toHaveLength(1);
  });

  it('sends nothing to a colleague whose invitation is pending', async () => {
    const owner = await signUp(t.app);
    const invitee = uniqueEmail('invitee');
    await t.app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email: invitee, name: 'Bob' } });
    await requestReset(invitee);
    expect((await outboxFor(t.app, invitee)).map((mail) => mail.subject)).toEqual(['Owner invited you to Owner on Subscope']);
  });

  it('links to PUBLIC_URL when it is configured', async () => {
    const other = await createAuthTestApp({ config: { production: false, jwtSecret: 'x'.repeat(40), testRoutes: true, devOutbox: true, publicUrl: 'https://app.subscope.example' } });
    try {
      const owner = await signUp(other.app);
      await other.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email: owner.email } } });
      const [mail] = await outboxFor(other.app, owner.email);
      expect(mail?.text).toMatch(/^https:\/\/app\.subscope\.example\/reset_password\/[A-Za-z0-9_-]{43}$/m);
    } finally {
      await other.close();
    }
  });
});

describe('PUT /api/v11/users/password', () => {
  it('following the e-mailed link sets the new password and signs in', async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const response = await reset(await linkTokenFor(t.app, owner.email, 'reset_password'));
    expect(response.statusCode).toBe(200);
    expect((response.json() as { user: ApiUser }).user).toMatchObject({ id: owner.user.id, email: owner.email });
    expect((await getMe(t.app, String(response.headers.authorization))).statusCode).toBe(200);
    expect((await signIn(t.app, owner.email, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await signIn(t.app, owner.email, owner.password)).statusCode).toBe(401);
  });

  it("signs the user's other sessions out, on every instance, and keeps the new one and other users' sessions", async () => {
    const owner = await signUp(t.app);
    const elsewhere = await signIn(t.app, owner.email, owner.password, '198.51.100.60');
    expect(elsewhere.statusCode).toBe(200);
    const colleague = await signUp(t.app);
    await requestReset(owner.email);
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    // Tokens are told apart by when they were issued: the reset comes a moment after the sign-ins.
    t.clock.advance(1000);
    const response = await reset(token);
    expect(response.statusCode).toBe(200);
    const other = await buildApp({ db: t.db, config: TEST_CONFIG, now: t.clock.now });
    await other.ready();
    try {
      for (const app of [t.app, other]) {
        expectSignInRequired(await getMe(app, owner.authorization));
        expectSignInRequired(await getMe(app, String(elsewhere.headers.authorization)));
        expect((await getMe(app, String(response.headers.authorization))).statusCode).toBe(200);
        expect((await getMe(app, colleague.authorization)).statusCode).toBe(200);
      }
    } finally {
      await other.close();
    }
    // A sign-in with the new password afterwards is a new session, and holds.
    t.clock.advance(1000);
    const again = await signIn(t.app, owner.email, NEW_PASSWORD);
    expect(again.statusCode).toBe(200);
    expect((await getMe(t.app, String(again.headers.authorization))).statusCode).toBe(200);
  });

  it('keeps revoking the old sessions until they would have expired anyway', async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    t.clock.advance(1000);
    expect((await reset(await linkTokenFor(t.app, owner.email, 'reset_password'))).statusCode).toBe(200);
    t.clock.advance(24 * HOUR - 2000);
    // Another sign-out purges expired revocations; this one has not expired yet.
    const signedIn = await signIn(t.app, owner.email, NEW_PASSWORD);
    await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: String(signedIn.headers.authorization) } });
    expectSignInRequired(await getMe(t.app, owner.authorization));
  });

  it('refuses a used token', async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    expect((await reset(token)).statusCode).toBe(200);
    const again = await reset(token, 'another-fine-password-9');
    expect(again.statusCode).toBe(422);
    expect(problemsOf(again)).toEqual(INVALID_TOKEN);
    expect((await signIn(t.app, owner.email, 'another-fine-password-9')).statusCode).toBe(401);
  });

  it('refuses a token after 2 hours', async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    t.clock.advance(2 * HOUR);
    const response = await reset(token);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual(INVALID_TOKEN);
  });

  it('accepts a token just before it expires', async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    t.clock.advance(2 * HOUR - 1000);
    expect((await reset(token)).statusCode).toBe(200);
  });

  it('refuses an unknown or missing token', async () => {
    expect(problemsOf(await reset('x'.repeat(43)))).toEqual(INVALID_TOKEN);
    const missing = await t.app.inject({ method: 'PUT', url: '/api/v11/users/password', payload: { user: { password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } } });
    expect(missing.statusCode).toBe(422);
    expect(problemsOf(missing)).toEqual(INVALID_TOKEN);
  });

  it("uses up the user's other reset links too", async () => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const first = await linkTokenFor(t.app, owner.email, 'reset_password');
    await requestReset(owner.email);
    const second = await linkTokenFor(t.app, owner.email, 'reset_password');
    expect(second).not.toBe(first);
    expect((await reset(second)).statusCode).toBe(200);
    expect(problemsOf(await reset(first))).toEqual(INVALID_TOKEN);
  });

  it.each([
    ['a common password', 'iloveyou', 'iloveyou', [{ pointer: '/user/password', detail: 'is too common' }]],
    ['a short password', 'k3#x', 'k3#x', [{ pointer: '/user/password', detail: 'is too short (minimum is 8 characters)' }]],
    ['a confirmation that differs', NEW_PASSWORD, 'something-else-2', [{ pointer: '/user/password_confirmation', detail: "doesn't match Password" }]],
  ])('answers 422 for %s and leaves the link usable', async (_case, password, confirmation, problems) => {
    const owner = await signUp(t.app);
    await requestReset(owner.email);
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    const response = await reset(token, password, confirmation);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual(problems);
    expect((await reset(token)).statusCode).toBe(200);
  });

  it('lifts the sign-in block of the e-mail', async () => {
    const owner = await signUp(t.app);
    for (let i = 0; i < 10; i += 1) await signIn(t.app, owner.email, 'wrong-password', '198.51.100.7');
    expect((await signIn(t.app, owner.email, owner.password, '198.51.100.7')).statusCode).toBe(429);
    await requestReset(owner.email);
    await reset(await linkTokenFor(t.app, owner.email, 'reset_password'));
    expect((await signIn(t.app, owner.email, NEW_PASSWORD, '198.51.100.7')).statusCode).toBe(200);
  });
});
