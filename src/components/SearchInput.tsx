import { ActionIcon, TextInput, type TextInputProps } from '@mantine/core';
import { IconSearch, IconX } from '@tabler/icons-react';

export interface SearchInputProps extends Omit<TextInputProps, 'value' | 'onChange' | 'leftSection' | 'rightSection'> {
  /** The field's accessible name ('Search customers'). */
  'aria-label': string;
  value: string;
  onChange: (value: string) => void;
}

/** A table's search field: a magnifier, and a 'Clear search' button while something is typed. */
export function SearchInput({ value, onChange, ...props }: SearchInputProps) {
  return (
    <TextInput
      {...props}
      leftSection={<IconSearch size={16} />}
      rightSection={
        value ? (
          <ActionIcon variant="subtle" color="gray" aria-label="Clear search" onClick={() => onChange('')}>
            <IconX size={14} />
          </ActionIcon>
        ) : null
      }
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
