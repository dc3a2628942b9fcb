import { useCallback } from 'react';
import { useApi } from '../../api/ApiContext';
import type { ReportListItem } from './types';
import { useFetched } from './useFetched';

/** GET /business_reports/latest: the account's reports, newest first. `forget` drops a deleted report from the list. */
export function useLatestReports() {
  const client = useApi();
  const load = useCallback(
    async (signal: AbortSignal): Promise<ReportListItem[]> => {
      const { data } = await client.GET('/business_reports/latest', { signal });
      if (!data) throw new Error('GET /business_reports/latest failed');
      return data.items;
    },
    [client],
  );
  const { state, reload, update } = useFetched(load);
  const forget = useCallback((id: string) => update((reports) => reports.filter((report) => report.id !== id)), [update]);
  return { state, reload, forget };
}
