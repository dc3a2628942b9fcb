import { Button, Card, Group, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowRight, IconFileSpreadsheet, IconSettings, IconUpload, IconUsersGroup } from '@tabler/icons-react';
import { useSelector } from '@xstate/react';
import { Link } from 'wouter';
import { selectOpenLabel } from '../../machines/csvImport/selectors';
import { hasFullAccess } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { CsvImportDialog, CsvImportStatusBadge, useCsvImport } from '../imports/CsvImportDialog';
import { useSession } from '../session/SessionContext';
import { ApiTokenCard } from '../settings/ApiTokenCard';
import { CustomAttributesCard } from '../settings/CustomAttributesCard';

/** Settings: CSV import, the API token, the account's users and custom attributes now; account, integrations and segmentation later. */
export function SettingsPage() {
  const { user } = useSession();
  return (
    <>
      <PageHeader title="Settings" description="Your data, your API access, custom attributes and the people who share your account." />
      <Stack gap="xl">
        {hasFullAccess(user) ? (
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <CsvImportCard />
            <ApiTokenCard />
            <UsersCard />
            <CustomAttributesCard />
          </SimpleGrid>
        ) : null}
        <Paper withBorder p={{ base: 'lg', sm: 32 }} style={{ borderStyle: 'dashed' }}>
          <Group gap="md" wrap="nowrap">
            <ThemeIcon size={44} radius="xl" variant="light" color="gray" aria-hidden>
              <IconSettings size={22} stroke={1.6} />
            </ThemeIcon>
            <Text c="dimmed">
              Coming soon here: your account&apos;s currency and access, integrations with Stripe, Chargebee, HubSpot and other
              billing tools, and segmentation.
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

/**
 * Data sources: the Import CSV card. It runs the import (so an import started here goes on
 * while the dialog is closed, and one stored before a reload resumes) and shows its status.
 */
function CsvImportCard() {
  const actor = useCsvImport();
  const openLabel = useSelector(actor, selectOpenLabel);
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Card>
      <Stack gap="md" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconFileSpreadsheet size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Group gap="xs">
              <Title order={2} fz="md">
                Import CSV
              </Title>
              <CsvImportStatusBadge actor={actor} />
            </Group>
            <Text size="sm" c="dimmed">
              Upload your payments from a spreadsheet: customer, start, end and monthly amount.
            </Text>
          </Stack>
        </Group>
        <Button variant="light" onClick={open} leftSection={<IconUpload size={16} />} style={{ alignSelf: 'flex-start' }}>
          {openLabel}
        </Button>
      </Stack>
      <CsvImportDialog actor={actor} opened={opened} onClose={close} />
    </Card>
  );
}
