import { useCallback, useEffect, useState } from 'react';
import { isPermissionLevel, USERS_FETCH_FAILURE_MESSAGE } from '../../models/auth';
import type { AccountUser } from '../../models/auth';
import { SHARED_REPORT_ONLY_PERMISSION_LEVEL } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { toastError } from '../notifications/toast';

export type AccountUsersState = { status: 'loading' } | { status: 'loaded'; users: AccountUser[] } | { status: 'failed' };

/**
 * GET /users: the account's users, invitees included. A failure toasts the spec's message;
 * `reload` fetches again (after an invitation, or to retry). A superseded request is aborted.
 */
export function useAccountUsers(): { state: AccountUsersState; reload: () => void } {
  const client = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<AccountUsersState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    client
      .GET('/users', { signal: controller.signal })
      .then(({ data }) => {
        if (!data) throw new Error('GET /users failed');
        setState({
          status: 'loaded',
          users: data.items.map((item) => ({
            id: item.id,
            email: item.email,
            name: item.name,
            permission_level: isPermissionLevel(item.permission_level) ? item.permission_level : SHARED_REPORT_ONLY_PERMISSION_LEVEL,
            invitation_pending: item.invitation_pending,
          })),
        });
      })
      .catch(() => {
        if (controller.signal.aborted) return;
        setState({ status: 'failed' });
        toastError(USERS_FETCH_FAILURE_MESSAGE);
      });
    return () => controller.abort();
  }, [client, attempt]);

  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  return { state, reload };
}
