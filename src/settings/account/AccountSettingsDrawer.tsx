import { Button, Divider, Drawer, Group, Radio, ScrollArea, Select, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { IconDeviceFloppy } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import {
  ACCOUNT_SETTINGS_FETCH_FAILURE,
  ACCOUNT_SETTINGS_SAVE_FAILURE,
  accountSettingsBody,
  accountSettingsFormErrors,
  accountSettingsToForm,
  CORRECTIONS_HANDLINGS,
  EXCHANGE_RATE_SOURCES,
  rateCurrencies,
} from '../../../models/accountSettings';
import type { AccountSettings, AccountSettingsForm } from '../../../models/accountSettings';
import { toastError, toastSuccess } from '../../notifications/toast';
import { useAccountSettings, useCurrencyList, useSaveAccountSettings } from './accountSettingsApi';
import { ExchangeRatesTable } from './ExchangeRatesTable';
import { formErrorsOfRefusal } from './settingsFormErrors';
import { RetryAlert } from '../../components/RetryAlert';

export const ACCOUNT_SETTINGS_SAVED = 'Account settings saved. Your reports are being recalculated.';

export const ACCESS_OPTIONS: readonly { value: 'login' | 'anonymous'; label: string; description: string }[] = [
  { value: 'login', label: 'Login required', description: 'Only users of your account see reports.' },
  { value: 'anonymous', label: 'Anyone with the secret URL', description: "Anyone who has a report's secret address can view it, read only." },
];

export const MATCH_MOVEMENTS_OPTIONS: readonly { value: 'true' | 'false'; label: string; description: string }[] = [
  { value: 'true', label: 'Yes', description: 'Movements compare amounts in the currency a customer pays in; exchange rate changes show as their own series.' },
  { value: 'false', label: 'No', description: 'Movements compare converted amounts, so exchange rate changes count as expansion or contraction.' },
];

interface AccountSettingsDrawerProps {
  opened: boolean;
  onClose: () => void;
}

/**
 * The account settings drawer: currency, report access, the churn window, how exchange rates
 * and corrections are taken and whether movements match by currency. The form opens with the
 * saved settings each time (GET /account_settings) and saves them all at once.
 */
export function AccountSettingsDrawer({ opened, onClose }: AccountSettingsDrawerProps) {
  const narrow = useMediaQuery('(max-width: 62em)');
  const settings = useAccountSettings({ enabled: opened });
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : '45%'}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          Account settings
        </Text>
      }
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {settings.data ? (
        <SettingsForm settings={settings.data} onDone={onClose} />
      ) : settings.isError && !settings.isFetching ? (
        <RetryAlert message={ACCOUNT_SETTINGS_FETCH_FAILURE} onRetry={() => void settings.refetch()} />
      ) : (
        <Stack gap="lg" aria-label="Loading your account settings">
          <Skeleton height={56} />
          <Skeleton height={120} />
          <Skeleton height={56} />
          <Skeleton height={160} />
        </Stack>
      )}
    </Drawer>
  );
}

function FieldGroup({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Stack gap="md" component="section" aria-label={title}>
      <Stack gap={2}>
        <Title order={3} fz="md">
          {title}
        </Title>
        {description ? (
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        ) : null}
      </Stack>
      {children}
    </Stack>
  );
}

function ChoiceCard({ value, label, description }: { value: string; label: string; description: string }) {
  return (
    <Radio.Card value={value} p="sm" radius="md" aria-label={label}>
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <Radio.Indicator mt={2} />
        <Stack gap={2}>
          <Text size="sm" fw={600}>
            {label}
          </Text>
          <Text size="xs" c="dimmed">
            {description}
          </Text>
        </Stack>
      </Group>
    </Radio.Card>
  );
}

