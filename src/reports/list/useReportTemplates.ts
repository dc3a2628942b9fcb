import { useCallback } from 'react';
import { useApi } from '../../api/ApiContext';
import type { ReportTemplate } from './types';
import { useFetched } from './useFetched';

/** GET /business_report/templates: the library's templates; `reload` fetches again. */
export function useReportTemplates() {
  const client = useApi();
  const load = useCallback(
    async (signal: AbortSignal): Promise<ReportTemplate[]> => {
      const { data } = await client.GET('/business_report/templates', { signal });
      if (!data) throw new Error('GET /business_report/templates failed');
      return data.items;
    },
    [client],
  );
  const { state, reload } = useFetched(load);
  return { state, reload };
}
