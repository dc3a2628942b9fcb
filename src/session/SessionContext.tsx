import { createActorContext } from '@xstate/react';
import { useMemo } from 'react';
import { authMachine } from '../../machines/auth/authMachine';
import type { AuthSnapshot } from '../../machines/auth/authMachine';
import { selectSessionStatus, selectUser } from '../../machines/auth/selectors';
import type { SessionStatus } from '../../machines/auth/selectors';
import type { AuthUser } from '../../models/auth';

/**
 * The auth machine's actor, created by `AuthProvider` (with its effects provided). Views read
 * it through selectors (`useAuthSelector(selectUser)`) and send it events (`useAuthActor()`).
 */
export const AuthActorContext = createActorContext(authMachine);

export const useAuthActor = AuthActorContext.useActorRef;

export function useAuthSelector<T>(selector: (snapshot: AuthSnapshot) => T, compare?: (a: T, b: T) => boolean): T {
  return AuthActorContext.useSelector(selector, compare);
}

/** What the app shell reads of the session: the user, where the session stands, and its two actions. */
export interface Session {
  /** The signed-in user (also while signing out), or null. */
  user: AuthUser | null;
  status: SessionStatus;
  /** Ends the session (the machine calls DELETE /users/sign_out and goes to /sign_in). */
  signOut: () => void;
  /** Remembers `path` as where sign-in success returns (an anonymous visitor's 'Sign in'). */
  requestSignIn: (path: string) => void;
}

export function useSession(): Session {
  const actor = useAuthActor();
  const user = useAuthSelector(selectUser);
  const status = useAuthSelector(selectSessionStatus);
  return useMemo(
    () => ({
      user,
      status,
      signOut: () => actor.send({ type: 'auth.signOut' }),
      requestSignIn: (path: string) => actor.send({ type: 'auth.signInRequested', path }),
    }),
    [actor, user, status],
  );
}
