import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { COSTS_FETCH_FAILURE, type Cost, type CostBody } from '../../models/costs';
import { useApi } from '../api/ApiContext';
import { apiErrorItems, type ApiErrorItem } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { isReportNumbersKey } from '../settings/account/accountSettingsApi';

/** How the table is sorted: `date` or `value`, ascending or descending. */
export type CostsSort = `${'date' | 'value'}:${'asc' | 'desc'}`;
export const DEFAULT_COSTS_SORT: CostsSort = 'date:desc';
export const COSTS_PAGE_SIZE = 50;

/** Every cached page of GET /costs (any sort). */
export const costsKey = apiKey('/costs');
export const costAttributesKey = apiKey('/object_attributes', { object: 'cost' });

/** The costs, a page at a time (keyset: each page gives the cursor of the next). A failed read toasts the spec's message. */
export function useCostPages(sort: CostsSort) {
  const client = useApi();
  return useInfiniteQuery({
    queryKey: apiKey('/costs', { sort_by: sort }),
    initialPageParam: null as string | null,
    getNextPageParam: (page: { next: string | null }) => page.next,
    placeholderData: keepPreviousData,
    meta: { failureToast: COSTS_FETCH_FAILURE },
    queryFn: async ({ pageParam, signal }): Promise<{ items: Cost[]; next: string | null }> => {
      const query = { sort_by: sort, limit: COSTS_PAGE_SIZE, ...(pageParam ? { next: pageParam } : {}) };
      const { data, response } = await client.GET('/costs', { params: { query }, signal });
      if (!data) throw new ApiCallError('GET /costs failed', response.status);
      return data;
    },
  });
}

/** The account's cost attributes (custom attributes of object 'cost'), by name. */
export function useCostAttributes() {
  const client = useApi();
  return useQuery({
    queryKey: costAttributesKey,
    queryFn: async ({ signal }): Promise<{ id: string; name: string }[]> => {
      const { data, response } = await client.GET('/object_attributes', { signal });
      if (!data) throw new ApiCallError('GET /object_attributes failed', response.status);
      return data.items.filter((attribute) => attribute.object === 'cost').map(({ id, name }) => ({ id, name }));
    },
  });
}

/** What a write answered: the cost, or the refusal (no answer: status 0, no items). */
export type CostWriteOutcome = { ok: true; cost: Cost } | { ok: false; status: number; errors: ApiErrorItem[] };

/** Reads again the costs and every report number a cost moves (the costs and CAC sections, their details). */
export function invalidateAfterCostChange(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === '/costs' || isReportNumbersKey(query.queryKey) });
}

/** POST /costs (no id: a new cost) or PUT /costs/upsert/{id} (an edit). */
export function useSaveCost() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string | null; body: CostBody }): Promise<CostWriteOutcome> => {
      try {
        const { data, error, response } = id ? await client.PUT('/costs/upsert/{id}', { params: { path: { id } }, body }) : await client.POST('/costs', { body });
        if (data) return { ok: true, cost: data };
        return { ok: false, status: response.status, errors: apiErrorItems(error) };
      } catch {
        return { ok: false, status: 0, errors: [] };
      }
    },
    onSuccess: (outcome) => {
      if (outcome.ok) void invalidateAfterCostChange(queryClient);
    },
  });
}

/** DELETE /costs/{id}; true when it is gone. */
export function useDeleteCost() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string): Promise<boolean> => {
      try {
        const { response } = await client.DELETE('/costs/{id}', { params: { path: { id } } });
        return response.status === 204;
      } catch {
        return false;
      }
    },
    onSuccess: (deleted) => {
      if (deleted) void invalidateAfterCostChange(queryClient);
    },
  });
}
