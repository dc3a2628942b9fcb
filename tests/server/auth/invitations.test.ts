import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuthTestApp,
  DAY,
  getMe,
  linkTokenFor,
  problemsOf,
  signIn,
  signUp,
  uniqueEmail,
  type ApiUser,
  type AuthTestApp,
  type SignedUp,
} from './support';

let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

const PASSWORD = 'amber-canyon-violin-31';
const NOT_FOUND = { errors: [{ detail: 'This invitation is invalid or has expired', title: 'Not Found', status: '404' }] };

/** An owner invites a colleague; answers the invitee's e-mail and the token of the e-mailed link. */
async function invite(owner: SignedUp, name = 'Bob'): Promise<{ email: string; token: string }> {
  const email = uniqueEmail('colleague');
  const response = await t.app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email, name } });
  expect(response.statusCode).toBe(201);
  return { email, token: await linkTokenFor(t.app, email, 'invitation') };
}

const getInvitation = (token: string) => t.app.inject({ method: 'GET', url: `/api/v11/invitations/${encodeURIComponent(token)}` });

const accept = (token: string, user: Record<string, string>) =>
  t.app.inject({ method: 'PUT', url: `/api/v11/invitations/${encodeURIComponent(token)}`, payload: { user } });

describe('GET /api/v11/invitations/:token', () => {
  it('answers the invitee, the account and the inviter', async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const { email, token } = await invite(owner);
    const response = await getInvitation(token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ invitee: { email, name: 'Bob' }, account: { name: 'Ada' }, inviter: { name: 'Ada' } });
  });

  it('answers 404 for an unknown token', async () => {
    const response = await getInvitation('no-such-invitation-token');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual(NOT_FOUND);
  });

  it('answers 404 after 7 days', async () => {
    const owner = await signUp(t.app);
    const { token } = await invite(owner);
    t.clock.advance(7 * DAY - 1000);
    expect((await getInvitation(token)).statusCode).toBe(200);
    t.clock.advance(1000);
    expect((await getInvitation(token)).json()).toEqual(NOT_FOUND);
    expect((await accept(token, { password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(404);
  });

  it('answers 404 once the invitation is accepted', async () => {
    const owner = await signUp(t.app);
    const { token } = await invite(owner);
    expect((await accept(token, { password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    expect((await getInvitation(token)).statusCode).toBe(404);
  });
});

describe('PUT /api/v11/invitations/:token', () => {
  it("sets name and password, joins the inviter's account and signs in", async () => {
    const owner = await signUp(t.app, { name: 'Ada' });
    const { email, token } = await invite(owner);
    const response = await accept(token, { name: 'Robert Tables', password: PASSWORD, password_confirmation: PASSWORD });
    expect(response.statusCode).toBe(200);
    const { user } = response.json() as { user: ApiUser };
    expect(user).toMatchObject({ email, name: 'Robert Tables', account_id: owner.user.account_id, permission_level: 'user', invitation_pending: false });
    expect((await getMe(t.app, String(response.headers.authorization))).statusCode).toBe(200);
    expect((await signIn(t.app, email, PASSWORD)).statusCode).toBe(200);
    const users = await t.app.inject({ method: 'GET', url: '/api/v11/users', headers: { authorization: owner.authorization } });
    expect((users.json() as { items: ApiUser[] }).items.map((u) => [u.name, u.invitation_pending])).toEqual([
      ['Ada', false],
      ['Robert Tables', false],
    ]);
  });

  it('keeps the name the inviter gave when none is sent', async () => {
    const owner = await signUp(t.app);
    const { token } = await invite(owner, 'Bobby');
    const response = await accept(token, { name: ' ', password: PASSWORD, password_confirmation: PASSWORD });
    expect((response.json() as { user: ApiUser }).user.name).toBe('Bobby');
  });

  it('cannot be used twice', async () => {
    const owner = await signUp(t.app);
    const { email, token } = await invite(owner);
    expect((await accept(token, { password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(200);
    const again = await accept(token, { password: 'second-try-password-5', password_confirmation: 'second-try-password-5' });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(NOT_FOUND);
    expect((await signIn(t.app, email, 'second-try-password-5')).statusCode).toBe(401);
  });

  it.each([
    ['a common password', { password: 'football', password_confirmation: 'football' }, [{ pointer: '/user/password', detail: 'is too common' }]],
    ['no password', { password_confirmation: 'x' }, [
      { pointer: '/user/password', detail: "can't be blank" },
      { pointer: '/user/password_confirmation', detail: "doesn't match Password" },
    ]],
    ['a confirmation that differs', { password: PASSWORD, password_confirmation: 'nope' }, [
      { pointer: '/user/password_confirmation', detail: "doesn't match Password" },
    ]],
  ])('answers 422 for %s and leaves the invitation usable', async (_case, user, problems) => {
    const owner = await signUp(t.app);
    const { token } = await invite(owner);
    const response = await accept(token, user);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual(problems);
    expect((await getInvitation(token)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown token', async () => {
    const response = await accept('unknown-token', { password: PASSWORD, password_confirmation: PASSWORD });
    expect(response.statusCode).toBe(404);
  });
});
