import { ActionIcon, Button, Group, Paper, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconColumns3 } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { COLUMN_DELETE_FAILURE_MESSAGE } from '../../../machines/columnRecalculation/messages';
import type { ColumnRecalculationActorRef } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnNotice } from '../../../machines/columnRecalculation/types';
import { CUSTOMER_SEARCH_MAX_LIMIT } from '../../../models/constants';
import { CUSTOMER_LIST_FAILURE_MESSAGE } from '../../../models/customers';
import { useApi } from '../../api/ApiContext';
import type { LiveChannels } from '../../cable/liveChannels';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import { PageHeader } from '../../components/PageHeader';
import { SearchInput } from '../../components/SearchInput';
import { toastError } from '../../notifications/toast';
import { CreateColumnDrawer } from '../columns/CreateColumnDrawer';
import { EditColumnsDrawer } from '../columns/EditColumnsDrawer';
import { useColumnWorkflows } from '../columns/columnWorkflows';
import { CustomerDrawer } from '../CustomerDrawer';
import { createCustomerListServices, currentUserKey, DEFAULT_CUSTOMERS_SORT, watchCustomerColumns } from '../customerListApi';
import type { CustomerColumn, CustomersSort, PageCursor } from '../customerListApi';
import { invalidateCustomerQueries } from '../customerQueries';
import { CustomersTable } from './CustomersTable';
import { useCustomerRows } from './useCustomerRows';
import { RetryAlert } from '../../components/RetryAlert';

/** Shown when the user's columns are not known (never with a server that answers them). */
const FALLBACK_COLUMNS: CustomerColumn[] = [{ id: 'name', name: 'Name', source: 'static', visible: true, sortable: true, data_type: 'string' }];

interface CustomersViewProps {
  /** The customer whose details are open over the table (from /customers/{customerId}). */
  customerId: string | null;
  onOpenCustomer: (customerId: string) => void;
  onCloseCustomer: () => void;
  /** The live channels (tests); the app's by default. */
  channels?: LiveChannels;
}

/** The column being composed or edited in the 'Create column' drawer, with its machine. */
interface ColumnEditor {
  actor: ColumnRecalculationActorRef;
  column: CustomerColumn | null;
}

/**
 * The customers page: search, the sortable paged table of the user's columns, the 'Edit
 * columns' and 'Create column' drawers and the customer drawer of /customers/{customerId}.
 * Calculated columns are worked by their machines (columnWorkflows); CustomerColumnsChannel
 * feeds them and reads the table again when a column's values change.
 */