function SettingsForm({ settings, onDone }: { settings: AccountSettings; onDone: () => void }) {
  const currencies = useCurrencyList();
  const save = useSaveAccountSettings();
  const form = useForm<AccountSettingsForm>({
    initialValues: accountSettingsToForm(settings),
    validate: (values) => accountSettingsFormErrors(values, rateCurrencies(settings, values.currency)),
  });
  const rateIsos = rateCurrencies(settings, form.values.currency);
  const currencyData = (currencies.data ?? []).map(({ iso, name }) => ({ value: iso, label: `${iso} · ${name}` }));
  if (form.values.currency && !currencyData.some((option) => option.value === form.values.currency)) {
    currencyData.unshift({ value: form.values.currency, label: form.values.currency });
  }

  const handleSubmit = form.onSubmit(async (values) => {
    const body = accountSettingsBody(values, rateIsos);
    try {
      const outcome = await save.mutateAsync(body);
      if (!outcome.ok) {
        if (outcome.status === 422 || outcome.status === 400) {
          form.setErrors(formErrorsOfRefusal(outcome.errors, body, values.exchange_rates.map((row) => row.since.trim())));
        }
        toastError(ACCOUNT_SETTINGS_SAVE_FAILURE);
        return;
      }
    } catch {
      toastError(ACCOUNT_SETTINGS_SAVE_FAILURE);
      return;
    }
    toastSuccess(ACCOUNT_SETTINGS_SAVED);
    onDone();
  });

  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="xl">
        <FieldGroup title="Currency and access">
          <Select
            label="Currency"
            description="Reports show money in this currency unless a report chooses another."
            withAsterisk
            searchable
            clearable
            clearButtonProps={{ 'aria-label': 'Clear currency' }}
            nothingFoundMessage="No such currency"
            data={currencyData}
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps('currency')}
            onChange={(value) => form.setFieldValue('currency', value ?? '')}
          />
          <Radio.Group label="Access to reports" withAsterisk {...form.getInputProps('access')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mt="xs">
              {ACCESS_OPTIONS.map((option) => (
                <ChoiceCard key={option.value} {...option} />
              ))}
            </SimpleGrid>
          </Radio.Group>
        </FieldGroup>
        <Divider />
        <FieldGroup title="Calculations">
          <TextInput
            label="Churn window"
            description="A gap in a customer's payments no longer than this is not churn."
            withAsterisk
            inputMode="numeric"
            rightSection={
              <Text size="sm" c="dimmed" pr="sm">
                days
              </Text>
            }
            rightSectionWidth={56}
            maw={260}
            {...form.getInputProps('churn_window_days')}
          />
          <Radio.Group label="Corrections of payments" withAsterisk {...form.getInputProps('corrections_handling')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mt="xs">
              {CORRECTIONS_HANDLINGS.map((option) => (
                <ChoiceCard key={option.value} {...option} />
              ))}
            </SimpleGrid>
          </Radio.Group>
          <Radio.Group label="Match movements by currency" withAsterisk {...form.getInputProps('match_movements_by_currency')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mt="xs">
              {MATCH_MOVEMENTS_OPTIONS.map((option) => (
                <ChoiceCard key={option.value} {...option} />
              ))}
            </SimpleGrid>
          </Radio.Group>
        </FieldGroup>
        <Divider />
        <FieldGroup title="Exchange rates">
          <Radio.Group label="Take exchange rates from" withAsterisk {...form.getInputProps('take_exchange_rates_from')}>
            <Stack gap="sm" mt="xs">
              {EXCHANGE_RATE_SOURCES.map((option) => (
                <ChoiceCard key={option.value} {...option} />
              ))}
            </Stack>
          </Radio.Group>
          {form.values.take_exchange_rates_from === 'account' ? (
            <ExchangeRatesTable form={form} accountCurrency={form.values.currency} currencies={rateIsos} />
          ) : null}
        </FieldGroup>
        <Group justify="flex-end" gap="sm" pt="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} leftSection={<IconDeviceFloppy size={16} />}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
