import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthTestApp, linkTokenFor, PASSWORD, problemsOf, signIn, signUp, uniqueEmail, type AuthTestApp } from './support';

/**
 * The password rules, as each call that sets a password answers them: sign-up, password reset
 * and accepting an invitation (422, pointer /user/password, Rails-like detail).
 */
let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

const BLANK = "can't be blank";
const REPETITIVE = 'is too repetitive';
const LIKE_EMAIL = 'is too similar to your e-mail';

const signUpWith = (email: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/v11/users', payload: { user: { email, password, name: 'Owner' } } });

/** The local part of an address. */
const localOf = (email: string) => email.slice(0, email.indexOf('@'));

describe('password rules at sign-up', () => {
  it.each([
    ['only spaces', '          ', BLANK],
    ['only white space of several kinds', ' \t\u3000\u00a0  \t  ', BLANK],
    ['one character repeated', 'zzzzzzzzzzzz', REPETITIVE],
    ['one character repeated in mixed case', 'qQqQqQqQqQ', REPETITIVE],
    ['a short pattern repeated', 'abcabcabc', REPETITIVE],
    ['a short pattern repeated, the last copy cut', '7x!k7x!k7x', REPETITIVE],
    ['a 7-character unit twice', 'k9#mQ2vk9#mQ2v', REPETITIVE],
  ])('refuses %s', async (_case, password, detail) => {
    const response = await signUpWith(uniqueEmail(), password);
    expect(response.statusCode).toBe(422);
    expect(response.headers.authorization).toBeUndefined();
    expect(problemsOf(response)).toEqual([{ pointer: '/user/password', detail }]);
  });

  it.each([
    ['the e-mail itself', (email: string) => email],
    ['the e-mail in other case', (email: string) => email.toUpperCase()],
    ['the e-mail with more around it', (email: string) => `my ${email} pass`],
    ['the local part', (email: string) => localOf(email)],
    ['the local part in other case with more around it', (email: string) => `${localOf(email).toUpperCase()}-2026!`],
  ])('refuses %s', async (_case, passwordOf) => {
    const email = uniqueEmail('grace.hopper');
    const response = await signUpWith(email, passwordOf(email));
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: '/user/password', detail: LIKE_EMAIL }]);
  });

  it.each([
    ['a 8-unit passphrase repeated', 'tram-77!tram-77!'],
    ['a password with a repeated start only', 'aaaa-orbit-lantern'],
    ['a password with a 3-character local part in it', 'joe-orbit-lantern-42'],
    ['a password with the domain of the e-mail in it', 'example-orbit-lantern'],
  ])('accepts %s, and signs in with it', async (_case, password) => {
    const email = `joe@${uniqueEmail('domain').replace('@', '.').replace(/\.com$/, '')}.com`;
    const response = await signUpWith(email, password);
    expect(response.statusCode, response.body).toBe(201);
    expect((await signIn(t.app, email, password)).statusCode).toBe(200);
  });
});

describe('password rules at password reset', () => {
  it.each([
    ['the e-mail', (email: string) => email.toUpperCase(), LIKE_EMAIL],
    ['the local part with more around it', (email: string) => `${localOf(email)}#1`, LIKE_EMAIL],
    ['a repeated pattern', () => 'xoxoxoxoxo', REPETITIVE],
    ['only spaces', () => '         ', BLANK],
  ])('refuses %s and leaves the link usable', async (_case, passwordOf, detail) => {
    const owner = await signUp(t.app);
    await t.app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email: owner.email } } });
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    const password = passwordOf(owner.email);
    const reset = (value: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/v11/users/password',
        payload: { user: { reset_password_token: token, password: value, password_confirmation: value } },
      });
    const refused = await reset(password);
    expect(refused.statusCode).toBe(422);
    expect(problemsOf(refused)).toEqual([{ pointer: '/user/password', detail }]);
    expect((await signIn(t.app, owner.email, password)).statusCode).toBe(401);
    expect((await reset('violet-harbour-tram-77')).statusCode).toBe(200);
  });
});

describe('password rules when accepting an invitation', () => {
  it.each([
    ["the invitee's e-mail", (email: string) => email, LIKE_EMAIL],
    ["the invitee's local part with more around it", (email: string) => `!${localOf(email)}!`, LIKE_EMAIL],
    ['one character repeated', () => '%%%%%%%%%%', REPETITIVE],
    ['only spaces', () => '           ', BLANK],
  ])('refuses %s and leaves the invitation usable', async (_case, passwordOf, detail) => {
    const owner = await signUp(t.app, { password: PASSWORD });
    const email = uniqueEmail('colleague');
    const invited = await t.app.inject({ method: 'POST', url: '/api/v11/users', headers: { authorization: owner.authorization }, payload: { email, name: 'Bob' } });
    expect(invited.statusCode).toBe(201);
    const token = await linkTokenFor(t.app, email, 'invitation');
    const accept = (value: string) =>
      t.app.inject({ method: 'PUT', url: `/api/v11/invitations/${encodeURIComponent(token)}`, payload: { user: { password: value, password_confirmation: value } } });
    const refused = await accept(passwordOf(email));
    expect(refused.statusCode).toBe(422);
    expect(problemsOf(refused)).toEqual([{ pointer: '/user/password', detail }]);
    expect((await accept('amber-canyon-violin-31')).statusCode).toBe(200);
  });
});
