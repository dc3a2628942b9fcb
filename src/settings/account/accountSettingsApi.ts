import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { ACCOUNT_SETTINGS_FETCH_FAILURE } from '../../../models/accountSettings';
import type { AccountSettings, WritableAccountSettings } from '../../../models/accountSettings';
import { useApi } from '../../api/ApiContext';
import { apiErrorItems } from '../../api/errors';
import type { ApiErrorItem } from '../../api/errors';
import { ApiCallError, apiKey } from '../../api/queries';

/** GET /account_settings (the Settings page's Account card and drawer, the report's settings popover). */
export const accountSettingsKey = apiKey('/account_settings');

/** GET /currencies with the names (the reports' own key holds the ISO codes only). */
export const currencyListKey = apiKey('/currencies', { answer: 'items' });

export interface CurrencyOption {
  iso: string;
  name: string;
}

/** The account's settings; a failed read toasts the spec's message once. */
export function useAccountSettings(options: { enabled?: boolean } = {}) {
  const client = useApi();
  return useQuery({
    queryKey: accountSettingsKey,
    enabled: options.enabled ?? true,
    meta: { failureToast: ACCOUNT_SETTINGS_FETCH_FAILURE },
    queryFn: async ({ signal }): Promise<AccountSettings> => {
      const { data, response } = await client.GET('/account_settings', { signal });
      if (!data) throw new ApiCallError('GET /account_settings failed', response.status);
      return data;
    },
  });
}

/** Every known currency (for the account currency picker). */
export function useCurrencyList(options: { enabled?: boolean } = {}) {
  const client = useApi();
  return useQuery({
    queryKey: currencyListKey,
    enabled: options.enabled ?? true,
    queryFn: async ({ signal }): Promise<CurrencyOption[]> => {
      const { data, response } = await client.GET('/currencies', { signal });
      if (!data) throw new ApiCallError('GET /currencies failed', response.status);
      return data.items.map(({ iso, name }) => ({ iso, name }));
    },
  });
}

/** What a save answered: the new settings, or the refusal's error items (none for a failure without an answer). */
export type SaveOutcome = { ok: true; settings: AccountSettings } | { ok: false; status: number; errors: ApiErrorItem[] };

/**
 * Whether a cached answer holds report numbers that account settings move: the reports (by
 * secret, latest, shared, demo), their sections' details and key numbers, and customers' metrics.
 */
export function isReportNumbersKey(queryKey: readonly unknown[]): boolean {
  const path = queryKey[0];
  return typeof path === 'string' && (path.startsWith('/business_report') || path.startsWith('/customer'));
}

/** Reads again what a settings change moves (the server recalculates reports and pushes their updates). */
export function invalidateAfterSettingsChange(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (query) => isReportNumbersKey(query.queryKey) });
}

/** PUT /account_settings; on success the cached settings become the answer and report numbers are read again. */
export function useSaveAccountSettings() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WritableAccountSettings): Promise<SaveOutcome> => {
      const { data, error, response } = await client.PUT('/account_settings', { body });
      if (data) return { ok: true, settings: data };
      return { ok: false, status: response.status, errors: apiErrorItems(error) };
    },
    onSuccess: (outcome) => {
      if (!outcome.ok) return;
      queryClient.setQueryData(accountSettingsKey, outcome.settings);
      void invalidateAfterSettingsChange(queryClient);
    },
  });
}
