import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconChartLine } from '@tabler/icons-react';

/** The brand: a chart mark in a rounded square and the product name. */
export function Logo({ size = 'md' }: { size?: 'md' | 'lg' }) {
  const markSize = size === 'lg' ? 40 : 32;
  return (
    <Group gap={10} wrap="nowrap">
      <ThemeIcon
        size={markSize}
        radius="md"
        variant="gradient"
        gradient={{ from: 'brand.5', to: 'violet.6', deg: 135 }}
        aria-hidden
      >
        <IconChartLine size={markSize * 0.6} stroke={2.2} />
      </ThemeIcon>
      <Text component="span" fw={750} fz={size === 'lg' ? 26 : 20} lts={-0.4}>
        Subscope
      </Text>
    </Group>
  );
}
