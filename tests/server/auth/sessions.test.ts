import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { setPasswordHashCostForTests } from '../../../server/auth/password';
import { SERVER_TEST_PASSWORD_COST } from '../helpers/passwordCost';
import { buildApp } from '../../../server/app';
import { TEST_CONFIG } from '../helpers/app';
import {
  createAuthTestApp,
  DAY,
  expectSignInRequired,
  getMe,
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

describe('POST /api/v11/users/sign_in', () => {
  it('answers the user and a token in the Authorization header that signs later calls', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const response = await signIn(t.app, owner.email, owner.password);
    expect(response.statusCode).toBe(200);
    const { user } = response.json() as { user: ApiUser };
    expect(user).toEqual({
      id: owner.user.id,
      email: owner.email,
      name: 'Ada',
      account_id: owner.user.account_id,
      permission_level: 'user',
      currency: 'USD',
      customer_columns: [],
      invitation_pending: false,
    });
    expect(response.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const me = await getMe(t.app, String(response.headers.authorization));
    expect(me.statusCode).toBe(200);
    expect((me.json() as { user: ApiUser }).user.id).toBe(owner.user.id);
  });

  it('compares the e-mail address trimmed and case-insensitively', async () => {
    const owner = await signUp(t.app);
    const response = await signIn(t.app, `  ${owner.email.toUpperCase()} `, owner.password);
    expect(response.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const owner = await signUp(t.app);
    const wrongPassword = await signIn(t.app, owner.email, 'not-the-password');
    const unknownEmail = await signIn(t.app, uniqueEmail('nobody'), owner.password);
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers.authorization).toBeUndefined();
      expect(response.json()).toEqual({
        errors: [{ source: { pointer: '/user/email' }, detail: 'Email or password is invalid', title: 'Unauthorized', status: '401' }],
      });
    }
  });

  it('spends as long on an unknown e-mail as on a wrong password', async () => {
    // At the production cost (tests/server/setup.ts may lower it): the owner's hash and the dummy one.
    setPasswordHashCostForTests();
    onTestFinished(() => setPasswordHashCostForTests(SERVER_TEST_PASSWORD_COST));
    const owner = await signUp(t.app);
    const time = async (email: string) => {
      const started = performance.now();
      await signIn(t.app, email, 'not-the-password', '10.9.9.9');
      return performance.now() - started;
    };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] ?? 0;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      known.push(await time(owner.email));
      unknown.push(await time(uniqueEmail('nobody')));
    }
    // Without a dummy scrypt an unknown e-mail answers in a small fraction of the time.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it('refuses a colleague whose invitation is still pending', async () => {
    const owner = await signUp(t.app);
    const invitee = uniqueEmail('invitee');
    const invite = await t.app.inject({
      method: 'POST',
      url: '/api/v11/users',
      headers: { authorization: owner.authorization },
      payload: { email: invitee, name: 'Bob' },
    });
    expect(invite.statusCode).toBe(201);
    for (const password of ['', 'anything-at-all']) {
      const response = await signIn(t.app, invitee, password);
      expect(response.statusCode).toBe(401);
      expect(problemsOf(response)).toEqual([{ pointer: '/user/email', detail: 'Email or password is invalid' }]);
    }
  });

  it('answers 400 when the body lacks the user object', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/users/sign_in', payload: { email: 'a@b.co', password: 'x' } });
    expect(response.statusCode).toBe(400);
    expect(problemsOf(response)).toContainEqual({ pointer: '/user', detail: 'user is required' });
  });
});

