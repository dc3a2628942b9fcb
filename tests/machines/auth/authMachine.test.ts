import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { authActors, authFailure } from '../../../machines/auth/authActors';
import type { AuthInvokeId, AuthServices } from '../../../machines/auth/authActors';
import { authMachine } from '../../../machines/auth/authMachine';
import type { AuthSnapshot } from '../../../machines/auth/authMachine';
import type { AuthInput } from '../../../machines/auth/types';
import { SIGN_IN_FAILURE_MESSAGE } from '../../../models/auth';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyAuthTestModel,
  authTestModel,
  EXPIRED_PATH,
  isAuthEvent,
  modelEvents,
  modelInput,
  modelUsers,
  navigationAfter,
  pathTestParams,
} from './authModel';
import type { AuthExecutors, AuthModelEvent, AuthModelEventType } from './authModel';

interface PendingCall {
  id: AuthInvokeId;
  input: unknown;
  signal: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Lets the promise callbacks of a settled call and the machine's reaction run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The machine with stubbed calls that stay pending until the test settles them, and the
 * provided effects recorded: navigations, the stored redirect path, forgotten tokens.
 */
function createHarness(input: AuthInput = modelInput) {
  const calls: PendingCall[] = [];
  const navigations: string[] = [];
  const storedRedirects: (string | null)[] = [];
  let forgottenSessions = 0;

  function call<T>(id: AuthInvokeId, input: unknown, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      calls.push({ id, input, signal, resolve: (value) => resolve(value as T), reject });
    });
  }

  const services: AuthServices = {
    fetchStoredUser: (signal) => call('fetchStoredUser', undefined, signal),
    signIn: (request, signal) => call('signIn', request, signal),
    signUp: (request, signal) => call('signUp', request, signal),
    resetPassword: (request, signal) => call('resetPassword', request, signal),
    acceptInvitation: (request, signal) => call('acceptInvitation', request, signal),
    fetchTokenUser: (token, signal) => call('fetchTokenUser', token, signal),
    signOut: (signal) => call('signOut', undefined, signal),
  };

  const machine = authMachine.provide({
    actors: authActors(services),
    actions: {
      navigate: (_, { to }) => navigations.push(to),
      storeRedirect: (_, { path }) => storedRedirects.push(path),
      forgetStoredSession: () => {
        forgottenSessions += 1;
      },
    },
  });
  const actor = createActor(machine, { input }).start();

  /** Settles the newest pending call of an invocation. */
  async function settle(id: AuthInvokeId, outcome: { output: unknown } | { error: unknown }) {
    const pending = calls.findLast((c) => c.id === id);
    if (!pending) throw new Error(`No ${id} call is pending`);
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }

  return {
    actor,
    calls,
    navigations,
    storedRedirects,
    forgottenSessions: () => forgottenSessions,
    settle,
    snapshot: (): AuthSnapshot => actor.getSnapshot(),
  };
}

type Harness = ReturnType<typeof createHarness>;

function settleFrom(harness: Harness, id: AuthInvokeId) {
  return (event: AuthModelEvent) => harness.settle(id, 'output' in event ? { output: event.output } : { error: 'error' in event ? event.error : undefined });
}

function send(harness: Harness) {
  return async (event: AuthModelEvent) => {
    if (!isAuthEvent(event)) throw new Error(`${event.type} is not sent by views`);
    harness.actor.send(event);
    await flush();
  };
}

/** How each model event is made to happen against the machine. */
function machineExecutors(harness: Harness): AuthExecutors {
  return {
    'auth.signIn': send(harness),
    'auth.signUp': send(harness),
    'auth.resetPassword': send(harness),
    'auth.acceptInvitation': send(harness),
    'auth.tokenSignIn': send(harness),
    'auth.signInRequested': send(harness),
    'auth.signOut': send(harness),
    'auth.sessionExpired': send(harness),
    'auth.userUpdated': send(harness),
    'auth.retry': send(harness),
    'xstate.done.actor.fetchStoredUser': settleFrom(harness, 'fetchStoredUser'),
    'xstate.error.actor.fetchStoredUser': settleFrom(harness, 'fetchStoredUser'),
    'xstate.done.actor.signIn': settleFrom(harness, 'signIn'),
    'xstate.error.actor.signIn': settleFrom(harness, 'signIn'),
    'xstate.done.actor.signUp': settleFrom(harness, 'signUp'),
    'xstate.error.actor.signUp': settleFrom(harness, 'signUp'),
    'xstate.done.actor.resetPassword': settleFrom(harness, 'resetPassword'),
    'xstate.error.actor.resetPassword': settleFrom(harness, 'resetPassword'),
    'xstate.done.actor.acceptInvitation': settleFrom(harness, 'acceptInvitation'),
    'xstate.error.actor.acceptInvitation': settleFrom(harness, 'acceptInvitation'),
    'xstate.done.actor.fetchTokenUser': settleFrom(harness, 'fetchTokenUser'),
    'xstate.error.actor.fetchTokenUser': settleFrom(harness, 'fetchTokenUser'),
    'xstate.done.actor.signOut': settleFrom(harness, 'signOut'),
    'xstate.error.actor.signOut': settleFrom(harness, 'signOut'),
  } satisfies AuthExecutors;
}

