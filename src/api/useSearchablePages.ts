import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { SEARCH_DEBOUNCE_MS } from '../../models/constants';

/** What a searchable, paged table shows: a page of the list, the search's matches, or why there is nothing. */
export type SearchablePageRows<Row, Page> =
  | { status: 'loading' }
  | { status: 'failed' }
  | { status: 'page'; rows: Row[]; page: Page; refreshing: boolean }
  | { status: 'search'; rows: Row[]; query: string; refreshing: boolean };

export interface SearchablePagesSource<Row, Page extends { items: Row[] }> {
  /** What the user typed; searched SEARCH_DEBOUNCE_MS after the last keystroke, trimmed. */
  search: string;
  /** The key and reader of the page the cursor points at (in the chosen order and filter). */
  pageKey: QueryKey;
  page: (signal: AbortSignal) => Promise<Page>;
  /** The key and reader of a search's matches. */
  searchKey: (query: string) => QueryKey;
  find: (query: string, signal: AbortSignal) => Promise<Row[]>;
}

/**
 * The rows of a table that is either paged (keyset cursors) or searched: while a query is typed,
 * its matches; otherwise the page the cursor points at. The rows shown stay (dimmed, `refreshing`)
 * while the next ones come; a request overtaken by another is aborted. The customers and payments
 * tables read their rows through it.
 */
export function useSearchablePages<Row, Page extends { items: Row[] }>(source: SearchablePagesSource<Row, Page>): SearchablePageRows<Row, Page> {
  const [debounced] = useDebouncedValue(source.search.trim(), SEARCH_DEBOUNCE_MS);
  const searching = debounced.length > 0;

  const list = useQuery({
    queryKey: source.pageKey,
    queryFn: ({ signal }) => source.page(signal),
    enabled: !searching,
    placeholderData: keepPreviousData,
  });
  const found = useQuery({
    queryKey: source.searchKey(debounced),
    queryFn: ({ signal }) => source.find(debounced, signal),
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
