import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { inspectorRegistry } from '../../../src/inspector/registry';
import { defaultFakeApi, fullAccessUser, renderApp } from '../renderApp';
import { FAKE_JWT, signedInAnswer } from '../support/fakeApi';

const inspector = () => screen.queryByRole('dialog', { name: 'State inspector' });
const authActorButton = () =>
  within(within(screen.getByRole('dialog', { name: 'State inspector' })).getByRole('navigation', { name: 'Actors' })).getByRole('button', { name: /^auth#\d+/ });

describe('opening the state inspector', () => {
  beforeEach(() => {
    // The page's one registry: the previous test's actors have ended with its page.
    inspectorRegistry.clear();
  });

  it('opens on load with ?inspect=1, listing the live auth actor', async () => {
    renderApp({ path: '/customers?inspect=1', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Customers' });

    expect(inspector()).toBeInTheDocument();
    expect(authActorButton()).toHaveTextContent('signedIn');
    expect(authActorButton()).toHaveTextContent('live');
    // One entry for the app's one auth actor, whose React double effects left no stop in its trace.
    const auth = inspectorRegistry.list().filter((actor) => actor.name === 'auth');
    expect(auth).toHaveLength(1);
    expect(auth[0]?.trace.map((entry) => [entry.event.type, entry.value])).toEqual([['xstate.init', 'signedIn']]);
  });

  it('stays closed without ?inspect=1', async () => {
    renderApp({ path: '/customers?inspect=0', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Customers' });
    expect(inspector()).not.toBeInTheDocument();
  });

  it("opens from the user menu's 'Inspector' item and closes", async () => {
    const user = userEvent.setup({ delay: null });
    renderApp({ path: '/customers', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Customers' });
    expect(inspector()).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'User menu' }));
    await user.click(screen.getByRole('menuitem', { name: 'Inspector' }));

    expect(inspector()).toBeInTheDocument();
    expect(authActorButton()).toHaveTextContent('signedIn');
    await user.click(within(inspector() as HTMLElement).getByRole('button', { name: 'Close the inspector' }));
    await waitFor(() => expect(inspector()).not.toBeInTheDocument());
  });

  it("records the app's sign-in with the password and token redacted", async () => {
    const api = defaultFakeApi(fullAccessUser);
    api.on('POST /users/sign_in', () => signedInAnswer(fullAccessUser));
    renderApp({ path: '/sign_in', user: null, api });
    const user = userEvent.setup({ delay: null });

    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await user.click(await screen.findByRole('button', { name: 'User menu' }));
    await user.click(screen.getByRole('menuitem', { name: 'Inspector' }));
    await user.click(authActorButton());

    const log = within(screen.getByRole('table', { name: 'Event log entries' }));
    const signIn = log.getByRole('row', { name: /auth\.signIn/ });
    await user.click(within(signIn).getByRole('button', { name: /Show payload of auth\.signIn/ }));
    expect(within(signIn).getByText(/"password": "\[redacted\]"/)).toBeInTheDocument();
    expect(within(signIn).getByText(/"email": "ada@example.com"/)).toBeInTheDocument();
    const everything = JSON.stringify(inspectorRegistry.list());
    expect(everything).not.toContain('correct horse battery');
    expect(everything).not.toContain(FAKE_JWT);
    expect(everything).not.toContain('sk_live');
  });
});
