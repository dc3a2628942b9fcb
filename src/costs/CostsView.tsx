import { ActionIcon, Anchor, Button, Group, Menu, Paper, ScrollArea, Skeleton, Stack, Table, Text, ThemeIcon, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDots, IconFileImport, IconPencil, IconPlus, IconReceipt2, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { COST_DELETE_FAILURE, COSTS_EMPTY, COSTS_FETCH_FAILURE, type Cost } from '../../models/costs';
import { FailureAlert } from '../components/FailureAlert';
import { PageHeader } from '../components/PageHeader';
import { SortHeader } from '../components/SortHeader';
import { toastError, toastSuccess } from '../notifications/toast';
import { formatMoney } from '../reports/charts/format';
import { currencyDigits } from '../../models/money';
import { CostDrawer } from './CostDrawer';
import { DEFAULT_COSTS_SORT, useCostAttributes, useCostPages, useDeleteCost, type CostsSort } from './costsApi';
import { RetryAlert } from '../components/RetryAlert';

export const COST_DELETED = 'Cost deleted. Your reports are being recalculated.';

/** '2026-03-14' as '14-03-2026' (how the app writes days). */
export function dayLabel(day: string | null): string {
  if (!day) return '—';
  const [year, month, date] = day.split('-');
  return `${date}-${month}-${year}`;
}

/** The drawer open: a new cost (null) or the one edited. */
type Editing = { cost: Cost | null } | null;

/**
 * The Costs page: the costs, newest first a page at a time (sortable by date and value), the
 * 'New costs' and edit drawers, a delete confirmation, and the way to the CSV import.
 */
export function CostsView() {
  const [sort, setSort] = useState<CostsSort>(DEFAULT_COSTS_SORT);
  const [editing, setEditing] = useState<Editing>(null);
  const pages = useCostPages(sort);
  const attributes = useCostAttributes();
  const remove = useDeleteCost();
  const costs = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const columns = attributes.data ?? [];

  const handleDelete = (cost: Cost) => {
    modals.openConfirmModal({
      title: 'Delete cost',
      children: (
        <Text size="sm">
          Delete the cost of {formatMoney(cost.value, cost.currency, currencyDigits(cost.currency))} dated {dayLabel(cost.date)}
          {cost.name ? ` (${cost.name})` : ''}? Reports will no longer count it. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete cost', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        void remove.mutateAsync(cost.id).then((deleted) => (deleted ? toastSuccess(COST_DELETED) : toastError(COST_DELETE_FAILURE)));
      },
    });
  };

  const handleSort = (field: 'date' | 'value') => {
    setSort((current) => (current === `${field}:desc` ? `${field}:asc` : `${field}:desc`));
  };

  const failed = pages.isError && !pages.isFetching && costs.length === 0;
  return (
    <>
      <PageHeader
        title="Costs"
        description="Record what the business spends. The costs and CAC sections of your reports follow every change."
        actions={
          <>
            <Button component={Link} href="/import-costs" variant="default" leftSection={<IconFileImport size={16} />}>
              Import CSV
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing({ cost: null })}>
              New costs
            </Button>
          </>
        }
      />
      {pages.isPending ? (
        <TableSkeleton />
      ) : failed ? (
        <RetryAlert message={COSTS_FETCH_FAILURE} onRetry={() => void pages.refetch()} />
      ) : costs.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="sm" py="lg">
            <ThemeIcon size={48} radius="xl" variant="light">
              <IconReceipt2 size={26} />
            </ThemeIcon>
            <Text fw={600}>{COSTS_EMPTY}</Text>
            <Text size="sm" c="dimmed" ta="center" maw={420}>
              Add a cost by hand, or <Anchor component={Link} href="/import-costs">import a CSV file</Anchor> of them.
            </Text>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing({ cost: null })}>
              New costs
            </Button>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="md">
          <Paper withBorder radius="md">
            <ScrollArea>
              <Table striped highlightOnHover verticalSpacing="sm" horizontalSpacing="md" miw={720} aria-label="Costs" aria-busy={pages.isFetching}>
                <Table.Thead>
                  <Table.Tr>
                    <SortHeader label="Date" field="date" sort={sort} onSort={handleSort} />
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Invoice number</Table.Th>
                    <SortHeader label="Value" field="value" sort={sort} onSort={handleSort} align="right" />
                    <Table.Th>Due date</Table.Th>
                    {columns.map((column) => (
                      <Table.Th key={column.id}>{column.name}</Table.Th>
                    ))}
                    <Table.Th w={48}>
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {costs.map((cost) => (
                    <CostRow key={cost.id} cost={cost} columns={columns} onEdit={() => setEditing({ cost })} onDelete={() => handleDelete(cost)} />
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          </Paper>
          {pages.isError ? <FailureAlert messages={[COSTS_FETCH_FAILURE]} /> : null}
          {pages.hasNextPage ? (
            <Group justify="center">
              <Button variant="default" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
                Load more costs
              </Button>
            </Group>
          ) : null}
        </Stack>
      )}
      <CostDrawer opened={editing !== null} cost={editing?.cost ?? null} onClose={() => setEditing(null)} />
    </>
  );
}

function CostRow({ cost, columns, onEdit, onDelete }: { cost: Cost; columns: readonly { id: string }[]; onEdit: () => void; onDelete: () => void }) {
  const valueOf = new Map(cost.segments.map((segment) => [segment.id, segment.value]));
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{dayLabel(cost.date)}</Table.Td>
      <Table.Td>{cost.name ?? <Text c="dimmed" span>—</Text>}</Table.Td>
      <Table.Td>{cost.invoice_number ?? <Text c="dimmed" span>—</Text>}</Table.Td>
      <Table.Td ta="right" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
        {formatMoney(cost.value, cost.currency, currencyDigits(cost.currency))}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{cost.due_date ? dayLabel(cost.due_date) : <Text c="dimmed" span>—</Text>}</Table.Td>
      {columns.map((column) => (
        <Table.Td key={column.id}>{valueOf.get(column.id) ?? <Text c="dimmed" span>—</Text>}</Table.Td>
      ))}
      <Table.Td>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon variant="subtle" color="gray" aria-label={`Actions of the cost ${cost.invoice_number ?? cost.name ?? dayLabel(cost.date)}`}>
              <IconDots size={16} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconPencil size={14} />} onClick={onEdit}>
              Edit
            </Menu.Item>
            <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={onDelete}>
              Delete
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Table.Td>
    </Table.Tr>
  );
}

function TableSkeleton() {
  return (
    <Stack gap="xs" aria-label="Loading costs">
      <Skeleton height={40} />
      {Array.from({ length: 6 }, (_, k) => (
        <Skeleton key={k} height={36} />
      ))}
    </Stack>
  );
}
