import type { Struct } from 'superstruct';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptInvitationStruct,
  inviteUserStruct,
  newPasswordStruct,
  resetRequestStruct,
  SIGN_IN_FAILURE_MESSAGE,
  signInStruct,
  signUpStruct,
} from '../../../models/auth';
import { RESET_REQUESTED_MESSAGE } from '../../../server/routes/passwords';
import { superstructResolver } from '../../../src/forms/superstructResolver';
import { createAuthTestApp, linkTokenFor, PASSWORD, problemsOf, signUp, uniqueEmail, type AuthTestApp } from './support';

/**
 * One rule, two places: each form's struct (models/auth.ts) refuses a sample in the browser, and
 * the server route that receives the form refuses the same sample, on the same fields. The invite
 * route answers the form's own messages; sign-up, password reset and invitation acceptance answer
 * the API's field details ('is too short (minimum is 8 characters)'), which the form's sentence
 * repeats after the field's name where it has one. Sign-in and the reset request refuse in one
 * way whatever is wrong, so an answer tells nothing about the accounts.
 */
let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

const inject = (method: 'POST' | 'PUT', url: string, payload: object, authorization?: string) =>
  t.app.inject({ method, url: `/api/v11${url}`, payload, headers: authorization ? { authorization } : {} });

/** What the form shows for `values`, as `{field: message}`. */
const formErrors = <T, S>(struct: Struct<T, S>, values: object) => superstructResolver(struct)(values);

describe('invite a colleague: inviteUserStruct', () => {
  it.each([
    ['a blank name', { name: '  ', email: 'bob@example.com' }, { name: 'Required' }],
    ['a blank e-mail', { name: 'Bob', email: '' }, { email: 'Required' }],
    ['an e-mail without a domain', { name: 'Bob', email: 'bob@' }, { email: 'It does not look like a proper email address' }],
    ['an e-mail without a dot in its domain', { name: 'Bob', email: 'bob@localhost' }, { email: 'It does not look like a proper email address' }],
    ['an e-mail of 255 characters', { name: 'Bob', email: `${'b'.repeat(243)}@example.com` }, { email: 'It does not look like a proper email address' }],
    ['both blank', { name: '', email: '' }, { name: 'Required', email: 'Required' }],
  ])('the form and POST /users refuse %s with the same message', async (_case, values, expected) => {
    expect(formErrors(inviteUserStruct, values)).toEqual(expected);
    const owner = await signUp(t.app);
    const response = await inject('POST', '/users', values, owner.authorization);
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual(Object.entries(expected).map(([field, detail]) => ({ pointer: `/${field}`, detail })));
  });
});

describe('request a password reset: resetRequestStruct', () => {
  it.each([
    ['a blank e-mail', { email: ' ' }, { email: 'Required' }],
    ['an e-mail without @', { email: 'ada.example.com' }, { email: 'It does not look like a proper email address' }],
  ])('the form refuses %s; POST /users/password answers it as any address, telling nothing', async (_case, values, expected) => {
    expect(formErrors(resetRequestStruct, values)).toEqual(expected);
    const response = await inject('POST', '/users/password', { user: values });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: RESET_REQUESTED_MESSAGE });
  });
});

describe('sign in: signInStruct', () => {
  it.each([
    ['a blank e-mail', { email: ' ', password: PASSWORD }, { email: 'Required' }],
    ['a blank password', { email: 'ada@example.com', password: '' }, { password: 'Required' }],
  ])('the form refuses %s, and the server answers the one sign-in failure', async (_case, values, expected) => {
    expect(formErrors(signInStruct, values)).toEqual(expected);
    const response = await inject('POST', '/users/sign_in', { user: values });
    expect(response.statusCode).toBe(401);
    expect(problemsOf(response)).toEqual([{ pointer: '/user/email', detail: SIGN_IN_FAILURE_MESSAGE }]);
  });
});

