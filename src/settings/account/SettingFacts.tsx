import { Group, Stack, Text } from '@mantine/core';
import type { SettingFact } from './accountSettingsFacts';

/** Settings as label and value lines (a description list). */
export function SettingFacts({ facts, size = 'sm' }: { facts: readonly SettingFact[]; size?: 'xs' | 'sm' }) {
  return (
    <Stack component="dl" gap={6} m={0}>
      {facts.map(({ label, value }) => (
        <Group key={label} justify="space-between" gap="md" wrap="nowrap" align="baseline">
          <Text component="dt" size={size} c="dimmed" style={{ flexShrink: 0 }}>
            {label}
          </Text>
          <Text component="dd" size={size} fw={500} m={0} ta="right" style={{ minWidth: 0 }}>
            {value}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