export function CustomersView({ customerId, onOpenCustomer, onCloseCustomer, channels }: CustomersViewProps) {
  const client = useApi();
  const queryClient = useQueryClient();
  const services = useMemo(() => createCustomerListServices(client), [client]);
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<CustomersSort>(DEFAULT_CUSTOMERS_SORT);
  const [cursor, setCursor] = useState<PageCursor>(null);
  const [editingColumns, setEditingColumns] = useState(false);
  const [editor, setEditor] = useState<ColumnEditor | null>(null);

  const me = useQuery({ queryKey: currentUserKey, queryFn: ({ signal }) => services.currentUser(signal) });
  const allColumns = me.data?.user.customer_columns;
  const visibleColumns = useMemo(() => {
    const visible = (allColumns ?? []).filter((column) => column.visible);
    return visible.length > 0 ? visible : FALLBACK_COLUMNS;
  }, [allColumns]);
  const rows = useCustomerRows(search, sort, cursor);

  const refreshColumnsAndRows = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: currentUserKey });
    void invalidateCustomerQueries(queryClient);
  }, [queryClient]);

  const handleNotice = useCallback(
    (notice: ColumnNotice) => {
      if (notice.kind === 'deleteFailed') {
        toastError(COLUMN_DELETE_FAILURE_MESSAGE);
        return;
      }
      // Saved: the drawer closes (spec) and the new column joins the user's columns.
      if (notice.kind === 'saved') setEditor(null);
      refreshColumnsAndRows();
    },
    [refreshColumnsAndRows],
  );
  const workflows = useColumnWorkflows(handleNotice);

  const live = useLiveChannels(channels);
  useEffect(
    () =>
      watchCustomerColumns(live, (update) => {
        workflows.update(update);
        refreshColumnsAndRows();
      }),
    [live, workflows, refreshColumnsAndRows],
  );

  const handleSort = (next: CustomersSort) => {
    setSort(next);
    setCursor(null);
  };
  const handleAddColumn = () => {
    setEditingColumns(false);
    setEditor({ actor: workflows.draft(), column: null });
  };
  const handleEditColumn = (column: CustomerColumn) => {
    if (!column.definition) return;
    setEditingColumns(false);
    setEditor({ actor: workflows.forDefinition(column.definition), column });
  };
  const handleCloseEditor = () => {
    if (!editor) return;
    editor.actor.send({ type: 'column.dismiss' });
    // A new column closed before it was ever saved is dropped with its machine.
    if (editor.actor.getSnapshot().matches('draft')) editor.actor.stop();
    setEditor(null);
  };

  const searching = rows.status === 'search';
  return (
    <>
      <PageHeader
        title="Customers"
        description="Find any customer, sort and page through them, and choose the table's columns."
        actions={
          <Button variant="default" leftSection={<IconColumns3 size={16} />} onClick={() => setEditingColumns(true)} disabled={!allColumns}>
            Edit columns
          </Button>
        }
      />
      <Stack gap="md">
        <SearchInput aria-label="Search customers" placeholder="Search by name or customer ID" value={search} onChange={setSearch} maw={420} />
        {me.isPending || rows.status === 'loading' ? (
          <TableSkeleton />
        ) : (
          <CustomersTable
            columns={visibleColumns}
            rows={rows.status === 'failed' ? [] : rows.rows}
            fetching={rows.status !== 'failed' && rows.refreshing}
            sort={sort}
            onSort={searching ? null : handleSort}
            onOpen={onOpenCustomer}
            workflows={workflows}
            empty={rows.status === 'failed' ? CUSTOMER_LIST_FAILURE_MESSAGE : rows.status === 'search' ? `No customer matches “${rows.query}”` : 'No customers yet. Import payments or connect a data source to see them here.'}
          />
        )}
        {rows.status === 'failed' ? (
          <RetryAlert message={CUSTOMER_LIST_FAILURE_MESSAGE} onRetry={() => void invalidateCustomerQueries(queryClient)} />
        ) : null}
        {rows.status === 'page' && rows.page.total_count > 0 ? (
          <Group justify="flex-end" gap="sm">
            <Text size="sm" c="dimmed" aria-live="polite">
              {rows.page.current_range.from}–{rows.page.current_range.to} of {rows.page.total_count}
            </Text>
            <Tooltip label="Previous page">
              <ActionIcon variant="default" aria-label="Previous page" disabled={!rows.page.prev || rows.refreshing} onClick={() => rows.page.prev && setCursor({ prev: rows.page.prev })}>
                <IconChevronLeft size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Next page">
              <ActionIcon variant="default" aria-label="Next page" disabled={!rows.page.next || rows.refreshing} onClick={() => rows.page.next && setCursor({ next: rows.page.next })}>
                <IconChevronRight size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
        {rows.status === 'search' && rows.rows.length > 0 ? (
          <Text size="sm" c="dimmed" ta="right" aria-live="polite">
            {rows.rows.length >= CUSTOMER_SEARCH_MAX_LIMIT ? `The first ${CUSTOMER_SEARCH_MAX_LIMIT} matches` : `${rows.rows.length} ${rows.rows.length === 1 ? 'match' : 'matches'}`}
          </Text>
        ) : null}
      </Stack>

      {allColumns ? (
        <EditColumnsDrawer
          opened={editingColumns}
          onClose={() => setEditingColumns(false)}
          columns={allColumns}
          workflows={workflows}
          onAddColumn={handleAddColumn}
          onEditColumn={handleEditColumn}
        />
      ) : null}
      <CreateColumnDrawer editor={editor} onClose={handleCloseEditor} />
      <CustomerDrawer customerId={customerId} onClose={onCloseCustomer} />
    </>
  );
}

function TableSkeleton() {
  return (
    <Paper withBorder radius="md" p="md" data-testid="customers-skeleton" aria-busy aria-label="Loading customers">
      <Stack gap="sm">
        <Skeleton height={20} width="60%" />
        {Array.from({ length: 8 }, (_, row) => (
          <Skeleton key={row} height={16} />
        ))}
      </Stack>
    </Paper>
  );
}
