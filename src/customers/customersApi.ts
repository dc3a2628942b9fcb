import type { ApiClient } from '../api/client';
import type { operations } from '../api/schema';
import { CHILDREN_FETCH_BATCH_SIZE, SUGGESTIONS_LIMIT, TIMELINE_DEFAULT_LIMIT } from '../../models/constants';

/** A customer as `GET /customers/{id}` answers it. */
export type Customer = operations['getCustomer']['responses'][200]['content']['application/json'];
/** A payment of `GET /customers/{id}/timeline`. */
export type CustomerPayment = operations['getCustomerTimeline']['responses'][200]['content']['application/json']['items'][number];
/** `GET /customer_metrics/{id}`. */
export type CustomerFigures = operations['getCustomerMetrics']['responses'][200]['content']['application/json'];

export type PaymentsOrder = 'asc' | 'desc';

/** A customer as the search, create, update and merge answer it (the customers table's row). */
export interface CustomerRow {
  id: string;
  name: string;
  public_id: string | null;
  parent_id: string | null;
  children_count: number;
  include_in_calculations_by_default: boolean;
}

/** One of the account's customer segments (attributes), as `GET /customer_segments` lists them. */
export interface CustomerSegment {
  id: string;
  name: string;
  time_sensitive: boolean;
}

/** One month of a segment's value history (`GET /customer_segment_values/{customerId}/{segmentId}`). */
export interface SegmentValueEntry {
  year: number;
  month: number;
  value: string | null;
}

/** What `PUT /customers/{id}` changes: any of these. */
export interface CustomerChange {
  name?: string;
  parent_id?: string | null;
  include_in_calculations_by_default?: boolean;
}

/** A change the server refused or could not make: its status and the error body. */
export class CustomerChangeError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`customer change failed (${status})`);
    this.name = 'CustomerChangeError';
  }
}

const SEGMENTS_FETCH_FAILURE = 'We could not get segments, try refreshing the page';

/** What 'Show all payments' asks for: the server's largest limit. */
export const ALL_PAYMENTS_LIMIT = 10_000;

export const PARENT_FETCH_FAILURE = 'We could not fetch parent customer';
export const CHILDREN_FETCH_FAILURE = 'We could not fetch children customers.';
export const CUSTOMER_FETCH_FAILURE = 'Something went wrong';

/** A failed call, with the status the server answered. */
export class CustomerCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'CustomerCallError';
  }
}

