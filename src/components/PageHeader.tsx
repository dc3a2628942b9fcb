import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons on the right of the title. */
  actions?: ReactNode;
  /** Shown after the title on the same line (a badge, a status). */
  badge?: ReactNode;
}

/** The page's title (its one h1), an optional line of description and actions. */
export function PageHeader({ title, description, actions, badge }: PageHeaderProps) {
  return (
    <Group justify="space-between" align="flex-end" gap="md" mb="xl" wrap="wrap">
      <Stack gap={6} style={{ minWidth: 0 }}>
        <Group gap="sm" wrap="wrap">
          <Title order={1} fz={{ base: 26, sm: 30 }} lh={1.2}>
            {title}
          </Title>
          {badge}
        </Group>
        {description ? (
          <Text c="dimmed" size="md" maw={720}>
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="sm">{actions}</Group> : null}
    </Group>
  );
}
