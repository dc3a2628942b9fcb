import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { selectUser } from '../../machines/auth/selectors';
import { useAuthSelector } from '../session/SessionContext';

/**
 * Forgets every cached answer when the signed-in user changes (sign-out, an expired session,
 * another user signing in): one user's data never shows to the next. Sits inside the AuthProvider.
 */
export function ServerStateReset() {
  const queryClient = useQueryClient();
  const userId = useAuthSelector((snapshot) => selectUser(snapshot)?.id ?? null);
  const previous = useRef(userId);
  useEffect(() => {
    if (previous.current === userId) return;
    previous.current = userId;
    queryClient.clear();
  }, [queryClient, userId]);
  return null;
}
