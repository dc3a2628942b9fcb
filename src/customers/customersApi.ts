import type { ApiClient } from '../api/client';
import type { operations } from '../api/schema';
import { CHILDREN_FETCH_BATCH_SIZE, TIMELINE_DEFAULT_LIMIT } from '../../models/constants';

/** A customer as `GET /customers/{id}` answers it. */
export type Customer = operations['getCustomer']['responses'][200]['content']['application/json'];
/** A payment of `GET /customers/{id}/timeline`. */
export type CustomerPayment = operations['getCustomerTimeline']['responses'][200]['content']['application/json']['items'][number];
/** `GET /customer_metrics/{id}`. */
export type CustomerFigures = operations['getCustomerMetrics']['responses'][200]['content']['application/json'];

export type PaymentsOrder = 'asc' | 'desc';

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
