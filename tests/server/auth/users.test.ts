import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuthTestApp,
  errorsOf,
  expectSignInRequired,
  getMe,
  linkTokenFor,
  makeSharedReportOnly,
  outboxFor,
  PASSWORD,
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

const postUsers = (payload: object, authorization?: string) =>
  t.app.inject({ method: 'POST', url: '/api/v11/users', payload, headers: authorization ? { authorization } : {} });

const userOf = (response: { json(): unknown }) => (response.json() as { user: ApiUser }).user;

describe('POST /api/v11/users (sign-up, no token)', () => {
  it('creates an account and its owner, and signs them in', async () => {
    const email = uniqueEmail('founder');
    const response = await postUsers({ user: { email, password: PASSWORD, name: 'Grace Hopper', marketing_ref: 'newsletter-7' } });
    expect(response.statusCode).toBe(201);
    const user = userOf(response);
    expect(user).toEqual({
      id: expect.stringMatching(/^usr[A-Za-z0-9]{12}$/),
      email,
      name: 'Grace Hopper',
      account_id: expect.stringMatching(/^acc[A-Za-z0-9]{12}$/),
      permission_level: 'user',
      currency: 'USD',
      customer_columns: [],
      invitation_pending: false,
    });
    const me = await getMe(t.app, String(response.headers.authorization));
    expect(userOf(me)).toMatchObject({ id: user.id, api_token: expect.stringMatching(/^[A-Za-z0-9]{40}$/) });
    const account = await t.db.kysely.selectFrom('accounts').selectAll().where('id', '=', user.account_id).executeTakeFirstOrThrow();
    expect(account).toMatchObject({ name: 'Grace Hopper', currency: 'USD', anonymous_access_allowed: false, is_demo: false });
    const row = await t.db.kysely.selectFrom('users').select(['marketing_ref', 'password_hash']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.marketing_ref).toBe('newsletter-7');
    expect(row.password_hash).toMatch(/^scrypt\$/);
  });

  it("names the account after the e-mail's domain when no name is given", async () => {
    const response = await postUsers({ user: { email: `Ops.${Date.now()}@Acme-Analytics.io`, password: PASSWORD } });
    expect(response.statusCode).toBe(201);
    const user = userOf(response);
    expect(user.email).toBe(user.email.toLowerCase());
    const account = await t.db.kysely.selectFrom('accounts').select('name').where('id', '=', user.account_id).executeTakeFirstOrThrow();
    expect(account.name).toBe('acme-analytics.io');
  });

  it('stores the e-mail trimmed and lower-case', async () => {
    const email = uniqueEmail('mixed');
    const response = await postUsers({ user: { email: `  ${email.toUpperCase()}  `, password: PASSWORD } });
    expect(userOf(response).email).toBe(email);
    expect((await signIn(t.app, email, PASSWORD)).statusCode).toBe(200);
  });

  it.each([
    ['a blank e-mail', { email: '   ' }, '/user/email', "can't be blank"],
    ['a malformed e-mail', { email: 'ada.example.com' }, '/user/email', 'is invalid'],
    ['an e-mail without a domain dot', { email: 'ada@localhost' }, '/user/email', 'is invalid'],
    ['no password', { password: undefined }, '/user/password', "can't be blank"],
    ['a 7-character password', { password: 'x7#kQ2m' }, '/user/password', 'is too short (minimum is 8 characters)'],
    ['a 129-character password', { password: 'k'.repeat(129) }, '/user/password', 'is too long (maximum is 128 characters)'],
    ['a common password', { password: 'sunshine' }, '/user/password', 'is too common'],
    ['a common password in other case', { password: 'PassWord123' }, '/user/password', 'is too common'],
    ['a common password in full-width letters (NFKC)', { password: 'ｐａｓｓｗｏｒｄ１２３' }, '/user/password', 'is too common'],
    ['a confirmation that differs', { password_confirmation: 'something-else-1' }, '/user/password_confirmation', "doesn't match Password"],
    ['a 101-character name', { name: 'n'.repeat(101) }, '/user/name', 'is too long (maximum is 100 characters)'],
  ])('answers 422 for %s', async (_case, change, pointer, detail) => {
    const response = await postUsers({ user: { email: uniqueEmail(), password: PASSWORD, ...change } });
    expect(response.statusCode).toBe(422);
    expect(response.headers.authorization).toBeUndefined();
    expect(problemsOf(response)).toEqual([{ pointer, detail }]);
    expect(errorsOf(response)[0]).toMatchObject({ status: '422', title: 'Unprocessable Entity' });
  });

  it('answers every problem at once', async () => {
    const response = await postUsers({ user: { email: 'nope', password: 'short', password_confirmation: 'other' } });
    expect(problemsOf(response)).toEqual([
      { pointer: '/user/email', detail: 'is invalid' },
      { pointer: '/user/password', detail: 'is too short (minimum is 8 characters)' },
      { pointer: '/user/password_confirmation', detail: "doesn't match Password" },
    ]);
  });

  it('answers "has already been taken" for an e-mail in use, in any case', async () => {
    const owner = await signUp(t.app);
    const response = await postUsers({ user: { email: owner.email.toUpperCase(), password: PASSWORD } });
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: '/user/email', detail: 'has already been taken' }]);
  });

  it('lets only one of two simultaneous sign-ups with one e-mail through', async () => {
    const email = uniqueEmail('twice');
    const responses = await Promise.all([1, 2].map(() => postUsers({ user: { email, password: PASSWORD } })));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 422]);
    const loser = responses.find((r) => r.statusCode === 422);
    expect(loser && problemsOf(loser)).toEqual([{ pointer: '/user/email', detail: 'has already been taken' }]);
    const accounts = await t.db.kysely.selectFrom('users').select('account_id').where('email', '=', email).execute();
    expect(accounts).toHaveLength(1);
  });

  it.each([
    ['64', 64],
    ['128', 128],
  ])('accepts a %s-character password, and signs in with it', async (_label, length) => {
    const password = 'correct horse battery staple '.repeat(5).slice(0, length);
    expect([...password]).toHaveLength(length);
    const owner = await signUp(t.app, { password });
    expect((await signIn(t.app, owner.email, password)).statusCode).toBe(200);
    expect((await signIn(t.app, owner.email, password.slice(0, -1))).statusCode).toBe(401);
  });

  it('accepts a matching confirmation', async () => {
    const response = await postUsers({ user: { email: uniqueEmail(), password: PASSWORD, password_confirmation: PASSWORD } });
    expect(response.statusCode).toBe(201);
  });
});

