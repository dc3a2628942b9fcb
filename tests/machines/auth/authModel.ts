import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { authFailure } from '../../../machines/auth/authActors';
import type { AuthInvokeId } from '../../../machines/auth/authActors';
import { authMachine } from '../../../machines/auth/authMachine';
import type { AuthSnapshot } from '../../../machines/auth/authMachine';
import { pathAfterSignIn } from '../../../machines/auth/redirect';
import type { AuthEvent, AuthInput } from '../../../machines/auth/types';
import {
  INVITATION_NOT_FOUND_MESSAGE,
  RESET_TOKEN_INVALID_MESSAGE,
  SERVER_UNAVAILABLE_MESSAGE,
  SIGN_IN_FAILURE_MESSAGE,
  TOKEN_SIGN_IN_FAILURE_MESSAGE,
} from '../../../models/auth';
import type { AuthUser } from '../../../models/auth';
import type { AnyTestModel } from '../support/modelPaths';

/**
 * The auth machine's test model, shared by the machine suite (stubbed actors) and the view
 * suite (the real pages over a fake API): the events a user or the server can cause, with
 * fixed payloads so the graph stays finite, and the done/error events of every invocation.
 */

function modelUserNamed(name: string): AuthUser {
  const handle = name.split(' ')[0]?.toLowerCase() ?? 'user';
  return { id: `usr_${handle}`, email: `${handle}@example.com`, name, account_id: 'acc_1', permission_level: 'user' };
}

/**
 * Each way in answers a different user, so the graph tells a restored session from a new one
 * (and the view suite can see who got in).
 */
export const modelUsers = {
  restored: modelUserNamed('Ada Lovelace'),
  signedIn: modelUserNamed('Grace Hopper'),
  signedUp: modelUserNamed('Katherine Johnson'),
  passwordReset: modelUserNamed('Margaret Hamilton'),
  invited: modelUserNamed('Annie Easley'),
  tokenSignIn: modelUserNamed('Radia Perlman'),
} as const satisfies Record<string, AuthUser>;

/** The restored user after a GET /users/me with a new name. */
export const renamedUser: AuthUser = { ...modelUsers.restored, name: 'Ada King' };

/** The path a 401 remembers in the model: a guarded page with an API call. */
export const EXPIRED_PATH = '/users';
/** The path an anonymous visitor asks to come back to ('Sign in' in the top bar, a guarded route). */
export const REQUESTED_PATH = '/settings';

export const modelInput: AuthInput = { redirectAfterSignIn: null };

type DoneEvent<Id extends AuthInvokeId> = { type: `xstate.done.actor.${Id}`; output: Id extends 'signOut' ? undefined : AuthUser };
type ErrorEvent<Id extends AuthInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the machine's own and the invocations' done/error events. */
export type AuthModelEvent = AuthEvent | { [Id in AuthInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[AuthInvokeId];
export type AuthModelEventType = AuthModelEvent['type'];

export const signUpErrors = authFailure('invalid', ['email has already been taken', 'password is too common'], {
  email: 'has already been taken',
  password: 'is too common',
});
export const resetErrors = authFailure('invalid', [RESET_TOKEN_INVALID_MESSAGE], {
  reset_password_token: 'is invalid or has expired',
});

export const modelEvents: readonly AuthModelEvent[] = [
  { type: 'auth.signIn', request: { email: modelUsers.signedIn.email, password: 'correct horse battery' } },
  {
    type: 'auth.signUp',
    request: { email: modelUsers.signedUp.email, password: 'correct horse battery', name: modelUsers.signedUp.name },
  },
  {
    type: 'auth.resetPassword',
    request: { token: 'reset-token', password: 'correct horse battery', passwordConfirmation: 'correct horse battery' },
  },
  {
    type: 'auth.acceptInvitation',
    request: {
      token: 'invitation-token',
      name: modelUsers.invited.name,
      password: 'correct horse battery',
      passwordConfirmation: 'correct horse battery',
    },
  },
  { type: 'auth.tokenSignIn', token: 'link.jwt.token' },
  { type: 'auth.signInRequested', path: REQUESTED_PATH },
  { type: 'auth.signOut' },
  { type: 'auth.sessionExpired', path: EXPIRED_PATH },
  { type: 'auth.userUpdated', user: renamedUser },
  { type: 'auth.retry' },

  { type: 'xstate.done.actor.fetchStoredUser', output: modelUsers.restored },
  { type: 'xstate.error.actor.fetchStoredUser', error: authFailure('unauthorized') },
  { type: 'xstate.error.actor.fetchStoredUser', error: authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]) },
  { type: 'xstate.done.actor.signIn', output: modelUsers.signedIn },
  { type: 'xstate.error.actor.signIn', error: authFailure('invalidCredentials', [SIGN_IN_FAILURE_MESSAGE]) },
  { type: 'xstate.done.actor.signUp', output: modelUsers.signedUp },
  { type: 'xstate.error.actor.signUp', error: signUpErrors },
  { type: 'xstate.done.actor.resetPassword', output: modelUsers.passwordReset },
  { type: 'xstate.error.actor.resetPassword', error: resetErrors },
  { type: 'xstate.done.actor.acceptInvitation', output: modelUsers.invited },
  { type: 'xstate.error.actor.acceptInvitation', error: authFailure('notFound', [INVITATION_NOT_FOUND_MESSAGE]) },
  { type: 'xstate.done.actor.fetchTokenUser', output: modelUsers.tokenSignIn },
  { type: 'xstate.error.actor.fetchTokenUser', error: authFailure('unauthorized', [TOKEN_SIGN_IN_FAILURE_MESSAGE]) },
  { type: 'xstate.done.actor.signOut', output: undefined },
  { type: 'xstate.error.actor.signOut', error: authFailure('unavailable', [SERVER_UNAVAILABLE_MESSAGE]) },
];

