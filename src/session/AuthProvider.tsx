import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import type { Snapshot } from 'xstate';
import { authActors } from '../../machines/auth/authActors';
import type { AuthServices } from '../../machines/auth/authActors';
import { authMachine } from '../../machines/auth/authMachine';
import { useApi } from '../api/ApiContext';
import { setUnauthorizedHandler } from '../api/client';
import type { UnauthorizedEvent } from '../api/client';
import { tokenStore } from '../api/tokenStore';
import { storedCsvImport } from '../imports/csvImportApi';
import { useInspection } from '../inspector/useInspection';
import { createAuthServices } from './authServices';
import { useCurrentPath } from './currentPath';
import { clearRedirectAfterSignIn, readRedirectAfterSignIn, saveRedirectAfterSignIn } from './redirectAfterSignIn';
import { AuthActorContext, useAuthActor } from './SessionContext';
import { appLiveChannels } from '../cable/appCable';

/** Calls whose 401 means wrong credentials, not an expired session. */
const CREDENTIAL_PATHS = ['/users/sign_in'];

function isCredentialCall({ request }: UnauthorizedEvent): boolean {
  const { pathname } = new URL(request.url, 'http://localhost');
  return CREDENTIAL_PATHS.some((path) => pathname.endsWith(path));
}

interface AuthProviderProps {
  /** The calls the machine makes; by default the API client's (over the token store). */
  services?: AuthServices;
  /**
   * A persisted snapshot of the machine to start from instead of restoring the stored session
   * (tests; a trace loaded into the state inspector).
   */
  snapshot?: Snapshot<unknown>;
  children: ReactNode;
}

/**
 * Runs the auth machine for the app: the API calls, wouter's navigation, the token store and
 * the redirect-after-sign-in storage are its provided effects, and a 401 from any API call
 * becomes `auth.sessionExpired` with the current path. Must sit inside the Router.
 */
export function AuthProvider({ services, snapshot, children }: AuthProviderProps) {
  const client = useApi();
  const [, navigate] = useLocation();
  const calls = useMemo(() => services ?? createAuthServices(client, tokenStore), [services, client]);
  const logic = useMemo(
    () =>
      authMachine.provide({
        actors: authActors(calls),
        actions: {
          navigate: (_, { to }) => navigate(to),
          storeRedirect: (_, { path }) => (path === null ? clearRedirectAfterSignIn() : saveRedirectAfterSignIn(path)),
          // Sign-out and a 401 clear the stored context (spec): the token and this browser's import in progress.
          forgetStoredSession: () => {
            tokenStore.clear();
            storedCsvImport.clear();
            // The live channels carried the token: closed with it.
            appLiveChannels.close();
          },
        },
      }),
    [calls, navigate],
  );
  const inspect = useInspection('auth');
  const [options] = useState(() =>
    snapshot ? { snapshot, inspect } : { input: { redirectAfterSignIn: readRedirectAfterSignIn() }, inspect },
  );

  return (
    <AuthActorContext.Provider logic={logic} options={options}>
      <SessionExpiry />
      {children}
    </AuthActorContext.Provider>
  );
}

/** Registers the API client's 401 hook: an expired session, remembered at the current path. */
function SessionExpiry() {
  const actor = useAuthActor();
  const currentPath = useCurrentPath();
  const pathRef = useRef(currentPath);

  useEffect(() => {
    pathRef.current = currentPath;
  }, [currentPath]);

  useEffect(
    () =>
      setUnauthorizedHandler((event) => {
        if (isCredentialCall(event)) return;
        actor.send({ type: 'auth.sessionExpired', path: pathRef.current });
      }),
    [actor],
  );

  return null;
}
