import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useApi } from '../../api/ApiContext';
import { ApiCallError, apiKey, queryState } from '../../api/queries';
import type { ReportTemplate } from './types';

/** GET /business_report/templates: the library's templates; `reload` fetches again. */
export function useReportTemplates() {
  const client = useApi();
  const query = useQuery({
    queryKey: apiKey('/business_report/templates'),
    queryFn: async ({ signal }): Promise<ReportTemplate[]> => {
      const { data, response } = await client.GET('/business_report/templates', { signal });
      if (!data) throw new ApiCallError('GET /business_report/templates failed', response.status);
      return data.items;
    },
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  return { state: queryState(query), reload };
}
