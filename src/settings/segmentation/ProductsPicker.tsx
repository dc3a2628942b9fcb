import { MultiSelect, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { useProducts } from '../../reports/filters/filtersApi';

/** Ours: the spec has no message for a failed product search. */
export const PRODUCTS_FETCH_FAILURE = 'We could not search your products';

interface ProductsPickerProps {
  value: string[];
  error: string | undefined;
  onChange(products: string[]): void;
}

/** The products a segmentation splits out (product keys), searched with GET /product/search as one types. */
export function ProductsPicker({ value, error, onChange }: ProductsPickerProps) {
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const products = useProducts(query, true);
  // The names of the picked products, so each keeps its name when the next search leaves it out.
  const [picked, setPicked] = useState<Record<string, string>>({});
  const found = Object.fromEntries((products.data ?? []).map((product) => [product.product_key, product.name ?? product.product_key]));
  const labels: Record<string, string> = { ...picked, ...found };
  const data = [...new Set([...value, ...Object.keys(found)])].map((key) => ({ value: key, label: labels[key] ?? key }));
  const handleChange = (keys: string[]) => {
    setPicked(Object.fromEntries(keys.map((key) => [key, labels[key] ?? key])));
    onChange(keys);
  };
  const failed = products.isError && !products.isFetching;
  return (
    <Stack gap={4}>
      <MultiSelect
        label="Products"
        placeholder={value.length === 0 ? 'Start typing a product name' : undefined}
        withAsterisk
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        data={data}
        value={value}
        onChange={handleChange}
        error={error}
        nothingFoundMessage={products.isFetching ? 'Searching…' : 'No results'}
        hidePickedOptions
        maxDropdownHeight={240}
      />
      {failed ? (
        <Text size="sm" c="red" role="alert">
          {PRODUCTS_FETCH_FAILURE}
        </Text>
      ) : null}
    </Stack>
  );
}
