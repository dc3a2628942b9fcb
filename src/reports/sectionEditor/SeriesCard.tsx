import { ActionIcon, Badge, Button, Card, Divider, Group, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { memo } from 'react';
import { MAX_FILTERS, MAX_SERIES_NAME_LENGTH } from '../../../models/customSections';
import { valueKey, valueSpecOf } from '../../../machines/sectionEditor/draft';
import type { DraftEdit, DraftSeries, SectionCatalogue } from '../../../machines/sectionEditor/types';
import { fieldObjectsOf, valueOfKey, valueOptions } from './editorOptions';
import { FilterRow } from './FilterRow';
import type { PossibleValuesFetcher } from './FilterRow';
import { GroupList } from './GroupList';

interface SeriesCardProps {
  index: number;
  count: number;
  series: DraftSeries;
  catalogue: SectionCatalogue;
  errors: Record<string, string>;
  disabled: boolean;
  onEdit(edit: DraftEdit): void;
  possibleValues: PossibleValuesFetcher;
}

const UNIT_HINTS = { money: 'in the report’s currency', count: 'a count', units: 'units' } as const;

/**
 * The fields side by side say what they are under their input, so the inputs of a row line up
 * whatever the length of each field's description (one field has none, another three lines).
 */
const DESCRIPTION_BELOW: ('label' | 'input' | 'description' | 'error')[] = ['label', 'input', 'description', 'error'];

/**
 * One series of the section: its name, the value it shows (with its arguments), its own splits
 * and filters, a reference line and whether it is drawn; moved, or removed, from its header.
 */
export const SeriesCard = memo(function SeriesCard({ index, count, series, catalogue, errors, disabled, onEdit, possibleValues }: SeriesCardProps) {
  const at = `/series/${index}`;
  const spec = valueSpecOf(catalogue, series.value);
  const objects = fieldObjectsOf(series.value?.object);
  const number = index + 1;
  const title = series.name.trim() || `Series ${number}`;

  return (
    <Card role="group" aria-label={`Series ${number}`} padding="lg">
      <Stack gap="md">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <Badge variant="light" radius="sm" aria-hidden>
              {number}
            </Badge>
            <Title order={3} size="h5" lineClamp={1}>
              {title}
            </Title>
            {series.hidden && (
              <Badge variant="outline" color="gray" size="sm">
                Hidden
              </Badge>
            )}
          </Group>
          <Group gap={4} wrap="nowrap">
            <Tooltip label="Move up">
              <ActionIcon variant="subtle" color="gray" aria-label={`Move series ${number} up`} disabled={disabled || index === 0} onClick={() => onEdit({ kind: 'moveSeries', series: index, by: -1 })}>
                <IconArrowUp size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Move down">
              <ActionIcon variant="subtle" color="gray" aria-label={`Move series ${number} down`} disabled={disabled || index === count - 1} onClick={() => onEdit({ kind: 'moveSeries', series: index, by: 1 })}>
                <IconArrowDown size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={count === 1 ? 'A section needs one series' : 'Remove series'}>
              <ActionIcon variant="subtle" color="red" aria-label={`Remove series ${number}`} disabled={disabled || count === 1} onClick={() => onEdit({ kind: 'removeSeries', series: index })}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>

        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="sm">
          <TextInput
            label="Name"
            inputWrapperOrder={DESCRIPTION_BELOW}
            withAsterisk
            value={series.name}
            maxLength={MAX_SERIES_NAME_LENGTH + 20}
            onChange={(event) => onEdit({ kind: 'seriesName', series: index, name: event.currentTarget.value })}
            disabled={disabled}
            error={errors[`${at}/name`]}
          />
          <Select
            label="Value"
            inputWrapperOrder={DESCRIPTION_BELOW}
            withAsterisk
            placeholder="Choose what the series shows"
            data={valueOptions(catalogue)}
            value={series.value ? valueKey(series.value) : null}
            onChange={(key) => onEdit({ kind: 'seriesValue', series: index, value: valueOfKey(catalogue, key) })}
            searchable
            nothingFoundMessage="No matching values"
            disabled={disabled}
            error={errors[`${at}/value`]}
            description={spec ? `Measured ${UNIT_HINTS[spec.unit]}` : undefined}
          />
          {spec?.arguments.map((argument) => (
            <TextInput
              key={argument.name}
              label={argument.label}
              description={argument.description}
              inputWrapperOrder={DESCRIPTION_BELOW}
              inputMode="numeric"
              value={series.arguments[argument.name] ?? ''}
              onChange={(event) => onEdit({ kind: 'seriesArgument', series: index, name: argument.name, value: event.currentTarget.value })}
              disabled={disabled}
              error={errors[`${at}/value/arguments/${argument.name}`]}
            />
          ))}
          <TextInput
            label="Reference line"
            inputWrapperOrder={DESCRIPTION_BELOW}
            description={spec?.unit === 'money' ? 'Optional: a horizontal line at this amount' : 'Optional: a horizontal line at this value'}
            placeholder="None"
            inputMode="decimal"
            value={series.reference}
            onChange={(event) => onEdit({ kind: 'seriesReference', series: index, reference: event.currentTarget.value })}
            disabled={disabled}
            error={errors[`${at}/reference`]}
          />
        </SimpleGrid>

        <Switch
          label="Hide this series"
          description="Calculated, but not drawn on the chart"
          checked={series.hidden}
          onChange={(event) => onEdit({ kind: 'seriesHidden', series: index, hidden: event.currentTarget.checked })}
          disabled={disabled}
          error={errors[`${at}/hidden`]}
        />

        <Divider label="Split by" labelPosition="left" />
        <GroupList
          owner={index}
          groups={series.groups}
          catalogue={catalogue}
          objects={objects}
          errors={errors}
          disabled={disabled}
          emptyText="Not split: one line for the whole series."
          onEdit={onEdit}
        />

        <Divider label="Filters" labelPosition="left" />
        <Stack gap="xs">
          {series.filters.length === 0 && (
            <Text size="sm" c="dimmed">
              No filters: everything {series.value?.object === 'costs' ? 'in your costs' : 'in your customers and payments'} counts.
            </Text>
          )}
          {series.filters.map((filter, filterIndex) => (
            <FilterRow
              key={filter.key}
              seriesIndex={index}
              index={filterIndex}
              filter={filter}
              catalogue={catalogue}
              objects={objects}
              errors={errors}
              disabled={disabled}
              onEdit={onEdit}
              possibleValues={possibleValues}
            />
          ))}
          {errors[`${at}/filters`] && (
            <Text size="xs" c="red" role="alert">
              {errors[`${at}/filters`]}
            </Text>
          )}
          <Group>
            <Button variant="subtle" size="xs" leftSection={<IconPlus size={14} />} disabled={disabled || series.filters.length >= MAX_FILTERS} onClick={() => onEdit({ kind: 'addFilter', series: index })}>
              Add filter
            </Button>
          </Group>
        </Stack>
      </Stack>
    </Card>
  );
});
