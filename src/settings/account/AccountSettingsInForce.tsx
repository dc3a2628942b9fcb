import { Anchor, Skeleton, Stack, Text } from '@mantine/core';
import { Link } from 'wouter';
import { ACCOUNT_SETTINGS_FETCH_FAILURE } from '../../../models/accountSettings';
import { calculationFacts } from './accountSettingsFacts';
import { useAccountSettings } from './accountSettingsApi';
import { SettingFacts } from './SettingFacts';

/**
 * 'Account settings in force': the account settings that move a report's numbers (currency,
 * churn window, exchange rates, corrections, movement matching), read only, with a link to
 * change them in Settings.
 */
export function AccountSettingsInForce() {
  const settings = useAccountSettings();
  return (
    <Stack gap="xs" component="section" aria-label="Account settings in force">
      <Text size="sm" fw={600}>
        Account settings in force
      </Text>
      {settings.data ? (
        <SettingFacts facts={calculationFacts(settings.data)} size="xs" />
      ) : settings.isError && !settings.isFetching ? (
        <Text size="xs" c="red">
          {ACCOUNT_SETTINGS_FETCH_FAILURE}
        </Text>
      ) : (
        <Stack gap={6} aria-label="Loading your account settings">
          {[0, 1, 2, 3, 4].map((line) => (
            <Skeleton key={line} height={12} />
          ))}
        </Stack>
      )}
      <Anchor component={Link} href="/settings" size="xs">
        Change them in Settings
      </Anchor>
    </Stack>
  );
}
