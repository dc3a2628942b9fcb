import { useLayoutEffect } from 'react';
import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { SIGN_IN_PATH } from '../../machines/auth/redirect';
import { routeAdmission, selectUser } from '../../machines/auth/selectors';
import type { RouteAccess } from '../../models/auth';
import { PageSkeleton } from '../components/PageSkeleton';
import { ServerUnavailable } from '../components/ServerUnavailable';
import { useCurrentPath } from './currentPath';
import { useAuthActor, useAuthSelector } from './SessionContext';

interface RouteGuardProps {
  access: RouteAccess;
  children: ReactNode;
}

/**
 * Renders a route only for whom its access admits (the machine decides, `routeAdmission`):
 * a skeleton while the session is checked, a retry card when the server is unreachable, and
 * for anyone else a redirect to /sign_in that remembers the path when the visitor is anonymous.
 */
export function RouteGuard({ access, children }: RouteGuardProps) {
  const admission = useAuthSelector((snapshot) => routeAdmission(snapshot, access));

  switch (admission) {
    case 'pending':
      return <PageSkeleton />;
    case 'unavailable':
      return <ServerUnavailable variant="page" />;
    case 'signIn':
      return <SignInRedirect />;
    case 'admit':
      return children;
  }
}

function SignInRedirect() {
  const actor = useAuthActor();
  const anonymous = useAuthSelector((snapshot) => selectUser(snapshot) === null);
  const currentPath = useCurrentPath();
  const [, navigate] = useLocation();

  useLayoutEffect(() => {
    if (anonymous) actor.send({ type: 'auth.signInRequested', path: currentPath });
    navigate(SIGN_IN_PATH, { replace: true });
  }, [actor, anonymous, currentPath, navigate]);

  return <PageSkeleton />;
}
