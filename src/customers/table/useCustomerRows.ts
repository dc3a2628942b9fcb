import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { useApi } from '../../api/ApiContext';
import { createCustomerListServices, customerSearchKey, customersPageKey } from '../customerListApi';
import type { CustomerRow, CustomersPageAnswer, CustomersSort, PageCursor } from '../customerListApi';

/** What the table shows: a page of the list, the search's matches, or why there is nothing. */
export type CustomerRows =
  | { status: 'loading' }
  | { status: 'failed' }
  | { status: 'page'; rows: CustomerRow[]; page: CustomersPageAnswer; refreshing: boolean }
  | { status: 'search'; rows: CustomerRow[]; query: string; refreshing: boolean };

/**
 * The table's rows: while a query is typed, GET /customer/search (asked SEARCH_DEBOUNCE_MS after
 * the last keystroke, at most CUSTOMER_SEARCH_MAX_LIMIT matches); otherwise one page of
 * GET /customers in the chosen order. The rows shown stay (dimmed) while the next ones come; a
 * request overtaken by another is aborted.
 */
export function useCustomerRows(search: string, sort: CustomersSort, cursor: PageCursor): CustomerRows {
  const client = useApi();
  const services = useMemo(() => createCustomerListServices(client), [client]);
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const searching = debounced.length > 0;

  const list = useQuery({
    queryKey: customersPageKey(sort, cursor),
    queryFn: ({ signal }) => services.page(sort, cursor, signal),
    enabled: !searching,
    placeholderData: keepPreviousData,
  });
  const found = useQuery({
    queryKey: customerSearchKey(debounced),
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
