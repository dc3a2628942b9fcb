import { useState } from 'react';
import type { MouseEvent } from 'react';
import { Anchor, Box, ColorSwatch, Group, Text, UnstyledButton } from '@mantine/core';
import { isModifierClick, isSeriesShown, LEGEND_VISIBLE_ITEMS, moreSegmentsLabel, nextLegendSelection } from './legendSelection';
import type { LegendSelection } from './legendSelection';

export interface LegendItem {
  key: string;
  name: string;
  color: string;
  /** Extra text on hover, e.g. the values collected under 'Other'. */
  title?: string;
}

export interface ChartLegendProps {
  items: readonly LegendItem[];
  selection: LegendSelection;
  onSelectionChange: (selection: LegendSelection) => void;
  /** Entries shown before 'N segment(s) more'. */
  visibleItems?: number;
}

/**
 * The series of a chart: a click shows only that series, a second click shows all again;
 * Ctrl, Cmd or Shift click adds or removes one (legendSelection.ts). Past `visibleItems`
 * entries the rest fold behind 'N segment(s) more'.
 */
export function ChartLegend({ items, selection, onSelectionChange, visibleItems = LEGEND_VISIBLE_ITEMS }: ChartLegendProps) {
  const [expanded, setExpanded] = useState(false);
  const keys = items.map((item) => item.key);
  const listed = expanded ? items : items.slice(0, visibleItems);
  const hidden = items.length - listed.length;

  const handleItemClick = (key: string) => (event: MouseEvent<HTMLButtonElement>) => {
    onSelectionChange(nextLegendSelection(selection, { key, modifier: isModifierClick(event) }, keys));
  };
  const handleMoreClick = () => setExpanded(true);

  return (
    <Group gap="xs" wrap="wrap" role="group" aria-label="Legend">
      {listed.map((item) => {
        const shown = isSeriesShown(selection, item.key);
        return (
          <UnstyledButton
            key={item.key}
            onClick={handleItemClick(item.key)}
            aria-pressed={selection.includes(item.key)}
            title={item.title}
            px={6}
            py={2}
            style={{ borderRadius: 'var(--mantine-radius-sm)', opacity: shown ? 1 : 0.45 }}
          >
            <Group gap={6} wrap="nowrap">
              <ColorSwatch color={item.color} size={10} withShadow={false} aria-hidden />
              <Text size="sm" td={shown ? undefined : 'line-through'}>
                {item.name}
              </Text>
            </Group>
          </UnstyledButton>
        );
      })}
      {hidden > 0 && (
        <Box px={6}>
          <Anchor component="button" type="button" size="sm" onClick={handleMoreClick}>
            {moreSegmentsLabel(hidden)}
          </Anchor>
        </Box>
      )}
    </Group>
  );
}
