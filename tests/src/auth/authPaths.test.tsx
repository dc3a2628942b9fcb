import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { authMachine, type AuthSnapshot } from '../../../machines/auth/authMachine';
import { SESSION_EXPIRED_MESSAGE, SIGN_IN_FAILURE_MESSAGE } from '../../../models/auth';
import { TOKEN_STORAGE_KEY } from '../../../src/api/tokenStore';
import {
  anyAuthTestModel,
  EXPIRED_PATH,
  modelEvents,
  modelUsers,
  navigationAfter,
  pathTestParams,
  renamedUser,
  REQUESTED_PATH,
} from '../../machines/auth/authModel';
import type { AuthExecutors, AuthModelEvent, AuthModelEventType } from '../../machines/auth/authModel';
import { coverageGaps, coveringPaths, describePath, generatePaths } from '../../machines/support/modelPaths';
import type { AnyTestPath } from '../../machines/support/modelPaths';
import { renderApp } from '../renderApp';
import { apiErrors, apiUser, createFakeApi, FAKE_API_TOKEN, signedInAnswer } from '../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../support/fakeApi';

/**
 * The auth machine's generated paths walked through the real app: each event is made to
 * happen the way a user or the server makes it (typing in the sign-in area's forms, clicking
 * 'Sign out', opening a link, the fake API answering), and after every step what the user sees
 * must match the state the model expects.
 */

const STORED_TOKEN = 'stored.jwt.token';
const PASSWORD = 'correct horse battery';

/** Every request the auth calls make, held until the path's done/error step answers it. */
const HELD_ROUTES = [
  'GET /users/me',
  'POST /users/sign_in',
  'POST /users',
  'PUT /users/password',
  'PUT /invitations/:token',
  'DELETE /users/sign_out',
] as const;
type HeldRoute = (typeof HELD_ROUTES)[number];

function fakeServer(): FakeApi {
  const api = createFakeApi({
    'GET /users': () => ({ status: 200, body: { items: [apiUser(modelUsers.restored)] } }),
    'GET /invitations/:token': () => ({
      status: 200,
      body: { invitee: { email: modelUsers.invited.email, name: '' }, account: { name: 'Acme Analytics' }, inviter: { name: 'Ada Lovelace' } },
    }),
  });
  for (const route of HELD_ROUTES) api.hold(route);
  return api;
}

