import { hasFullAccess, SERVER_UNAVAILABLE_MESSAGE } from '../../models/auth';
import type { AuthUser, RouteAccess } from '../../models/auth';
import type { AuthSnapshot } from './authMachine';
import { pathAfterSignIn } from './redirect';
import type { AuthFailureOf, AuthOperation } from './types';

/** The signed-in user (also while signing out), or null. */
export function selectUser(snapshot: AuthSnapshot): AuthUser | null {
  return snapshot.context.user;
}

export function selectIsSignedIn(snapshot: AuthSnapshot): boolean {
  return snapshot.matches('signedIn');
}

export function selectHasFullAccess(snapshot: AuthSnapshot): boolean {
  return hasFullAccess(snapshot.context.user);
}

/** The stored session is being checked: views show a skeleton, never a flash of the sign-in page. */
export function selectIsRestoring(snapshot: AuthSnapshot): boolean {
  return snapshot.matches('restoring');
}

export function selectIsSessionExpired(snapshot: AuthSnapshot): boolean {
  return snapshot.matches('sessionExpired');
}

/** Where sign-in success will go: the remembered path if it is a safe one, else '/'. */
export function selectRedirectPath(snapshot: AuthSnapshot): string {
  return pathAfterSignIn(snapshot.context.redirectPath);
}

const SUBMITTING_STATE: Record<
  AuthOperation,
  'restoring' | 'signingIn' | 'signingUp' | 'resettingPassword' | 'acceptingInvitation' | 'tokenSignIn'
> = {
  restore: 'restoring',
  signIn: 'signingIn',
  signUp: 'signingUp',
  resetPassword: 'resettingPassword',
  acceptInvitation: 'acceptingInvitation',
  tokenSignIn: 'tokenSignIn',
};

/** The operation's call is under way (its button shows a loader). */
export function selectIsSubmitting(snapshot: AuthSnapshot, operation: AuthOperation): boolean {
  return snapshot.matches(SUBMITTING_STATE[operation]);
}

/** The failure of the operation's last attempt, if that attempt failed. */
export function selectFailure(snapshot: AuthSnapshot, operation: AuthOperation): AuthFailureOf | null {
  const failure = snapshot.context.failure;
  return failure?.operation === operation ? failure : null;
}

/** The lines a page shows for the failure of its operation ([] when it did not fail). */
export function selectFailureMessages(snapshot: AuthSnapshot, operation: AuthOperation): string[] {
  const failure = selectFailure(snapshot, operation);
  if (!failure) return [];
  return failure.messages.length > 0 ? failure.messages : [SERVER_UNAVAILABLE_MESSAGE];
}

/**
 * What the top bar shows on the right: a placeholder while the session is checked,
 * the user menu, or 'Sign in'.
 */
export type SessionStatus = 'pending' | 'signedIn' | 'signingOut' | 'anonymous';

export function selectSessionStatus(snapshot: AuthSnapshot): SessionStatus {
  if (snapshot.matches('restoring') || snapshot.matches('tokenSignIn') || snapshot.matches('unavailable')) return 'pending';
  if (snapshot.matches('signedIn')) return 'signedIn';
  if (snapshot.matches('signingOut')) return 'signingOut';
  return 'anonymous';
}

/**
 * What a route guard does with a route of the given access:
 * - `pending`: the session is being checked; show a skeleton;
 * - `unavailable`: the server could not be reached; offer to try again;
 * - `admit`: render the page;
 * - `signIn`: send the visitor to /sign_in (remembering the path when they are anonymous).
 * Public routes are always admitted. The home route's access is 'signedIn': any signed-in
 * user is admitted, and the page itself shows a restricted user only the share-URL notice.
 */
export type RouteAdmission = 'pending' | 'unavailable' | 'admit' | 'signIn';

export function routeAdmission(snapshot: AuthSnapshot, access: RouteAccess): RouteAdmission {
  if (access === 'public') return 'admit';
  if (snapshot.matches('restoring') || snapshot.matches('tokenSignIn')) return 'pending';
  if (snapshot.matches('unavailable')) return 'unavailable';
  const user = snapshot.context.user;
  if (access === 'signedIn') return user ? 'admit' : 'signIn';
  return hasFullAccess(user) ? 'admit' : 'signIn';
}

/**
 * What a page of the sign-in area shows: a skeleton while the session is checked, the
 * server-unavailable notice, a 'you are signed in' notice, or its form.
 */
export type SignInAreaMode = 'pending' | 'unavailable' | 'signedIn' | 'form';

export function selectSignInAreaMode(snapshot: AuthSnapshot): SignInAreaMode {
  if (snapshot.matches('restoring')) return 'pending';
  if (snapshot.matches('unavailable')) return 'unavailable';
  if (snapshot.matches('signedIn') || snapshot.matches('signingOut')) return 'signedIn';
  return 'form';
}
