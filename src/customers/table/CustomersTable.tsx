import 'mantine-datatable/styles.css';
import { Stack, Text, ThemeIcon } from '@mantine/core';
import { IconUsers } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { DataTableColumn, DataTableSortStatus } from 'mantine-datatable';
import type { ColumnWorkflows } from '../columns/columnWorkflows';
import type { CustomerColumn, CustomerRow, CustomersSort } from '../customerListApi';
import { CalculatedTitle, cellText, isNumeric, NameCell } from './cells';

interface CustomersTableProps {
  /** The visible columns, in the user's order. */
  columns: readonly CustomerColumn[];
  rows: readonly CustomerRow[];
  /** The rows shown are the previous ones (the next are coming). */
  fetching: boolean;
  sort: CustomersSort;
  /** null: the rows cannot be sorted (the search's matches come in the server's order). */
  onSort: ((sort: CustomersSort) => void) | null;
  onOpen: (customerId: string) => void;
  workflows: ColumnWorkflows;
  /** What an empty table says. */
  empty: string;
}

const TABLE_MIN_HEIGHT = 240;

/** The customers table (mantine-datatable): the user's columns, sortable headers, a row opens its customer. */
export function CustomersTable({ columns, rows, fetching, sort, onSort, onOpen, workflows, empty }: CustomersTableProps) {
  const tableColumns: DataTableColumn<CustomerRow>[] = columns.map((column) => ({
    accessor: column.id,
    title: column.definition ? <CalculatedTitle name={column.name} actor={workflows.forDefinition(column.definition)} /> : column.name,
    sortable: onSort !== null && column.sortable,
    textAlign: isNumeric(column) ? 'right' : 'left',
    noWrap: true,
    render: (row) => (column.id === 'name' ? <NameCell row={row} /> : cellText(column, row)),
  }));
  const sortStatus: DataTableSortStatus<CustomerRow> = { columnAccessor: sort.columnId, direction: sort.direction };

  return (
    <DataTable<CustomerRow>
      aria-label="Customers"
      withTableBorder
      borderRadius="md"
      highlightOnHover
      striped
      minHeight={rows.length === 0 ? TABLE_MIN_HEIGHT : undefined}
      columns={tableColumns}
      records={[...rows]}
      fetching={fetching}
      loaderType="dots"
      sortStatus={sortStatus}
      onSortStatusChange={onSort ? (status) => onSort({ columnId: String(status.columnAccessor), direction: status.direction }) : undefined}
      onRowClick={({ record }) => onOpen(record.id)}
      rowStyle={() => ({ cursor: 'pointer' })}
      emptyState={
        <Stack align="center" gap="xs" p="xl">
          <ThemeIcon size={44} radius="xl" variant="light" color="gray" aria-hidden>
            <IconUsers size={24} />
          </ThemeIcon>
          <Text c="dimmed">{empty}</Text>
        </Stack>
      }
    />
  );
}