describe('POST /api/v11/users (invite a colleague, with a token)', () => {
  it('creates the invitee in the inviter\'s account and e-mails them a link', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const email = uniqueEmail('colleague');
    const response = await postUsers({ email: email.toUpperCase(), name: ' Bob ' }, owner.authorization);
    expect(response.statusCode).toBe(201);
    expect(response.headers.authorization).toBeUndefined();
    expect(userOf(response)).toEqual({
      id: expect.stringMatching(/^usr/),
      email,
      name: 'Bob',
      account_id: owner.user.account_id,
      permission_level: 'user',
      currency: 'USD',
      customer_columns: [],
      invitation_pending: true,
    });
    const [mail] = await outboxFor(t.app, email);
    expect(mail?.subject).toBe('Ada invited you to Ada on Subscope');
    expect(mail?.text).toMatch(/^http:\/\/localhost:3000\/invitation\/[A-Za-z0-9_-]{43}$/m);
    expect(mail?.html).toContain('/invitation/');
    // The invitation stores only a hash of the token.
    const token = await linkTokenFor(t.app, email, 'invitation');
    const stored = await t.db.kysely.selectFrom('invitations').select('token_hash').where('email', '=', email).execute();
    expect(stored).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it.each([
    ['no name', { name: '' }, [{ pointer: '/name', detail: 'Required' }]],
    ['no e-mail', { email: '' }, [{ pointer: '/email', detail: 'Required' }]],
    ['neither', { email: undefined, name: undefined }, [{ pointer: '/name', detail: 'Required' }, { pointer: '/email', detail: 'Required' }]],
    ['a malformed e-mail', { email: 'bob@' }, [{ pointer: '/email', detail: 'It does not look like a proper email address' }]],
  ])('answers 422 for %s', async (_case, change, problems) => {
    const owner = await signUp(t.app);
    const response = await postUsers({ email: uniqueEmail(), name: 'Bob', ...change }, owner.authorization);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual(problems);
  });

  it('answers "has already been taken" for a user of any account, and e-mails nobody', async () => {
    const owner = await signUp(t.app);
    const stranger = await signUp(t.app);
    const response = await postUsers({ email: stranger.email, name: 'Stranger' }, owner.authorization);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: '/email', detail: 'has already been taken' }]);
    expect(await outboxFor(t.app, stranger.email)).toEqual([]);
  });

  it('sends a fresh invitation to a colleague who has not accepted yet; the old link stops working', async () => {
    const owner = await signUp(t.app);
    const email = uniqueEmail('forgetful');
    await postUsers({ email, name: 'Bob' }, owner.authorization);
    const first = await linkTokenFor(t.app, email, 'invitation');
    const again = await postUsers({ email, name: 'Robert' }, owner.authorization);
    expect(again.statusCode).toBe(201);
    expect(userOf(again)).toMatchObject({ name: 'Robert', invitation_pending: true });
    const second = await linkTokenFor(t.app, email, 'invitation');
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: `/api/v11/invitations/${first}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/v11/invitations/${second}` })).statusCode).toBe(200);
  });

  it("does not re-invite another account's pending invitee", async () => {
    const owner = await signUp(t.app);
    const other = await signUp(t.app);
    const email = uniqueEmail('wanted');
    await postUsers({ email, name: 'Bob' }, other.authorization);
    const response = await postUsers({ email, name: 'Bob' }, owner.authorization);
    expect(problemsOf(response)).toEqual([{ pointer: '/email', detail: 'has already been taken' }]);
  });

  it('answers 403 to a shared_report_only user', async () => {
    const owner = await signUp(t.app);
    await makeSharedReportOnly(t.db, owner.user.id);
    const email = uniqueEmail();
    const response = await postUsers({ email, name: 'Bob' }, owner.authorization);
    expect(response.statusCode).toBe(403);
    expect(await outboxFor(t.app, email)).toEqual([]);
  });

  it('answers 401 for a revoked or invalid token instead of signing up', async () => {
    const owner = await signUp(t.app);
    await t.app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
    expectSignInRequired(await postUsers({ email: uniqueEmail(), name: 'Bob' }, owner.authorization));
    expectSignInRequired(await postUsers({ user: { email: uniqueEmail(), password: PASSWORD } }, 'Bearer garbage'));
  });
});

