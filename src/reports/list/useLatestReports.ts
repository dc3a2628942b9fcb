import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useApi } from '../../api/ApiContext';
import { ApiCallError, apiKey, queryState } from '../../api/queries';
import type { ReportListItem } from './types';

/** The key of GET /business_reports/latest. */
export const latestReportsKey = apiKey('/business_reports/latest');

/** GET /business_reports/latest: the account's reports, newest first. `forget` drops a deleted report from the list. */
export function useLatestReports() {
  const client = useApi();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: latestReportsKey,
    queryFn: async ({ signal }): Promise<ReportListItem[]> => {
      const { data, response } = await client.GET('/business_reports/latest', { signal });
      if (!data) throw new ApiCallError('GET /business_reports/latest failed', response.status);
      return data.items;
    },
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  const forget = useCallback(
    (id: string) => queryClient.setQueryData<ReportListItem[]>(latestReportsKey, (reports) => reports?.filter((report) => report.id !== id)),
    [queryClient],
  );
  return { state: queryState(query), reload, forget };
}
