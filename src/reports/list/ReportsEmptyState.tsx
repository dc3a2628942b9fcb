import { Button, Card, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import { IconArrowRight, IconChartBar, IconDatabaseImport, IconRocket, IconTemplate } from '@tabler/icons-react';
import { Link } from 'wouter';

interface StartStep {
  icon: TablerIcon;
  title: string;
  description: string;
  href: string;
  action: string;
}

const startSteps: StartStep[] = [
  {
    icon: IconDatabaseImport,
    title: 'Bring in your data',
    description: 'Import payments from a CSV file, or connect Stripe, Chargebee or HubSpot in Settings.',
    href: '/import-subscriptions',
    action: 'Import payments',
  },
  {
    icon: IconTemplate,
    title: 'Create a report',
    description: 'Start from a template of MRR, churn, retention and cohort charts, or from a blank report.',
    href: '/reports/library',
    action: 'Browse templates',
  },
  {
    icon: IconRocket,
    title: 'Learn the ropes',
    description: 'Watch the short intro videos and explore a demo report full of realistic data.',
    href: '/getting-started',
    action: 'Getting started',
  },
];

/** An account without reports: the first steps, the report library among them. */
export function ReportsEmptyState() {
  return (
    <Stack gap="xl">
      <Paper withBorder p={{ base: 'xl', sm: 48 }} style={{ borderStyle: 'dashed' }}>
        <Stack align="center" ta="center" gap="sm" maw={520} mx="auto">
          <ThemeIcon size={56} radius={28} variant="light" color="gray" aria-hidden>
            <IconChartBar size={28} stroke={1.5} />
          </ThemeIcon>
          <Title order={2} fz="lg">
            No reports yet
          </Title>
          <Text c="dimmed" size="sm">
            Each report shows its range, owner, summary and tags. Create your first one from the report library; after
            that a new report is created automatically on the first day of every month and refreshed daily.
          </Text>
        </Stack>
      </Paper>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
        {startSteps.map((step) => (
          <Card key={step.href}>
            <Stack gap="sm" h="100%">
              <ThemeIcon size={44} radius="md" variant="light" aria-hidden>
                <step.icon size={24} stroke={1.6} />
              </ThemeIcon>
              <Title order={3} fz="lg">
                {step.title}
              </Title>
              <Text c="dimmed" size="sm" style={{ flexGrow: 1 }}>
                {step.description}
              </Text>
              <Button
                component={Link}
                href={step.href}
                variant="light"
                rightSection={<IconArrowRight size={16} />}
                style={{ alignSelf: 'flex-start' }}
              >
                {step.action}
              </Button>
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
