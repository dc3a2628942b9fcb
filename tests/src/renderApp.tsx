import { render } from '@testing-library/react';
import type { QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import type { ReactNode } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import type { Snapshot } from 'xstate';
import { authMachine } from '../../machines/auth/authMachine';
import type { AuthUser } from '../../models/auth';
import { ApiProvider } from '../../src/api/ApiContext';
import { createQueryClient } from '../../src/api/queries';
import { ServerStateReset } from '../../src/api/ServerStateReset';
import { App } from '../../src/App';
import { AppProviders } from '../../src/AppProviders';
import { AuthProvider } from '../../src/session/AuthProvider';
import { apiUser, createFakeApi, FAKE_API_TOKEN } from './support/fakeApi';
import type { FakeApi } from './support/fakeApi';

export const fullAccessUser: AuthUser = {
  id: 'usr_ada',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  account_id: 'acc_1',
  permission_level: 'user',
};

export const sharedReportOnlyUser: AuthUser = {
  id: 'usr_sam',
  name: 'Sam Reader',
  email: 'sam@example.com',
  account_id: 'acc_1',
  permission_level: 'shared_report_only',
};

interface RenderOptions {
  /** The starting path, with an optional ?search. */
  path?: string;
  /**
   * The session to start in: a signed-in user, or null for an anonymous visitor. Leave it out
   * (with `restore: true`) to let the machine restore the stored session through the fake API.
   */
  user?: AuthUser | null;
  restore?: boolean;
  /** The fake API; by default one that knows the user (GET /users/me, GET /users). */
  api?: FakeApi;
  /** The server state cache; by default a fresh one (no retries) for each render. */
  queryClient?: QueryClient;
}

/** A fresh server state cache for one test: nothing cached, a failure shown at once (no retry). */
export function testQueryClient(): QueryClient {
  return createQueryClient({ retry: false });
}

/** The auth machine settled in `signedIn` with the user, or `signedOut`. */
export function sessionSnapshot(user: AuthUser | null): Snapshot<unknown> {
  const context = { user, redirectPath: null, failure: null };
  return authMachine.getPersistedSnapshot(authMachine.resolveState({ value: user ? 'signedIn' : 'signedOut', context }));
}

/** A fake API that answers the signed-in user's own calls. */
export function defaultFakeApi(user: AuthUser | null = fullAccessUser): FakeApi {
  const me = user ?? fullAccessUser;
  return createFakeApi({
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(me, { api_token: FAKE_API_TOKEN }) } }),
    'GET /users': () => ({ status: 200, body: { items: [apiUser(me)] } }),
    'GET /customer_segments': () => ({ status: 200, body: { items: [] } }),
    'GET /business_reports/latest': () => ({ status: 200, body: { items: [] } }),
  });
}

function authOptions({ user = null, restore = false }: RenderOptions) {
  return restore ? {} : { snapshot: sessionSnapshot(user) };
}

/** The whole app at a path, on an in-memory location whose history the test can read. */
export function renderApp(options: RenderOptions = {}) {
  const api = options.api ?? defaultFakeApi(options.user ?? null);
  const location = memoryLocation({ path: options.path ?? '/', record: true });
  const queryClient = options.queryClient ?? testQueryClient();
  // StrictMode as in src/main.tsx: effects run twice, as they do in development.
  const view = render(
    <StrictMode>
      <App
        env="test"
        router={{ hook: location.hook, searchHook: location.searchHook }}
        client={api.client}
        auth={authOptions(options)}
        queryClient={queryClient}
      />
    </StrictMode>,
  );
  return { ...view, location, api, queryClient };
}

/** A component inside the app's providers, an in-memory router and a session. */
export function renderWithProviders(ui: ReactNode, options: RenderOptions = {}) {
  const api = options.api ?? defaultFakeApi(options.user ?? null);
  const location = memoryLocation({ path: options.path ?? '/', record: true });
  const queryClient = options.queryClient ?? testQueryClient();
  const view = render(
    <StrictMode>
      <AppProviders env="test" queryClient={queryClient}>
        <Router hook={location.hook} searchHook={location.searchHook}>
          <ApiProvider client={api.client}>
            <AuthProvider {...authOptions(options)}>
              <ServerStateReset />
              {ui}
            </AuthProvider>
          </ApiProvider>
        </Router>
      </AppProviders>
    </StrictMode>,
  );
  return { ...view, location, api, queryClient };
}
