import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { isPermissionLevel, USERS_FETCH_FAILURE_MESSAGE } from '../../models/auth';
import type { AccountUser } from '../../models/auth';
import { SHARED_REPORT_ONLY_PERMISSION_LEVEL } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { ApiCallError, apiKey } from '../api/queries';

export type AccountUsersState = { status: 'loading' } | { status: 'loaded'; users: AccountUser[] } | { status: 'failed' };

/** The key of GET /users (an invitation reads it again). */
export const accountUsersKey = apiKey('/users');

/**
 * GET /users: the account's users, invitees included. A failure toasts the spec's message;
 * `reload` fetches again (to retry). A superseded request is aborted.
 */
export function useAccountUsers(): { state: AccountUsersState; reload: () => void } {
  const client = useApi();
  const query = useQuery({
    queryKey: accountUsersKey,
    meta: { failureToast: USERS_FETCH_FAILURE_MESSAGE },
    queryFn: async ({ signal }): Promise<AccountUser[]> => {
      const { data, response } = await client.GET('/users', { signal });
      if (!data) throw new ApiCallError('GET /users failed', response.status);
      return data.items.map((item) => ({
        id: item.id,
        email: item.email,
        name: item.name,
        permission_level: isPermissionLevel(item.permission_level) ? item.permission_level : SHARED_REPORT_ONLY_PERMISSION_LEVEL,
        invitation_pending: item.invitation_pending,
      }));
    },
  });

  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  const state: AccountUsersState = query.data ? { status: 'loaded', users: query.data } : query.isError ? { status: 'failed' } : { status: 'loading' };
  return { state, reload };
}
