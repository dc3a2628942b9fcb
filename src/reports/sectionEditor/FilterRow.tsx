import { ActionIcon, Anchor, Group, Loader, MultiSelect, Paper, Select, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { POSSIBLE_VALUES_FAILURE } from '../../../models/customSections';
import type { FilterObject, FilterOperator } from '../../../models/customSections';
import { fieldKey } from '../../../machines/sectionEditor/draft';
import type { DraftEdit, DraftFilter, SectionCatalogue } from '../../../machines/sectionEditor/types';
import type { PossibleValuesQuery } from './customSectionsApi';
import { possibleValuesKey } from './customSectionsApi';
import { fieldOfKey, fieldOptions, operatorOptions, possibleValueOptions } from './editorOptions';

/** A field's possible values change with the account's data, not while a section is edited. */
const POSSIBLE_VALUES_STALE_MS = 5 * 60_000;

export type PossibleValuesFetcher = (query: PossibleValuesQuery, signal?: AbortSignal) => Promise<string[]>;

interface FilterRowProps {
  seriesIndex: number;
  index: number;
  filter: DraftFilter;
  catalogue: SectionCatalogue;
  /** The objects whose fields the series' value takes. */
  objects: readonly FilterObject[];
  /** Messages by pointer. */
  errors: Record<string, string>;
  disabled: boolean;
  onEdit(edit: DraftEdit): void;
  possibleValues: PossibleValuesFetcher;
}

/**
 * One filter of a series: its field (the filterable fields of the series' value), its operator
 * (the field's, in the spec's words), and its value: one for 'is', several otherwise, picked
 * among the field's possible values (read when the field is chosen).
 */
export function FilterRow({ seriesIndex, index, filter, catalogue, objects, errors, disabled, onEdit, possibleValues }: FilterRowProps) {
  const at = `/series/${seriesIndex}/filters/${index}`;
  const field = filter.object ? { object: filter.object, field: filter.field, field_id: filter.field_id } : null;
  const query = field ? { object: field.object, field: field.field, field_id: field.field_id } : null;
  const values = useQuery({
    queryKey: query ? possibleValuesKey(query) : ['/user_filtered_config/possible_values', 'none'],
    queryFn: ({ signal }) => possibleValues(query as PossibleValuesQuery, signal),
    enabled: query !== null,
    staleTime: POSSIBLE_VALUES_STALE_MS,
  });
  const options = possibleValueOptions(values.data ?? [], filter.value);
  const loading = query !== null && values.isFetching && values.data === undefined;
  const failed = query !== null && values.isError && !values.isFetching;
  const place = { series: seriesIndex, filter: index };

  const valueProps = {
    label: filter.operator === 'eq' ? 'Value' : 'Values',
    placeholder: !field ? 'Choose a field first' : loading ? 'Loading values…' : options.length === 0 ? 'No values yet' : filter.operator === 'eq' ? 'Pick a value' : 'Pick values',
    data: options,
    searchable: true,
    disabled: disabled || !field,
    error: errors[`${at}/value`],
    nothingFoundMessage: 'No matching values',
    rightSection: loading ? <Loader size={14} aria-label="Loading values" /> : undefined,
  };

  return (
    <Paper withBorder p="sm" radius="md" role="group" aria-label={`Filter ${index + 1}`}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text size="xs" fw={600} c="dimmed" tt="uppercase">
            Filter {index + 1}
          </Text>
          <Tooltip label="Remove filter">
            <ActionIcon variant="subtle" color="gray" size="sm" aria-label={`Remove filter ${index + 1}`} disabled={disabled} onClick={() => onEdit({ kind: 'removeFilter', ...place })}>
              <IconTrash size={14} />
            </ActionIcon>
          </Tooltip>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="xs">
          <Select
            label="Field"
            placeholder="Choose a field"
            data={fieldOptions(catalogue, 'filter', objects, field)}
            value={field ? fieldKey(field) : null}
            onChange={(key) => onEdit({ kind: 'filterField', ...place, field: fieldOfKey(catalogue, key) })}
            searchable
            nothingFoundMessage="No matching fields"
            disabled={disabled}
            error={errors[`${at}/field`]}
          />
          <Select
            label="Operator"
            data={operatorOptions(catalogue, field)}
            value={filter.operator}
            onChange={(operator) => operator && onEdit({ kind: 'filterOperator', ...place, operator: operator as FilterOperator })}
            allowDeselect={false}
            disabled={disabled || !field}
            error={errors[`${at}/operator`]}
          />
        </SimpleGrid>
        {filter.operator === 'eq' ? (
          <Select {...valueProps} value={typeof filter.value === 'string' && filter.value !== '' ? filter.value : null} onChange={(value) => onEdit({ kind: 'filterValue', ...place, value: value ?? '' })} />
        ) : (
          <MultiSelect {...valueProps} value={Array.isArray(filter.value) ? filter.value : []} onChange={(value) => onEdit({ kind: 'filterValue', ...place, value })} hidePickedOptions />
        )}
        {failed && (
          <Text size="xs" c="red" role="alert">
            {POSSIBLE_VALUES_FAILURE}.{' '}
            <Anchor component="button" type="button" size="xs" onClick={() => void values.refetch()}>
              Try again
            </Anchor>
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
