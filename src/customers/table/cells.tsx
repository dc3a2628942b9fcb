import { Anchor, Group, Loader, Text } from '@mantine/core';
import { useSelector } from '@xstate/react';
import type { MouseEvent } from 'react';
import { Link } from 'wouter';
import { CALCULATING_LABEL } from '../../../machines/columnRecalculation/messages';
import { isCalculating } from '../../../machines/columnRecalculation/selectors';
import type { ColumnRecalculationActorRef } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import { formatMoney, formatNumber, NO_VALUE } from '../../reports/charts/format';
import type { CustomerColumn, CustomerRow } from '../customerListApi';

const SEGMENT_PREFIX = 'customer_segment:';
const DEFINITION_PREFIX = 'definition:';
/** Calculated values show up to this many decimals. */
const CALCULATED_DECIMALS = 2;

const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** 'Jan 5, 2025' (the day in UTC, as the server stores it). */
export function formatDate(value: string | null | undefined): string {
  if (!value) return NO_VALUE;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? NO_VALUE : dateFormat.format(date);
}

function formatCalculated(value: number): string {
  const rounded = Math.round(value * 10 ** CALCULATED_DECIMALS) / 10 ** CALCULATED_DECIMALS;
  return Number.isInteger(rounded) ? formatNumber(rounded) : formatNumber(rounded, CALCULATED_DECIMALS);
}

/** The text of a row's cell in a column. */
export function cellText(column: CustomerColumn, row: CustomerRow): string {
  if (column.id.startsWith(SEGMENT_PREFIX)) {
    const segmentId = column.id.slice(SEGMENT_PREFIX.length);
    return row.segments.find((entry) => entry.segment.id === segmentId)?.value ?? NO_VALUE;
  }
  if (column.id.startsWith(DEFINITION_PREFIX)) {
    const definitionId = column.id.slice(DEFINITION_PREFIX.length);
    const value = row.metrics.find((entry) => 'definition_id' in entry && entry.definition_id === definitionId)?.value;
    return typeof value === 'number' ? formatCalculated(value) : NO_VALUE;
  }
  if (column.id === 'mrr' || column.id === 'total') {
    const value = row.metrics.find((entry) => 'kind' in entry && entry.kind === column.id)?.value;
    return typeof value === 'number' ? formatMoney(value, row.currency) : NO_VALUE;
  }
  if (column.id === 'name') return row.name;
  if (column.id === 'public_id') return row.public_id ?? NO_VALUE;
  if (column.id === 'added_at') return formatDate(row.added_at);
  return NO_VALUE;
}

/** Numbers line up on the right. */
export function isNumeric(column: CustomerColumn): boolean {
  return column.data_type === 'money' || column.data_type === 'number';
}

/** The customer's name: a link to its URL (the row opens it too). */
export function NameCell({ row }: { row: CustomerRow }) {
  return (
    <Anchor component={Link} href={`/customers/${row.id}`} fw={500} onClick={(event: MouseEvent) => event.stopPropagation()}>
      {row.name}
    </Anchor>
  );
}

/** A calculated column's header: 'Calculating:' with a spinner while its values are computed. */
export function CalculatedTitle({ name, actor }: { name: string; actor: ColumnRecalculationActorRef }) {
  const calculating = useSelector(actor, isCalculating);
  if (!calculating) return <>{name}</>;
  return (
    <Group gap={6} wrap="nowrap" aria-busy>
      <Loader size={12} aria-hidden />
      <Text inherit span>
        {CALCULATING_LABEL} {name}
      </Text>
    </Group>
  );
}
