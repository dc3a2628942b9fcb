import { Alert, Button, Card, Group, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAdjustmentsHorizontal, IconAlertCircle, IconBuildingBank } from '@tabler/icons-react';
import { ACCOUNT_SETTINGS_FETCH_FAILURE } from '../../../models/accountSettings';
import { AccountSettingsDrawer } from './AccountSettingsDrawer';
import { accountFacts } from './accountSettingsFacts';
import { useAccountSettings } from './accountSettingsApi';
import { SettingFacts } from './SettingFacts';

/** The Account card: the account currency and the other settings in words; 'Edit account settings' opens the drawer. */
export function AccountCard() {
  const settings = useAccountSettings();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Card>
      <Stack gap="md" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
          <Group gap="sm" wrap="nowrap">
            <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
              <IconBuildingBank size={22} stroke={1.6} />
            </ThemeIcon>
            <Stack gap={0}>
              <Title order={3} fz="md">
                Account currency
              </Title>
              <Text size="sm" c="dimmed">
                Reports show money in it unless they choose another.
              </Text>
            </Stack>
          </Group>
          {settings.data ? (
            <Text fz={28} fw={700} lh={1} aria-label={`Account currency ${settings.data.currency}`}>
              {settings.data.currency}
            </Text>
          ) : null}
        </Group>
        {settings.data ? (
          <SettingFacts facts={accountFacts(settings.data).slice(1)} />
        ) : settings.isError && !settings.isFetching ? (
          <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />}>
            {ACCOUNT_SETTINGS_FETCH_FAILURE}
          </Alert>
        ) : (
          <Stack gap={8} aria-label="Loading your account settings">
            {[0, 1, 2, 3, 4].map((line) => (
              <Skeleton key={line} height={16} />
            ))}
          </Stack>
        )}
        <Group mt="auto">
          <Button variant="light" leftSection={<IconAdjustmentsHorizontal size={16} />} onClick={open}>
            Edit account settings
          </Button>
          {settings.isError && !settings.isFetching ? (
            <Button variant="subtle" color="gray" onClick={() => void settings.refetch()}>
              Try again
            </Button>
          ) : null}
        </Group>
      </Stack>
      <AccountSettingsDrawer opened={opened} onClose={close} />
    </Card>
  );
}
