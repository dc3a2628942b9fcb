import { ActionIcon, Button, Group, Paper, Select, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'wouter';
import { ITEM_TYPES } from '../../models/constants';
import type { ItemType } from '../../models/constants';
import { PageHeader } from '../components/PageHeader';
import { SearchInput } from '../components/SearchInput';
import { useAccountSettings } from '../settings/account/accountSettingsApi';
import { EditPaymentDrawer } from './EditPaymentDrawer';
import { NewPaymentDrawer } from './NewPaymentDrawer';
import { PAYMENT_SEARCH_MAX_LIMIT } from '../../models/payments';
import { invalidateAfterPaymentChange, PAYMENTS_FETCH_FAILURE } from './paymentsApi';
import type { Payment } from '../../models/payments';
import type { PaymentsFilter, PaymentsSort } from './paymentsApi';
import { filterFromSearch, ITEM_TYPE_LABELS, searchOfFilter } from './paymentsFilter';
import { PaymentsTable } from './PaymentsTable';
import { usePaymentRows } from './usePaymentRows';
import { RetryAlert } from '../components/RetryAlert';

const ITEM_TYPE_OPTIONS = ITEM_TYPES.map((type) => ({ value: type, label: ITEM_TYPE_LABELS[type] }));

/**
 * The payments page (/payments and /subscriptions): the search, the filters (currency, item
 * type) and order, kept in the URL, the paged table, the 'New payment' drawer and the edit
 * drawer of the payment a row opens.
 */
export function PaymentsView() {
  const queryClient = useQueryClient();
  const [searchParams, setSearchParams] = useSearchParams();
  const filter = filterFromSearch(searchParams);
  const [search, setSearch] = useState('');
  // The cursors of the pages before the one shown (keyset paging only goes forward).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const [creating, setCreating] = useState(false);
  const [opened, setOpened] = useState<Payment | null>(null);
  const settings = useAccountSettings();
  const rows = usePaymentRows(search, filter, cursor);

  const handleFilter = (next: PaymentsFilter) => {
    setSearchParams(searchOfFilter(next), { replace: true });
    setCursors([null]);
  };
  const handleSort = (sort: PaymentsSort) => handleFilter({ ...filter, sort });
  const currencyOptions = [...new Set([...(settings.data?.used_currencies ?? []), ...(filter.currency ? [filter.currency] : [])].map((iso) => iso.toUpperCase()))].sort();

  const searching = rows.status === 'search';
  const filtered = filter.currency !== null || filter.itemType !== null;
  const emptyText = rows.status === 'search' ? `No payment matches “${rows.query}”` : filtered ? 'No payments match these filters' : 'No payments yet. Add one with New payment, or import them from a CSV file.';

  return (
    <>
      <PageHeader
        title="Payments"
        description="Search your subscription payments by customer or invoice, sort and filter them, and add new ones by hand."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New payment
          </Button>
        }
      />
      <Stack gap="md">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <SearchInput
            aria-label="Search payments"
            placeholder="Search by customer name, invoice number or payment ID"
            value={search}
            onChange={setSearch}
            style={{ flex: '1 1 320px' }}
            maw={460}
          />
          <Select
            aria-label="Currency"
            placeholder="All currencies"
            data={currencyOptions}
            value={filter.currency}
            onChange={(currency) => handleFilter({ ...filter, currency })}
            clearable
            disabled={searching}
            w={170}
            comboboxProps={{ withinPortal: true }}
          />
          <Select
            aria-label="Item type"
            placeholder="All item types"
            data={ITEM_TYPE_OPTIONS}
            value={filter.itemType}
            onChange={(itemType) => handleFilter({ ...filter, itemType: itemType as ItemType | null })}
            clearable
            disabled={searching}
            w={170}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
        {rows.status === 'loading' ? (
          <TableSkeleton />
        ) : (
          <PaymentsTable
            rows={rows.status === 'failed' ? [] : rows.rows}
            fetching={rows.status !== 'failed' && rows.refreshing}
            sort={filter.sort}
            onSort={searching ? null : handleSort}
            onOpen={setOpened}
            empty={rows.status === 'failed' ? PAYMENTS_FETCH_FAILURE : emptyText}
          />
        )}
        {rows.status === 'failed' ? (
          <RetryAlert message={PAYMENTS_FETCH_FAILURE} onRetry={() => void invalidateAfterPaymentChange(queryClient)} />
        ) : null}
        {rows.status === 'page' && (rows.page.next || cursors.length > 1) ? (
          <Group justify="flex-end" gap="sm">
            <Text size="sm" c="dimmed" aria-live="polite">
              Page {cursors.length}
            </Text>
            <Tooltip label="Previous page">
              <ActionIcon variant="default" aria-label="Previous page" disabled={cursors.length < 2 || rows.refreshing} onClick={() => setCursors((stack) => stack.slice(0, -1))}>
                <IconChevronLeft size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Next page">
              <ActionIcon
                variant="default"
                aria-label="Next page"
                disabled={!rows.page.next || rows.refreshing}
                onClick={() => {
                  const next = rows.page.next;
                  if (next) setCursors((stack) => [...stack, next]);
                }}
              >
                <IconChevronRight size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
        {rows.status === 'search' && rows.rows.length > 0 ? (
          <Text size="sm" c="dimmed" ta="right" aria-live="polite">
            {rows.rows.length >= PAYMENT_SEARCH_MAX_LIMIT ? `The first ${PAYMENT_SEARCH_MAX_LIMIT} matches` : `${rows.rows.length} ${rows.rows.length === 1 ? 'match' : 'matches'}`}
          </Text>
        ) : null}
      </Stack>

      <NewPaymentDrawer opened={creating} onClose={() => setCreating(false)} />
      <EditPaymentDrawer paymentId={opened?.id ?? null} initial={opened} onClose={() => setOpened(null)} />
    </>
  );
}

function TableSkeleton() {
  return (
    <Paper withBorder radius="md" p="md" aria-busy aria-label="Loading payments">
      <Stack gap="sm">
        <Skeleton height={20} width="60%" />
        {Array.from({ length: 8 }, (_, row) => (
          <Skeleton key={row} height={16} />
        ))}
      </Stack>
    </Paper>
  );
}
