import { Alert, Anchor, Badge, Button, Group, Modal, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconChartDots3 } from '@tabler/icons-react';
import { DETAILS_DIALOG_WIDTH_PX } from '../../../models/constants';
import { cohortColumnLabel } from '../charts/CohortTable';
import { formatMoney, formatNumber, formatValue, NO_VALUE, valueUnitOf } from '../charts/format';
import type { ValueFormat } from '../charts/format';
import { LazyApexChart } from '../charts/LazyApexChart';
import { apexLook, useChartColors } from '../charts/chartColors';
import type { ApexChartProps } from '../charts/chartOptions';
import type { ReportSection, SectionPointInfo } from '../charts/sectionModel';
import { DETAILS_FETCH_FAILURE } from './detailsApi';
import type { DetailsItem, DetailsPayload, SectionDetails, TopCustomer } from './detailsApi';

export type DetailsState = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; details: SectionDetails };

export interface SectionDetailsDialogProps {
  /** The clicked point and its section; null: closed. */
  target: { section: ReportSection; point: SectionPointInfo } | null;
  state: DetailsState;
  onClose: () => void;
  /** A customer's name was clicked. */
  onOpenCustomer: (customerId: string) => void;
  /** 'Explore customers' was clicked; without it (or for a cohort cell, or rows that are not customers' subscriptions) there is no such button. */
  onExplore?: () => void;
}

/** Whether the point's customers can be explored: its rows are customers' subscriptions, not a cohort cell's. */
export function explorable(point: SectionPointInfo, details: SectionDetails): boolean {
  return point.column === undefined && details.items.length > 0 && details.items.every((item) => item.underlying_data === 'subscriptions');
}

const ROWS_CHART_HEIGHT = 260;

/** 'MRR, 2026-02'; a cohort cell: 'Customer cohorts, 2025-09 initial' or '..., 2025-09 month 3'. */
export function detailsTitle(section: ReportSection, point: SectionPointInfo): string {
  const labelOf = (day: string) => section.periods.find((period) => period.first_day === day)?.label ?? day;
  if (point.column === undefined) return `${section.title}, ${labelOf(point.time)}`;
  const cohort = point.cohortDate ? labelOf(point.cohortDate) : point.seriesName;
  return `${section.title}, ${cohort} ${point.column === 'initial' ? 'initial' : cohortColumnLabel(section.resolution, point.column)}`;
}

/**
 * The section details dialog (1200 px): the customers, costs or deals behind a clicked point,
 * with a bar chart of them (zeros hidden), the rest summed in one row and the total, so the
 * rows visibly add up to the number on the chart; for a rate, the calculation behind it.
 */
export function SectionDetailsDialog({ target, state, onClose, onOpenCustomer, onExplore }: SectionDetailsDialogProps) {
  return (
    <Modal opened={target !== null} onClose={onClose} size={DETAILS_DIALOG_WIDTH_PX} title={target ? detailsTitle(target.section, target.point) : ''} closeButtonProps={{ 'aria-label': 'Close details' }}>
      {target && state.status === 'loading' && (
        <Stack data-testid="details-skeleton">
          <Skeleton height={ROWS_CHART_HEIGHT} />
          <Skeleton height={24} />
          <Skeleton height={24} />
          <Skeleton height={24} />
        </Stack>
      )}
      {target && state.status === 'failed' && (
        <Alert color="red" variant="light" role="alert">
          {DETAILS_FETCH_FAILURE}
        </Alert>
      )}
      {target && state.status === 'ready' && (
        <Stack gap="xl">
          {onExplore && explorable(target.point, state.details) && (
            <Group justify="flex-end">
              <Button variant="light" size="xs" leftSection={<IconChartDots3 size={16} />} onClick={onExplore}>
                Explore customers
              </Button>
            </Group>
          )}
          {state.details.items.length === 0 && <Text c="dimmed">Nothing to show for this point.</Text>}
          {state.details.items.map((item, k) => (
            <ItemDetails
              key={`${item.name}-${k}`}
              item={item}
              // The number the chart shows for the clicked series (the details are computed again).
              shown={state.details.items.length === 1 ? target.point.value : item.value}
              details={state.details}
              section={target.section}
              onOpenCustomer={onOpenCustomer}
            />
          ))}
        </Stack>
      )}
    </Modal>
  );
}

