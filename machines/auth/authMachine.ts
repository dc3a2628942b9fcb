import { assertEvent, assign, setup } from 'xstate';
import type { SnapshotFrom } from 'xstate';
import type { AuthUser } from '../../models/auth';
import { authActors, servicesNotProvided, toAuthFailure } from './authActors';
import {
  AFTER_INVITATION_PATH,
  AFTER_PASSWORD_RESET_PATH,
  AFTER_SIGN_UP_PATH,
  AFTER_TOKEN_SIGN_IN_PATH,
  pathAfterSignIn,
  SIGN_IN_PATH,
} from './redirect';
import type { AuthContext, AuthEvent, AuthInput, AuthOperation } from './types';

/**
 * The session: who is signed in, how they got in and how they leave.
 *
 * - `restoring` (initial): GET /users/me with the stored token. A user → `signedIn`; no token
 *   or a refused one → `signedOut` (the stored token is forgotten); no answer → `unavailable`.
 *   Opening a token sign-in link cancels it (`tokenSignIn`).
 * - `unavailable`: the server could not be reached while restoring (the failure says so);
 *   `auth.retry` restores again, keeping the failure until it succeeds or the token is refused.
 *   The stored token is kept, so a network blip never signs anyone out.
 * - `signedOut`: anonymous. The sign-in area's forms start `signingIn`, `signingUp`,
 *   `resettingPassword` or `acceptingInvitation`; a failure comes back here with the failure
 *   of that operation (the next attempt clears it). `auth.signInRequested` remembers where the
 *   visitor was, for the redirect after sign-in.
 * - `sessionExpired`: like `signedOut`, entered when an API call answers 401 while signed in:
 *   the user and the stored token are cleared, the current path is remembered for the
 *   redirect, and the sign-in page says why.
 * - `signingIn` … `acceptingInvitation`: one call each. Success → `signedIn` and a navigation:
 *   sign-in to the remembered path or '/', sign-up and invitation to '/getting-started',
 *   password reset to '/'. The remembered path is consumed by any success.
 * - `tokenSignIn`: /sign_in_via_token/{jwt}: GET /users/me with that token. Success → `signedIn`
 *   at '/settings'; failure → `signedOut` at '/sign_in' (a previous session is ended too).
 *   Accepted from `restoring`, `signedOut`, `sessionExpired` and `signedIn` (the link replaces
 *   the session).
 * - `signedIn`: a user. `auth.signOut` → `signingOut`; `auth.sessionExpired` (a 401) →
 *   `sessionExpired`; `auth.userUpdated` refreshes the user.
 * - `signingOut`: DELETE /users/sign_out; whatever it answers, the user and the stored token
 *   are cleared and the app goes to '/sign_in'.
 *
 * A 401 only matters in `signedIn`: in every other state `auth.sessionExpired` is ignored, so
 * the 401 of a refused sign-in (wrong credentials) or of a stale token while restoring never
 * counts as an expired session. Navigation, storage of the redirect path and of the token are
 * effects provided by src/ (`navigate`, `storeRedirect`, `forgetStoredSession`).
 */
