import { Group, Table, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconSelector } from '@tabler/icons-react';

export interface SortHeaderProps<F extends string> {
  label: string;
  field: F;
  /** The table's current sort, as its URL and API spell it: `{field}:asc` or `{field}:desc` (maybe of a field without a header). */
  sort: string;
  /** Called with the header's field: the table decides the new order (a new field, or the other way round). */
  onSort: (field: F) => void;
  align?: 'right';
}

/** A column header that sorts its table: the order announced in `aria-sort`, an arrow beside the label. */
export function SortHeader<F extends string>({ label, field, sort, onSort, align }: SortHeaderProps<F>) {
  const order = sort.startsWith(`${field}:`) ? (sort.endsWith('asc') ? 'ascending' : 'descending') : 'none';
  const Icon = order === 'ascending' ? IconChevronUp : order === 'descending' ? IconChevronDown : IconSelector;
  return (
    <Table.Th aria-sort={order} ta={align}>
      <UnstyledButton onClick={() => onSort(field)} aria-label={`Sort by ${label.toLowerCase()}`}>
        <Group gap={4} wrap="nowrap" justify={align === 'right' ? 'flex-end' : 'flex-start'}>
          <Text fw={600} size="sm">
            {label}
          </Text>
          <Icon size={14} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}
