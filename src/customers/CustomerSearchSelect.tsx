import { Loader, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS, SUGGESTIONS_LIMIT } from '../../models/constants';
import { apiKey } from '../api/queries';
import type { CustomerRow, CustomerServices } from './customersApi';

export interface CustomerSearchSelectProps {
  label: string;
  /** The chosen customer; null: none yet. */
  value: CustomerRow | null;
  onChange: (customer: CustomerRow | null) => void;
  services: CustomerServices;
  /** Customers not offered (the open customer itself). */
  excludeIds?: readonly string[];
  error?: string | null;
  description?: string;
}

/** The search query key (the customers table's search shares it). */
export const customerSearchKey = (query: string) => apiKey('/customer/search', { query, limit: SUGGESTIONS_LIMIT });

/**
 * A customer picked by searching (`GET /customer/search`, asked SEARCH_DEBOUNCE_MS after typing
 * stops, at most SUGGESTIONS_LIMIT suggestions): a combobox whose options are the server's
 * answer as it is (no narrowing here), the chosen customer kept among them.
 */
export function CustomerSearchSelect({ label, value, onChange, services, excludeIds = [], error, description }: CustomerSearchSelectProps) {
  const [text, setText] = useState(value?.name ?? '');
  const [query] = useDebouncedValue(text.trim(), SEARCH_DEBOUNCE_MS);
  const search = useQuery({
    queryKey: customerSearchKey(query),
    enabled: query !== '',
    queryFn: ({ signal }) => services.search(query, signal),
    placeholderData: keepPreviousData,
  });

  const options = useMemo(() => {
    const found = (query === '' ? [] : (search.data ?? [])).filter((row) => !excludeIds.includes(row.id));
    const rows = value && !found.some((row) => row.id === value.id) ? [value, ...found] : found;
    return { rows, data: rows.map((row) => ({ value: row.id, label: row.public_id && row.public_id !== row.name ? `${row.name} (${row.public_id})` : row.name })) };
  }, [search.data, query, value, excludeIds]);

  const handleChange = (id: string | null) => onChange(options.rows.find((row) => row.id === id) ?? null);

  return (
    <Select
      label={label}
      description={description}
      placeholder="Start typing customer name"
      searchable
      clearable
      data={options.data}
      value={value?.id ?? null}
      onChange={handleChange}
      searchValue={text}
      onSearchChange={setText}
      // The server already narrowed the list by the text (name or public id).
      filter={({ options: all }) => all}
      nothingFoundMessage={query === '' ? 'Type to search customers' : search.isFetching ? 'Searching…' : 'No customers found'}
      leftSection={<IconSearch size={16} />}
      rightSection={search.isFetching ? <Loader size="xs" aria-label="Searching" /> : undefined}
      error={error ?? undefined}
      data-autofocus
      comboboxProps={{ withinPortal: true }}
    />
  );
}
