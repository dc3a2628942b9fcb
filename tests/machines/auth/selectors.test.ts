import { describe, expect, it } from 'vitest';
import { authFailure } from '../../../machines/auth/authActors';
import { authMachine } from '../../../machines/auth/authMachine';
import type { AuthSnapshot } from '../../../machines/auth/authMachine';
import {
  routeAdmission,
  selectFailure,
  selectFailureMessages,
  selectHasFullAccess,
  selectIsRestoring,
  selectIsSessionExpired,
  selectIsSignedIn,
  selectIsSubmitting,
  selectRedirectPath,
  selectSessionStatus,
  selectSignInAreaMode,
  selectUser,
} from '../../../machines/auth/selectors';
import type { AuthContext } from '../../../machines/auth/types';
import { SERVER_UNAVAILABLE_MESSAGE, SIGN_IN_FAILURE_MESSAGE } from '../../../models/auth';
import type { AuthUser } from '../../../models/auth';

const ada: AuthUser = { id: 'usr_ada', email: 'ada@example.com', name: 'Ada', account_id: 'acc_1', permission_level: 'user' };
const sam: AuthUser = { ...ada, id: 'usr_sam', permission_level: 'shared_report_only' };

type StateName = Extract<AuthSnapshot['value'], string>;

function snapshotIn(value: StateName, context: Partial<AuthContext> = {}): AuthSnapshot {
  return authMachine.resolveState({ value, context: { user: null, redirectPath: null, failure: null, ...context } });
}

describe('session selectors', () => {
  it('read the user, whether they are signed in and with which access', () => {
    const signedIn = snapshotIn('signedIn', { user: ada });
    expect(selectUser(signedIn)).toEqual(ada);
    expect(selectIsSignedIn(signedIn)).toBe(true);
    expect(selectHasFullAccess(signedIn)).toBe(true);
    expect(selectHasFullAccess(snapshotIn('signedIn', { user: sam }))).toBe(false);
    expect(selectIsSignedIn(snapshotIn('signingOut', { user: ada }))).toBe(false);
    expect(selectUser(snapshotIn('signedOut'))).toBeNull();
  });

  it.each<[StateName, string]>([
    ['restoring', 'pending'],
    ['unavailable', 'pending'],
    ['tokenSignIn', 'pending'],
    ['signedIn', 'signedIn'],
    ['signingOut', 'signingOut'],
    ['signedOut', 'anonymous'],
    ['sessionExpired', 'anonymous'],
    ['signingIn', 'anonymous'],
  ])('the top bar sees %s as %s', (state, status) => {
    expect(selectSessionStatus(snapshotIn(state, { user: state === 'signedIn' || state === 'signingOut' ? ada : null }))).toBe(status);
  });

  it('tell restoring and an expired session apart', () => {
    expect(selectIsRestoring(snapshotIn('restoring'))).toBe(true);
    expect(selectIsSessionExpired(snapshotIn('sessionExpired'))).toBe(true);
    expect(selectIsSessionExpired(snapshotIn('signedOut'))).toBe(false);
  });

  it('give the redirect path after sign-in, safe or /', () => {
    expect(selectRedirectPath(snapshotIn('sessionExpired', { redirectPath: '/users' }))).toBe('/users');
    expect(selectRedirectPath(snapshotIn('signedOut', { redirectPath: 'https://evil.example' }))).toBe('/');
    expect(selectRedirectPath(snapshotIn('signedOut'))).toBe('/');
  });

  it('show a failure only on the page of the operation that failed', () => {
    const failed = snapshotIn('signedOut', {
      failure: { operation: 'signIn', ...authFailure('invalidCredentials', [SIGN_IN_FAILURE_MESSAGE]) },
    });
    expect(selectFailureMessages(failed, 'signIn')).toEqual([SIGN_IN_FAILURE_MESSAGE]);
    expect(selectFailureMessages(failed, 'signUp')).toEqual([]);
    expect(selectFailure(failed, 'resetPassword')).toBeNull();
  });

  it('never show an empty failure: a failure without lines reads as the server being unreachable', () => {
    const failed = snapshotIn('signedOut', { failure: { operation: 'signUp', ...authFailure('unavailable') } });
    expect(selectFailureMessages(failed, 'signUp')).toEqual([SERVER_UNAVAILABLE_MESSAGE]);
  });

  it('tell which call is in flight', () => {
    expect(selectIsSubmitting(snapshotIn('signingIn'), 'signIn')).toBe(true);
    expect(selectIsSubmitting(snapshotIn('signingIn'), 'signUp')).toBe(false);
    expect(selectIsSubmitting(snapshotIn('acceptingInvitation'), 'acceptInvitation')).toBe(true);
  });
});

describe('route admission', () => {
  it.each<[string, StateName, 'public' | 'signedIn' | 'user', string, AuthUser | null]>([
    ['anyone', 'restoring', 'public', 'admit', null],
    ['a visitor being checked', 'restoring', 'user', 'pending', null],
    ['a visitor following a token link', 'tokenSignIn', 'signedIn', 'pending', null],
    ['a visitor while the server is unreachable', 'unavailable', 'user', 'unavailable', null],
    ['an anonymous visitor', 'signedOut', 'signedIn', 'signIn', null],
    ['an anonymous visitor', 'signedOut', 'user', 'signIn', null],
    ['an expired session', 'sessionExpired', 'user', 'signIn', null],
    ['a full-access user', 'signedIn', 'user', 'admit', ada],
    ['a full-access user', 'signedIn', 'signedIn', 'admit', ada],
    ['a shared_report_only user', 'signedIn', 'signedIn', 'admit', sam],
    ['a shared_report_only user', 'signedIn', 'user', 'signIn', sam],
    ['a user signing out', 'signingOut', 'user', 'admit', ada],
  ])('%s (%s) on a %s route: %s', (_, state, access, admission, user) => {
    expect(routeAdmission(snapshotIn(state, { user }), access)).toBe(admission);
  });
});

describe('the sign-in area', () => {
  it.each<[StateName, string]>([
    ['restoring', 'pending'],
    ['unavailable', 'unavailable'],
    ['signedIn', 'signedIn'],
    ['signingOut', 'signedIn'],
    ['signedOut', 'form'],
    ['sessionExpired', 'form'],
    ['signingUp', 'form'],
  ])('in %s shows %s', (state, mode) => {
    const user = state === 'signedIn' || state === 'signingOut' ? ada : null;
    expect(selectSignInAreaMode(snapshotIn(state, { user }))).toBe(mode);
  });
});