const nounOf = (underlying: string) => (underlying === 'costs' ? 'costs' : underlying === 'deals' ? 'deals' : 'customers');

function ItemDetails({ item, shown, details, section, onOpenCustomer }: { item: DetailsItem; shown: number | null; details: SectionDetails; section: ReportSection; onOpenCustomer: (id: string) => void }) {
  const pointFormat: ValueFormat = { unit: valueUnitOf(details.unit), currency: details.currency, decimal: section.decimal };
  const money = (value: number) => formatMoney(value, details.currency, 2);
  const payload = item.details;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={3} size="h5">
          {item.name}
        </Title>
        <Group gap="xs">
          <Paper withBorder px="sm" py={4} radius="md" role="group" aria-label="Value on the chart">
            <Text size="sm">
              Value on the chart: <strong>{formatValue(shown, pointFormat)}</strong>
            </Text>
          </Paper>
          <Paper withBorder px="sm" py={4} radius="md" role="group" aria-label="Listed total">
            <Text size="sm">
              {formatNumber(payload.total_count)} {nounOf(item.underlying_data)}: <strong>{money(payload.total_value)}</strong>
            </Text>
          </Paper>
        </Group>
      </Group>
      <RowsChart payload={payload} underlying={item.underlying_data} currency={details.currency} />
      {item.underlying_data === 'costs' ? (
        <CostsTable payload={payload} money={money} />
      ) : item.underlying_data === 'deals' ? (
        <DealsTable payload={payload} money={money} />
      ) : (
        <CustomersTable label="Customers" rows={payload.top_customers} rest={payload.rest} totalCount={payload.total_count} totalValue={payload.total_value} money={money} onOpenCustomer={onOpenCustomer} />
      )}
      {payload.calculation_details.length > 0 && <Calculation entries={payload.calculation_details} currency={details.currency} />}
      {payload.additional_lists.map((list) => (
        <Stack key={list.name} gap={4}>
          <Title order={4} size="h6">
            {list.name}
          </Title>
          <CustomersTable label={list.name} rows={list.top_customers} rest={list.rest} totalCount={list.total_count} totalValue={list.total_value} money={money} onOpenCustomer={onOpenCustomer} />
        </Stack>
      ))}
    </Stack>
  );
}

/** Rows the bar chart draws. */
export const CHART_BARS = 10;

/**
 * The largest rows as bars, zero values hidden. The others are not a bar: summed, they dwarf
 * every customer's bar (838 customers of MRR against the largest one's 2 %); the table lists
 * them as 'Other N' and the caption says how many the chart leaves out.
 */
export function rowsChartBars(payload: DetailsPayload, underlying: string): { name: string; value: number }[] {
  const rows = underlying === 'costs' ? (payload.top_costs ?? []) : underlying === 'deals' ? (payload.top_deals ?? []) : payload.top_customers;
  return rows
    .filter((row) => row.value !== 0)
    .slice(0, CHART_BARS)
    .map((row) => ({ name: row.name, value: row.value }));
}

