import { ActionIcon, Badge, Button, Card, Group, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { modals } from '@mantine/modals';
import { IconAdjustmentsHorizontal, IconPencil, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { bucketLabel, draftsFromBuckets, findSegmenterType, groupsFromMappings, OTHER_SEGMENT_NAME } from '../../../models/segmentation';
import type { SegmentationDefinition, SegmenterTypeInfo } from '../../../models/segmentation';
import { GraphqlCallError } from '../../api/graphql';
import { toastError } from '../../notifications/toast';
import { BucketEditor } from './BucketEditor';
import { SaveFailureAlert } from './SaveFailureAlert';
import { bucketErrors, bucketRows, bucketsInput, configurationOf, placeProblems } from './segmentationForm';
import type { BucketRow } from './segmentationForm';
import { serverProblems, useDeleteSegmentation, useSaveSegmentation } from './segmentationQueries';

/** Ours: the spec shows a 422's detail and has no message for other delete failures. */
export const SEGMENTATION_DELETE_FAILURE = 'We could not delete this segmentation, please try again';

const TYPE_FALLBACK_GROUPS: Record<SegmentationDefinition['type_name'], string> = {
  customer_segment: 'Customer attributes',
  subscription_segment: 'Payment attributes',
  cost_segment: 'Cost attributes',
};

/** What a segmentation groups, as the list says it: 'Plan · Customer attributes'. */
function attributeText(definition: SegmentationDefinition, types: readonly SegmenterTypeInfo[]): string {
  const type = findSegmenterType(types, definition.type_name, definition.segment_id);
  return type ? `${type.label} · ${type.group_label}` : `${definition.segment_id} · ${TYPE_FALLBACK_GROUPS[definition.type_name]}`;
}

interface SegmentationCardProps {
  definition: SegmentationDefinition;
  types: readonly SegmenterTypeInfo[];
  onEdit(): void;
}

/** One segmentation of the list: its name, attribute and configuration; ranges are edited here. */
export function SegmentationCard({ definition, types, onEdit }: SegmentationCardProps) {
  const remove = useDeleteSegmentation();
  const [editingBuckets, setEditingBuckets] = useState(false);
  const configuration = configurationOf(definition);

  const handleDelete = () => {
    modals.openConfirmModal({
      title: 'Delete segmentation',
      children: (
        <Text size="sm">
          Delete “{definition.name}”? Charts split by it lose this segment and are calculated again. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete segmentation', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        remove.mutate(definition.id, {
          onError: (error) => toastError(error instanceof GraphqlCallError && error.status === 422 && error.detail ? error.detail : SEGMENTATION_DELETE_FAILURE),
        });
      },
    });
  };

  return (
    <Card component="li" withBorder radius="md" padding="lg" aria-label={definition.name}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Title order={3} fz="md" style={{ overflowWrap: 'anywhere' }}>
              {definition.name}
            </Title>
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {attributeText(definition, types)}
            </Text>
          </Stack>
          <Group gap={4} wrap="nowrap">
            <Tooltip label="Edit">
              <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${definition.name}`} onClick={onEdit}>
                <IconPencil size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Delete">
              <ActionIcon variant="subtle" color="red" aria-label={`Delete ${definition.name}`} loading={remove.isPending} onClick={handleDelete}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
        {configuration === 'buckets' ? (
          editingBuckets ? (
            <InlineBucketEditor definition={definition} onDone={() => setEditingBuckets(false)} />
          ) : (
            <>
              <BucketsTable definition={definition} />
              <Button variant="light" size="xs" leftSection={<IconAdjustmentsHorizontal size={14} />} onClick={() => setEditingBuckets(true)} style={{ alignSelf: 'flex-start' }}>
                Edit buckets
              </Button>
            </>
          )
        ) : configuration === 'mappings' ? (
          <MappingsList definition={definition} />
        ) : configuration === 'products' ? (
          <ProductsList definition={definition} />
        ) : null}
      </Stack>
    </Card>
  );
}

function BucketsTable({ definition }: { definition: SegmentationDefinition }) {
  return (
    <Table withTableBorder={false} verticalSpacing={4} horizontalSpacing="xs" fz="sm" aria-label={`Buckets of ${definition.name}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Bucket</Table.Th>
          <Table.Th>Range</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {definition.buckets.map((bucket) => (
          <Table.Tr key={`${bucket.from}`}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{bucket.name}</Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>{bucketLabel(bucket)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function MappingsList({ definition }: { definition: SegmentationDefinition }) {
  const groups = groupsFromMappings(definition.mappings);
  return (
    <Stack gap="xs" role="list" aria-label={`Groups of ${definition.name}`}>
      {groups.map((group) => (
        <Stack key={group.name} gap={4} role="listitem" aria-label={group.name}>
          <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
            {group.name}
          </Text>
          <Group gap={4}>
            {group.values.map((value) => (
              <Badge key={value} variant="light" color="gray" tt="none" maw="100%">
                {value}
              </Badge>
            ))}
          </Group>
        </Stack>
      ))}
      <Text size="xs" c="dimmed">
        Other values: &apos;{OTHER_SEGMENT_NAME}&apos;
      </Text>
    </Stack>
  );
}

function ProductsList({ definition }: { definition: SegmentationDefinition }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        Products
      </Text>
      <Group gap={4} role="list" aria-label={`Products of ${definition.name}`}>
        {definition.products.map((product) => (
          <Badge key={product} role="listitem" variant="light" tt="none" maw="100%">
            {product}
          </Badge>
        ))}
      </Group>
    </Stack>
  );
}

/** The ranges of a bucket segmentation edited in the list: names and max values, rows added and removed, saved at once. */
function InlineBucketEditor({ definition, onDone }: { definition: SegmentationDefinition; onDone(): void }) {
  const save = useSaveSegmentation();
  const [failure, setFailure] = useState<string[] | null>(null);
  const form = useForm<{ buckets: BucketRow[] }>({ mode: 'controlled', initialValues: { buckets: bucketRows(draftsFromBuckets(definition.buckets)) } });
  const { buckets } = form.getValues();
  const error = (index: number) => {
    const message = form.errors[`buckets.${index}.max`];
    return typeof message === 'string' ? message : undefined;
  };

  const handleSave = async () => {
    const rows = form.getValues().buckets;
    const errors = bucketErrors(rows);
    form.setErrors(errors);
    if (Object.keys(errors).length > 0) return;
    const input = bucketsInput(definition, rows);
    setFailure(null);
    try {
      await save.mutateAsync({ id: definition.id, input });
    } catch (failed) {
      const placed = placeProblems(serverProblems(failed), { groups: [], buckets: rows }, input);
      const shown = Object.fromEntries(Object.entries(placed.fields).filter(([path]) => path.startsWith('buckets.')));
      const other = [...placed.other, ...Object.entries(placed.fields).filter(([path]) => !path.startsWith('buckets.')).map(([, detail]) => detail)];
      form.setErrors(shown);
      setFailure(other);
      return;
    }
    onDone();
  };

  return (
    <Stack gap="sm">
      <BucketEditor
        rows={buckets}
        maxError={error}
        onRowChange={(index, patch) => {
          for (const [field, value] of Object.entries(patch)) form.setFieldValue(`buckets.${index}.${field as 'name' | 'max'}`, value);
        }}
        onAdd={(row) => form.insertListItem('buckets', row)}
        onRemove={(index) => form.removeListItem('buckets', index)}
      />
      <SaveFailureAlert messages={failure} />
      <Group justify="flex-end" gap="xs">
        <Button variant="default" size="sm" onClick={onDone}>
          Cancel
        </Button>
        <Button size="sm" loading={save.isPending} onClick={() => void handleSave()}>
          Save buckets
        </Button>
      </Group>
    </Stack>
  );
}
