import { useEffect } from 'react';
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { INVOICE_ITEMS_PAGE, type InvoiceItem, type InvoiceItemSort, type IssueDateTreatment } from '../../models/invoices';
import type { ItemType } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { apiErrorItems, type ApiErrorItem } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { isReportNumbersKey } from '../settings/account/accountSettingsApi';

/** Every cached page of GET /invoice_items and the top bar's GET /invoice_items/status. */
export const invoiceItemsKey = apiKey('/invoice_items');
export const invoiceStatusKey = apiKey('/invoice_items/status');

export const DEFAULT_INVOICE_SORT: InvoiceItemSort = 'created_at:desc';

/** The rejected lines, a page at a time (keyset: each page gives the cursor of the next), with how many there are. */
export function useRejectedItemPages(sort: InvoiceItemSort) {
  const client = useApi();
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery({
    queryKey: apiKey('/invoice_items', { processing_status: 'distillation_failed', sort_by: sort }),
    initialPageParam: null as string | null,
    getNextPageParam: (page: { next: string | null }) => page.next,
    placeholderData: keepPreviousData,
    queryFn: async ({ pageParam, signal }): Promise<{ items: InvoiceItem[]; total_count: number; next: string | null }> => {
      const query = { processing_status: 'distillation_failed' as const, sort_by: sort, limit: INVOICE_ITEMS_PAGE, ...(pageParam ? { next: pageParam } : {}) };
      const { data, response } = await client.GET('/invoice_items', { params: { query }, signal });
      if (!data) throw new ApiCallError('GET /invoice_items failed', response.status);
      return data;
    },
  });
  // The top bar asked GET /invoice_items/status at load; a sync can add the first rejected lines
  // (or a rule take the last) between that answer and this list's. The list is the newer answer:
  // the top bar takes it.
  const hasRejected = pages.data ? (pages.data.pages[0]?.total_count ?? 0) > 0 : undefined;
  useEffect(() => {
    if (hasRejected !== undefined && queryClient.getQueryData(invoiceStatusKey) !== hasRejected) queryClient.setQueryData(invoiceStatusKey, hasRejected);
  }, [hasRejected, queryClient]);
  return pages;
}

/** Whether the account has rejected lines (the top bar's 'Import rejected invoices'); asked only for full users. */
export function useHasRejectedInvoices(enabled: boolean): boolean {
  const client = useApi();
  const status = useQuery({
    queryKey: invoiceStatusKey,
    enabled,
    retry: false,
    staleTime: 60_000,
    queryFn: async ({ signal }): Promise<boolean> => {
      const { data, response } = await client.GET('/invoice_items/status', { signal });
      if (!data) throw new ApiCallError('GET /invoice_items/status failed', response.status);
      return data.has_rejected_invoice_items;
    },
  });
  return enabled && status.data === true;
}

/** How many rejected lines a rule of this exact line name would take (null while unknown). */
export function useAffectedCount(lineName: string) {
  const client = useApi();
  const name = lineName.trim();
  return useQuery({
    queryKey: apiKey('/distillers/exact_match_affected_invoices', { line_name: name }),
    enabled: name !== '',
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<number> => {
      const { data, response } = await client.GET('/distillers/exact_match_affected_invoices', { params: { query: { line_name: name } }, signal });
      if (!data) throw new ApiCallError('GET /distillers/exact_match_affected_invoices failed', response.status);
      return data.count;
    },
  });
}

export interface DistillerBody {
  line_name: string;
  item_type: ItemType;
  issue_date_treatment: IssueDateTreatment;
  product_key: string;
  duration_in_months: number;
  matcher: 'equal';
}

/** What creating a rule answered: the lines it turned into payments, or the refusal (no answer: status 0). */
export type RuleOutcome = { ok: true; processed: number } | { ok: false; status: number; errors: ApiErrorItem[] };

/** Reads again the lines, the top bar's question, the payments and every report number. */
export function invalidateAfterRule(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) => {
      const [path] = query.queryKey;
      return path === '/invoice_items' || path === '/invoice_items/status' || path === '/distillers/exact_match_affected_invoices' || path === '/subscription_histories' || isReportNumbersKey(query.queryKey);
    },
  });
}

/** POST /distillers. */
export function useCreateRule() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: DistillerBody): Promise<RuleOutcome> => {
      try {
        const { data, error, response } = await client.POST('/distillers', { body });
        if (data) return { ok: true, processed: data.processed };
        return { ok: false, status: response.status, errors: apiErrorItems(error) };
      } catch {
        return { ok: false, status: 0, errors: [] };
      }
    },
    onSuccess: (outcome) => {
      if (outcome.ok) void invalidateAfterRule(queryClient);
    },
  });
}