/** The answer of the server that makes each done/error event happen. */
const answers: Partial<Record<AuthModelEventType, [HeldRoute, FakeAnswer]>> = {
  'xstate.done.actor.fetchStoredUser': ['GET /users/me', { status: 200, body: { user: apiUser(modelUsers.restored) } }],
  'xstate.error.actor.fetchStoredUser': ['GET /users/me', apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' })],
  'xstate.done.actor.signIn': ['POST /users/sign_in', signedInAnswer(modelUsers.signedIn)],
  'xstate.error.actor.signIn': ['POST /users/sign_in', apiErrors(401, { pointer: '/user/email', detail: SIGN_IN_FAILURE_MESSAGE })],
  'xstate.done.actor.signUp': ['POST /users', signedInAnswer(modelUsers.signedUp, 201)],
  'xstate.error.actor.signUp': [
    'POST /users',
    apiErrors(
      422,
      { pointer: '/user/email', detail: 'has already been taken' },
      { pointer: '/user/password', detail: 'is too common' },
    ),
  ],
  'xstate.done.actor.resetPassword': ['PUT /users/password', signedInAnswer(modelUsers.passwordReset)],
  'xstate.error.actor.resetPassword': [
    'PUT /users/password',
    apiErrors(422, { pointer: '/user/reset_password_token', detail: 'is invalid or has expired' }),
  ],
  'xstate.done.actor.acceptInvitation': ['PUT /invitations/:token', signedInAnswer(modelUsers.invited)],
  'xstate.error.actor.acceptInvitation': ['PUT /invitations/:token', apiErrors(404, { detail: 'Not Found' })],
  'xstate.done.actor.fetchTokenUser': ['GET /users/me', { status: 200, body: { user: apiUser(modelUsers.tokenSignIn) } }],
  'xstate.error.actor.fetchTokenUser': ['GET /users/me', apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' })],
  'xstate.done.actor.signOut': ['DELETE /users/sign_out', { status: 204 }],
  'xstate.error.actor.signOut': ['DELETE /users/sign_out', { status: 503 }],
};

/** The unavailable restore answers 503 rather than 401: the guarded error transition. */
function answerFor(event: AuthModelEvent): [HeldRoute, FakeAnswer] {
  if (event.type === 'xstate.error.actor.fetchStoredUser' && 'error' in event && isUnavailable(event.error)) {
    return ['GET /users/me', { status: 503 }];
  }
  const answer = answers[event.type];
  if (!answer) throw new Error(`${event.type} has no server answer`);
  return answer;
}

function isUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'kind' in error && error.kind === 'unavailable';
}

function passwordInput(label: string | RegExp): HTMLElement {
  return screen.getByLabelText(label, { selector: 'input' });
}

interface Walk {
  user: UserEvent;
  api: FakeApi;
  location: ReturnType<typeof renderApp>['location'];
}

const currentPath = ({ location }: Walk) => location.history?.at(-1);

/** Opens a path as a user following a link (an e-mail, a bookmark). */
async function open(walk: Walk, path: string) {
  walk.location.navigate(path);
  await waitFor(() => expect(currentPath(walk)).toBe(path));
}

async function submit(walk: Walk, name: string) {
  await walk.user.click(screen.getByRole('button', { name }));
}

function viewExecutors(walk: Walk): AuthExecutors {
  const { user, api } = walk;

  const answer = async (event: AuthModelEvent) => {
    const [route, reply] = answerFor(event);
    await waitFor(() => expect(api.waiting(route)).toBeGreaterThan(0));
    api.release(route, reply);
  };

  return {
    'auth.signIn': async () => {
      if (currentPath(walk) !== '/sign_in') await open(walk, '/sign_in');
      await user.type(await screen.findByLabelText('Email'), modelUsers.signedIn.email);
      await user.type(passwordInput('Password'), PASSWORD);
      await submit(walk, 'Sign in');
    },
    'auth.signUp': async () => {
      await user.click(await screen.findByRole('link', { name: 'Create an account' }));
      await user.type(await screen.findByLabelText('Name'), modelUsers.signedUp.name);
      await user.type(screen.getByLabelText(/^Email/), modelUsers.signedUp.email);
      await user.type(passwordInput(/^Password/), PASSWORD);
      await submit(walk, 'Create account');
    },
    'auth.resetPassword': async () => {
      await open(walk, '/reset_password/reset-token');
      await user.type(passwordInput('New password'), PASSWORD);
      await user.type(passwordInput('Confirm new password'), PASSWORD);
      await submit(walk, 'Save password and sign in');
    },
    'auth.acceptInvitation': async () => {
      await open(walk, '/invitation/invitation-token');
      await user.type(await screen.findByLabelText(/^Your name/), modelUsers.invited.name);
      await user.type(passwordInput(/^Password/), PASSWORD);
      await user.type(passwordInput(/^Confirm password/), PASSWORD);
      await submit(walk, 'Accept invitation');
    },
    'auth.tokenSignIn': async () => {
      await open(walk, '/sign_in_via_token/link.jwt.token');
    },
    'auth.signInRequested': async () => {
      walk.location.navigate(REQUESTED_PATH);
      await waitFor(() => expect(currentPath(walk)).toBe('/sign_in'));
    },
    'auth.signOut': async () => {
      await user.click(screen.getByRole('button', { name: 'User menu' }));
      await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    },
    'auth.sessionExpired': async () => {
      api.on('GET /users', () => apiErrors(401, { detail: 'You need to sign in or sign up before continuing.' }));
      await open(walk, EXPIRED_PATH);
      await waitFor(() => expect(currentPath(walk)).toBe('/sign_in'));
      api.on('GET /users', () => ({ status: 200, body: { items: [apiUser(modelUsers.restored)] } }));
    },
    'auth.userUpdated': async () => {
      await open(walk, '/settings');
      await waitFor(() => expect(api.waiting('GET /users/me')).toBe(1));
      api.release('GET /users/me', { status: 200, body: { user: apiUser(renamedUser, { api_token: FAKE_API_TOKEN }) } });
      await screen.findByText(FAKE_API_TOKEN);
    },
    'auth.retry': async () => {
      await user.click(screen.getByRole('button', { name: 'Try again' }));
    },
    'xstate.done.actor.fetchStoredUser': answer,
    'xstate.error.actor.fetchStoredUser': answer,
    'xstate.done.actor.signIn': answer,
    'xstate.error.actor.signIn': answer,
    'xstate.done.actor.signUp': answer,
    'xstate.error.actor.signUp': answer,
    'xstate.done.actor.resetPassword': answer,
    'xstate.error.actor.resetPassword': answer,
    'xstate.done.actor.acceptInvitation': answer,
    'xstate.error.actor.acceptInvitation': answer,
    'xstate.done.actor.fetchTokenUser': answer,
    'xstate.error.actor.fetchTokenUser': answer,
    'xstate.done.actor.signOut': answer,
    'xstate.error.actor.signOut': answer,
  } satisfies AuthExecutors;
}

/** Every failure text the model can produce: none may show unless the state carries it. */
const allFailureMessages = [
  ...new Set(
    modelEvents.flatMap((event) =>
      'error' in event && typeof event.error === 'object' && event.error !== null && 'messages' in event.error
        ? (event.error.messages as string[])
        : [],
    ),
  ),
];

const SUBMIT_BUTTONS = ['Sign in', 'Create account', 'Save password and sign in', 'Accept invitation'];

function expectFailureShown(expected: AuthSnapshot) {
  const shown = expected.context.failure?.messages ?? [];
  for (const message of allFailureMessages) {
    if (shown.includes(message)) expect(screen.getByText(message)).toBeInTheDocument();
    else expect(screen.queryByText(message)).not.toBeInTheDocument();
  }
}

function expectLoadingButton(name: string) {
  const button = screen.getByRole('button', { name });
  expect(button).toHaveAttribute('data-loading');
}

/** What the user must see in each state of the machine. */
async function expectUiOf(walk: Walk, expected: AuthSnapshot) {
  await waitFor(async () => {
    if (expected.matches('restoring')) {
      expect(screen.getByLabelText('Loading page')).toBeInTheDocument();
      expect(screen.getByLabelText('Checking your session')).toBeInTheDocument();
      expect(screen.queryByRole('heading', { name: 'Sign in' })).not.toBeInTheDocument();
    } else if (expected.matches('unavailable')) {
      expect(screen.getByRole('heading', { name: 'Subscope is out of reach' })).toBeInTheDocument();
      for (const message of expected.context.failure?.messages ?? []) expect(screen.getByText(message)).toBeInTheDocument();
    } else if (expected.matches('signedOut') || expected.matches('sessionExpired')) {
      expect(screen.queryByRole('banner')).not.toBeInTheDocument();
      const submit = screen.getAllByRole('button').find((button) => SUBMIT_BUTTONS.includes(button.textContent ?? ''));
      expect(submit, 'a sign-in area form').toBeDefined();
      expect(submit).not.toHaveAttribute('data-loading');
      expectFailureShown(expected);
      if (expected.matches('sessionExpired')) expect(screen.getByText(SESSION_EXPIRED_MESSAGE)).toBeInTheDocument();
      else expect(screen.queryByText(SESSION_EXPIRED_MESSAGE)).not.toBeInTheDocument();
    } else if (expected.matches('signingIn')) {
      expectLoadingButton('Sign in');
    } else if (expected.matches('signingUp')) {
      expectLoadingButton('Create account');
    } else if (expected.matches('resettingPassword')) {
      expectLoadingButton('Save password and sign in');
    } else if (expected.matches('acceptingInvitation')) {
      expectLoadingButton('Accept invitation');
    } else if (expected.matches('tokenSignIn')) {
      expect(screen.getByRole('heading', { name: 'Signing you in' })).toBeInTheDocument();
    } else if (expected.matches('signingOut')) {
      expect(screen.getByLabelText('Signing out')).toBeInTheDocument();
    } else if (expected.matches('signedIn')) {
      expect(screen.getByRole('banner')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'User menu' })).toBeInTheDocument();
    } else {
      throw new Error(`No view expectation for ${JSON.stringify(expected.value)}`);
    }
  });

  if (expected.matches('signedIn')) {
    // Who is signed in: the user menu names them.
    await walk.user.click(screen.getByRole('button', { name: 'User menu' }));
    const menu = within(await screen.findByRole('menu'));
    expect(menu.getByText(expected.context.user?.name ?? '')).toBeInTheDocument();
    await walk.user.keyboard('{Escape}');
  }
}

// Every state and transition, through the component: the fewest generated paths that cover
// them (the machine's own suite walks all of them against the machine alone).
const paths = coveringPaths(authMachine, generatePaths(anyAuthTestModel()));

it('the walked paths reach every state and take every transition of the machine', () => {
  expect(coverageGaps(authMachine, paths)).toEqual({ states: [], transitions: [] });
});

describe('the sign-in area and guards along the auth machine paths', () => {
  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, STORED_TOKEN);
    const api = fakeServer();
    const { location } = renderApp({ path: '/', restore: true, api });
    const walk: Walk = { user: userEvent.setup({ delay: null }), api, location };
    const executors = viewExecutors(walk);

    let previous: AuthSnapshot | undefined;
    const checked: AuthExecutors = { ...executors };
    for (const type of Object.keys(executors) as AuthModelEventType[]) {
      checked[type] = async (event) => {
        const before = previous;
        await executors[type](event);
        const expectedPath = before ? navigationAfter[type]?.(before) : undefined;
        if (expectedPath) await waitFor(() => expect(currentPath(walk)).toBe(expectedPath));
      };
    }

    await path.test(
      pathTestParams(checked, async (expected) => {
        await expectUiOf(walk, expected);
        previous = expected;
      }),
    );
  });
});
