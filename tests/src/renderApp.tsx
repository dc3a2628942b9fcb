import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { App } from '../../src/App';
import { AppProviders } from '../../src/AppProviders';
import type { Session, SessionUser } from '../../src/session/SessionContext';

export const fullAccessUser: SessionUser = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  permission_level: 'user',
};

interface RenderOptions {
  /** The starting path, with an optional ?search. */
  path?: string;
  user?: SessionUser | null;
  signOut?: () => void;
}

function sessionOf({ user = null, signOut }: RenderOptions): Session {
  return signOut ? { user, signOut } : { user };
}

/** The whole app at a path, on an in-memory location whose history the test can read. */
export function renderApp(options: RenderOptions = {}) {
  const location = memoryLocation({ path: options.path ?? '/', record: true });
  const view = render(
    <App env="test" router={{ hook: location.hook, searchHook: location.searchHook }} session={sessionOf(options)} />,
  );
  return { ...view, location };
}

/** A component inside the app's providers and an in-memory router. */
export function renderWithProviders(ui: ReactNode, options: RenderOptions = {}) {
  const location = memoryLocation({ path: options.path ?? '/', record: true });
  const view = render(
    <AppProviders env="test" session={sessionOf(options)}>
      <Router hook={location.hook} searchHook={location.searchHook}>
        {ui}
      </Router>
    </AppProviders>,
  );
  return { ...view, location };
}