/** The customer drawer's calls (server/routes/customers.ts, customerMetrics.ts). */
export function createCustomerServices(client: ApiClient) {
  return {
    async customer(id: string, failure = CUSTOMER_FETCH_FAILURE, signal?: AbortSignal): Promise<Customer> {
      const { data, response } = await client.GET('/customers/{id}', { params: { path: { id } }, signal });
      if (!data) throw new CustomerCallError(failure, response.status);
      return data;
    },
    /** The customer's payments by start date, at most `limit` (default 100). */
    async payments(id: string, options: { order: PaymentsOrder; limit?: number; currency?: string }, signal?: AbortSignal): Promise<CustomerPayment[]> {
      const query = { sort_by: `started_at:${options.order}` as const, limit: options.limit ?? TIMELINE_DEFAULT_LIMIT, ...(options.currency ? { currency: options.currency } : {}) };
      const { data, response } = await client.GET('/customers/{id}/timeline', { params: { path: { id }, query }, signal });
      if (!data) throw new CustomerCallError(CUSTOMER_FETCH_FAILURE, response.status);
      return data.items;
    },
    async figures(id: string, currency?: string, signal?: AbortSignal): Promise<CustomerFigures> {
      const { data, response } = await client.GET('/customer_metrics/{id}', { params: { path: { id }, query: currency ? { currency } : {} }, signal });
      if (!data) throw new CustomerCallError(CUSTOMER_FETCH_FAILURE, response.status);
      return data;
    },
    /** Customers by id, asked for in batches of 100 (the spec's children batches). */
    async many(ids: readonly string[], signal?: AbortSignal): Promise<Customer[]> {
      const batches: string[][] = [];
      for (let at = 0; at < ids.length; at += CHILDREN_FETCH_BATCH_SIZE) batches.push(ids.slice(at, at + CHILDREN_FETCH_BATCH_SIZE));
      const answers = await Promise.all(
        batches.map(async (batch) => {
          const { data, response } = await client.POST('/customer/show_batch', { body: { ids: batch }, signal });
          if (!data) throw new CustomerCallError(CHILDREN_FETCH_FAILURE, response.status);
          return data.items;
        }),
      );
      return answers.flat();
    },
    /** Customers whose name contains the text (or whose public id is it), at most SUGGESTIONS_LIMIT. */
    async search(query: string, signal?: AbortSignal): Promise<CustomerRow[]> {
      const { data, response } = await client.GET('/customer/search', { params: { query: { query, limit: SUGGESTIONS_LIMIT } }, signal });
      if (!data) throw new CustomerCallError(CUSTOMER_FETCH_FAILURE, response.status);
      return data.items;
    },
    async update(id: string, change: CustomerChange): Promise<CustomerRow> {
      const { data, error, response } = await client.PUT('/customers/{id}', { params: { path: { id } }, body: change });
      if (!data) throw new CustomerChangeError(response.status, error);
      return data;
    },
    async create(name: string): Promise<CustomerRow> {
      const { data, error, response } = await client.POST('/customers', { body: { name } });
      if (!data) throw new CustomerChangeError(response.status, error);
      return data;
    },
    async remove(id: string): Promise<void> {
      const { error, response } = await client.DELETE('/customers/{id}', { params: { path: { id } } });
      if (!response.ok) throw new CustomerChangeError(response.status, error);
    },
    /** Merges `sourceId` into `targetId`: the source's payments, values and children move, the source is gone. */
    async merge(targetId: string, sourceId: string): Promise<CustomerRow> {
      const { data, error, response } = await client.POST('/customers/{id}/merge', { params: { path: { id: targetId } }, body: { source_id: sourceId } });
      if (!data) throw new CustomerChangeError(response.status, error);
      return data;
    },
    /** Every customer segment of the account. */
    async segments(signal?: AbortSignal): Promise<CustomerSegment[]> {
      const { data, response } = await client.GET('/customer_segments', { signal });
      if (!data) throw new CustomerCallError(SEGMENTS_FETCH_FAILURE, response.status);
      return data.items;
    },
    /** Values of the segment containing the text, at most SUGGESTIONS_LIMIT. */
    async segmentSuggestions(segmentId: string, query: string, signal?: AbortSignal): Promise<string[]> {
      const { data, response } = await client.GET('/customer_segments/{id}/search_values', { params: { path: { id: segmentId }, query: { query, limit: SUGGESTIONS_LIMIT } }, signal });
      if (!data) throw new CustomerCallError(CUSTOMER_FETCH_FAILURE, response.status);
      return data.items.map((item) => item.value);
    },
    /** The segment's last values of the customer, newest first. */
    async segmentHistory(customerId: string, segmentId: string, signal?: AbortSignal): Promise<SegmentValueEntry[]> {
      const { data, response } = await client.GET('/customer_segment_values/{customerId}/{segmentId}', { params: { path: { customerId, segmentId } }, signal });
      if (!data) throw new CustomerCallError(CUSTOMER_FETCH_FAILURE, response.status);
      return data.items;
    },
    /** Sets the value from that month on (time-sensitive) or replaces it; answers the history. */
    async setSegmentValue(customerId: string, segmentId: string, entry: SegmentValueEntry): Promise<SegmentValueEntry[]> {
      const { data, error, response } = await client.PUT('/customer_segment_values/{customerId}/{segmentId}', { params: { path: { customerId, segmentId } }, body: entry });
      if (!data) throw new CustomerChangeError(response.status, error);
      return data.items;
    },
  };
}

export type CustomerServices = ReturnType<typeof createCustomerServices>;

const ORDER_STORAGE_KEY = 'subscope.customerPaymentsOrder';

/** The payments order chosen last, kept in this browser (default newest first). */
export function storedPaymentsOrder(): PaymentsOrder {
  try {
    return window.localStorage.getItem(ORDER_STORAGE_KEY) === 'asc' ? 'asc' : 'desc';
  } catch {
    return 'desc';
  }
}

export function storePaymentsOrder(order: PaymentsOrder): void {
  try {
    window.localStorage.setItem(ORDER_STORAGE_KEY, order);
  } catch {
    // Private mode: the order lasts for the page only.
  }
}