function RowsChart({ payload, underlying, currency }: { payload: DetailsPayload; underlying: string; currency: string }) {
  const colors = useChartColors();
  const bars = rowsChartBars(payload, underlying);
  if (bars.length === 0) return null;
  const listed = underlying === 'costs' ? (payload.top_costs ?? []).length : underlying === 'deals' ? (payload.top_deals ?? []).length : payload.top_customers.length;
  const all = listed + payload.rest.count;
  const props: ApexChartProps = {
    type: 'bar',
    height: ROWS_CHART_HEIGHT,
    width: '100%',
    series: [{ name: 'Value', data: bars.map((bar) => bar.value) }],
    options: {
      ...apexLook(colors),
      chart: { toolbar: { show: false }, zoom: { enabled: false }, background: 'transparent', fontFamily: 'inherit', foreColor: colors.text },
      plotOptions: { bar: { distributed: false, columnWidth: '60%' } },
      dataLabels: { enabled: false },
      legend: { show: false },
      xaxis: { categories: bars.map((bar) => bar.name), labels: { rotate: -30, trim: true, hideOverlappingLabels: false } },
      yaxis: { labels: { formatter: (value: number) => formatMoney(value, currency, 0, true) } },
      tooltip: { ...apexLook(colors).tooltip, y: { formatter: (value: number) => formatMoney(value, currency, 2) } },
    },
  };
  return (
    <Stack gap={0} role="figure" aria-label={`Chart of ${bars.length} values`}>
      <LazyApexChart {...props} />
      {all > bars.length && (
        <Text size="xs" c="dimmed" ta="center">
          The {bars.length} largest of {formatNumber(all)}; the table lists the rest.
        </Text>
      )}
    </Stack>
  );
}

function RestAndTotal({ columns, rest, totalCount, totalValue, noun, money }: { columns: number; rest: DetailsPayload['rest']; totalCount: number; totalValue: number; noun: string; money: (value: number) => string }) {
  return (
    <>
      {rest.count > 0 && (
        <Table.Tr>
          <Table.Td colSpan={columns - 1}>
            <Text c="dimmed" size="sm">
              Other {rest.count} {noun}
            </Text>
          </Table.Td>
          <Table.Td ta="right">{money(rest.value)}</Table.Td>
        </Table.Tr>
      )}
      <Table.Tr fw={700}>
        <Table.Td colSpan={columns - 1}>
          Total ({formatNumber(totalCount)} {noun})
        </Table.Td>
        <Table.Td ta="right" aria-label="Total value">
          {money(totalValue)}
        </Table.Td>
      </Table.Tr>
    </>
  );
}

function CustomersTable({
  label,
  rows,
  rest,
  totalCount,
  totalValue,
  money,
  onOpenCustomer,
}: {
  label: string;
  rows: TopCustomer[];
  rest: DetailsPayload['rest'];
  totalCount: number;
  totalValue: number;
  money: (value: number) => string;
  onOpenCustomer: (id: string) => void;
}) {
  if (totalCount === 0) return <Text c="dimmed">No customers</Text>;
  // Before and after only where some customer's MRR moved (a stock lists them equal).
  const movements = rows.some((row) => (row.movement_from?.monthly_amount ?? 0) !== (row.movement_to?.monthly_amount ?? 0));
  const extra = rows[0]?.additional_values.map((value) => value.name) ?? [];
  const columns = 3 + (movements ? 2 : 0) + extra.length;
  return (
    <Table striped highlightOnHover fz="sm" aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Customer</Table.Th>
          <Table.Th>Products</Table.Th>
          {movements && <Table.Th ta="right">MRR before</Table.Th>}
          {movements && <Table.Th ta="right">MRR after</Table.Th>}
          {extra.map((name) => (
            <Table.Th key={name} ta="right">
              {name}
            </Table.Th>
          ))}
          <Table.Th ta="right">Value</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.id}>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <Anchor component="button" type="button" size="sm" onClick={() => onOpenCustomer(row.id)}>
                  {row.name}
                </Anchor>
                {row.deleted && (
                  <Badge size="xs" color="red" variant="light">
                    deleted
                  </Badge>
                )}
              </Group>
            </Table.Td>
            <Table.Td>{row.subscriptions.map((s) => s.product_key).join(', ') || NO_VALUE}</Table.Td>
            {movements && <Table.Td ta="right">{row.movement_from ? money(row.movement_from.monthly_amount) : NO_VALUE}</Table.Td>}
            {movements && <Table.Td ta="right">{row.movement_to ? money(row.movement_to.monthly_amount) : NO_VALUE}</Table.Td>}
            {extra.map((name) => {
              const value = row.additional_values.find((entry) => entry.name === name)?.value;
              return (
                <Table.Td key={name} ta="right">
                  {value === null || value === undefined ? NO_VALUE : money(value)}
                </Table.Td>
              );
            })}
            <Table.Td ta="right">{money(row.value)}</Table.Td>
          </Table.Tr>
        ))}
        <RestAndTotal columns={columns} rest={rest} totalCount={totalCount} totalValue={totalValue} noun="customers" money={money} />
      </Table.Tbody>
    </Table>
  );
}

