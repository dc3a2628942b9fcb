import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/ApiContext';
import { ApiCallError, apiKey } from '../../api/queries';

export const PLANS_FETCH_FAILURE = 'We could not fetch your plan';

export type PlanLimitKey = 'customers' | 'users' | 'integrations';

/** A plan of the catalogue (GET /plans): its monthly price in minor units, its limits (null: unlimited). */
export interface Plan {
  id: string;
  name: string;
  description: string;
  monthly_price: number;
  currency: string;
  limits: Record<PlanLimitKey, number | null>;
}

/** The account's plan (GET /plans/{id}), with what the account uses of each limit. */
export interface CurrentPlan extends Plan {
  current: boolean;
  usage?: Record<PlanLimitKey, number>;
}

export const plansKey = apiKey('/plans');
export const planKey = (id: string) => apiKey('/plans/{id}', { id });

/** GET /plans: the catalogue and the account's plan id. */
export function usePlans() {
  const client = useApi();
  return useQuery({
    queryKey: plansKey,
    queryFn: async ({ signal }): Promise<{ items: Plan[]; current_plan_id: string }> => {
      const { data, response } = await client.GET('/plans', { signal });
      if (!data) throw new ApiCallError('GET /plans failed', response.status);
      return data;
    },
  });
}

/** GET /plans/{id} of the account's plan: its limits and the usage. */
export function useCurrentPlan(id: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: planKey(id ?? ''),
    enabled: id !== undefined,
    queryFn: async ({ signal }): Promise<CurrentPlan> => {
      const { data, response } = await client.GET('/plans/{id}', { params: { path: { id: id ?? '' } }, signal });
      if (!data) throw new ApiCallError('GET /plans/{id} failed', response.status);
      return data;
    },
  });
}
