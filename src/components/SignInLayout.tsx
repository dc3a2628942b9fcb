import { Anchor, Box, Container, Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { ColorSchemeToggle } from './ColorSchemeToggle';
import { Logo } from './Logo';

/** The sign-in area: the brand and one centred card, outside the app shell. */
export function SignInLayout({ children }: { children: ReactNode }) {
  return (
    <Box mih="100dvh" bg="light-dark(var(--mantine-color-gray-0), var(--mantine-color-dark-8))">
      <Group justify="flex-end" p="md">
        <ColorSchemeToggle />
      </Group>
      <Container size={460} pb={64} component="main">
        <Stack align="center" gap="xl">
          <Anchor component={Link} href="/" c="inherit" underline="never" aria-label="Subscope home">
            <Logo size="lg" />
          </Anchor>
          <Paper withBorder shadow="sm" p={{ base: 'lg', sm: 36 }} w="100%">
            {children}
          </Paper>
          <Text size="xs" c="dimmed" ta="center">
            Subscription analytics: MRR, churn, retention, cohorts and costs.
          </Text>
        </Stack>
      </Container>
    </Box>
  );
}
