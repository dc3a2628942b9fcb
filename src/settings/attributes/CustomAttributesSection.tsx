import { ActionIcon, Badge, Button, Card, Group, Menu, Paper, SimpleGrid, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCoin, IconDots, IconPencil, IconPlus, IconReceipt, IconTableImport, IconTags, IconTrash, IconUser } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { ATTRIBUTE_REMOVE_FAILURE, ATTRIBUTES_FETCH_FAILURE, attributeObjectLabel } from '../../../models/attributes';
import type { AttributeObject, ObjectAttribute } from '../../../models/attributes';
import { apiErrorText } from '../../api/errors';
import { toastError, toastSuccess } from '../../notifications/toast';
import { AttributeFormModal } from './AttributeFormModal';
import { useAttributeChanges, useObjectAttributes } from './attributesApi';
import { RetryAlert } from '../../components/RetryAlert';

const OBJECT_ICON: Record<AttributeObject, typeof IconUser> = {
  customer: IconUser,
  subscription_history: IconReceipt,
  cost: IconCoin,
};

/** Where a customer attribute's values are imported. */
export function importValuesHref(segmentId: string | null): string {
  return segmentId ? `/import-segments?segment=${encodeURIComponent(segmentId)}` : '/import-segments';
}

/** The modal open: adding, or renaming one attribute. */
type Editing = { kind: 'add' } | { kind: 'rename'; attribute: ObjectAttribute } | null;

/**
 * Custom attributes: a card per attribute with its name and object (Customer, Payment, Cost);
 * 'Add attribute', rename and delete (confirmed); a customer attribute's 'Import attribute values'.
 */
export function CustomAttributesSection() {
  const attributes = useObjectAttributes();
  const { remove } = useAttributeChanges();
  const [editing, setEditing] = useState<Editing>(null);

  const handleDelete = (attribute: ObjectAttribute) => {
    modals.openConfirmModal({
      title: 'Delete attribute',
      children: (
        <Text size="sm">
          Delete “{attribute.name}”? Its values are removed from every {attributeObjectLabel(attribute.object).toLowerCase()}, and report charts
          segmented by it lose that segmentation. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete attribute', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => void removeAttribute(attribute),
    });
  };

  const removeAttribute = async (attribute: ObjectAttribute) => {
    try {
      const outcome = await remove.mutateAsync(attribute.id);
      if (!outcome.ok) {
        const first = outcome.errors[0];
        toastError(outcome.status === 422 && first ? apiErrorText(first, ATTRIBUTE_REMOVE_FAILURE) : ATTRIBUTE_REMOVE_FAILURE);
        return;
      }
    } catch {
      toastError(ATTRIBUTE_REMOVE_FAILURE);
      return;
    }
    toastSuccess(`Attribute ${attribute.name} deleted`);
  };

  const actions = (
    <Group gap="sm">
      <Button variant="default" component={Link} href="/import-segments" leftSection={<IconTableImport size={16} />}>
        Import attribute values
      </Button>
      <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing({ kind: 'add' })}>
        Add attribute
      </Button>
    </Group>
  );

  return (
    <Stack gap="md">
      <Group justify="flex-end">{actions}</Group>
      {attributes.data ? (
        attributes.data.length === 0 ? (
          <NoAttributes />
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Custom attributes">
            {attributes.data.map((attribute) => (
              <AttributeCard
                key={attribute.id}
                attribute={attribute}
                onRename={() => setEditing({ kind: 'rename', attribute })}
                onDelete={() => handleDelete(attribute)}
              />
            ))}
          </SimpleGrid>
        )
      ) : attributes.isError && !attributes.isFetching ? (
        <RetryAlert message={ATTRIBUTES_FETCH_FAILURE} onRetry={() => void attributes.refetch()} />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg" aria-label="Loading custom attributes">
          {[0, 1, 2].map((card) => (
            <Skeleton key={card} height={118} radius="lg" />
          ))}
        </SimpleGrid>
      )}
      <AttributeFormModal opened={editing !== null} onClose={() => setEditing(null)} attribute={editing?.kind === 'rename' ? editing.attribute : null} />
    </Stack>
  );
}

function AttributeCard({ attribute, onRename, onDelete }: { attribute: ObjectAttribute; onRename: () => void; onDelete: () => void }) {
  const Icon = OBJECT_ICON[attribute.object];
  const objectLabel = attributeObjectLabel(attribute.object);
  return (
    <Card component="li" aria-label={attribute.name}>
      <Stack gap="md" h="100%" justify="space-between">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <ThemeIcon size={40} radius="md" variant="light" color={attribute.object === 'customer' ? undefined : attribute.object === 'cost' ? 'orange' : 'teal'} aria-hidden>
              <Icon size={20} stroke={1.6} />
            </ThemeIcon>
            <Stack gap={4} style={{ minWidth: 0 }}>
              <Title order={3} fz="md" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                {attribute.name}
              </Title>
              <Badge size="sm" variant="light" color="gray" style={{ alignSelf: 'flex-start' }}>
                {objectLabel}
              </Badge>
            </Stack>
          </Group>
          <Menu position="bottom-end" withinPortal shadow="md">
            <Menu.Target>
              <ActionIcon variant="subtle" color="gray" size="lg" aria-label={`Actions for ${attribute.name}`}>
                <IconDots size={18} />
              </ActionIcon>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item leftSection={<IconPencil size={16} />} onClick={onRename}>
                Rename
              </Menu.Item>
              <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={onDelete}>
                Delete
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
        {attribute.object === 'customer' ? (
          <Button
            component={Link}
            href={importValuesHref(attribute.segment_id)}
            size="compact-sm"
            variant="subtle"
            leftSection={<IconTableImport size={14} />}
            aria-label={`Import attribute values of ${attribute.name}`}
            style={{ alignSelf: 'flex-start' }}
          >
            Import attribute values
          </Button>
        ) : (
          <Text size="xs" c="dimmed">
            Values are set on each {objectLabel.toLowerCase()}.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function NoAttributes() {
  return (
    <Paper withBorder p={{ base: 'lg', sm: 40 }} style={{ borderStyle: 'dashed' }}>
      <Stack align="center" ta="center" gap="sm" maw={520} mx="auto">
        <ThemeIcon size={56} radius={28} variant="light" aria-hidden>
          <IconTags size={28} stroke={1.5} />
        </ThemeIcon>
        <Title order={3} fz="lg">
          No custom attributes yet
        </Title>
        <Text size="sm" c="dimmed">
          Add attributes such as plan, industry or sales channel to your customers, payments or costs, then segment your reports by them.
        </Text>
      </Stack>
    </Paper>
  );
}
