import type { AuthUser } from '../../models/auth';

/**
 * The calls that can sign a user in (and restoring the stored session); a failure remembers
 * which one failed, so each page shows its own.
 */
export type AuthOperation = 'restore' | 'signIn' | 'signUp' | 'resetPassword' | 'acceptInvitation' | 'tokenSignIn';

/**
 * Why an auth call failed:
 * - `invalidCredentials`: sign-in refused (401), always shown as the spec's one message;
 * - `rateLimited`: too many sign-in attempts (429), shown with the server's detail;
 * - `invalid`: the server refused the values (422), with 'field message' lines;
 * - `unauthorized`: no stored token, or the server refused it (401);
 * - `notFound`: an unknown, used or expired invitation (404);
 * - `unavailable`: the network or the server failed (no answer, 5xx).
 */
export type AuthFailureKind = 'invalidCredentials' | 'rateLimited' | 'invalid' | 'unauthorized' | 'notFound' | 'unavailable';

/** What an auth actor rejects with. */
export interface AuthFailure {
  kind: AuthFailureKind;
  /** Lines to show, in order (sign-up shows 'field message' lines). */
  messages: string[];
  /** Messages keyed by form field ('password_confirmation'), for inline errors. */
  fields: Record<string, string>;
}

export interface AuthFailureOf extends AuthFailure {
  operation: AuthOperation;
}

export interface AuthContext {
  user: AuthUser | null;
  /** Where sign-in success goes (the path remembered by 'Sign in', a guard or a 401); null: '/'. */
  redirectPath: string | null;
  /** The last failed call of the sign-in area, cleared by the next attempt. */
  failure: AuthFailureOf | null;
}

export interface AuthInput {
  /** The redirect-after-sign-in path stored before this page load, if any. */
  redirectAfterSignIn: string | null;
}

export interface SignInRequest {
  email: string;
  password: string;
}

export interface SignUpRequest {
  email: string;
  password: string;
  name?: string;
  /** The `ref` of the sign-up link (hash or query), sent as marketing_ref. */
  marketingRef?: string;
}

export interface ResetPasswordRequest {
  /** The reset token of the e-mailed link. */
  token: string;
  password: string;
  passwordConfirmation: string;
}

export interface AcceptInvitationRequest {
  /** The invitation token of the e-mailed link. */
  token: string;
  name: string;
  password: string;
  passwordConfirmation: string;
}

/**
 * Events from views and the API client. Secrets travel under `request` (and the token
 * sign-in's `token`), never in context, so an inspector can redact them in one place.
 */
export type AuthEvent =
  | { type: 'auth.signIn'; request: SignInRequest }
  | { type: 'auth.signUp'; request: SignUpRequest }
  | { type: 'auth.resetPassword'; request: ResetPasswordRequest }
  | { type: 'auth.acceptInvitation'; request: AcceptInvitationRequest }
  /** /sign_in_via_token/{jwt} was opened. */
  | { type: 'auth.tokenSignIn'; token: string }
  /** An anonymous visitor chose or needs to sign in while on `path` (top bar 'Sign in', a guarded route). */
  | { type: 'auth.signInRequested'; path: string }
  | { type: 'auth.signOut' }
  /** An API call answered 401 while the user was on `path`. */
  | { type: 'auth.sessionExpired'; path: string }
  /** The server sent a fresher copy of the signed-in user (GET or PUT /users/me). */
  | { type: 'auth.userUpdated'; user: AuthUser }
  /** Try restoring the stored session again after the server could not be reached. */
  | { type: 'auth.retry' };

export type AuthEventType = AuthEvent['type'];
