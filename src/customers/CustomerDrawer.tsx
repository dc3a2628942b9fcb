import { ActionIcon, Alert, Anchor, Badge, Box, Button, Drawer, Group, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsMaximize, IconArrowsMinimize, IconPencil } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { CUSTOMER_DETAILS_DRAWER_WIDTH, TIMELINE_DEFAULT_LIMIT } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { apiKey, queryState, type QueryState } from '../api/queries';
import { formatMoney, formatNumber } from '../reports/charts/format';
import { LazyApexChart } from '../reports/charts/LazyApexChart';
import { apexLook, useChartColors } from '../reports/charts/chartColors';
import type { ApexChartProps } from '../reports/charts/chartOptions';
import { EditPaymentDrawer } from '../payments/EditPaymentDrawer';
import { formatDuration, formatEnd, formatPaymentMoney } from '../payments/paymentFormat';
import { CustomerActionsMenu } from './actions/CustomerActionsMenu';
import { CustomerNameEdit } from './actions/CustomerNameEdit';
import { CustomerSegments } from './actions/CustomerSegments';
import {
  ALL_PAYMENTS_LIMIT,
  CHILDREN_FETCH_FAILURE,
  createCustomerServices,
  CUSTOMER_FETCH_FAILURE,
  PARENT_FETCH_FAILURE,
  storedPaymentsOrder,
  storePaymentsOrder,
  type Customer,
  type CustomerFigures,
  type CustomerPayment,
  type CustomerServices,
  type PaymentsOrder,
} from './customersApi';

export interface CustomerDrawerProps {
  /** The customer shown; null: closed. */
  customerId: string | null;
  onClose: () => void;
  /** Amounts in this currency (the report's); default the account's. */
  currency?: string;
  /** The calls (a test passes its own); default over the app's API client. */
  services?: CustomerServices;
}

const REVENUE_CHART_HEIGHT = 220;

type Loaded<T> = QueryState<T>;

/**
 * The customer details drawer (spec: 'Details: {customer name}', 60 % wide or maximised):
 * summary numbers (MRR, revenue to date), a revenue timeline chart, the payments timeline (by
 * start date, the order remembered in this browser, newest first by default; 'Show all
 * payments' once the first answer is as long as its limit), the parent (a link that opens it
 * here) and the children; the customer's attributes, each edited in the segment values dialog;
 * the name, edited in place; and the actions menu (merge, assign or remove the parent, exclude
 * from metrics calculation, delete: src/customers/actions/). After a delete the drawer closes
 * (`onClose`); after a merge it shows the open customer, which the other was merged into.
 */
