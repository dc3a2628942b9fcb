import { Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface AuthCardHeaderProps {
  title: string;
  description?: ReactNode;
  icon?: TablerIcon;
}

/** The heading of a sign-in area card: the page's one h1 and a line of context. */
export function AuthCardHeader({ title, description, icon: Icon }: AuthCardHeaderProps) {
  return (
    <Stack align="center" ta="center" gap={6} mb="lg">
      {Icon ? (
        <ThemeIcon size={48} radius="xl" variant="light" mb={6} aria-hidden>
          <Icon size={24} stroke={1.7} />
        </ThemeIcon>
      ) : null}
      <Title order={1} fz={24}>
        {title}
      </Title>
      {description ? (
        <Text c="dimmed" size="sm">
          {description}
        </Text>
      ) : null}
    </Stack>
  );
}