describe('GET /api/v11/users', () => {
  it("lists the caller's account, invitees included, and never another account's users", async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const stranger = await signUp(t.app, { name: 'Eve' });
    const invitee = uniqueEmail('bob');
    await postUsers({ email: invitee, name: 'Bob' }, owner.authorization);
    await postUsers({ email: uniqueEmail('mallory'), name: 'Mallory' }, stranger.authorization);
    const response = await t.app.inject({ method: 'GET', url: '/api/v11/users', headers: { authorization: owner.authorization } });
    expect(response.statusCode).toBe(200);
    const { items } = response.json() as { items: ApiUser[] };
    expect(items.map((u) => [u.email, u.name, u.invitation_pending])).toEqual([
      [owner.email, 'Ada', false],
      [invitee, 'Bob', true],
    ]);
    expect(items.every((u) => u.account_id === owner.user.account_id && u.api_token === undefined)).toBe(true);
  });

  it('answers 401 without a token and 403 to a shared_report_only user', async () => {
    expectSignInRequired(await t.app.inject({ method: 'GET', url: '/api/v11/users' }));
    const owner = await signUp(t.app);
    await makeSharedReportOnly(t.db, owner.user.id);
    const response = await t.app.inject({ method: 'GET', url: '/api/v11/users', headers: { authorization: owner.authorization } });
    expect(response.statusCode).toBe(403);
    expect(errorsOf(response)[0]).toMatchObject({ status: '403', detail: 'You are not allowed to do this.' });
  });
});