export function CustomerDrawer({ customerId, onClose, currency, services: given }: CustomerDrawerProps) {
  const client = useApi();
  const services = useMemo(() => given ?? createCustomerServices(client), [given, client]);
  // The parent link and the children open another customer in the same drawer.
  const [shownId, setShownId] = useState(customerId);
  useEffect(() => setShownId(customerId), [customerId]);
  const [maximised, setMaximised] = useState(false);
  const [editingName, setEditingName] = useState(false);
  useEffect(() => setEditingName(false), [shownId]);
  const customer = queryState(
    useQuery({
      queryKey: apiKey('/customers/{id}', { id: shownId }),
      // A closed drawer asks nothing (a deleted customer's drawer closes before its id is cleared).
      enabled: shownId !== null && customerId !== null,
      queryFn: ({ signal }) => services.customer(shownId ?? '', CUSTOMER_FETCH_FAILURE, signal),
      meta: { failureToast: CUSTOMER_FETCH_FAILURE },
    }),
  );

  const loaded = customer.status === 'loaded' && shownId !== null ? customer.data : null;
  const name = loaded?.name ?? '';
  return (
    <Drawer
      opened={customerId !== null}
      onClose={onClose}
      position="right"
      size={maximised ? '100%' : CUSTOMER_DETAILS_DRAWER_WIDTH}
      title={
        <Group gap="xs" wrap="nowrap" pr="sm">
          <Title order={2} size="h4" style={{ overflowWrap: 'anywhere' }}>
            Details: {name}
          </Title>
          {loaded && !loaded.deleted && (
            <Tooltip label="Edit name">
              <ActionIcon variant="subtle" color="gray" aria-label="Edit name" aria-pressed={editingName} onClick={() => setEditingName((on) => !on)}>
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          <Tooltip label={maximised ? 'Restore' : 'Maximise'}>
            <ActionIcon variant="subtle" color="gray" aria-label={maximised ? 'Restore drawer' : 'Maximise drawer'} aria-pressed={maximised} onClick={() => setMaximised((on) => !on)}>
              {maximised ? <IconArrowsMinimize size={18} /> : <IconArrowsMaximize size={18} />}
            </ActionIcon>
          </Tooltip>
          {loaded && !loaded.deleted && (
            <Group ml="auto" gap={0}>
              <CustomerActionsMenu key={loaded.id} customer={loaded} services={services} onDeleted={onClose} />
            </Group>
          )}
        </Group>
      }
      styles={{ title: { flex: 1, minWidth: 0 } }}
      closeButtonProps={{ 'aria-label': 'Close details' }}
    >
      {loaded && editingName && (
        <Box mb="lg">
          <CustomerNameEdit key={loaded.id} customer={loaded} services={services} onDone={() => setEditingName(false)} />
        </Box>
      )}
      {shownId && customer.status === 'loading' && <DrawerSkeleton />}
      {customer.status === 'failed' && (
        <Alert color="red" variant="light">
          We could not fetch this customer.
        </Alert>
      )}
      {loaded && <CustomerDetails key={loaded.id} customer={loaded} currency={currency} services={services} onOpen={setShownId} />}
    </Drawer>
  );
}

function DrawerSkeleton() {
  return (
    <Stack data-testid="customer-skeleton">
      <SimpleGrid cols={2}>
        <Skeleton height={64} />
        <Skeleton height={64} />
      </SimpleGrid>
      <Skeleton height={REVENUE_CHART_HEIGHT} />
      <Skeleton height={160} />
    </Stack>
  );
}

function CustomerDetails({ customer, currency, services, onOpen }: { customer: Customer; currency: string | undefined; services: CustomerServices; onOpen: (id: string) => void }) {
  const figures = queryState(
    useQuery({
      queryKey: apiKey('/customer_metrics/{id}', { id: customer.id, currency }),
      queryFn: ({ signal }) => services.figures(customer.id, currency, signal),
    }),
  );

  return (
    <Stack gap="lg">
      {(customer.deleted || !customer.include_in_calculations_by_default || customer.links.length > 0) && (
        <Group gap="xs">
          {customer.deleted && <Badge color="red">Deleted</Badge>}
          {!customer.include_in_calculations_by_default && <Badge color="gray">Excluded from metrics calculation</Badge>}
          {customer.links.map((link) => (
            <Anchor key={link.url} href={link.url} target="_blank" rel="noreferrer" size="sm">
              {link.external_system}
            </Anchor>
          ))}
        </Group>
      )}
      <Summary figures={figures} />
      <RevenueChart figures={figures} />
      <CustomerSegments customer={customer} services={services} />
      <Payments customerId={customer.id} currency={currency} services={services} />
      <ParentInfo parentId={customer.parent_id} services={services} onOpen={onOpen} />
      <Children ids={customer.children_ids} services={services} onOpen={onOpen} />
    </Stack>
  );
}

function Summary({ figures }: { figures: Loaded<CustomerFigures> }) {
  if (figures.status === 'loading')
    return (
      <SimpleGrid cols={2}>
        <Skeleton height={64} />
        <Skeleton height={64} />
      </SimpleGrid>
    );
  if (figures.status === 'failed') return <Text c="dimmed">We could not fetch this customer’s figures.</Text>;
  const { mrr, accrued_total, one_time_accrued_total, currency } = figures.data;
  const numbers = [
    { label: 'MRR', value: formatMoney(mrr, currency) },
    { label: 'Total revenue', value: formatMoney(accrued_total + one_time_accrued_total, currency) },
  ];
  return (
    <SimpleGrid cols={2}>
      {numbers.map((number) => (
        <Paper key={number.label} withBorder p="sm" radius="md" role="group" aria-label={number.label}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {number.label}
          </Text>
          <Text size="xl" fw={700}>
            {number.value}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}

function RevenueChart({ figures }: { figures: Loaded<CustomerFigures> }) {
  const colors = useChartColors();
  if (figures.status !== 'loaded') return figures.status === 'loading' ? <Skeleton height={REVENUE_CHART_HEIGHT} /> : null;
  const { timeline, currency } = figures.data;
  const props: ApexChartProps = {
    type: 'bar',
    height: REVENUE_CHART_HEIGHT,
    width: '100%',
    series: [
      { name: 'MRR', data: timeline.map((point) => point.metrics.mrr) },
      { name: 'One-time revenue', data: timeline.map((point) => point.metrics.one_time_revenue) },
    ],
    options: {
      ...apexLook(colors),
      chart: { toolbar: { show: false }, zoom: { enabled: false }, background: 'transparent', fontFamily: 'inherit', stacked: true, foreColor: colors.text },
      dataLabels: { enabled: false },
      legend: { position: 'top' },
      xaxis: { categories: timeline.map((point) => point.date.slice(0, 7)), labels: { rotate: 0, hideOverlappingLabels: true } },
      yaxis: { labels: { formatter: (value: number) => formatMoney(value, currency, 0, true) } },
      tooltip: { ...apexLook(colors).tooltip, y: { formatter: (value: number) => formatMoney(value, currency) } },
    },
  };
  return (
    <Stack gap={4} role="figure" aria-label="Revenue timeline">
      <Title order={3} size="h5">
        Revenue timeline
      </Title>
      {timeline.length === 0 ? <Text c="dimmed">No revenue yet</Text> : <LazyApexChart {...props} />}
    </Stack>
  );
}

function Payments({ customerId, currency, services }: { customerId: string; currency: string | undefined; services: CustomerServices }) {
  const [order, setOrder] = useState<PaymentsOrder>(storedPaymentsOrder);
  const [limit, setLimit] = useState(TIMELINE_DEFAULT_LIMIT);
  // A new order or limit asks again (the table stays, dimmed, until the answer comes); the
  // request of an order left meanwhile is aborted.
  const paymentsQuery = useQuery({
    queryKey: apiKey('/customers/{id}/timeline', { id: customerId, order, limit, currency }),
    queryFn: ({ signal }): Promise<CustomerPayment[]> => services.payments(customerId, { order, limit, ...(currency ? { currency } : {}) }, signal),
    placeholderData: keepPreviousData,
  });
  const payments = queryState(paymentsQuery);
  const previous = paymentsQuery.isPlaceholderData;
  // A payment row opens the payment's edit drawer (edit, attribute values, delete).
  const [openPaymentId, setOpenPaymentId] = useState<string | null>(null);

  const toggleOrder = () => {
    const next = order === 'desc' ? 'asc' : 'desc';
    storePaymentsOrder(next);
    setOrder(next);
  };

  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Payments timeline
      </Title>
      {payments.status === 'loading' && <Skeleton height={120} />}
      {payments.status === 'failed' && <Text c="dimmed">We could not fetch the payments.</Text>}
      {payments.status === 'loaded' && (
        <>
          {/* Fits the drawer at 60 % of a laptop screen: headers wrap, product and invoice are cut
              with an ellipsis (whole in their title); a narrower drawer scrolls the table itself. */}
          <Table.ScrollContainer minWidth={560} type="native">
            <Table striped highlightOnHover fz="xs" horizontalSpacing={6} aria-label="Payments" aria-busy={previous} style={previous ? { opacity: 0.6 } : undefined}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th style={NO_WRAP} aria-sort={order === 'asc' ? 'ascending' : 'descending'}>
                    <UnstyledButton onClick={toggleOrder} aria-label={order === 'desc' ? 'Started at, newest first: show oldest first' : 'Started at, oldest first: show newest first'}>
                      <Group gap={4} wrap="nowrap">
                        <Text inherit fw={700}>
                          Started at
                        </Text>
                        {order === 'desc' ? <IconArrowDown size={14} /> : <IconArrowUp size={14} />}
                      </Group>
                    </UnstyledButton>
                  </Table.Th>
                  <Table.Th>Ended at</Table.Th>
                  <Table.Th>Product</Table.Th>
                  <Table.Th ta="right">Duration (month)</Table.Th>
                  <Table.Th ta="right">Total value</Table.Th>
                  <Table.Th ta="right">Monthly amount</Table.Th>
                  <Table.Th>Invoice number</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {payments.data.length === 0 ? (
                  <Table.Tr>
                    <Table.Td colSpan={7}>
                      <Text c="dimmed" ta="center">
                        No payments
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ) : (
                  payments.data.map((payment) => (
                    <Table.Tr key={payment.id} onClick={() => setOpenPaymentId(payment.id)} style={{ cursor: 'pointer' }}>
                      <Table.Td style={NO_WRAP}>
                        <Anchor component="button" type="button" fz="xs" onClick={() => setOpenPaymentId(payment.id)} aria-label={`Open payment started ${payment.started_at}`}>
                          {payment.started_at}
                        </Anchor>
                      </Table.Td>
                      <Table.Td style={NO_WRAP}>{formatEnd(payment.ended_at)}</Table.Td>
                      <Truncated text={payment.items.map((item) => `${item.product_key}${item.quantity !== 1 ? ` × ${formatNumber(item.quantity)}` : ''}`).join(', ')} maxWidth={160} />
                      <Table.Td ta="right">{formatDuration(payment.duration_in_months)}</Table.Td>
                      <Table.Td ta="right" style={NO_WRAP} title={payment.original_currency !== payment.currency && payment.original_total_value !== null ? formatMoney(payment.original_total_value, payment.original_currency, 2) : undefined}>
                        {formatPaymentMoney(payment.total_value, payment.currency)}
                      </Table.Td>
                      <Table.Td ta="right" style={NO_WRAP}>
                        {formatPaymentMoney(payment.monthly_amount, payment.currency)}
                      </Table.Td>
                      <Truncated text={payment.invoice_number ?? '–'} maxWidth={110} />
                    </Table.Tr>
                  ))
                )}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {payments.data.length === limit && limit < ALL_PAYMENTS_LIMIT && (
            <Button variant="light" onClick={() => setLimit(ALL_PAYMENTS_LIMIT)} style={{ alignSelf: 'flex-start' }}>
              Show all payments
            </Button>
          )}
        </>
      )}
      <EditPaymentDrawer paymentId={openPaymentId} onClose={() => setOpenPaymentId(null)} />
    </Stack>
  );
}

const NO_WRAP = { whiteSpace: 'nowrap' } as const;

/** A cell cut to `maxWidth` with an ellipsis; the whole text in its title. */
function Truncated({ text, maxWidth }: { text: string; maxWidth: number }) {
  return (
    <Table.Td title={text} style={{ maxWidth, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
      {text}
    </Table.Td>
  );
}

function ParentInfo({ parentId, services, onOpen }: { parentId: string | null; services: CustomerServices; onOpen: (id: string) => void }) {
  const { data: parent } = useQuery({
    queryKey: apiKey('/customers/{id}', { id: parentId }),
    enabled: parentId !== null,
    queryFn: ({ signal }) => services.customer(parentId ?? '', PARENT_FETCH_FAILURE, signal),
    meta: { failureToast: PARENT_FETCH_FAILURE },
  });
  if (!parentId) return null;
  return (
    <Group gap="xs">
      <Text fw={600}>Parent:</Text>
      {parent ? (
        <Anchor component="button" type="button" onClick={() => onOpen(parent.id)}>
          {parent.name}
        </Anchor>
      ) : (
        <Skeleton height={16} width={120} />
      )}
    </Group>
  );
}

function Children({ ids, services, onOpen }: { ids: string[]; services: CustomerServices; onOpen: (id: string) => void }) {
  const children = queryState(
    useQuery({
      queryKey: apiKey('/customer/show_batch', { ids }),
      enabled: ids.length > 0,
      queryFn: ({ signal }) => services.many(ids, signal),
      meta: { failureToast: CHILDREN_FETCH_FAILURE },
    }),
  );
  if (ids.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {ids.length} children
      </Title>
      {children.status === 'loading' && <Skeleton height={80} />}
      {children.status === 'loaded' && (
        <Table fz="sm" aria-label="Children">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th ta="right">MRR</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {children.data.map((child) => {
              const mrr = child.metrics.find((metric) => metric.kind === 'mrr');
              return (
                <Table.Tr key={child.id}>
                  <Table.Td>
                    <Anchor component="button" type="button" onClick={() => onOpen(child.id)}>
                      {child.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{mrr ? formatMoney(mrr.value, child.currency) : '–'}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
