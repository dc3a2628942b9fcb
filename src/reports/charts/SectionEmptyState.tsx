import { Center, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconChartBarOff } from '@tabler/icons-react';
import { CHART_HEIGHT_PX } from '../../../models/constants';
import { EMPTY_STATE_MESSAGES } from './sectionModel';
import type { EmptyStateKind } from './sectionModel';

/** One of the spec's empty states, in the space the chart would take. */
export function SectionEmptyState({ kind, height = CHART_HEIGHT_PX }: { kind: EmptyStateKind; height?: number }) {
  return (
    <Center mih={height} p="md" data-empty-state={kind}>
      <Stack align="center" gap="xs" maw={420} ta="center">
        <ThemeIcon size={40} radius="xl" variant="light" color="gray" aria-hidden>
          <IconChartBarOff size={22} stroke={1.6} />
        </ThemeIcon>
        <Text c="dimmed" role="status">
          {EMPTY_STATE_MESSAGES[kind]}
        </Text>
      </Stack>
    </Center>
  );
}
