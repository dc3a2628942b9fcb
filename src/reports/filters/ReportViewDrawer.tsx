import { ActionIcon, Button, Checkbox, Divider, Drawer, Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { UseFormReturnType } from '@mantine/form';
import { randomId, useDebouncedValue, useId } from '@mantine/hooks';
import { IconDeviceFloppy, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { REPORT_VIEW_DRAWER_WIDTH, SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { CUSTOMER_SEGMENT_PREFIX, FILTER_FETCH_FAILURE, FILTER_NO_RESULTS, MAX_VIEW_FILTER_ITEMS, VIEW_SAVE_FAILURE } from '../../../models/reportFilter';
import type { FilterItem, FilterItemType, ReportViewFilter } from '../../../models/reportFilter';
import { useApi } from '../../api/ApiContext';
import { toastError } from '../../notifications/toast';
import classes from './ReportViewDrawer.module.css';
import { saveReportView, useCustomerSegments, useDealOwners, useProducts, useSegmentSearchValues } from './filtersApi';

interface ReportViewDrawerProps {
  opened: boolean;
  onClose(): void;
  reportId: string;
  secret: string;
  /** The report's stored view (the form starts from it). */
  filter: ReportViewFilter | null;
  /** The server stored the view (null: removed). */
  onSaved(filter: ReportViewFilter | null): void;
}

/** One condition of the form; complete when its kind's fields are set. */
export interface ViewConditionValues {
  key: string;
  kind: FilterItemType | null;
  segmentId: string | null;
  segmentName: string;
  value: string | null;
  ownerName: string | null;
  productKey: string | null;
  productName: string;
  negated: boolean;
}

export interface ReportViewValues {
  operator: 'and' | 'or';
  conditions: ViewConditionValues[];
}

const KIND_OPTIONS: { value: FilterItemType; label: string }[] = [
  { value: 'segment', label: 'Segment' },
  { value: 'deal_owner', label: 'Deal owner' },
  { value: 'product', label: 'Product' },
];

function emptyCondition(kind: FilterItemType | null = null, negated = false): ViewConditionValues {
  return { key: randomId(), kind, segmentId: null, segmentName: '', value: null, ownerName: null, productKey: null, productName: '', negated };
}

function conditionOf(item: FilterItem): ViewConditionValues {
  const empty = emptyCondition(item.type, item.negated);
  switch (item.type) {
    case 'segment':
      return { ...empty, segmentId: item.id, segmentName: item.name, value: item.value };
    case 'deal_owner':
      return { ...empty, ownerName: item.owner_name };
    case 'product':
      return { ...empty, productKey: item.product_key, productName: item.name ?? '' };
  }
}

/** The form's values for a stored view; no view starts with one empty condition. */
export function viewFormValues(filter: ReportViewFilter | null): ReportViewValues {
  if (!filter || filter.arguments.length === 0) return { operator: filter?.operator ?? 'and', conditions: [emptyCondition()] };
  return { operator: filter.operator, conditions: filter.arguments.map(conditionOf) };
}

/** The filter item of a complete condition, else null. */
export function conditionItem(condition: ViewConditionValues): FilterItem | null {
  const { negated } = condition;
  switch (condition.kind) {
    case 'segment':
      return condition.segmentId && condition.value !== null && condition.value !== ''
        ? { type: 'segment', id: condition.segmentId, name: condition.segmentName, value: condition.value, negated }
        : null;
    case 'deal_owner':
      return condition.ownerName ? { type: 'deal_owner', owner_name: condition.ownerName, negated } : null;
    case 'product':
      return condition.productKey
        ? { type: 'product', product_key: condition.productKey, ...(condition.productName ? { name: condition.productName } : {}), negated }
        : null;
    default:
      return null;
  }
}

/** Every condition complete, at least one, at most MAX_VIEW_FILTER_ITEMS. */
function validateView(values: ReportViewValues): Record<string, string> {
  const errors: Record<string, string> = {};
  if (values.conditions.length === 0) errors.conditions = 'Add a condition';
  if (values.conditions.length > MAX_VIEW_FILTER_ITEMS) errors.conditions = `At most ${MAX_VIEW_FILTER_ITEMS} conditions`;
  values.conditions.forEach((condition, index) => {
    if (conditionItem(condition) === null) errors[`conditions.${index}`] = 'Required';
  });
  return errors;
}

function viewOf(values: ReportViewValues): ReportViewFilter {
  return { operator: values.operator, arguments: values.conditions.map(conditionItem).filter((item): item is FilterItem => item !== null) };
}

/**
 * 'Define report view' (second spec document, sections 2, 3, 5, 7, 8): the conditions everyone
 * who opens the report sees it filtered by, all of them ('and') or any ('or'). Saved with
 * PUT /business_reports/{id} {filter}; a failure toasts and keeps the form as it is.
 */
export function ReportViewDrawer({ opened, onClose, reportId, filter, onSaved }: ReportViewDrawerProps) {
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size={REPORT_VIEW_DRAWER_WIDTH}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          Define report view
        </Text>
      }
    >
      <ViewForm reportId={reportId} filter={filter} onClose={onClose} onSaved={onSaved} />
    </Drawer>
  );
}

type ViewForm = UseFormReturnType<ReportViewValues>;

function ViewForm({ reportId, filter, onClose, onSaved }: Pick<ReportViewDrawerProps, 'reportId' | 'filter' | 'onClose' | 'onSaved'>) {
  const client = useApi();
  const operatorLabelId = useId();
  const form = useForm<ReportViewValues>({ mode: 'controlled', initialValues: viewFormValues(filter), validate: validateView });
  const save = useMutation({
    mutationFn: (view: ReportViewFilter | null) => saveReportView(client, reportId, view),
    onSuccess: (_, view) => {
      onSaved(view);
      onClose();
    },
    onError: () => toastError(VIEW_SAVE_FAILURE),
  });
  const { conditions, operator } = form.getValues();
  const valid = form.isValid();

  return (
    <form noValidate onSubmit={form.onSubmit((values) => save.mutate(viewOf(values)))}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Everyone who opens this report sees it filtered by these conditions.
        </Text>
        <Stack gap={4}>
          <Text size="sm" fw={500} id={operatorLabelId}>
            Show data matching
          </Text>
          <SegmentedControl
            aria-labelledby={operatorLabelId}
            data={[
              { value: 'and', label: 'All of' },
              { value: 'or', label: 'Any of' },
            ]}
            {...form.getInputProps('operator')}
          />
        </Stack>
        <Stack gap="xs">
          {conditions.map((condition, index) => (
            <Stack key={condition.key} gap="xs">
              {index > 0 ? <Divider label={operator === 'and' ? 'and' : 'or'} labelPosition="center" /> : null}
              <ConditionEditor form={form} index={index} condition={condition} />
            </Stack>
          ))}
        </Stack>
        <Button
          variant="light"
          leftSection={<IconPlus size={16} />}
          onClick={() => form.insertListItem('conditions', emptyCondition())}
          disabled={conditions.length >= MAX_VIEW_FILTER_ITEMS}
          style={{ alignSelf: 'flex-start' }}
        >
          Add condition
        </Button>
        <Group justify="space-between" wrap="nowrap" className={classes.footer}>
          {filter ? (
            <Button variant="subtle" color="red" px="xs" onClick={() => save.mutate(null)} disabled={save.isPending} loading={save.isPending && save.variables === null}>
              Remove view
            </Button>
          ) : (
            <span />
          )}
          <Group gap="sm" wrap="nowrap">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} disabled={!valid} loading={save.isPending && save.variables !== null}>
              Save view
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

function ConditionEditor({ form, index, condition }: { form: ViewForm; index: number; condition: ViewConditionValues }) {
  const path = `conditions.${index}`;
  const label = `Condition ${index + 1}`;
  const setKind = (kind: string | null) => {
    if (kind === condition.kind) return;
    form.setFieldValue(path, { ...emptyCondition(kind as FilterItemType | null, condition.negated), key: condition.key });
  };
  return (
    <Paper withBorder p="sm" role="group" aria-label={label}>
      <Stack gap="xs">
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <Select
            label="Filter by"
            placeholder="Choose what to filter by"
            data={KIND_OPTIONS}
            value={condition.kind}
            onChange={setKind}
            allowDeselect={false}
            style={{ flex: 1 }}
          />
          <ActionIcon variant="subtle" color="gray" size="lg" aria-label={`Remove condition ${index + 1}`} onClick={() => form.removeListItem('conditions', index)}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
        {condition.kind === 'segment' ? <SegmentFields form={form} path={path} condition={condition} /> : null}
        {condition.kind === 'deal_owner' ? <DealOwnerField form={form} path={path} condition={condition} /> : null}
        {condition.kind === 'product' ? <ProductField form={form} path={path} condition={condition} /> : null}
        <Checkbox
          label="Exclude"
          description="Everything except this value (is not)"
          checked={condition.negated}
          onChange={(event) => form.setFieldValue(`${path}.negated`, event.currentTarget.checked)}
        />
      </Stack>
    </Paper>
  );
}

interface FieldProps {
  form: ViewForm;
  path: string;
  condition: ViewConditionValues;
}

/** A list's failure, or 'No results' (with 'Loading…' while it loads). */
function nothingFound(query: { isError: boolean; isFetching: boolean }): string {
  if (query.isError) return FILTER_FETCH_FAILURE;
  return query.isFetching ? 'Loading…' : FILTER_NO_RESULTS;
}

/** What the server is asked for: nothing while the input shows the chosen option (all options then). */
function searchQuery(search: string, chosenLabel: string | null): string {
  return chosenLabel !== null && search === chosenLabel ? '' : search.trim();
}

function SegmentFields({ form, path, condition }: FieldProps) {
  const segments = useCustomerSegments();
  const [search, setSearch] = useState(condition.value ?? '');
  const [debounced] = useDebouncedValue(searchQuery(search, condition.value), SEARCH_DEBOUNCE_MS);
  const segmentId = condition.segmentId?.startsWith(CUSTOMER_SEGMENT_PREFIX) ? condition.segmentId.slice(CUSTOMER_SEGMENT_PREFIX.length) : null;
  const values = useSegmentSearchValues(segmentId, debounced);

  const segmentOptions = (segments.data ?? []).map((segment) => ({ value: segment.itemId, label: segment.name }));
  // A stored view may name a segment the list does not have (a payment attribute): keep it.
  if (condition.segmentId && !segmentOptions.some((option) => option.value === condition.segmentId)) {
    segmentOptions.push({ value: condition.segmentId, label: condition.segmentName || condition.segmentId });
  }
  const valueOptions = [...new Set([...(condition.value ? [condition.value] : []), ...(values.data ?? [])])];

  return (
    <SimpleGrid cols={2} spacing="xs">
      <Select
        label="Segment"
        placeholder="Choose a segment"
        data={segmentOptions}
        value={condition.segmentId}
        searchable
        nothingFoundMessage={nothingFound(segments)}
        error={segments.isError ? FILTER_FETCH_FAILURE : undefined}
        onChange={(id, option) => {
          form.setFieldValue(path, { ...condition, segmentId: id, segmentName: option?.label ?? '', value: null });
          setSearch('');
        }}
        allowDeselect={false}
      />
      <Select
        label="Value"
        placeholder={condition.segmentId ? 'Search values' : 'Choose a segment first'}
        disabled={!condition.segmentId}
        data={valueOptions}
        value={condition.value}
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        nothingFoundMessage={nothingFound(values)}
        onChange={(value) => form.setFieldValue(`${path}.value`, value)}
        allowDeselect={false}
      />
    </SimpleGrid>
  );
}

function DealOwnerField({ form, path, condition }: FieldProps) {
  const owners = useDealOwners(true);
  const options = [...new Set([...(condition.ownerName ? [condition.ownerName] : []), ...(owners.data ?? []).map((owner) => owner.owner_name)])];
  return (
    <Select
      label="Deal owner"
      placeholder="Choose a deal owner"
      data={options}
      value={condition.ownerName}
      searchable
      nothingFoundMessage={nothingFound(owners)}
      error={owners.isError ? FILTER_FETCH_FAILURE : undefined}
      onChange={(owner) => form.setFieldValue(`${path}.ownerName`, owner)}
      allowDeselect={false}
    />
  );
}

function ProductField({ form, path, condition }: FieldProps) {
  const chosenLabel = condition.productKey ? condition.productName || condition.productKey : null;
  const [search, setSearch] = useState(chosenLabel ?? '');
  const [debounced] = useDebouncedValue(searchQuery(search, chosenLabel), SEARCH_DEBOUNCE_MS);
  const products = useProducts(debounced, true);
  const options = (products.data ?? []).map((product) => ({ value: product.product_key, label: product.name || product.product_key }));
  if (condition.productKey && chosenLabel && !options.some((option) => option.value === condition.productKey)) {
    options.unshift({ value: condition.productKey, label: chosenLabel });
  }
  return (
    <Select
      label="Product"
      placeholder="Search products"
      data={options}
      value={condition.productKey}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      nothingFoundMessage={nothingFound(products)}
      error={products.isError ? FILTER_FETCH_FAILURE : undefined}
      onChange={(key, option) => form.setFieldValue(path, { ...condition, productKey: key, productName: option && option.label !== key ? option.label : '' })}
      allowDeselect={false}
    />
  );
}