describe('DELETE /api/v11/users/sign_out', () => {
  it('revokes the token: using it again answers 401', async () => {
    const owner = await signUp(t.app);
    const response = await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expectSignInRequired(await getMe(t.app, owner.authorization));
    expectSignInRequired(
      await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } }),
    );
  });

  it('revokes only that token: the same user signed in elsewhere stays signed in', async () => {
    const owner = await signUp(t.app);
    const laptop = String((await signIn(t.app, owner.email, owner.password)).headers.authorization);
    await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
    expect((await getMe(t.app, laptop)).statusCode).toBe(200);
  });

  it('holds on every server instance sharing the database', async () => {
    const other = await buildApp({ db: t.db, config: TEST_CONFIG, now: t.clock.now });
    await other.ready();
    try {
      const owner = await signUp(t.app);
      expect((await getMe(other, owner.authorization)).statusCode).toBe(200);
      await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
      expectSignInRequired(await getMe(other, owner.authorization));
    } finally {
      await other.close();
    }
  });

  it('answers 401 without a token', async () => {
    expectSignInRequired(await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out' }));
  });
});

describe('bearer tokens', () => {
  const sign = (claims: Record<string, unknown>, secret: string, alg = 'HS256') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg })
      .setIssuedAt(Math.floor(t.clock.now().getTime() / 1000))
      .setExpirationTime(Math.floor(t.clock.now().getTime() / 1000) + 3600)
      .sign(new TextEncoder().encode(secret));

  it('refuses a missing, malformed, forged or tampered token with the same 401', async () => {
    const owner = await signUp(t.app);
    const [header, payload, signature] = owner.authorization.slice('Bearer '.length).split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...claims, sub: 'usrSomeoneElse1' })).toString('base64url');
    const forged = await sign({ sub: owner.user.id, acc: owner.user.account_id, jti: 'forged' }, 'another-secret-of-enough-length-1234');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      'Token abc',
      'Bearer not-a-jwt',
      `Bearer ${header}.${tampered}.${signature}`,
      `Bearer ${forged}`,
      `Bearer ${unsigned}`,
    ]) {
      expectSignInRequired(await getMe(t.app, authorization));
    }
  });

  it('refuses a token without our claims even when it is signed with the right secret', async () => {
    const owner = await signUp(t.app);
    const withoutJti = await sign({ sub: owner.user.id, acc: owner.user.account_id }, TEST_CONFIG.jwtSecret);
    const otherAccount = await sign({ sub: owner.user.id, acc: 'accNotTheirs0001', jti: 'j1' }, TEST_CONFIG.jwtSecret);
    expectSignInRequired(await getMe(t.app, `Bearer ${withoutJti}`));
    expectSignInRequired(await getMe(t.app, `Bearer ${otherAccount}`));
  });

  it('expires a token 24 hours after sign-in', async () => {
    const owner = await signUp(t.app);
    t.clock.advance(DAY - 1000);
    expect((await getMe(t.app, owner.authorization)).statusCode).toBe(200);
    t.clock.advance(1000);
    expectSignInRequired(await getMe(t.app, owner.authorization));
  });

  it("refuses the token of a user who was removed", async () => {
    const owner = await signUp(t.app);
    await t.db.kysely.deleteFrom('accounts').where('id', '=', owner.user.account_id).execute();
    expectSignInRequired(await getMe(t.app, owner.authorization));
  });
});

describe('POST /api/v11/test/short_token', () => {
  it('issues a real token that expires after the given seconds', async () => {
    const owner = await signUp(t.app);
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/test/short_token', payload: { email: owner.email.toUpperCase(), ttl_seconds: 5 } });
    expect(response.statusCode).toBe(200);
    const { token } = response.json() as { token: string };
    expect((await getMe(t.app, `Bearer ${token}`)).statusCode).toBe(200);
    t.clock.advance(5000);
    expectSignInRequired(await getMe(t.app, `Bearer ${token}`));
    expect((await getMe(t.app, owner.authorization)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown e-mail', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/test/short_token', payload: { email: uniqueEmail(), ttl_seconds: 5 } });
    expect(response.statusCode).toBe(404);
  });

  it('does not exist without test routes', async () => {
    const other = await buildApp({ db: t.db, config: { ...TEST_CONFIG, testRoutes: false } });
    await other.ready();
    try {
      const response = await other.inject({ method: 'POST', url: '/api/v11/test/short_token', payload: { email: 'a@b.co', ttl_seconds: 5 } });
      expect(response.statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});
