import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { PRODUCT_SEARCH_LIMIT, SEGMENT_SEARCH_LIMIT } from '../../../models/constants';
import { CUSTOMER_SEGMENT_PREFIX } from '../../../models/reportFilter';
import type { FilterItem, ReportViewFilter } from '../../../models/reportFilter';
import { useApi } from '../../api/ApiContext';
import type { ApiClient } from '../../api/client';
import { ApiCallError, apiKey } from '../../api/queries';

/**
 * The calls of the filter picker and the report view drawer (second spec document, section 7),
 * each a TanStack query keyed by its API path and parameters. None of them toasts: the picker
 * shows its failure in place ('We could not fetch possible filters').
 */

type SegmentItem = Extract<FilterItem, { type: 'segment' }>;
type DealOwnerItem = Extract<FilterItem, { type: 'deal_owner' }>;
type ProductItem = Extract<FilterItem, { type: 'product' }>;

/** The picker's segment values of the report's account (by the report's secret) whose value or segment name contains the query. */
export function segmentValuesKey(secret: string, query: string) {
  return apiKey('/business_report_segment_values/by_secret', { secret, query, limit: SEGMENT_SEARCH_LIMIT });
}
export const dealOwnersKey = apiKey('/deal_owners');
export function productSearchKey(query: string) {
  return apiKey('/product/search', { query, limit: PRODUCT_SEARCH_LIMIT });
}
export const customerSegmentsKey = apiKey('/customer_segments');
export function segmentSearchValuesKey(segmentId: string, query: string) {
  return apiKey('/customer_segments/{id}/search_values', { id: segmentId, query, limit: SEGMENT_SEARCH_LIMIT });
}

async function fetchSegmentValues(client: ApiClient, secret: string, query: string, signal: AbortSignal): Promise<SegmentItem[]> {
  const { data, response } = await client.GET('/business_report_segment_values/by_secret', {
    params: { query: { secret, query, limit: SEGMENT_SEARCH_LIMIT } },
    signal,
  });
  if (!data) throw new ApiCallError('GET /business_report_segment_values/by_secret failed', response.status);
  return data.items.map(({ id, name, value }) => ({ type: 'segment', id, name, value, negated: false }));
}

async function fetchDealOwners(client: ApiClient, signal: AbortSignal): Promise<DealOwnerItem[]> {
  const { data, response } = await client.GET('/deal_owners', { signal });
  if (!data) throw new ApiCallError('GET /deal_owners failed', response.status);
  return data.items.map(({ owner_name }) => ({ type: 'deal_owner', owner_name, negated: false }));
}

async function fetchProducts(client: ApiClient, query: string, signal: AbortSignal): Promise<ProductItem[]> {
  const { data, response } = await client.GET('/product/search', { params: { query: { query, limit: PRODUCT_SEARCH_LIMIT } }, signal });
  if (!data) throw new ApiCallError('GET /product/search failed', response.status);
  return data.items.map(({ key, name }) => ({ type: 'product', product_key: key, name, negated: false }));
}

/**
 * The segment values the report can be filtered by (anyone who reads the report) that match the
 * query, the server's first SEGMENT_SEARCH_LIMIT. While a new query loads, the previous answer
 * stays (the picker narrows it at once by the same rule).
 */
export function useSegmentValues(secret: string, query: string) {
  const client = useApi();
  return useQuery({
    queryKey: segmentValuesKey(secret, query),
    queryFn: ({ signal }) => fetchSegmentValues(client, secret, query, signal),
    placeholderData: keepPreviousData,
  });
}

/** The account's deal owners (signed-in users of the account only: `enabled` false otherwise). */
export function useDealOwners(enabled: boolean) {
  const client = useApi();
  return useQuery({ queryKey: dealOwnersKey, queryFn: ({ signal }) => fetchDealOwners(client, signal), enabled });
}

/** Products whose key or name matches the query (signed-in users of the account only); the previous answer stays while a new query loads. */
export function useProducts(query: string, enabled: boolean) {
  const client = useApi();
  return useQuery({
    queryKey: productSearchKey(query),
    queryFn: ({ signal }) => fetchProducts(client, query, signal),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export interface CustomerSegment {
  /** The segment's id as a filter item carries it: `customer_segment:{id}`. */
  itemId: string;
  id: string;
  name: string;
}

/** The account's customer segments (GET /customer_segments), the view drawer's segment choice. */
export function useCustomerSegments() {
  const client = useApi();
  return useQuery({
    queryKey: customerSegmentsKey,
    queryFn: async ({ signal }): Promise<CustomerSegment[]> => {
      const { data, response } = await client.GET('/customer_segments', { signal });
      if (!data) throw new ApiCallError('GET /customer_segments failed', response.status);
      return data.items.map(({ id, name }) => ({ itemId: `${CUSTOMER_SEGMENT_PREFIX}${id}`, id, name }));
    },
  });
}

/** Values of one customer segment that match the query (`enabled` false: no segment chosen). */
export function useSegmentSearchValues(segmentId: string | null, query: string) {
  const client = useApi();
  return useQuery({
    queryKey: segmentSearchValuesKey(segmentId ?? '', query),
    queryFn: async ({ signal }): Promise<string[]> => {
      const { data, response } = await client.GET('/customer_segments/{id}/search_values', {
        params: { path: { id: segmentId ?? '' }, query: { query, limit: SEGMENT_SEARCH_LIMIT } },
        signal,
      });
      if (!data) throw new ApiCallError('GET /customer_segments/{id}/search_values failed', response.status);
      return data.items.map((item) => item.value);
    },
    enabled: segmentId !== null,
  });
}

/** PUT /business_reports/{id} {filter}: stores the report's view (null removes it). */
export async function saveReportView(client: ApiClient, reportId: string, filter: ReportViewFilter | null): Promise<void> {
  const { response } = await client.PUT('/business_reports/{id}', { params: { path: { id: reportId } }, body: { filter } });
  if (!response.ok) throw new ApiCallError('PUT /business_reports/{id} failed', response.status);
}