function CostsTable({ payload, money }: { payload: DetailsPayload; money: (value: number) => string }) {
  const costs = payload.top_costs ?? [];
  if (payload.total_count === 0) return <Text c="dimmed">No costs</Text>;
  return (
    <Table striped highlightOnHover fz="sm" aria-label="Costs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Date</Table.Th>
          <Table.Th>Invoice number</Table.Th>
          <Table.Th ta="right">Value</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {costs.map((cost) => (
          <Table.Tr key={cost.id}>
            <Table.Td>{cost.name || NO_VALUE}</Table.Td>
            <Table.Td>{cost.date}</Table.Td>
            <Table.Td>{cost.invoice_number ?? NO_VALUE}</Table.Td>
            <Table.Td ta="right">{money(cost.value)}</Table.Td>
          </Table.Tr>
        ))}
        <RestAndTotal columns={4} rest={payload.rest} totalCount={payload.total_count} totalValue={payload.total_value} noun="costs" money={money} />
      </Table.Tbody>
    </Table>
  );
}

function DealsTable({ payload, money }: { payload: DetailsPayload; money: (value: number) => string }) {
  const deals = payload.top_deals ?? [];
  if (payload.total_count === 0) return <Text c="dimmed">No deals</Text>;
  return (
    <Table striped highlightOnHover fz="sm" aria-label="Deals">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Stage</Table.Th>
          <Table.Th ta="right">Days in stage</Table.Th>
          <Table.Th>Owner</Table.Th>
          <Table.Th ta="right">Value</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {deals.map((deal) => (
          <Table.Tr key={deal.id}>
            <Table.Td>
              {deal.external_url ? (
                <Anchor href={deal.external_url} target="_blank" rel="noreferrer" size="sm">
                  {deal.name}
                </Anchor>
              ) : (
                deal.name
              )}
            </Table.Td>
            <Table.Td>{deal.stage}</Table.Td>
            <Table.Td ta="right">{deal.days_since_moved_on}</Table.Td>
            <Table.Td>{deal.owner_name ?? NO_VALUE}</Table.Td>
            <Table.Td ta="right">{money(deal.value)}</Table.Td>
          </Table.Tr>
        ))}
        <RestAndTotal columns={5} rest={payload.rest} totalCount={payload.total_count} totalValue={payload.total_value} noun="deals" money={money} />
      </Table.Tbody>
    </Table>
  );
}

/** How a calculation entry is shown, from its name: counts, rates and ratios, else money. */
export function calculationFormat(name: string, currency: string): ValueFormat {
  if (/quick ratio|^ltv$/i.test(name)) return /ltv/i.test(name) ? { unit: 'minor_units', currency, decimal: true } : { unit: 'ratio', decimal: true };
  if (/rate|retention|share/i.test(name)) return { unit: 'fraction', decimal: true };
  if (/customers|^paying at|^months$/i.test(name)) return { unit: 'count' };
  return { unit: 'minor_units', currency, decimal: true };
}

function Calculation({ entries, currency }: { entries: DetailsPayload['calculation_details']; currency: string }) {
  return (
    <Stack gap={4}>
      <Title order={4} size="h6">
        Calculation
      </Title>
      <Table fz="sm" aria-label="Calculation" withRowBorders={false}>
        <Table.Tbody>
          {entries.map((entry) => (
            <Table.Tr key={entry.name}>
              <Table.Td>{entry.name}</Table.Td>
              <Table.Td ta="right">{formatValue(entry.value, calculationFormat(entry.name, currency))}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