/** Makes a step's event happen in the system under test (the machine, or the app in jsdom). */
export type AuthExecutor = (event: AuthModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type AuthExecutors = Record<AuthModelEventType, AuthExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects. (xstate/graph types an executor's event as
 * its bare type; the event it receives at run time is the model event with its payload.)
 */
export function pathTestParams(
  executors: AuthExecutors,
  assertState: (expected: AuthSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as AuthModelEventType[]) {
    events[type] = (step) => executors[type](step.event as AuthModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as AuthSnapshot) } };
}

/** Where the app must go after an event, given the state before it; unlisted events never navigate. */
export const navigationAfter: Partial<Record<AuthModelEventType, (before: AuthSnapshot) => string>> = {
  'xstate.done.actor.signIn': (before) => pathAfterSignIn(before.context.redirectPath),
  'xstate.done.actor.signUp': () => '/getting-started',
  'xstate.done.actor.resetPassword': () => '/',
  'xstate.done.actor.acceptInvitation': () => '/getting-started',
  'xstate.done.actor.fetchTokenUser': () => '/settings',
  'xstate.error.actor.fetchTokenUser': () => '/sign_in',
  'auth.sessionExpired': () => '/sign_in',
  'xstate.done.actor.signOut': () => '/sign_in',
  'xstate.error.actor.signOut': () => '/sign_in',
};

export function isAuthEvent(event: AuthModelEvent): event is AuthEvent {
  return event.type.startsWith('auth.');
}

/**
 * The machine as the model sees it. setup()'s event types list only the events views send;
 * the done/error events of invocations are real events of the same machine, so the model
 * widens the event type to take them too.
 */
const modelLogic = authMachine as unknown as ActorLogic<AuthSnapshot, AuthModelEvent, AuthInput>;

/** The state's identity in the graph: its value and the whole context (all of it bounded by the fixed payloads). */
function serializeState(snapshot: AuthSnapshot): string {
  return JSON.stringify({ value: snapshot.value, context: snapshot.context });
}

/**
 * Outcomes are leaves of the graph: a session that did not come from restoring, a failure,
 * a path remembered by request, a retried restore. The chart never branches on who the user is, which failure
 * happened or which path is remembered, so what follows such a state is what follows the
 * expanded state it equals up to context (the first restore, the restored session, a clean
 * `signedOut` or `sessionExpired`), and it is explored there. Without leaves every sign-in/sign-out round
 * trip would multiply the simple paths (millions).
 */
function isExploredElsewhere(snapshot: AuthSnapshot): boolean {
  const { user, failure, redirectPath } = snapshot.context;
  if (snapshot.matches('restoring')) return failure !== null;
  if (snapshot.matches('signedIn')) return user?.id !== modelUsers.restored.id || user.name !== modelUsers.restored.name;
  if (snapshot.matches('signedOut') || snapshot.matches('sessionExpired')) {
    return failure !== null || redirectPath === REQUESTED_PATH;
  }
  return false;
}

export function authTestModel(events: readonly AuthModelEvent[] = modelEvents): TestModel<AuthSnapshot, AuthModelEvent, AuthInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: (snapshot, event) => snapshot.can(event as AuthEvent),
    serializeState,
    stopWhen: isExploredElsewhere,
  });
}

/** The same model in the registry's untyped form. */
export const anyAuthTestModel = (): AnyTestModel => authTestModel() as unknown as AnyTestModel;
