import { fromPromise } from 'xstate';
import { SERVER_UNAVAILABLE_MESSAGE } from '../../models/auth';
import type { AuthUser } from '../../models/auth';
import type {
  AcceptInvitationRequest,
  AuthFailure,
  AuthFailureKind,
  ResetPasswordRequest,
  SignInRequest,
  SignUpRequest,
} from './types';

/**
 * The calls the auth machine makes. src/ implements them over the API client (and the token
 * store); tests implement them with stubs. Each resolves with the signed-in user or rejects
 * with an `AuthFailure`; a call that signs in stores the returned token itself, so the token
 * never travels through the machine's events or context.
 */
export interface AuthServices {
  /** GET /users/me with the stored token. Fails `unauthorized` (no token, or refused) or `unavailable`. */
  fetchStoredUser(signal: AbortSignal): Promise<AuthUser>;
  /** POST /users/sign_in. Fails `invalidCredentials` (401), `rateLimited` (429) or `unavailable`. */
  signIn(request: SignInRequest, signal: AbortSignal): Promise<AuthUser>;
  /** POST /users without a token. Fails `invalid` (422, one line per problem) or `unavailable`. */
  signUp(request: SignUpRequest, signal: AbortSignal): Promise<AuthUser>;
  /** PUT /users/password. Fails `invalid` (bad, used or expired token; weak password) or `unavailable`. */
  resetPassword(request: ResetPasswordRequest, signal: AbortSignal): Promise<AuthUser>;
  /** PUT /invitations/{token}. Fails `notFound` (unknown, used or expired), `invalid` or `unavailable`. */
  acceptInvitation(request: AcceptInvitationRequest, signal: AbortSignal): Promise<AuthUser>;
  /** GET /users/me with the link's token, stored on success. Fails `unauthorized` or `unavailable`. */
  fetchTokenUser(token: string, signal: AbortSignal): Promise<AuthUser>;
  /** DELETE /users/sign_out. Its failure changes nothing: the session ends locally either way. */
  signOut(signal: AbortSignal): Promise<void>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type AuthInvokeId = keyof AuthServices;

export function authFailure(kind: AuthFailureKind, messages: string[] = [], fields: Record<string, string> = {}): AuthFailure {
  return { kind, messages, fields };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isAuthFailure(value: unknown): value is AuthFailure {
  return isRecord(value) && typeof value.kind === 'string' && Array.isArray(value.messages) && isRecord(value.fields);
}

/** Anything an actor threw that is not an AuthFailure (a TypeError of fetch) counts as `unavailable`. */
export function toAuthFailure(error: unknown): AuthFailure {
  return isAuthFailure(error) ? error : authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]);
}

/**
 * A call the machine gave up (its state was left, or the actor was stopped) never reports
 * back: its rejection by the abort is swallowed. An actor restored after a stop (React's
 * development double effects stop and restart it) would otherwise take the abort of its
 * first call for a failure.
 */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function authActors(services: AuthServices) {
  return {
    fetchStoredUser: fromPromise<AuthUser>(({ signal }) => unlessAborted(signal, services.fetchStoredUser(signal))),
    signIn: fromPromise<AuthUser, SignInRequest>(({ input, signal }) => unlessAborted(signal, services.signIn(input, signal))),
    signUp: fromPromise<AuthUser, SignUpRequest>(({ input, signal }) => unlessAborted(signal, services.signUp(input, signal))),
    resetPassword: fromPromise<AuthUser, ResetPasswordRequest>(({ input, signal }) =>
      unlessAborted(signal, services.resetPassword(input, signal)),
    ),
    acceptInvitation: fromPromise<AuthUser, AcceptInvitationRequest>(({ input, signal }) =>
      unlessAborted(signal, services.acceptInvitation(input, signal)),
    ),
    fetchTokenUser: fromPromise<AuthUser, { token: string }>(({ input, signal }) =>
      unlessAborted(signal, services.fetchTokenUser(input.token, signal)),
    ),
    signOut: fromPromise<void>(({ signal }) => unlessAborted(signal, services.signOut(signal))),
  } satisfies Record<AuthInvokeId, unknown>;
}

const notProvided = (name: AuthInvokeId) => () =>
  Promise.reject(new Error(`The auth machine's "${name}" call is not provided: use authMachine.provide({ actors: authActors(services) })`));

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: AuthServices = {
  fetchStoredUser: notProvided('fetchStoredUser'),
  signIn: notProvided('signIn'),
  signUp: notProvided('signUp'),
  resetPassword: notProvided('resetPassword'),
  acceptInvitation: notProvided('acceptInvitation'),
  fetchTokenUser: notProvided('fetchTokenUser'),
  signOut: notProvided('signOut'),
};