describe('GET /api/v11/users/me', () => {
  it('answers the signed-in user with the API token', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const response = await getMe(t.app, owner.authorization);
    expect(response.statusCode).toBe(200);
    // The customers table's columns complete (a user who never chose gets the default ones; tests/server/routes/customerColumns.test.ts).
    expect(userOf(response)).toEqual({ ...owner.user, customer_columns: expect.any(Array), api_token: expect.stringMatching(/^[A-Za-z0-9]{40}$/) });
    expect(userOf(response).customer_columns.map((column) => column.id)).toEqual(['name', 'public_id', 'added_at', 'mrr', 'total']);
  });

  it('leaves the API token out for a shared_report_only user', async () => {
    const owner = await signUp(t.app);
    await makeSharedReportOnly(t.db, owner.user.id);
    const user = userOf(await getMe(t.app, owner.authorization));
    expect(user.permission_level).toBe('shared_report_only');
    expect(user).not.toHaveProperty('api_token');
  });

  it('answers 401 without a token', async () => {
    expectSignInRequired(await getMe(t.app, undefined));
  });
});

describe('PUT /api/v11/users/me', () => {
  const putMe = (payload: object, authorization?: string) =>
    t.app.inject({ method: 'PUT', url: '/api/v11/users/me', payload, headers: authorization ? { authorization } : {} });

  it('changes name, currency and customer columns', async () => {
    const owner = await signUp(t.app);
    // The order and visibility given; an id the account does not offer ('seg1') is dropped, the columns not placed follow hidden.
    const sent = [
      { id: 'mrr', name: 'MRR', source: 'definition', visible: true, sortable: true },
      { id: 'name', name: 'Name', source: 'static', visible: false, sortable: true },
      { id: 'seg1', name: 'Plan', source: 'customer_segment', visible: false, sortable: false, data_type: 'string' },
    ];
    const columns = [
      { id: 'mrr', visible: true },
      { id: 'name', visible: false },
      { id: 'public_id', visible: false },
      { id: 'added_at', visible: false },
      { id: 'total', visible: false },
    ];
    const response = await putMe({ name: ' Ada L. ', currency: 'pln', customer_columns: sent }, owner.authorization);
    expect(response.statusCode).toBe(200);
    expect(userOf(response)).toMatchObject({ name: 'Ada L.', currency: 'PLN', customer_columns: columns, api_token: expect.any(String) });
    expect(userOf(await getMe(t.app, owner.authorization))).toMatchObject({ name: 'Ada L.', currency: 'PLN', customer_columns: columns });
  });

  it('leaves fields that are not sent as they are', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    await putMe({ currency: 'EUR' }, owner.authorization);
    expect(userOf(await putMe({ customer_columns: [] }, owner.authorization))).toMatchObject({ name: 'Ada', currency: 'EUR' });
  });

  it.each([
    ['an unknown currency', { currency: 'XYZ' }, '/currency', 'is invalid'],
    ['a two-letter currency', { currency: 'US' }, '/currency', 'is invalid'],
    ['a blank name', { name: '  ' }, '/name', "can't be blank"],
  ])('answers 422 for %s', async (_case, payload, pointer, detail) => {
    const owner = await signUp(t.app);
    const response = await putMe(payload, owner.authorization);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer, detail }]);
  });

  it('answers 400 when customer_columns is not a list of objects', async () => {
    const owner = await signUp(t.app);
    const response = await putMe({ customer_columns: ['name'] }, owner.authorization);
    expect(response.statusCode).toBe(400);
    expect(errorsOf(response)[0]?.source?.pointer).toBe('/customer_columns/0');
  });

  it('only ever changes the caller: ids in the body are refused, and nobody changes', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const stranger = await signUp(t.app, { name: 'Eve' });
    const response = await putMe({ id: stranger.user.id, account_id: stranger.user.account_id, name: 'Hacked' }, owner.authorization);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors.map((error: { source: { pointer: string } }) => error.source.pointer).sort()).toEqual(['/account_id', '/id']);
    expect(userOf(await getMe(t.app, owner.authorization)).name).toBe('Ada');
    expect(userOf(await getMe(t.app, stranger.authorization)).name).toBe('Eve');
  });

  it('answers 401 without a token', async () => {
    expectSignInRequired(await putMe({ name: 'X' }));
  });
});
