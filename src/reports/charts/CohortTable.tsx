import { alpha, Table, Text, UnstyledButton, useComputedColorScheme, useMantineTheme } from '@mantine/core';
import type { ReactNode } from 'react';
import { COHORT_INITIAL_LABEL, COHORT_TABLE_MAX_HEIGHT_PX, MONEY_CHART_CATEGORY } from '../../../models/constants';
import { decimalsOf, formatMoney, formatNumber, formatWholePercent, NO_VALUE } from './format';
import { cohortModelOf } from './sectionModel';
import type { ReportSection, SectionDataPoint, SectionPointInfo, SectionSegment } from './sectionModel';

export interface CohortTableProps {
  section: ReportSection;
  /** The segment whose cohorts are listed (one row per series). */
  segment: SectionSegment;
  onPointClick?: (point: SectionPointInfo) => void;
}

/** Strongest tint of a cell (a share of 100 % or more); the weakest non-empty one is MIN. */
const MAX_TINT = 0.85;
const MIN_TINT = 0.06;
/** Above this tint the cell's text turns white to stay readable. */
const LIGHT_TEXT_FROM_TINT = 0.5;

/** Tint of a cohort cell: proportional to its share, clamped to 0..100 %. */
export function cohortCellTint(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return 0;
  const share = Math.min(Math.max(value, 0), 1);
  return MIN_TINT + share * (MAX_TINT - MIN_TINT);
}

/** 'month 0', 'quarter 2': the heading of period k after the cohort's own. */
export function cohortColumnLabel(resolution: string, k: number): string {
  return `${resolution === 'quarter' || resolution === 'year' || resolution === 'week' ? resolution : 'month'} ${k}`;
}

/**
 * A cohort section as a table: a row per cohort, 'initial' (the cohort's new MRR, or its
 * customers), then its share of 'initial' at the end of period 0 ('month 0': the cohort period's
 * own end), 1, 2 ... as whole-number percentages, tinted by value. At most 600 px high; it
 * scrolls both ways with the headings and the cohort column kept in view.
 */
export function CohortTable({ section, segment, onPointClick }: CohortTableProps) {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const { rows, columns } = cohortModelOf(segment);
  const money = section.data_categories[0] === MONEY_CHART_CATEGORY || section.definition_id === 'mrr_cohorts';
  const decimals = decimalsOf(section.decimal);
  const tintBase = theme.colors.brand?.[dark ? 5 : 6] ?? theme.colors.blue[6];

  const initialText = (point: SectionDataPoint | null): string => {
    if (!point) return NO_VALUE;
    if (money && section.currency) return formatMoney(point.amount ?? point.value ?? 0, section.currency, decimals);
    return formatNumber(point.count ?? point.value ?? 0, 0);
  };

  const clickable = (content: ReactNode, label: string, info: SectionPointInfo): ReactNode => {
    if (!onPointClick) return content;
    const handleClick = () => onPointClick(info);
    return (
      <UnstyledButton onClick={handleClick} aria-label={label} style={{ color: 'inherit', font: 'inherit', width: '100%', textAlign: 'inherit' }}>
        {content}
      </UnstyledButton>
    );
  };

  const pointInfo = (row: (typeof rows)[number], point: SectionDataPoint, column: 'initial' | number): SectionPointInfo => ({
    sectionId: section.id,
    segmentId: segment.id,
    seriesName: row.series.name,
    ...(row.series.segment_value !== undefined ? { segmentValue: row.series.segment_value } : {}),
    ...(row.series.component !== undefined ? { component: row.series.component } : {}),
    time: point.time,
    value: point.value,
    column,
    cohortDate: row.cohortDate,
  });

  const columnLabels = Array.from({ length: columns }, (_, k) => cohortColumnLabel(section.resolution, k));
  const sticky = { position: 'sticky', left: 0, zIndex: 1, background: 'var(--mantine-color-body)' } as const;

  return (
    <div style={{ maxHeight: COHORT_TABLE_MAX_HEIGHT_PX, overflow: 'auto' }} data-testid="cohort-table-scroll">
      <Table stickyHeader striped={false} withColumnBorders={false} verticalSpacing={6} horizontalSpacing="xs" fz="sm" style={{ whiteSpace: 'nowrap' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th style={{ ...sticky, zIndex: 3 }}>Cohort</Table.Th>
            <Table.Th ta="right">{COHORT_INITIAL_LABEL}</Table.Th>
            {columnLabels.map((label) => (
              <Table.Th key={label} ta="center">
                {label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              <Table.Th scope="row" style={sticky} fw={500}>
                {row.label}
              </Table.Th>
              <Table.Td ta="right">
                {row.initial ? clickable(initialText(row.initial), `${row.label} ${COHORT_INITIAL_LABEL}`, pointInfo(row, row.initial, 'initial')) : NO_VALUE}
              </Table.Td>
              {columnLabels.map((label, k) => {
                const point = row.cells[k];
                if (!point) return <Table.Td key={label} />;
                const tint = cohortCellTint(point.value);
                const text = point.value === null ? NO_VALUE : formatWholePercent(point.value);
                return (
                  <Table.Td
                    key={label}
                    ta="center"
                    data-tint={tint.toFixed(2)}
                    style={{ background: tint > 0 ? alpha(tintBase, tint) : undefined, color: tint > LIGHT_TEXT_FROM_TINT ? theme.white : undefined }}
                  >
                    {clickable(<Text span inherit>{text}</Text>, `${row.label} ${label}`, pointInfo(row, point, k))}
                  </Table.Td>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}
