import { closestCenter, DndContext, KeyboardSensor, PointerSensor, useSensor, useSensors } from '@dnd-kit/core';
import type { Announcements, DragEndEvent, UniqueIdentifier } from '@dnd-kit/core';
import { arrayMove, SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { ActionIcon, Badge, Button, Drawer, Group, Loader, Modal, Paper, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { IconGripVertical, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import type { ColumnRecalculationActorRef } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import { CALCULATING_LABEL } from '../../../machines/columnRecalculation/messages';
import { canEditColumn, isCalculating, isConfirmingDelete, isDeleting } from '../../../machines/columnRecalculation/selectors';
import { DRAWER_WIDTH_MIN } from '../../../models/constants';
import { useApi } from '../../api/ApiContext';
import { toastError } from '../../notifications/toast';
import { createCustomerListServices, currentUserKey } from '../customerListApi';
import type { ColumnSetting, CustomerColumn } from '../customerListApi';
import type { ColumnWorkflows } from './columnWorkflows';

export const COLUMNS_SAVE_FAILURE = 'We could not save your changes. Please try again.';

const SOURCE_LABELS: Record<CustomerColumn['source'], string> = { static: 'Customer', definition: 'Metric', customer_segment: 'Attribute' };

interface EditColumnsDrawerProps {
  opened: boolean;
  onClose: () => void;
  /** Every column the user can show, in the user's order. */
  columns: readonly CustomerColumn[];
  workflows: ColumnWorkflows;
  onAddColumn: () => void;
  onEditColumn: (column: CustomerColumn) => void;
}

/**
 * 'Edit columns': the user's columns in order, each shown or hidden with a switch and moved by
 * its drag handle (mouse, touch, or the keyboard: Space to pick up, arrows, Space to drop);
 * calculated columns can be edited or deleted once their values are in. Saved with
 * PUT /users/me `customer_columns`.
 */
export function EditColumnsDrawer({ opened, onClose, columns, workflows, onAddColumn, onEditColumn }: EditColumnsDrawerProps) {
  return (
    <Drawer opened={opened} onClose={onClose} position="right" size={DRAWER_WIDTH_MIN} padding="xl" title={<Text fw={650} fz="lg">Edit columns</Text>} closeButtonProps={{ 'aria-label': 'Close edit columns' }}>
      {opened ? <ColumnsForm columns={columns} workflows={workflows} onClose={onClose} onAddColumn={onAddColumn} onEditColumn={onEditColumn} /> : null}
    </Drawer>
  );
}

function ColumnsForm({ columns, workflows, onClose, onAddColumn, onEditColumn }: Omit<EditColumnsDrawerProps, 'opened'>) {
  const client = useApi();
  const queryClient = useQueryClient();
  const services = useMemo(() => createCustomerListServices(client), [client]);
  const [order, setOrder] = useState<CustomerColumn[]>(() => [...columns]);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));
  const save = useMutation({
    mutationFn: (settings: ColumnSetting[]) => services.saveColumns(settings),
    onSuccess: (answer) => {
      queryClient.setQueryData(currentUserKey, answer);
      onClose();
    },
    onError: () => toastError(COLUMNS_SAVE_FAILURE),
  });

  const handleDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    setOrder((current) => arrayMove(current, current.findIndex((column) => column.id === active.id), current.findIndex((column) => column.id === over.id)));
  };
  const handleToggle = (id: string, visible: boolean) => setOrder((current) => current.map((column) => (column.id === id ? { ...column, visible } : column)));
  // Columns deleted meanwhile leave the list.
  const shown = order.filter((column) => columns.some((known) => known.id === column.id));

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Show, hide and reorder the table's columns. Drag a column by its handle, or focus the handle and use Space and the arrow keys.
      </Text>
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={handleDragEnd} accessibility={{ screenReaderInstructions: SCREEN_READER_INSTRUCTIONS, announcements: announcementsFor(shown) }}>
        <SortableContext items={shown.map((column) => column.id)} strategy={verticalListSortingStrategy}>
          <Stack gap={6} role="list" aria-label="Columns">
            {shown.map((column, index) => (
              <SortableColumn
                key={column.id}
                index={index}
                column={column}
                actor={column.definition ? workflows.forDefinition(column.definition) : null}
                onToggle={handleToggle}
                onEdit={() => onEditColumn(column)}
              />
            ))}
          </Stack>
        </SortableContext>
      </DndContext>
      <Group justify="space-between" wrap="nowrap" mt="sm">
        <Button variant="light" leftSection={<IconPlus size={16} />} onClick={onAddColumn}>
          Add column
        </Button>
        <Group gap="sm" wrap="nowrap">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => save.mutate(shown.map(({ id, visible }) => ({ id, visible })))} loading={save.isPending}>
            Save
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

