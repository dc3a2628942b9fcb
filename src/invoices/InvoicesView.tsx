import { Badge, Button, Group, Paper, ScrollArea, Skeleton, Stack, Table, Text, ThemeIcon } from '@mantine/core';
import { IconFilterPlus, IconReceiptOff } from '@tabler/icons-react';
import { useState } from 'react';
import { currencyDigits } from '../../models/money';
import { INVOICES_FAILURE, type InvoiceItem, type InvoiceItemSort } from '../../models/invoices';
import { FailureAlert } from '../components/FailureAlert';
import { PageHeader } from '../components/PageHeader';
import { SortHeader } from '../components/SortHeader';
import { dayLabel } from '../costs/CostsView';
import { formatMoney } from '../reports/charts/format';
import { DEFAULT_INVOICE_SORT, useRejectedItemPages } from './invoicesApi';
import { RuleDrawer } from './RuleDrawer';

type SortField = 'name' | 'value' | 'issue_date';

/**
 * /invoices: the invoice lines no import rule could turn into a payment (newest first, a page
 * at a time, sortable by name, value and issue date), each with 'Create rule', which opens the
 * rule drawer from that line.
 */
export function InvoicesView() {
  const [sort, setSort] = useState<InvoiceItemSort>(DEFAULT_INVOICE_SORT);
  const [ruleFrom, setRuleFrom] = useState<InvoiceItem | null>(null);
  const pages = useRejectedItemPages(sort);
  const items = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const total = pages.data?.pages[0]?.total_count ?? 0;

  const handleSort = (field: SortField) => {
    setSort((current) => (current === `${field}:asc` ? `${field}:desc` : `${field}:asc`));
  };

  const failed = pages.isError && !pages.isFetching && items.length === 0;
  return (
    <>
      <PageHeader
        title="Rejected invoices"
        description="Invoice lines that no import rule could turn into a payment. Create a rule from a line: it and every other line of that name become payments, and your reports follow."
        actions={total > 0 ? <Badge size="lg" variant="light">{`${total} rejected ${total === 1 ? 'line' : 'lines'}`}</Badge> : undefined}
      />
      {pages.isPending ? (
        <TableSkeleton />
      ) : failed ? (
        <FailureAlert messages={[INVOICES_FAILURE]}>
          <Button variant="default" size="xs" mt="sm" onClick={() => void pages.refetch()}>
            Try again
          </Button>
        </FailureAlert>
      ) : items.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="sm" py="lg">
            <ThemeIcon size={48} radius="xl" variant="light">
              <IconReceiptOff size={26} />
            </ThemeIcon>
            <Text fw={600}>No rejected invoice lines</Text>
            <Text size="sm" c="dimmed" ta="center" maw={460}>
              Every line your invoicing tools sent has become a payment. A line that no rule matches will wait here.
            </Text>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="md">
          <Paper withBorder radius="md">
            <ScrollArea>
              <Table striped highlightOnHover verticalSpacing="sm" horizontalSpacing="md" miw={860} styles={{ th: { whiteSpace: 'nowrap' } }} aria-label="Rejected invoice lines" aria-busy={pages.isFetching}>
                <Table.Thead>
                  <Table.Tr>
                    <SortHeader label="Line name" field="name" sort={sort} onSort={handleSort} />
                    <SortHeader label="Value" field="value" sort={sort} onSort={handleSort} align="right" />
                    <Table.Th ta="right">Quantity</Table.Th>
                    <Table.Th>Invoice number</Table.Th>
                    <Table.Th>Buyer</Table.Th>
                    <SortHeader label="Issue date" field="issue_date" sort={sort} onSort={handleSort} />
                    <Table.Th>Source</Table.Th>
                    <Table.Th w={140} />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((item) => (
                    <ItemRow key={item.id} item={item} onCreateRule={() => setRuleFrom(item)} />
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          </Paper>
          {pages.isError ? <FailureAlert messages={[INVOICES_FAILURE]} /> : null}
          {pages.hasNextPage ? (
            <Group justify="center">
              <Button variant="default" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
                Load more lines
              </Button>
            </Group>
          ) : null}
        </Stack>
      )}
      <RuleDrawer item={ruleFrom} onClose={() => setRuleFrom(null)} />
    </>
  );
}

const dash = (
  <Text c="dimmed" span>
    —
  </Text>
);

function ItemRow({ item, onCreateRule }: { item: InvoiceItem; onCreateRule: () => void }) {
  return (
    <Table.Tr>
      <Table.Td fw={500}>{item.name}</Table.Td>
      <Table.Td ta="right" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
        {formatMoney(item.value, item.currency, currencyDigits(item.currency))}
      </Table.Td>
      <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
        {item.quantity}
      </Table.Td>
      <Table.Td>{item.invoice.number ?? dash}</Table.Td>
      <Table.Td>
        {item.invoice.buyer_name ?? dash}
        {item.invoice.buyer_id ? (
          <Text size="xs" c="dimmed">
            {item.invoice.buyer_id}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{item.invoice.issue_date ? dayLabel(item.invoice.issue_date) : dash}</Table.Td>
      <Table.Td tt="capitalize">{item.source}</Table.Td>
      <Table.Td>
        <Button size="xs" variant="light" leftSection={<IconFilterPlus size={14} />} onClick={onCreateRule} aria-label={`Create rule from ${item.name}`}>
          Create rule
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

function TableSkeleton() {
  return (
    <Stack gap="xs" aria-label="Loading rejected invoices">
      <Skeleton height={40} />
      {Array.from({ length: 6 }, (_, k) => (
        <Skeleton key={k} height={36} />
      ))}
    </Stack>
  );
}
