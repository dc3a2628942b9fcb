import type { QueryClient } from '@tanstack/react-query';
import { Router } from 'wouter';
import type { RouterProps } from 'wouter';
import type { Snapshot } from 'xstate';
import type { AuthServices } from '../machines/auth/authActors';
import { ApiProvider } from './api/ApiContext';
import { api } from './api/client';
import type { ApiClient } from './api/client';
import { ServerStateReset } from './api/ServerStateReset';
import { AppProviders } from './AppProviders';
import { AppRoutes } from './AppRoutes';
import { AuthProvider } from './session/AuthProvider';

interface AppProps {
  /** Router options (a memory location in tests); the browser location by default. */
  router?: Omit<RouterProps, 'children'>;
  /** The API client (a test's client over a fake transport); the app's one client by default. */
  client?: ApiClient;
  /** The auth machine's calls and starting snapshot, when not the API's and a restore of the stored session. */
  auth?: { services?: AuthServices; snapshot?: Snapshot<unknown> };
  env?: 'default' | 'test';
  /** The cache of server state (a test's own); by default one for the app. */
  queryClient?: QueryClient;
}

export function App({ router, client = api, auth, env, queryClient }: AppProps) {
  return (
    <AppProviders env={env} queryClient={queryClient}>
      <Router {...router}>
        <ApiProvider client={client}>
          <AuthProvider services={auth?.services} snapshot={auth?.snapshot}>
            <ServerStateReset />
            <AppRoutes />
          </AuthProvider>
        </ApiProvider>
      </Router>
    </AppProviders>
  );
}