/** Wraps each executor with the navigation check. */
function withNavigationCheck(harness: Harness, executors: AuthExecutors): AuthExecutors {
  const checked = { ...executors };
  for (const type of Object.keys(executors) as AuthModelEventType[]) {
    checked[type] = async (event) => {
      const before = harness.snapshot();
      const count = harness.navigations.length;
      await executors[type](event);
      const expected = navigationAfter[type]?.(before);
      expect(harness.navigations.slice(count), `navigation after ${type}`).toEqual(expected ? [expected] : []);
    };
  }
  return checked;
}

const paths = generatePaths(anyAuthTestModel());

describe('auth machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(authMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes (the guard can fail)', () => {
    const withoutRetry = authTestModel(modelEvents.filter((event) => event.type !== 'auth.retry'));
    const gaps = coverageGaps(authMachine, generatePaths(withoutRetry as unknown as AnyTestModel));
    expect(gaps.transitions).toEqual(['auth.unavailable --auth.retry[0]--> auth.restoring']);

    const withoutRetryPaths = paths.filter((path) => !path.steps.some((step) => step.event.type === 'auth.retry'));
    expect(coverageGaps(authMachine, withoutRetryPaths).transitions).toContain('auth.unavailable --auth.retry[0]--> auth.restoring');
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.length).toBeLessThan(120);
  });

  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    const executors = withNavigationCheck(harness, machineExecutors(harness));
    await path.test(
      pathTestParams(executors, (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const [path] = authTestModel()
      .getShortestPaths()
      .filter((p) => p.state.matches('signedIn') && p.steps.some((s) => s.event.type === 'xstate.done.actor.signIn'));
    if (!path) throw new Error('no sign-in path');
    const harness = createHarness();
    const executors = machineExecutors(harness);
    // A broken view that answers every sign-in as refused.
    executors['xstate.done.actor.signIn'] = () => harness.settle('signIn', { error: authFailure('invalidCredentials') });
    await expect(
      path.test(pathTestParams(executors, (expected) => expect(harness.snapshot().value).toEqual(expected.value))),
    ).rejects.toThrow();
  });
});

