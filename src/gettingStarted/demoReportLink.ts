import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { ApiCallError, apiKey, queryState, type QueryState } from '../api/queries';

/**
 * GET /demo/report: where the public demo report is, `/demo/{secret}`, or null when this
 * server has no demo account (404).
 */
export function useDemoReportPath(): { state: QueryState<string | null>; reload: () => void } {
  const client = useApi();
  const query = useQuery({
    queryKey: apiKey('/demo/report'),
    queryFn: async ({ signal }): Promise<string | null> => {
      const { data, response } = await client.GET('/demo/report', { signal });
      if (data) return `/demo/${data.secret}`;
      if (response.status === 404) return null;
      throw new ApiCallError('GET /demo/report failed', response.status);
    },
    staleTime: Infinity,
  });
  return { state: queryState(query), reload: () => void query.refetch() };
}