const SCREEN_READER_INSTRUCTIONS = { draggable: 'To pick up a column, press Space. While dragging, use the arrow keys to move it up or down, Space to drop it where it is, Escape to cancel.' };

/** What a screen reader hears while a column moves: its name and position, not its id. */
function announcementsFor(columns: readonly CustomerColumn[]): Announcements {
  const nameOf = (id: UniqueIdentifier) => columns.find((column) => column.id === id)?.name ?? String(id);
  const positionOf = (id: UniqueIdentifier | undefined) => (id === undefined ? -1 : columns.findIndex((column) => column.id === id) + 1);
  return {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}, position ${positionOf(active.id)} of ${columns.length}.`,
    onDragOver: ({ active, over }) => (over ? `${nameOf(active.id)} is over position ${positionOf(over.id)} of ${columns.length}.` : `${nameOf(active.id)} is not over a position.`),
    onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} dropped at position ${positionOf(over.id)} of ${columns.length}.` : `${nameOf(active.id)} dropped where it was.`),
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled; it is back at position ${positionOf(active.id)}.`,
  };
}

interface SortableColumnProps {
  index: number;
  column: CustomerColumn;
  actor: ColumnRecalculationActorRef | null;
  onToggle: (id: string, visible: boolean) => void;
  onEdit: () => void;
}

function SortableColumn({ index, column, actor, onToggle, onEdit }: SortableColumnProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: column.id });
  return (
    <Paper
      ref={setNodeRef}
      withBorder
      radius="sm"
      px="xs"
      py={6}
      role="listitem"
      aria-label={column.name}
      data-column-index={index}
      style={{ transform: CSS.Transform.toString(transform), transition, position: 'relative', zIndex: isDragging ? 1 : undefined, boxShadow: isDragging ? 'var(--mantine-shadow-md)' : undefined }}
    >
      <Group gap="xs" wrap="nowrap">
        <ActionIcon ref={setActivatorNodeRef} variant="subtle" color="gray" aria-label={`Drag ${column.name}`} style={{ cursor: 'grab', touchAction: 'none' }} {...attributes} {...listeners}>
          <IconGripVertical size={16} />
        </ActionIcon>
        <Switch checked={column.visible} onChange={(event) => onToggle(column.id, event.currentTarget.checked)} aria-label={`Show ${column.name}`} />
        <Text size="sm" style={{ flex: 1, minWidth: 0 }} truncate>
          {column.name}
        </Text>
        {actor ? <CalculatedColumnActions name={column.name} actor={actor} onEdit={onEdit} /> : <Badge variant="light" color="gray" size="sm">{SOURCE_LABELS[column.source]}</Badge>}
      </Group>
    </Paper>
  );
}

/** Edit and delete of a calculated column: offered once its values are in; delete asks first. */
function CalculatedColumnActions({ name, actor, onEdit }: { name: string; actor: ColumnRecalculationActorRef; onEdit: () => void }) {
  const calculating = useSelector(actor, isCalculating);
  const editable = useSelector(actor, canEditColumn);
  const confirming = useSelector(actor, isConfirmingDelete);
  const deleting = useSelector(actor, isDeleting);
  return (
    <Group gap={4} wrap="nowrap">
      {calculating ? (
        <Badge variant="light" size="sm" leftSection={<Loader size={10} aria-hidden />}>
          {CALCULATING_LABEL}
        </Badge>
      ) : (
        <Badge variant="light" color="grape" size="sm">
          Calculated
        </Badge>
      )}
      <Tooltip label="Edit column">
        <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${name}`} disabled={!editable} onClick={onEdit}>
          <IconPencil size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label="Delete column">
        <ActionIcon variant="subtle" color="red" aria-label={`Delete ${name}`} disabled={!editable} loading={deleting} onClick={() => actor.send({ type: 'column.deleteAsked' })}>
          <IconTrash size={16} />
        </ActionIcon>
      </Tooltip>
      <Modal opened={confirming || deleting} onClose={() => actor.send({ type: 'column.deleteCancelled' })} title={`Delete the column “${name}”?`} centered>
        <Stack gap="md">
          <Text size="sm">Its values are removed for every customer and it leaves every user's table. This cannot be undone.</Text>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => actor.send({ type: 'column.deleteCancelled' })} disabled={deleting}>
              Cancel
            </Button>
            <Button color="red" onClick={() => actor.send({ type: 'column.deleteConfirmed' })} loading={deleting}>
              Delete column
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}
