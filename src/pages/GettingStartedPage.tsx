import {
  Anchor,
  AspectRatio,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconArrowRight, IconFileSpreadsheet, IconLifebuoy, IconPlayerPlayFilled } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { hasFullAccess } from '../../models/auth';
import { HELP_EMAIL } from '../../models/constants';
import { PageHeader } from '../components/PageHeader';
import { useDemoReportPath } from '../gettingStarted/demoReportLink';
import { useSession } from '../session/SessionContext';

interface Video {
  title: string;
  minutes: number;
}

const introVideos: Video[] = [
  { title: 'Subscope in five minutes', minutes: 5 },
  { title: 'Reading your MRR movements', minutes: 4 },
  { title: 'Sharing and presenting a report', minutes: 3 },
];

const segmentationVideo: Video = { title: 'Segment your customers', minutes: 6 };

/** The data sources offered here: only these three. Their sync is not built yet: shown as coming soon, with no link. */
const integrations = [
  { key: 'stripe', name: 'Stripe', mark: 'S', color: '#635bff', description: 'Card payments and subscriptions' },
  { key: 'chargebee', name: 'Chargebee', mark: 'C', color: '#ff7846', description: 'Subscription billing' },
  { key: 'hubspot', name: 'HubSpot', mark: 'H', color: '#ff7a59', description: 'Deals and company attributes' },
] as const;

/**
 * Onboarding: intro videos, then four numbered steps (the demo report, connecting data,
 * creating a report, segmentation), and help by e-mail. Videos are placeholders that load
 * nothing from the network.
 */
export function GettingStartedPage() {
  const { user } = useSession();
  const fullAccess = hasFullAccess(user);

  return (
    <>
      <PageHeader
        title="Getting started"
        description="Four steps from a demo to your own monthly business report: MRR, churn, retention and cohorts."
      />
      <Stack gap={40}>
        <Box component="section" aria-labelledby="intro-videos">
          <Title order={2} fz="lg" mb="md" id="intro-videos">
            Watch the intro
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
            {introVideos.map((video) => (
              <VideoCard key={video.title} video={video} />
            ))}
          </SimpleGrid>
        </Box>

        <Stack component="ol" gap="lg" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Steps">
          <Step
            number={1}
            title="Explore the demo report"
            description="Two years of a realistic subscription business, with demo data: see what your report will look like."
          >
            <DemoReportButton />
          </Step>

          {fullAccess ? (
            <Step
              number={2}
              title="Connect your data"
              description="Import your payments from a CSV file today. Syncing from your billing system is coming soon."
            >
              <Button component={Link} href="/import-subscriptions" variant="light" leftSection={<IconFileSpreadsheet size={16} />}>
                Import payments from CSV
              </Button>
              <SimpleGrid
                component="ul"
                cols={{ base: 1, sm: 3 }}
                spacing="md"
                w="100%"
                p={0}
                m={0}
                style={{ listStyle: 'none' }}
                aria-label="Integrations"
              >
                {integrations.map((integration) => (
                  <Paper component="li" key={integration.key} withBorder p="md" radius="md" aria-label={`${integration.name}: coming soon`}>
                    <Group gap="sm" wrap="nowrap">
                      <ThemeIcon size={40} radius="md" color={integration.color} aria-hidden style={{ opacity: 0.55 }}>
                        <Text fw={800} fz="lg" c="white">
                          {integration.mark}
                        </Text>
                      </ThemeIcon>
                      <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
                        <Group gap={6} wrap="nowrap" justify="space-between">
                          <Text fw={600}>{integration.name}</Text>
                          <Badge variant="light" color="gray" size="sm" style={{ flexShrink: 0 }}>
                            Coming soon
                          </Badge>
                        </Group>
                        <Text size="xs" c="dimmed" truncate>
                          {integration.description}
                        </Text>
                      </Stack>
                    </Group>
                  </Paper>
                ))}
              </SimpleGrid>
            </Step>
          ) : null}

          {fullAccess ? (
            <Step
              number={3}
              title="Create your report"
              description="Start from a template of MRR, churn, retention and cohort charts, or from a blank report."
            >
              <Button component={Link} href="/reports/library" variant="light" rightSection={<IconArrowRight size={16} />}>
                Create a report
              </Button>
            </Step>
          ) : null}

          <Step
            number={fullAccess ? 4 : 2}
            title="Segment your customers"
            description="Split MRR and churn by plan, country or any attribute, and compare cohorts side by side."
          >
            <Box maw={300} w="100%">
              <VideoCard video={segmentationVideo} />
            </Box>
          </Step>
        </Stack>

        <Paper withBorder p="lg" bg="light-dark(var(--mantine-color-gray-0), var(--mantine-color-dark-6))">
          <Group gap="md" wrap="nowrap" align="flex-start">
            <ThemeIcon size={40} radius="xl" variant="light" aria-hidden>
              <IconLifebuoy size={22} stroke={1.6} />
            </ThemeIcon>
            <Stack gap={2}>
              <Text fw={600}>Need a hand?</Text>
              <Text size="sm" c="dimmed">
                Write to us at{' '}
                <Anchor href={`mailto:${HELP_EMAIL}`} size="sm">
                  {HELP_EMAIL}
                </Anchor>{' '}
                and a person from our team will answer, usually within a working day.
              </Text>
            </Stack>
          </Group>
        </Paper>
      </Stack>
    </>
  );
}