/** A sample the form refuses on one field: its message, and the API's detail for the same rule. */
type FieldSample = [label: string, values: Record<string, string>, field: string, formMessage: string, apiDetail: string];

const SHORT = 'x7#kQ2m';
const LONG = 'k'.repeat(129);

describe('sign up: signUpStruct', () => {
  it.each<FieldSample>([
    ['a blank e-mail', { email: '  ', password: PASSWORD }, 'email', 'Required', "can't be blank"],
    ['a malformed e-mail', { email: 'ada@example', password: PASSWORD }, 'email', 'It does not look like a proper email address', 'is invalid'],
    ['a blank password', { password: '' }, 'password', 'Required', "can't be blank"],
    ['a 7-character password', { password: SHORT }, 'password', 'Password is too short (minimum is 8 characters)', 'is too short (minimum is 8 characters)'],
    ['a 129-character password', { password: LONG }, 'password', 'Password is too long (maximum is 128 characters)', 'is too long (maximum is 128 characters)'],
  ])('the form and POST /users refuse %s', async (_case, change, field, formMessage, apiDetail) => {
    const values = { email: uniqueEmail(), password: PASSWORD, ...change };
    expect(formErrors(signUpStruct, values)).toEqual({ [field]: formMessage });
    const response = await inject('POST', '/users', { user: values });
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: `/user/${field}`, detail: apiDetail }]);
  });
});

describe('choose a new password: newPasswordStruct', () => {
  it.each<FieldSample>([
    ['a 7-character password', { password: SHORT, password_confirmation: SHORT }, 'password', 'Password is too short (minimum is 8 characters)', 'is too short (minimum is 8 characters)'],
    ['a 129-character password', { password: LONG, password_confirmation: LONG }, 'password', 'Password is too long (maximum is 128 characters)', 'is too long (maximum is 128 characters)'],
    ['a confirmation that differs', { password: PASSWORD, password_confirmation: `${PASSWORD}!` }, 'password_confirmation', "Password confirmation doesn't match Password", "doesn't match Password"],
  ])('the form and PUT /users/password refuse %s', async (_case, values, field, formMessage, apiDetail) => {
    expect(formErrors(newPasswordStruct, values)).toEqual({ [field]: formMessage });
    const owner = await signUp(t.app);
    await inject('POST', '/users/password', { user: { email: owner.email } });
    const token = await linkTokenFor(t.app, owner.email, 'reset_password');
    const response = await inject('PUT', '/users/password', { user: { ...values, reset_password_token: token } });
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: `/user/${field}`, detail: apiDetail }]);
  });
});

describe('accept an invitation: acceptInvitationStruct', () => {
  it.each<FieldSample>([
    ['a 7-character password', { password: SHORT, password_confirmation: SHORT }, 'password', 'Password is too short (minimum is 8 characters)', 'is too short (minimum is 8 characters)'],
    ['a 129-character password', { password: LONG, password_confirmation: LONG }, 'password', 'Password is too long (maximum is 128 characters)', 'is too long (maximum is 128 characters)'],
    ['a confirmation that differs', { password: PASSWORD, password_confirmation: 'nope' }, 'password_confirmation', "Password confirmation doesn't match Password", "doesn't match Password"],
  ])('the form and PUT /invitations/{token} refuse %s', async (_case, values, field, formMessage, apiDetail) => {
    expect(formErrors(acceptInvitationStruct, { name: 'Bob', ...values })).toEqual({ [field]: formMessage });
    const owner = await signUp(t.app);
    const email = uniqueEmail('colleague');
    await inject('POST', '/users', { email, name: 'Bob' }, owner.authorization);
    const token = await linkTokenFor(t.app, email, 'invitation');
    const response = await inject('PUT', `/invitations/${token}`, { user: { name: 'Bob', ...values } });
    expect(response.statusCode).toBe(422);
    expect(problemsOf(response)).toEqual([{ pointer: `/user/${field}`, detail: apiDetail }]);
  });
});
