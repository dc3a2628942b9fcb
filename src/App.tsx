import { Router } from 'wouter';
import type { RouterProps } from 'wouter';
import { AppProviders } from './AppProviders';
import { AppRoutes } from './AppRoutes';
import type { Session } from './session/SessionContext';

interface AppProps {
  /** Router options (a memory location in tests); the browser location by default. */
  router?: Omit<RouterProps, 'children'>;
  session?: Session;
  env?: 'default' | 'test';
}

export function App({ router, session, env }: AppProps) {
  return (
    <AppProviders session={session} env={env}>
      <Router {...router}>
        <AppRoutes />
      </Router>
    </AppProviders>
  );
}