export const authMachine = setup({
  types: {
    context: {} as AuthContext,
    events: {} as AuthEvent,
    input: {} as AuthInput,
  },
  actors: authActors(servicesNotProvided),
  actions: {
    assignUser: assign({ user: (_, params: { user: AuthUser }) => params.user }),
    clearUser: assign({ user: null }),
    assignFailure: assign({
      failure: (_, params: { operation: AuthOperation; error: unknown }) => ({
        operation: params.operation,
        ...toAuthFailure(params.error),
      }),
    }),
    clearFailure: assign({ failure: null }),
    rememberRedirect: assign({ redirectPath: (_, params: { path: string }) => params.path }),
    forgetRedirect: assign({ redirectPath: null }),
    /** Goes to a path of the app (provided: wouter's navigate). */
    navigate: (_, _params: { to: string }) => {},
    /** Keeps the redirect path across reloads, or clears it for null (provided: localStorage). */
    storeRedirect: (_, _params: { path: string | null }) => {},
    /** Forgets the stored token (provided: the token store). */
    forgetStoredSession: () => {},
  },
  guards: {
    isUnavailable: (_, params: { error: unknown }) => toAuthFailure(params.error).kind === 'unavailable',
  },
}).createMachine({
  id: 'auth',
  context: ({ input }) => ({ user: null, redirectPath: input.redirectAfterSignIn, failure: null }),
  initial: 'restoring',
  states: {
    restoring: {
      invoke: {
        id: 'fetchStoredUser',
        src: 'fetchStoredUser',
        onDone: {
          target: 'signedIn',
          actions: [{ type: 'assignUser', params: ({ event }) => ({ user: event.output }) }, 'clearFailure'],
        },
        onError: [
          {
            guard: { type: 'isUnavailable', params: ({ event }) => ({ error: event.error }) },
            target: 'unavailable',
            actions: { type: 'assignFailure', params: ({ event }) => ({ operation: 'restore', error: event.error }) },
          },
          { target: 'signedOut', actions: ['clearFailure', 'forgetStoredSession'] },
        ],
      },
      on: {
        'auth.tokenSignIn': 'tokenSignIn',
      },
    },

    unavailable: {
      on: {
        'auth.retry': 'restoring',
      },
    },

    signedOut: {
      on: {
        'auth.signIn': 'signingIn',
        'auth.signUp': 'signingUp',
        'auth.resetPassword': 'resettingPassword',
        'auth.acceptInvitation': 'acceptingInvitation',
        'auth.tokenSignIn': 'tokenSignIn',
        'auth.signInRequested': {
          actions: [
            { type: 'rememberRedirect', params: ({ event }) => ({ path: event.path }) },
            { type: 'storeRedirect', params: ({ event }) => ({ path: event.path }) },
          ],
        },
      },
    },

    sessionExpired: {
      on: {
        'auth.signIn': 'signingIn',
        'auth.signUp': 'signingUp',
        'auth.resetPassword': 'resettingPassword',
        'auth.acceptInvitation': 'acceptingInvitation',
        'auth.tokenSignIn': 'tokenSignIn',
        'auth.signInRequested': {
          actions: [
            { type: 'rememberRedirect', params: ({ event }) => ({ path: event.path }) },
            { type: 'storeRedirect', params: ({ event }) => ({ path: event.path }) },
          ],
        },
      },
    },

    signingIn: {
      entry: 'clearFailure',
      invoke: {
        id: 'signIn',
        src: 'signIn',
        input: ({ event }) => {
          assertEvent(event, 'auth.signIn');
          return event.request;
        },
        onDone: {
          target: 'signedIn',
          actions: [
            { type: 'assignUser', params: ({ event }) => ({ user: event.output }) },
            { type: 'navigate', params: ({ context }) => ({ to: pathAfterSignIn(context.redirectPath) }) },
            'forgetRedirect',
            { type: 'storeRedirect', params: { path: null } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: { type: 'assignFailure', params: ({ event }) => ({ operation: 'signIn', error: event.error }) },
        },
      },
    },

    signingUp: {
      entry: 'clearFailure',
      invoke: {
        id: 'signUp',
        src: 'signUp',
        input: ({ event }) => {
          assertEvent(event, 'auth.signUp');
          return event.request;
        },
        onDone: {
          target: 'signedIn',
          actions: [
            { type: 'assignUser', params: ({ event }) => ({ user: event.output }) },
            { type: 'navigate', params: { to: AFTER_SIGN_UP_PATH } },
            'forgetRedirect',
            { type: 'storeRedirect', params: { path: null } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: { type: 'assignFailure', params: ({ event }) => ({ operation: 'signUp', error: event.error }) },
        },
      },
    },

    resettingPassword: {
      entry: 'clearFailure',
      invoke: {
        id: 'resetPassword',
        src: 'resetPassword',
        input: ({ event }) => {
          assertEvent(event, 'auth.resetPassword');
          return event.request;
        },
        onDone: {
          target: 'signedIn',
          actions: [
            { type: 'assignUser', params: ({ event }) => ({ user: event.output }) },
            { type: 'navigate', params: { to: AFTER_PASSWORD_RESET_PATH } },
            'forgetRedirect',
            { type: 'storeRedirect', params: { path: null } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: { type: 'assignFailure', params: ({ event }) => ({ operation: 'resetPassword', error: event.error }) },
        },
      },
    },

    acceptingInvitation: {
      entry: 'clearFailure',
      invoke: {
        id: 'acceptInvitation',
        src: 'acceptInvitation',
        input: ({ event }) => {
          assertEvent(event, 'auth.acceptInvitation');
          return event.request;
        },
        onDone: {
          target: 'signedIn',
          actions: [
            { type: 'assignUser', params: ({ event }) => ({ user: event.output }) },
            { type: 'navigate', params: { to: AFTER_INVITATION_PATH } },
            'forgetRedirect',
            { type: 'storeRedirect', params: { path: null } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: { type: 'assignFailure', params: ({ event }) => ({ operation: 'acceptInvitation', error: event.error }) },
        },
      },
    },

    tokenSignIn: {
      entry: 'clearFailure',
      invoke: {
        id: 'fetchTokenUser',
        src: 'fetchTokenUser',
        input: ({ event }) => {
          assertEvent(event, 'auth.tokenSignIn');
          return { token: event.token };
        },
        onDone: {
          target: 'signedIn',
          actions: [
            { type: 'assignUser', params: ({ event }) => ({ user: event.output }) },
            { type: 'navigate', params: { to: AFTER_TOKEN_SIGN_IN_PATH } },
            'forgetRedirect',
            { type: 'storeRedirect', params: { path: null } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: [
            'clearUser',
            'forgetStoredSession',
            { type: 'assignFailure', params: ({ event }) => ({ operation: 'tokenSignIn', error: event.error }) },
            { type: 'navigate', params: { to: SIGN_IN_PATH } },
          ],
        },
      },
    },

    signedIn: {
      on: {
        'auth.signOut': 'signingOut',
        'auth.sessionExpired': {
          target: 'sessionExpired',
          actions: [
            'clearUser',
            'forgetStoredSession',
            { type: 'rememberRedirect', params: ({ event }) => ({ path: event.path }) },
            { type: 'storeRedirect', params: ({ event }) => ({ path: event.path }) },
            { type: 'navigate', params: { to: SIGN_IN_PATH } },
          ],
        },
        'auth.userUpdated': {
          actions: { type: 'assignUser', params: ({ event }) => ({ user: event.user }) },
        },
        'auth.tokenSignIn': 'tokenSignIn',
      },
    },

    signingOut: {
      invoke: {
        id: 'signOut',
        src: 'signOut',
        onDone: {
          target: 'signedOut',
          actions: ['clearUser', 'forgetStoredSession', { type: 'navigate', params: { to: SIGN_IN_PATH } }],
        },
        onError: {
          target: 'signedOut',
          actions: ['clearUser', 'forgetStoredSession', { type: 'navigate', params: { to: SIGN_IN_PATH } }],
        },
      },
    },
  },
});

export type AuthMachine = typeof authMachine;
export type AuthSnapshot = SnapshotFrom<AuthMachine>;
