import { Badge, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { PageHeader } from './PageHeader';

interface ComingSoonProps {
  title: string;
  /** One sentence of what the page will do. */
  description: string;
  icon: TablerIcon;
  /** 'page' inside the app shell, 'card' inside the sign-in area's card. */
  variant?: 'page' | 'card';
  /** Links or buttons offered meanwhile. */
  children?: ReactNode;
}

/** The placeholder of a page that is not built yet: never a blank screen. */
export function ComingSoon({ title, description, icon: Icon, variant = 'page', children }: ComingSoonProps) {
  const badge = (
    <Badge variant="light" color="brand" size="md" radius="sm">
      Coming soon
    </Badge>
  );

  if (variant === 'card') {
    return (
      <Stack align="center" ta="center" gap="md">
        <ThemeIcon size={56} radius="xl" variant="light" aria-hidden>
          <Icon size={28} stroke={1.6} />
        </ThemeIcon>
        <Title order={1} fz={24}>
          {title}
        </Title>
        <Text c="dimmed">{description}</Text>
        {badge}
        {children ? <Stack gap="xs" align="center" w="100%">{children}</Stack> : null}
      </Stack>
    );
  }

  return (
    <>
      <PageHeader title={title} badge={badge} />
      <Paper withBorder p={{ base: 'xl', sm: 56 }} style={{ borderStyle: 'dashed' }}>
        <Stack align="center" ta="center" gap="lg" maw={560} mx="auto">
          <ThemeIcon size={80} radius={40} variant="light" aria-hidden>
            <Icon size={40} stroke={1.5} />
          </ThemeIcon>
          <Text size="lg" lh={1.5}>
            {description}
          </Text>
          {children ? (
            <Group justify="center" gap="sm">
              {children}
            </Group>
          ) : null}
        </Stack>
      </Paper>
    </>
  );
}
