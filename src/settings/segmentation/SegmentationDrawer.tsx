import { Button, Drawer, Group, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { DRAWER_WIDTH_MAX } from '../../../models/constants';
import { SEGMENTER_TYPES_FETCH_FAILURE } from '../../../models/segmentation';
import type { SegmentationConfiguration, SegmentationDefinition, SegmenterTypeInfo } from '../../../models/segmentation';
import { BucketEditor } from './BucketEditor';
import { MappingsEditor } from './MappingsEditor';
import { ProductsPicker } from './ProductsPicker';
import { SaveFailureAlert } from './SaveFailureAlert';
import { CONFIGURATION_LABELS, initialFormValues, placeProblems, segmentationFormErrors, segmentationInput, typeKey, typeRef } from './segmentationForm';
import type { SegmentationFormValues } from './segmentationForm';
import { serverProblems, useSaveSegmentation, useSegmenterTypes } from './segmentationQueries';
import { RetryAlert } from '../../components/RetryAlert';

/** What the drawer edits: a new segmentation (`definition` null) or an existing one; null: closed. */
export interface SegmentationEditing {
  definition: SegmentationDefinition | null;
  /** A new value each time the drawer opens, so the form starts afresh. */
  session: number;
}

interface SegmentationDrawerProps {
  editing: SegmentationEditing | null;
  onClose(): void;
}

/**
 * 'New segmentation' (or the segmentation's name when editing): a name, the attribute it groups
 * (picked by group), then what the attribute allows: mappings of its values into named groups,
 * ranges (buckets) of a number, or products. The messages are the rules of
 * models/segmentation.ts; a refused save puts the server's messages on the fields and keeps
 * what was typed. The drawer closes once the segmentation is saved.
 */
export function SegmentationDrawer({ editing, onClose }: SegmentationDrawerProps) {
  const definition = editing?.definition ?? null;
  return (
    <Drawer
      opened={editing !== null}
      onClose={onClose}
      position="right"
      size={DRAWER_WIDTH_MAX}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          {definition ? definition.name : 'New segmentation'}
        </Text>
      }
      closeButtonProps={{ 'aria-label': 'Close segmentation' }}
    >
      {editing ? <SegmentationForm key={editing.session} definition={definition} onClose={onClose} /> : null}
    </Drawer>
  );
}

/** The type of an edited definition when the service's types do not list it (or could not be read). */
function definitionType(definition: SegmentationDefinition): SegmenterTypeInfo {
  return { name: definition.type_name, segment_id: definition.segment_id, label: definition.segment_id, group_label: 'Attributes', allowed_configuration: definition.allowed_configuration };
}

/** The attribute picker's options, grouped by group label in the service's order. */
function attributeOptions(types: readonly SegmenterTypeInfo[]) {
  const groups = [...new Set(types.map((type) => type.group_label))];
  return groups.map((group) => ({
    group,
    items: types.filter((type) => type.group_label === group).map((type) => ({ value: typeKey(typeRef(type)), label: type.label })),
  }));
}

function SegmentationForm({ definition, onClose }: { definition: SegmentationDefinition | null; onClose(): void }) {
  const typesQuery = useSegmenterTypes();
  const save = useSaveSegmentation();
  const [failure, setFailure] = useState<string[] | null>(null);
  const form = useForm<SegmentationFormValues>({ mode: 'controlled', initialValues: initialFormValues(definition) });
  const values = form.getValues();

  const listed = typesQuery.data ?? [];
  const own = definition && !listed.some((type) => typeKey(typeRef(type)) === typeKey(definition)) ? [definitionType(definition)] : [];
  const types = [...listed, ...own];
  const type = types.find((candidate) => typeKey(typeRef(candidate)) === values.attribute) ?? null;
  const typesFailed = typesQuery.isError && !typesQuery.isFetching;
  const error = (path: string) => (typeof form.errors[path] === 'string' ? form.errors[path] : undefined);

  /** Sets fields of one row (each clears its own message). */
  const setFields = (row: `groups.${number}` | `buckets.${number}`, patch: Record<string, unknown>) => {
    for (const [field, value] of Object.entries(patch)) form.setFieldValue(`${row}.${field}`, value);
  };

  const handleAttributeChange = (attribute: string | null) => {
    const next = types.find((candidate) => typeKey(typeRef(candidate)) === attribute) ?? null;
    const allowed = next?.allowed_configuration ?? [];
    form.setFieldValue('attribute', attribute ?? '');
    form.setFieldValue('configuration', values.configuration && allowed.includes(values.configuration) ? values.configuration : (allowed[0] ?? null));
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const current = form.getValues();
    const errors = segmentationFormErrors(current, type);
    form.setErrors(errors);
    if (!type || Object.keys(errors).length > 0) return;
    const input = segmentationInput(current, typeRef(type));
    setFailure(null);
    try {
      await save.mutateAsync({ id: definition?.id ?? null, input });
    } catch (failed) {
      const placed = placeProblems(serverProblems(failed), current, input);
      form.setErrors(placed.fields);
      setFailure(placed.other);
      return;
    }
    onClose();
  };

  return (
    <form onSubmit={(event) => void handleSubmit(event)} noValidate>
      <Stack gap="md">
        <TextInput label="Name" placeholder="e.g. Company size" withAsterisk data-autofocus {...form.getInputProps('name')} />
        <Select
          label="Attribute"
          placeholder={typesQuery.isPending ? 'Loading attributes…' : 'Choose an attribute'}
          description="The customer, payment or cost attribute this segmentation groups."
          withAsterisk
          searchable
          nothingFoundMessage="No results"
          data={attributeOptions(types)}
          value={values.attribute || null}
          onChange={handleAttributeChange}
          error={error('attribute')}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
        {typesFailed ? (
          <RetryAlert message={SEGMENTER_TYPES_FETCH_FAILURE} onRetry={() => void typesQuery.refetch()} />
        ) : null}
        {type && type.allowed_configuration.length > 1 ? (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="segmentation-configuration">
              Group by
            </Text>
            <SegmentedControl
              aria-labelledby="segmentation-configuration"
              data={type.allowed_configuration.map((configuration) => ({ value: configuration, label: CONFIGURATION_LABELS[configuration] }))}
              value={values.configuration ?? type.allowed_configuration[0]}
              onChange={(configuration) => form.setFieldValue('configuration', configuration as SegmentationConfiguration)}
              style={{ alignSelf: 'flex-start' }}
            />
          </Stack>
        ) : null}
        {type && values.configuration === 'mappings' ? (
          <MappingsEditor
            type={type}
            groups={values.groups}
            error={error}
            onGroupChange={(index, patch) => setFields(`groups.${index}`, patch)}
            onAdd={(group) => form.insertListItem('groups', group)}
            onRemove={(index) => form.removeListItem('groups', index)}
          />
        ) : null}
        {type && values.configuration === 'buckets' ? (
          <BucketEditor
            rows={values.buckets}
            maxError={(index) => error(`buckets.${index}.max`)}
            onRowChange={(index, patch) => setFields(`buckets.${index}`, patch)}
            onAdd={(row) => form.insertListItem('buckets', row)}
            onRemove={(index) => form.removeListItem('buckets', index)}
          />
        ) : null}
        {type && values.configuration === 'products' ? (
          <ProductsPicker value={values.products} error={error('products')} onChange={(products) => form.setFieldValue('products', products)} />
        ) : null}
        <SaveFailureAlert messages={failure} />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} loading={save.isPending}>
            {definition ? 'Save segmentation' : 'Create segmentation'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
