import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import { FULL_ACCESS_PERMISSION_LEVEL } from '../../models/constants';

/** 'user' has full access; 'shared_report_only' only sees reports through share URLs. */
export type PermissionLevel = 'user' | 'shared_report_only';

export interface SessionUser {
  name: string;
  email: string;
  permission_level: PermissionLevel;
}

export interface Session {
  /** The signed-in user, or null for an anonymous visitor. */
  user: SessionUser | null;
  /** Ends the session. The auth machine provides it; until then it is absent. */
  signOut?: () => void;
}

const anonymous: Session = { user: null };

const SessionContext = createContext<Session>(anonymous);

export function SessionProvider({ value = anonymous, children }: { value?: Session; children: ReactNode }) {
  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): Session {
  return useContext(SessionContext);
}

/** Navigation, settings and report creation are for full-access users only. */
export function hasFullAccess(user: SessionUser | null): boolean {
  return user?.permission_level === FULL_ACCESS_PERMISSION_LEVEL;
}
