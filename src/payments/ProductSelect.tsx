import { Loader, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPackage } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../models/constants';
import { PRODUCT_SEARCH_FAILURE_MESSAGE } from '../../models/payments';
import { productSearchKey } from './paymentsApi';
import type { PaymentServices, ProductOption } from './paymentsApi';

interface ProductSelectProps {
  /** The chosen product (its key is what the payment sends); null: none yet. */
  value: ProductOption | null;
  onChange: (product: ProductOption | null) => void;
  services: PaymentServices;
  error?: string | null;
  onBlur?: () => void;
}

/** The option that names a product not in the list yet (its key becomes the typed name). */
const NEW_PRODUCT_PREFIX = '\u0000new:';

/**
 * The payment's product: the account's products found by name or key (GET /product/search,
 * asked SEARCH_DEBOUNCE_MS after typing stops; an empty text lists the first ones), or a new
 * product named as typed, which the server creates with the payment. A failed search says
 * 'We could not fetch products' and still lets a new name be used.
 */
export function ProductSelect({ value, onChange, services, error, onBlur }: ProductSelectProps) {
  const [text, setText] = useState(value?.name ?? '');
  // The chosen product's own name in the box lists every product again, not only that one.
  const [query] = useDebouncedValue(value && text.trim() === value.name ? '' : text.trim(), SEARCH_DEBOUNCE_MS);
  const search = useQuery({
    queryKey: productSearchKey(query),
    queryFn: ({ signal }) => services.products(query, signal),
    placeholderData: keepPreviousData,
    meta: { failureToast: PRODUCT_SEARCH_FAILURE_MESSAGE },
  });
  const failed = search.isError && !search.isFetching;

  const options = useMemo(() => {
    const found = search.data ?? [];
    const rows = value && !found.some((row) => row.key === value.key) ? [value, ...found] : found;
    const typed = text.trim();
    const known = rows.some((row) => row.name.toLowerCase() === typed.toLowerCase() || row.key.toLowerCase() === typed.toLowerCase());
    const data = rows.map((row) => ({ value: row.key, label: row.name }));
    if (typed !== '' && !known) data.push({ value: `${NEW_PRODUCT_PREFIX}${typed}`, label: `+ New product “${typed}”` });
    return { rows, data };
  }, [search.data, value, text]);

  const handleChange = (picked: string | null) => {
    if (picked === null) return onChange(null);
    if (picked.startsWith(NEW_PRODUCT_PREFIX)) {
      const name = picked.slice(NEW_PRODUCT_PREFIX.length);
      return onChange({ key: name, name });
    }
    onChange(options.rows.find((row) => row.key === picked) ?? null);
  };

  return (
    <Select
      label="Product"
      placeholder="Start typing product name"
      withAsterisk
      searchable
      clearable
      data={options.data}
      value={value?.key ?? null}
      onChange={handleChange}
      searchValue={text}
      onSearchChange={setText}
      // The server already narrowed the list by the text.
      filter={({ options: all }) => all}
      nothingFoundMessage={failed ? PRODUCT_SEARCH_FAILURE_MESSAGE : search.isFetching ? 'Searching…' : 'Type a name to add a new product'}
      leftSection={<IconPackage size={16} />}
      rightSection={search.isFetching ? <Loader size="xs" aria-label="Searching products" /> : undefined}
      error={error ?? (failed ? PRODUCT_SEARCH_FAILURE_MESSAGE : undefined)}
      onBlur={onBlur}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
