import { ActionIcon, Button, Group, MultiSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { POSSIBLE_VALUES_FETCH_FAILURE } from '../../../models/segmentation';
import type { SegmenterTypeInfo } from '../../../models/segmentation';
import { emptyGroup } from './segmentationForm';
import type { GroupRow } from './segmentationForm';
import { useSegmenterValues } from './segmentationQueries';

interface MappingsEditorProps {
  type: SegmenterTypeInfo;
  groups: readonly GroupRow[];
  error(path: string): string | undefined;
  onGroupChange(index: number, patch: Partial<Omit<GroupRow, 'key'>>): void;
  onAdd(group: GroupRow): void;
  onRemove(index: number): void;
}

/**
 * Mappings: the attribute's raw values gathered under group names (a value in one group at
 * most). Values are picked from the service's values of the attribute, searched as one types.
 */
export function MappingsEditor({ type, groups, error, onGroupChange, onAdd, onRemove }: MappingsEditorProps) {
  const handleAdd = () => onAdd(emptyGroup());

  return (
    <Stack gap="sm" role="group" aria-label="Groups">
      {groups.map((group, index) => {
        const taken = new Set(groups.flatMap((other, at) => (at === index ? [] : other.values)));
        return (
          <Paper key={group.key} withBorder p="sm" radius="md" role="group" aria-label={`Group ${index + 1}`}>
            <Stack gap="xs">
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <TextInput
                  label="Group name"
                  placeholder="e.g. Enterprise"
                  withAsterisk
                  value={group.name}
                  error={error(`groups.${index}.name`)}
                  onChange={(event) => onGroupChange(index, { name: event.currentTarget.value })}
                  style={{ flex: 1, minWidth: 0 }}
                />
                {groups.length > 1 ? (
                  <ActionIcon variant="subtle" color="gray" size={36} mt={25} aria-label={`Remove group ${index + 1}`} onClick={() => onRemove(index)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                ) : null}
              </Group>
              <ValuesPicker type={type} value={group.values} taken={taken} error={error(`groups.${index}.values`)} onChange={(values) => onGroupChange(index, { values })} />
            </Stack>
          </Paper>
        );
      })}
      <Text size="xs" c="dimmed">
        Values in no group are shown as &apos;Other&apos;.
      </Text>
      <Button variant="light" leftSection={<IconPlus size={16} />} onClick={handleAdd} style={{ alignSelf: 'flex-start' }}>
        Add group
      </Button>
    </Stack>
  );
}

interface ValuesPickerProps {
  type: SegmenterTypeInfo;
  value: string[];
  /** Values already in another group. */
  taken: ReadonlySet<string>;
  error: string | undefined;
  onChange(values: string[]): void;
}

function ValuesPicker({ type, value, taken, error, onChange }: ValuesPickerProps) {
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const values = useSegmenterValues(type, query);
  const found = (values.data ?? []).filter((item) => item !== '' && !taken.has(item));
  const data = [...new Set([...value, ...found])];
  const failed = values.isError && !values.isFetching;
  return (
    <Stack gap={4}>
      <MultiSelect
        label="Values"
        placeholder={value.length === 0 ? 'Start typing a value' : undefined}
        withAsterisk
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        data={data}
        value={value}
        onChange={onChange}
        error={error}
        nothingFoundMessage={values.isFetching ? 'Searching…' : 'No results'}
        hidePickedOptions
        maxDropdownHeight={240}
        comboboxProps={{ withinPortal: true }}
      />
      {failed ? (
        <Text size="sm" c="red" role="alert">
          {POSSIBLE_VALUES_FETCH_FAILURE}
        </Text>
      ) : null}
    </Stack>
  );
}
