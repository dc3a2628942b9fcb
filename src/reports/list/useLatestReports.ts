import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../../api/ApiContext';
import type { FetchState, ReportListItem } from './types';

/**
 * GET /business_reports/latest: the account's reports, newest first. `reload` fetches again
 * (Try again); `forget` drops a deleted report from the list. A superseded request is aborted.
 */
export function useLatestReports() {
  const client = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<FetchState<ReportListItem[]>>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    client
      .GET('/business_reports/latest', { signal: controller.signal })
      .then(({ data }) => {
        if (!data) throw new Error('GET /business_reports/latest failed');
        setState({ status: 'loaded', data: data.items });
      })
      .catch(() => {
        if (!controller.signal.aborted) setState({ status: 'failed' });
      });
    return () => controller.abort();
  }, [client, attempt]);

  const reload = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((count) => count + 1);
  }, []);
  const forget = useCallback((id: string) => {
    setState((current) =>
      current.status === 'loaded' ? { status: 'loaded', data: current.data.filter((report) => report.id !== id) } : current,
    );
  }, []);
  return { state, reload, forget };
}