describe('auth machine: effects', () => {
  it('restores a stored session without navigating', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { output: modelUsers.restored });

    expect(harness.snapshot().value).toBe('signedIn');
    expect(harness.snapshot().context.user).toEqual(modelUsers.restored);
    expect(harness.navigations).toEqual([]);
  });

  it('forgets a refused stored token and stays where it is', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });

    expect(harness.snapshot().value).toBe('signedOut');
    expect(harness.forgottenSessions()).toBe(1);
    expect(harness.navigations).toEqual([]);
  });

  it('keeps the stored token when the server cannot be reached, and tries again on request', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { error: new TypeError('Failed to fetch') });

    expect(harness.snapshot().value).toBe('unavailable');
    expect(harness.snapshot().context.failure).toMatchObject({ operation: 'restore', kind: 'unavailable' });
    expect(harness.forgottenSessions()).toBe(0);

    harness.actor.send({ type: 'auth.retry' });
    await harness.settle('fetchStoredUser', { output: modelUsers.restored });
    expect(harness.snapshot().value).toBe('signedIn');
    expect(harness.snapshot().context.failure).toBeNull();
  });

  it('sends the credentials to the sign-in call and goes to the path remembered before the page load', async () => {
    const harness = createHarness({ redirectAfterSignIn: '/customers/42?tab=payments' });
    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });

    harness.actor.send({ type: 'auth.signIn', request: { email: 'grace@example.com', password: 'correct horse' } });
    expect(harness.calls.at(-1)).toMatchObject({ id: 'signIn', input: { email: 'grace@example.com', password: 'correct horse' } });
    await harness.settle('signIn', { output: modelUsers.signedIn });

    expect(harness.navigations).toEqual(['/customers/42?tab=payments']);
    expect(harness.snapshot().context.redirectPath).toBeNull();
    expect(harness.storedRedirects).toEqual([null]);
  });

  it('keeps the failure of a refused sign-in for the sign-in page, and clears it on the next attempt', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });
    harness.actor.send({ type: 'auth.signIn', request: { email: 'grace@example.com', password: 'wrong' } });
    await harness.settle('signIn', { error: authFailure('invalidCredentials', [SIGN_IN_FAILURE_MESSAGE]) });

    expect(harness.snapshot().context.failure).toEqual({
      operation: 'signIn',
      kind: 'invalidCredentials',
      messages: [SIGN_IN_FAILURE_MESSAGE],
      fields: {},
    });

    harness.actor.send({ type: 'auth.signIn', request: { email: 'grace@example.com', password: 'right' } });
    expect(harness.snapshot().context.failure).toBeNull();
  });

  it('on a 401 clears the user and the token, remembers the path and goes to /sign_in', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { output: modelUsers.restored });

    harness.actor.send({ type: 'auth.sessionExpired', path: EXPIRED_PATH });

    expect(harness.snapshot().value).toBe('sessionExpired');
    expect(harness.snapshot().context).toMatchObject({ user: null, redirectPath: EXPIRED_PATH });
    expect(harness.forgottenSessions()).toBe(1);
    expect(harness.storedRedirects).toEqual([EXPIRED_PATH]);
    expect(harness.navigations).toEqual(['/sign_in']);

    harness.actor.send({ type: 'auth.signIn', request: { email: 'ada@example.com', password: 'again' } });
    await harness.settle('signIn', { output: modelUsers.restored });
    expect(harness.navigations).toEqual(['/sign_in', EXPIRED_PATH]);
  });

  it('ignores a 401 that is not about a signed-in session (a refused sign-in, a stale token)', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'auth.sessionExpired', path: '/' });
    expect(harness.snapshot().value).toBe('restoring');

    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });
    harness.actor.send({ type: 'auth.signIn', request: { email: 'ada@example.com', password: 'wrong' } });
    harness.actor.send({ type: 'auth.sessionExpired', path: '/sign_in' });

    expect(harness.snapshot().value).toBe('signingIn');
    expect(harness.navigations).toEqual([]);
  });

  it('ends the session locally even when the sign-out call fails', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { output: modelUsers.restored });
    harness.actor.send({ type: 'auth.signOut' });
    await harness.settle('signOut', { error: new TypeError('Failed to fetch') });

    expect(harness.snapshot().value).toBe('signedOut');
    expect(harness.snapshot().context.user).toBeNull();
    expect(harness.forgottenSessions()).toBe(1);
    expect(harness.navigations).toEqual(['/sign_in']);
  });

  it('lets a token sign-in link cancel the restore of a stored session', async () => {
    const harness = createHarness();
    const restore = harness.calls[0];

    harness.actor.send({ type: 'auth.tokenSignIn', token: 'link.jwt' });

    expect(restore?.signal.aborted).toBe(true);
    expect(harness.calls.at(-1)).toMatchObject({ id: 'fetchTokenUser', input: 'link.jwt' });
    await harness.settle('fetchTokenUser', { output: modelUsers.tokenSignIn });
    expect(harness.snapshot().context.user).toEqual(modelUsers.tokenSignIn);
    expect(harness.navigations).toEqual(['/settings']);
  });

  it('ends a previous session when a token link fails', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { output: modelUsers.restored });
    harness.actor.send({ type: 'auth.tokenSignIn', token: 'expired.jwt' });
    await harness.settle('fetchTokenUser', { error: authFailure('unauthorized') });

    expect(harness.snapshot().value).toBe('signedOut');
    expect(harness.snapshot().context.user).toBeNull();
    expect(harness.snapshot().context.failure).toMatchObject({ operation: 'tokenSignIn' });
    expect(harness.forgottenSessions()).toBe(1);
    expect(harness.navigations).toEqual(['/sign_in']);
  });

  it('remembers where an anonymous visitor asked to sign in from, and keeps it across reloads', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });
    harness.actor.send({ type: 'auth.signInRequested', path: '/reports/abc?currency=eur' });

    expect(harness.snapshot().context.redirectPath).toBe('/reports/abc?currency=eur');
    expect(harness.storedRedirects).toEqual(['/reports/abc?currency=eur']);
  });

  it('treats anything thrown that is not an auth failure as the server being unavailable', async () => {
    const harness = createHarness();
    await harness.settle('fetchStoredUser', { error: authFailure('unauthorized') });
    harness.actor.send({ type: 'auth.signUp', request: { email: 'k@example.com', password: 'correct horse' } });
    await harness.settle('signUp', { error: new Error('boom') });

    expect(harness.snapshot().context.failure).toMatchObject({ operation: 'signUp', kind: 'unavailable' });
  });
});
