import type { QueryClient } from '@tanstack/react-query';
import type { ItemType } from '../../models/constants';
import { PRODUCT_SEARCH_LIMIT } from '../../models/constants';
import { PAYMENT_SEARCH_MAX_LIMIT, PAYMENTS_PAGE_SIZE } from '../../models/payments';
import type { Payment, PaymentBody, PaymentSortField } from '../../models/payments';
import type { ApiClient } from '../api/client';
import { apiErrorItems } from '../api/errors';
import type { ApiErrorItem } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';

/**
 * The payments page's calls: the table (GET /subscription_histories), the search (GET
 * /subscriptions/histories/search), writes (PUT /subscriptions/history/upsert/{id}, PUT and
 * DELETE /subscriptions/history/{id}) and the product search of the form (GET /product/search).
 * Money is in minor units of the payment's currency, dates 'YYYY-MM-DD'.
 */

export type SortDirection = 'asc' | 'desc';
export interface PaymentsSort {
  field: PaymentSortField;
  direction: SortDirection;
}
export const DEFAULT_PAYMENTS_SORT: PaymentsSort = { field: 'started_at', direction: 'desc' };

/** What the table lists: the filters and order (the page's URL holds them). */
export interface PaymentsFilter {
  currency: string | null;
  itemType: ItemType | null;
  sort: PaymentsSort;
}

/** A payment attribute value as a write sends it. */
export interface PaymentSegmentValue {
  id: string;
  value: string | null;
}

/** One page of GET /subscription_histories. */
export interface PaymentsPage {
  items: Payment[];
  next: string | null;
}

export interface ProductOption {
  key: string;
  name: string;
}

export const PAYMENTS_FETCH_FAILURE = 'We could not fetch your payments';
export const PAYMENT_CREATE_FAILURE = 'We could not create this payment, please try again.';
export const PAYMENT_UPDATE_FAILURE = 'We could not update this payment, please try again.';
export const PAYMENT_FETCH_FAILURE = 'We could not fetch this payment';

export function sortByParam(sort: PaymentsSort): string {
  return `${sort.field}:${sort.direction}`;
}

export const paymentsPageKey = (filter: PaymentsFilter, cursor: string | null) =>
  apiKey('/subscription_histories', { sort_by: sortByParam(filter.sort), currency: filter.currency, item_type: filter.itemType, next: cursor });
export const paymentSearchKey = (query: string) => apiKey('/subscriptions/histories/search', { query, limit: PAYMENT_SEARCH_MAX_LIMIT });
/** One payment, read through the search by its id (the edit drawer opened from a customer's timeline). */
export const paymentKey = (id: string) => apiKey('/subscriptions/history/{id}', { id });
export const productSearchKey = (query: string) => apiKey('/product/search', { query, limit: PRODUCT_SEARCH_LIMIT });

/** A write the server refused (400/422 with field errors) or could not make (no answer, 5xx). */
export class PaymentWriteError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorItem[],
  ) {
    super(`payment write failed (${status})`);
    this.name = 'PaymentWriteError';
  }
}

/** The payments calls over the app's API client. */
export function createPaymentServices(client: ApiClient) {
  return {
    async page(filter: PaymentsFilter, cursor: string | null, signal?: AbortSignal): Promise<PaymentsPage> {
      const query = {
        sort_by: sortByParam(filter.sort),
        limit: PAYMENTS_PAGE_SIZE,
        ...(filter.currency ? { currency: filter.currency } : {}),
        ...(filter.itemType ? { item_type: filter.itemType } : {}),
        ...(cursor ? { next: cursor } : {}),
      };
      const { data, response } = await client.GET('/subscription_histories', { params: { query }, signal });
      if (!data) throw new ApiCallError('GET /subscription_histories failed', response.status);
      return data as PaymentsPage;
    },
    async search(query: string, signal?: AbortSignal): Promise<Payment[]> {
      const { data, response } = await client.GET('/subscriptions/histories/search', { params: { query: { query, limit: PAYMENT_SEARCH_MAX_LIMIT } }, signal });
      if (!data) throw new ApiCallError('GET /subscriptions/histories/search failed', response.status);
      return data.items as Payment[];
    },
    /** One payment by its id (the search finds payments by id); null when there is none. */
    async payment(id: string, signal?: AbortSignal): Promise<Payment | null> {
      const found = await this.search(id, signal);
      return found.find((payment) => payment.id === id) ?? null;
    },
    async products(query: string, signal?: AbortSignal): Promise<ProductOption[]> {
      const { data, response } = await client.GET('/product/search', { params: { query: { query, limit: PRODUCT_SEARCH_LIMIT } }, signal });
      if (!data) throw new ApiCallError('GET /product/search failed', response.status);
      return data.items;
    },
    async create(id: string, body: PaymentBody): Promise<Payment> {
      const { data, error, response } = await client.PUT('/subscriptions/history/upsert/{id}', { params: { path: { id } }, body });
      if (!data) throw new PaymentWriteError(response.status, apiErrorItems(error));
      return data as Payment;
    },
    async update(id: string, body: Partial<PaymentBody> | { segments: PaymentSegmentValue[] }): Promise<Payment> {
      const { data, error, response } = await client.PUT('/subscriptions/history/{id}', { params: { path: { id } }, body });
      if (!data) throw new PaymentWriteError(response.status, apiErrorItems(error));
      return data as Payment;
    },
    async remove(id: string): Promise<void> {
      const { error, response } = await client.DELETE('/subscriptions/history/{id}', { params: { path: { id } } });
      if (!response.ok) throw new PaymentWriteError(response.status, apiErrorItems(error));
    },
  };
}

export type PaymentServices = ReturnType<typeof createPaymentServices>;

/**
 * Whether a cached answer moves when a payment does: the payments table and search, customers
 * (their timelines, figures and the customers table's MRR), reports and their details, and
 * whether the account has data at all.
 */
export function isPaymentDependentKey(queryKey: readonly unknown[]): boolean {
  const path = queryKey[0];
  if (typeof path !== 'string') return false;
  return ['/subscription', '/customer', '/business_report', '/data_existence', '/product/search', '/account_settings'].some((prefix) => path.startsWith(prefix));
}

/** Reads again every answer a payment write moves (the server recalculates the reports). */
export function invalidateAfterPaymentChange(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (query) => isPaymentDependentKey(query.queryKey) });
}
