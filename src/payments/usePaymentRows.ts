import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { createPaymentServices, paymentSearchKey, paymentsPageKey } from './paymentsApi';
import type { Payment } from '../../models/payments';
import type { PaymentsFilter, PaymentsPage } from './paymentsApi';

/** What the table shows: a page of the list, the search's matches, or why there is nothing. */
export type PaymentRows =
  | { status: 'loading' }
  | { status: 'failed' }
  | { status: 'page'; rows: Payment[]; page: PaymentsPage; refreshing: boolean }
  | { status: 'search'; rows: Payment[]; query: string; refreshing: boolean };

/**
 * The table's rows: while a query is typed, GET /subscriptions/histories/search (asked
 * SEARCH_DEBOUNCE_MS after the last keystroke); otherwise the page of GET /subscription_histories
 * the cursor points at, filtered and ordered. The rows shown stay (dimmed) while the next ones
 * come; a request overtaken by another is aborted.
 */
export function usePaymentRows(search: string, filter: PaymentsFilter, cursor: string | null): PaymentRows {
  const client = useApi();
  const services = useMemo(() => createPaymentServices(client), [client]);
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const searching = debounced.length > 0;

  const list = useQuery({
    queryKey: paymentsPageKey(filter, cursor),
    queryFn: ({ signal }) => services.page(filter, cursor, signal),
    enabled: !searching,
    placeholderData: keepPreviousData,
  });
  const found = useQuery({
    queryKey: paymentSearchKey(debounced),
    queryFn: ({ signal }) => services.search(debounced, signal),
    enabled: searching,
    placeholderData: keepPreviousData,
  });

  if (searching) {
    if (found.isError && !found.isFetching) return { status: 'failed' };
    if (found.data === undefined) return { status: 'loading' };
    return { status: 'search', rows: found.data, query: debounced, refreshing: found.isPlaceholderData };
  }
  if (list.isError && !list.isFetching) return { status: 'failed' };
  if (list.data === undefined) return { status: 'loading' };
  return { status: 'page', rows: list.data.items, page: list.data, refreshing: list.isPlaceholderData };
}
