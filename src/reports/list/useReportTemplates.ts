import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../../api/ApiContext';
import type { FetchState, ReportTemplate } from './types';

/** GET /business_report/templates: the library's templates; `reload` fetches again. */
export function useReportTemplates() {
  const client = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<FetchState<ReportTemplate[]>>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    client
      .GET('/business_report/templates', { signal: controller.signal })
      .then(({ data }) => {
        if (!data) throw new Error('GET /business_report/templates failed');
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
  return { state, reload };
}
