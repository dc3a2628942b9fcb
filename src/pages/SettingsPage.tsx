import { Button, Card, Group, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconSettings, IconUsersGroup } from '@tabler/icons-react';
import { Link } from 'wouter';
import { hasFullAccess } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { useSession } from '../session/SessionContext';
import { ApiTokenCard } from '../settings/ApiTokenCard';

/** Settings: the API token and the account's users now; account, data sources, attributes and segmentation later. */
export function SettingsPage() {
  const { user } = useSession();
  return (
    <>
      <PageHeader title="Settings" description="Your API access and the people who share your account." />
      <Stack gap="xl">
        {hasFullAccess(user) ? (
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <ApiTokenCard />
            <UsersCard />
          </SimpleGrid>
        ) : null}
        <Paper withBorder p={{ base: 'lg', sm: 32 }} style={{ borderStyle: 'dashed' }}>
          <Group gap="md" wrap="nowrap">
            <ThemeIcon size={44} radius="xl" variant="light" color="gray" aria-hidden>
              <IconSettings size={22} stroke={1.6} />
            </ThemeIcon>
            <Text c="dimmed">
              Coming soon here: your account&apos;s currency and access, data sources and integrations, custom attributes and
              segmentation.
            </Text>
          </Group>
        </Paper>
      </Stack>
    </>
  );
}

function UsersCard() {
  return (
    <Card>
      <Stack gap="md" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconUsersGroup size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Title order={2} fz="md">
              Users
            </Title>
            <Text size="sm" c="dimmed">
              See who has access to your account and invite colleagues.
            </Text>
          </Stack>
        </Group>
        <Button component={Link} href="/users" variant="light" rightSection={<IconArrowRight size={16} />} style={{ alignSelf: 'flex-start' }}>
          Manage users
        </Button>
      </Stack>
    </Card>
  );
}
