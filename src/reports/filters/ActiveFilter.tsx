import { Badge, Button, Group, Loader, Paper, Text } from '@mantine/core';
import { IconEye, IconFilter, IconX } from '@tabler/icons-react';
import { filterItemLabel } from '../../../models/reportFilter';
import type { FilterItem, ReportViewFilter } from '../../../models/reportFilter';

interface ActiveFilterProps {
  /** The filter applied with the picker (cleared by 'Clear filter'). */
  item: FilterItem | null;
  /** The report's stored view, which everyone sees (changed in 'Define report view'). */
  view: ReportViewFilter | null;
  /** The filtered report is being computed. */
  applying: boolean;
  onClear(): void;
}

/** 'Plan is Pro and Deal owner is Anna', 'Plan is Pro or Plan is Team'. */
export function viewFilterText(view: ReportViewFilter): string {
  return view.arguments.map(filterItemLabel).join(view.operator === 'and' ? ' and ' : ' or ');
}

/** What the report is filtered by: its view, the picker's filter (with 'Clear filter'), a loader while it applies. */
export function ActiveFilter({ item, view, applying, onClear }: ActiveFilterProps) {
  const hasView = view !== null && view.arguments.length > 0;
  if (!hasView && item === null) return null;
  return (
    <Paper withBorder px="md" py="xs" role="status" aria-label="Active filter">
      <Group gap="sm" justify="space-between" wrap="nowrap">
        <Group gap="sm" wrap="wrap" style={{ minWidth: 0 }}>
          {hasView ? (
            <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
              <IconEye size={16} stroke={1.6} aria-hidden style={{ flexShrink: 0 }} />
              <Text size="sm" lineClamp={2}>
                {`View: ${viewFilterText(view)}`}
              </Text>
            </Group>
          ) : null}
          {item ? (
            <Badge variant="light" size="lg" radius="sm" tt="none" leftSection={<IconFilter size={14} aria-hidden />} style={{ maxWidth: '100%' }}>
              {filterItemLabel(item)}
            </Badge>
          ) : null}
          {applying ? <Loader size="xs" aria-label="Applying filter" /> : null}
        </Group>
        {item ? (
          <Button size="compact-sm" variant="subtle" color="gray" leftSection={<IconX size={14} />} onClick={onClear} style={{ flexShrink: 0 }}>
            Clear filter
          </Button>
        ) : null}
      </Group>
    </Paper>
  );
}
