import { useMemo } from 'react';
import { useApi } from '../api/ApiContext';
import { useSearchablePages, type SearchablePageRows } from '../api/useSearchablePages';
import { createPaymentServices, paymentSearchKey, paymentsPageKey } from './paymentsApi';
import type { Payment } from '../../models/payments';
import type { PaymentsFilter, PaymentsPage } from './paymentsApi';

/** What the table shows: a page of the list, the search's matches, or why there is nothing. */
export type PaymentRows = SearchablePageRows<Payment, PaymentsPage>;

/**
 * The table's rows: while a query is typed, GET /subscriptions/histories/search; otherwise the
 * page of GET /subscription_histories the cursor points at, filtered and ordered.
 */
export function usePaymentRows(search: string, filter: PaymentsFilter, cursor: string | null): PaymentRows {
  const client = useApi();
  const services = useMemo(() => createPaymentServices(client), [client]);
  return useSearchablePages({
    search,
    pageKey: paymentsPageKey(filter, cursor),
    page: (signal) => services.page(filter, cursor, signal),
    searchKey: paymentSearchKey,
    find: (query, signal) => services.search(query, signal),
  });
}
