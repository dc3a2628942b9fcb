import 'mantine-datatable/styles.css';
import { Stack, Text, ThemeIcon } from '@mantine/core';
import { IconCreditCard } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { DataTableColumn, DataTableSortStatus } from 'mantine-datatable';
import type { ReactNode } from 'react';
import { formatDate } from '../customers/table/cells';
import { formatDuration, formatPaymentMoney } from './paymentFormat';
import { PAYMENT_SORT_FIELDS } from '../../models/payments';
import type { Payment, PaymentSortField } from '../../models/payments';
import type { PaymentsSort } from './paymentsApi';

interface PaymentsTableProps {
  rows: readonly Payment[];
  /** The rows shown are the previous ones (the next are coming). */
  fetching: boolean;
  sort: PaymentsSort;
  /** null: the rows cannot be sorted (the search's matches come in the server's order). */
  onSort: ((sort: PaymentsSort) => void) | null;
  onOpen: (payment: Payment) => void;
  /** What an empty table says. */
  empty: ReactNode;
}

const TABLE_MIN_HEIGHT = 240;

const isSortField = (value: string): value is PaymentSortField => (PAYMENT_SORT_FIELDS as readonly string[]).includes(value);

const COLUMNS: DataTableColumn<Payment>[] = [
  { accessor: 'customer_name', title: 'Customer name', render: (payment) => payment.customer.name, ellipsis: true, width: '26%' },
  { accessor: 'invoice_number', title: 'Invoice number', render: (payment) => payment.invoice_number ?? '–', ellipsis: true },
  { accessor: 'started_at', title: 'Started at', noWrap: true, render: (payment) => formatDate(payment.started_at) },
  { accessor: 'total_value', title: 'Total value', textAlign: 'right', noWrap: true, render: (payment) => formatPaymentMoney(payment.total_value, payment.currency) },
  { accessor: 'duration_in_months', title: 'Duration (month)', textAlign: 'right', noWrap: true, render: (payment) => formatDuration(payment.duration_in_months) },
  { accessor: 'monthly_amount', title: 'Monthly amount', textAlign: 'right', noWrap: true, render: (payment) => formatPaymentMoney(payment.monthly_amount, payment.currency) },
];

/** The payments table (mantine-datatable): sortable headers, a row opens its payment. */
export function PaymentsTable({ rows, fetching, sort, onSort, onOpen, empty }: PaymentsTableProps) {
  const columns = COLUMNS.map((column) => ({ ...column, sortable: onSort !== null }));
  const sortStatus: DataTableSortStatus<Payment> = { columnAccessor: sort.field, direction: sort.direction };
  const handleSort = (status: DataTableSortStatus<Payment>) => {
    const field = String(status.columnAccessor);
    if (onSort && isSortField(field)) onSort({ field, direction: status.direction });
  };

  return (
    <DataTable<Payment>
      aria-label="Payments"
      withTableBorder
      borderRadius="md"
      highlightOnHover
      striped
      minHeight={rows.length === 0 ? TABLE_MIN_HEIGHT : undefined}
      columns={columns}
      records={[...rows]}
      idAccessor="id"
      fetching={fetching}
      loaderType="dots"
      sortStatus={sortStatus}
      onSortStatusChange={onSort ? handleSort : undefined}
      onRowClick={({ record }) => onOpen(record)}
      rowStyle={() => ({ cursor: 'pointer' })}
      emptyState={
        <Stack align="center" gap="xs" p="xl">
          <ThemeIcon size={44} radius="xl" variant="light" color="gray" aria-hidden>
            <IconCreditCard size={24} />
          </ThemeIcon>
          <Text c="dimmed" ta="center">
            {empty}
          </Text>
        </Stack>
      }
    />
  );
}
