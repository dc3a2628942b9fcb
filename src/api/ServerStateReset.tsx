import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { selectUser } from '../../machines/auth/selectors';
import { useAuthSelector } from '../session/SessionContext';

/**
 * Forgets every cached answer when a signed-in user goes (sign-out, an expired session, another
 * user signing in): one user's data never shows to the next. Sits inside the AuthProvider.
 *
 * From no user to a user (the stored session read at load, or a sign-in) nothing is forgotten:
 * what is cached then was read without a user, so nothing private. Clearing at that moment also
 * stranded the lookups in flight of the public pages, which mount before the session is read: a
 * cleared query's fetch is cancelled and its observer never hears again (a group link stayed on
 * its skeleton).
 */
export function ServerStateReset() {
  const queryClient = useQueryClient();
  const userId = useAuthSelector((snapshot) => selectUser(snapshot)?.id ?? null);
  const previous = useRef(userId);
  useEffect(() => {
    const before = previous.current;
    if (before === userId) return;
    previous.current = userId;
    if (before !== null) queryClient.clear();
  }, [queryClient, userId]);
  return null;
}
