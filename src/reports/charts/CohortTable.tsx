import { Table, Text, UnstyledButton, useComputedColorScheme, useMantineTheme, type MantineTheme } from '@mantine/core';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
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
const MAX_TINT = 1;
const MIN_TINT = 0.04;

/**
 * Where a cohort cell sits on the colour ramp (0: no colour): rising with its share, clamped to
 * 0..100 %. Squared, so the shares most cohorts keep (60-100 %) spread over most of the ramp.
 */
export function cohortCellTint(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return 0;
  const share = Math.min(Math.max(value, 0), 1);
  return MIN_TINT + share * share * (MAX_TINT - MIN_TINT);
}

type Rgb = readonly [number, number, number];

function rgbOf(hex: string): Rgb {
  const digits = hex.replace('#', '');
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits.slice(0, 6);
  return [0, 2, 4].map((at) => parseInt(full.slice(at, at + 2), 16)) as unknown as Rgb;
}

const hexOf = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG 2 relative luminance of an sRGB colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as unknown as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const DARK_TEXT = '#000000';
const LIGHT_TEXT = '#ffffff';

/**
 * A cell's background on the ramp of its scheme (light: a pale to a deep brand colour; dark:
 * the card's grey to a saturated brand colour, so higher shares stand out on a dark page) and
 * the text colour of the two that contrasts more with it (always 4.5:1 or more).
 */
export function cohortCellColors(tint: number, dark: boolean, theme: MantineTheme): { background: string; color: string } {
  const brand = theme.colors.brand ?? theme.colors.blue;
  const [low, high] = dark ? [theme.colors.dark[6], brand[6]] : [brand[0], brand[7]];
  const from = rgbOf(low);
  const to = rgbOf(high);
  const background = hexOf(from.map((c, k) => c + ((to[k] ?? c) - c) * tint) as unknown as Rgb);
  const color = contrastRatio(background, LIGHT_TEXT) >= contrastRatio(background, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
  return { background, color };
}

/** Which edges have more table beyond them (their shadow says so). */
interface Overflow {
  right: boolean;
  bottom: boolean;
  left: boolean;
}

/** Watches a scroll box: whether it can scroll further right, down or back left. */
function useOverflow() {
  const ref = useRef<HTMLDivElement>(null);
  const [overflow, setOverflow] = useState<Overflow>({ right: false, bottom: false, left: false });
  const measure = useCallback(() => {
    const box = ref.current;
    if (!box) return;
    const next = {
      right: box.scrollLeft + box.clientWidth < box.scrollWidth - 1,
      bottom: box.scrollTop + box.clientHeight < box.scrollHeight - 1,
      left: box.scrollLeft > 1,
    };
    setOverflow((current) => (current.right === next.right && current.bottom === next.bottom && current.left === next.left ? current : next));
  }, []);
  useEffect(() => {
    measure();
    const box = ref.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => observer.disconnect();
  }, [measure]);
  return { ref, overflow, measure };
}

const edgeShadow = (side: 'right' | 'bottom' | 'left', dark: boolean) => {
  const shade = dark ? 'rgba(0, 0, 0, 0.55)' : 'rgba(15, 23, 42, 0.16)';
  const direction = side === 'right' ? 'to left' : side === 'left' ? 'to right' : 'to top';
  return {
    position: 'absolute',
    pointerEvents: 'none',
    zIndex: 4,
    background: `linear-gradient(${direction}, ${shade}, transparent)`,
    ...(side === 'bottom' ? { left: 0, right: 0, bottom: 0, height: 18 } : { top: 0, bottom: 0, width: 18, [side]: 0 }),
  } as const;
};

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
  const { ref, overflow, measure } = useOverflow();

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
  // The card's own background, so the kept-in-view cohort column and headings hide what scrolls under them.
  const sticky = { position: 'sticky', left: 0, zIndex: 1, background: dark ? theme.colors.dark[6] : theme.white } as const;

  return (
    <div style={{ position: 'relative' }}>
    <div
      ref={ref}
      onScroll={measure}
      style={{ maxHeight: COHORT_TABLE_MAX_HEIGHT_PX, overflow: 'auto', scrollbarWidth: 'thin', overscrollBehaviorX: 'contain' }}
      data-testid="cohort-table-scroll"
      data-more-right={overflow.right || undefined}
      data-more-below={overflow.bottom || undefined}
      tabIndex={0}
      role="region"
      aria-label={`Cohort table: ${section.title || 'cohorts'}`}
    >
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
                const colors = tint > 0 ? cohortCellColors(tint, dark, theme) : null;
                const text = point.value === null ? NO_VALUE : formatWholePercent(point.value);
                return (
                  <Table.Td
                    key={label}
                    ta="center"
                    data-tint={tint.toFixed(2)}
                    style={colors ? { background: colors.background, color: colors.color } : undefined}
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
      {overflow.right && <div aria-hidden data-testid="cohort-more-right" style={edgeShadow('right', dark)} />}
      {overflow.left && <div aria-hidden style={edgeShadow('left', dark)} />}
      {overflow.bottom && <div aria-hidden data-testid="cohort-more-below" style={edgeShadow('bottom', dark)} />}
    </div>
  );
}
