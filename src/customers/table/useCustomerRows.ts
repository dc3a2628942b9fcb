import { useMemo } from 'react';
import { useApi } from '../../api/ApiContext';
import { useSearchablePages, type SearchablePageRows } from '../../api/useSearchablePages';
import { createCustomerListServices, customerSearchKey, customersPageKey } from '../customerListApi';
import type { CustomerRow, CustomersPageAnswer, CustomersSort, PageCursor } from '../customerListApi';

/** What the table shows: a page of the list, the search's matches, or why there is nothing. */
export type CustomerRows = SearchablePageRows<CustomerRow, CustomersPageAnswer>;

/**
 * The table's rows: while a query is typed, GET /customer/search (at most
 * CUSTOMER_SEARCH_MAX_LIMIT matches); otherwise one page of GET /customers in the chosen order.
 */
export function useCustomerRows(search: string, sort: CustomersSort, cursor: PageCursor): CustomerRows {
  const client = useApi();
  const services = useMemo(() => createCustomerListServices(client), [client]);
  return useSearchablePages({
    search,
    pageKey: customersPageKey(sort, cursor),
    page: (signal) => services.page(sort, cursor, signal),
    searchKey: customerSearchKey,
    find: (query, signal) => services.search(query, signal),
  });
}