/**
 * Step 1's button: the public demo report (the demo account's, with its generated data), the
 * same for every new account, which has no data of its own yet.
 */
function DemoReportButton() {
  const { state, reload } = useDemoReportPath();
  if (state.status === 'loaded') {
    return state.data ? (
      <Button component={Link} href={state.data} variant="light" rightSection={<IconArrowRight size={16} />}>
        Open the demo report
      </Button>
    ) : (
      <Text size="sm" c="dimmed">
        This server has no demo report. Create your report in step 3 once your data is in.
      </Text>
    );
  }
  if (state.status === 'failed') {
    return (
      <Group gap="sm">
        <Text size="sm" c="dimmed">
          We could not find the demo report.
        </Text>
        <Button variant="subtle" size="compact-sm" onClick={reload}>
          Try again
        </Button>
      </Group>
    );
  }
  return (
    <Button variant="light" loading disabled rightSection={<IconArrowRight size={16} />}>
      Open the demo report
    </Button>
  );
}

interface StepProps {
  number: number;
  title: string;
  description: string;
  children: ReactNode;
}

function Step({ number, title, description, children }: StepProps) {
  return (
    <Card component="li" padding="lg" aria-label={`Step ${number}: ${title}`}>
      <Group align="flex-start" gap="lg" wrap="nowrap">
        <ThemeIcon size={36} radius="xl" variant="light" aria-hidden>
          <Text fw={700}>{number}</Text>
        </ThemeIcon>
        <Stack gap="sm" style={{ flex: 1, minWidth: 0 }} align="flex-start">
          <Stack gap={2}>
            <Text c="dimmed" size="xs" fw={700} tt="uppercase" lts={0.6}>
              Step {number}
            </Text>
            <Title order={3} fz="md">
              {title}
            </Title>
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          </Stack>
          {children}
        </Stack>
      </Group>
    </Card>
  );
}

/** A video's place: a titled card with a play mark, loading nothing until videos are hosted. */
function VideoCard({ video }: { video: Video }) {
  return (
    <Card padding={0} aria-label={`Video: ${video.title}`}>
      <AspectRatio ratio={16 / 9}>
        <Box
          style={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            background:
              'linear-gradient(135deg, var(--mantine-color-brand-7), var(--mantine-color-violet-6))',
          }}
        >
          <ThemeIcon size={52} radius={26} color="white" variant="white" aria-hidden>
            <IconPlayerPlayFilled size={22} color="var(--mantine-color-brand-7)" />
          </ThemeIcon>
        </Box>
      </AspectRatio>
      <Group justify="space-between" p="md" gap="xs" wrap="nowrap">
        <Text fw={600} size="sm" truncate>
          {video.title}
        </Text>
        <Badge variant="light" color="gray" size="sm" title="Videos are being recorded">
          {video.minutes} min · soon
        </Badge>
      </Group>
    </Card>
  );
}
