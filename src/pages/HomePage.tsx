import { Button, Card, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import { IconArrowRight, IconChartBar, IconDatabaseImport, IconLink, IconRocket, IconTemplate } from '@tabler/icons-react';
import { Link } from 'wouter';
import { hasFullAccess } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { useSession } from '../session/SessionContext';

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

/**
 * The reports list for full-access users (until it lands, an inviting start page that points at
 * the first steps). A shared_report_only user sees only that reports open through their share URL.
 */
export function HomePage() {
  const { user } = useSession();
  if (!hasFullAccess(user)) return <SharedReportOnlyNotice />;
  return (
    <>
      <PageHeader
        title="Reports"
        description="Monthly business reports of your MRR, churn, retention, cohorts and costs, ready to share and present."
      />
      <Stack gap="xl">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
          {startSteps.map((step) => (
            <Card key={step.href}>
              <Stack gap="sm" h="100%">
                <ThemeIcon size={44} radius="md" variant="light" aria-hidden>
                  <step.icon size={24} stroke={1.6} />
                </ThemeIcon>
                <Title order={2} fz="lg">
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
        <Paper withBorder p={{ base: 'xl', sm: 48 }} style={{ borderStyle: 'dashed' }}>
          <Stack align="center" ta="center" gap="sm" maw={520} mx="auto">
            <ThemeIcon size={56} radius={28} variant="light" color="gray" aria-hidden>
              <IconChartBar size={28} stroke={1.5} />
            </ThemeIcon>
            <Title order={2} fz="lg">
              Your reports will appear here
            </Title>
            <Text c="dimmed" size="sm">
              Each report shows its range, owner, summary and tags. A new report is created automatically on the
              first day of every month and refreshed daily.
            </Text>
          </Stack>
        </Paper>
      </Stack>
    </>
  );
}

/** All a shared_report_only user sees at home: no reports list, no import, no navigation. */
function SharedReportOnlyNotice() {
  return (
    <>
      <PageHeader title="Reports" />
      <Paper withBorder p={{ base: 'xl', sm: 56 }}>
        <Stack align="center" ta="center" gap="md" maw={520} mx="auto">
          <ThemeIcon size={64} radius={32} variant="light" aria-hidden>
            <IconLink size={30} stroke={1.6} />
          </ThemeIcon>
          <Title order={2} fz="lg">
            Reports are accessible via their share URL
          </Title>
          <Text c="dimmed">
            Your access lets you read the reports shared with you. Open a report with the share link you received; ask
            the person who shared it to send it again if you cannot find it.
          </Text>
        </Stack>
      </Paper>
    </>
  );
}
