import { Button, Drawer, Group, ScrollArea, Select, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useForm } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { IconCalendar, IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';
import { COST_CREATE_FAILURE, COST_UPDATE_FAILURE, costCurrencyMenu, costFormStruct, costFormToBody, costToForm, newCostForm, type Cost, type CostForm } from '../../models/costs';
import type { ApiErrorItem } from '../api/errors';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { toastError, toastSuccess } from '../notifications/toast';
import { useAccountSettings } from '../settings/account/accountSettingsApi';
import { parseSinceInput, SINCE_INPUT_FORMAT } from '../settings/account/ExchangeRatesTable';
import { useCostAttributes, useSaveCost } from './costsApi';

export const COST_CREATED = 'Cost added. Your reports are being recalculated.';
export const COST_UPDATED = 'Cost saved. Your reports are being recalculated.';

interface CostDrawerProps {
  opened: boolean;
  /** The cost being edited; null: a new one. */
  cost: Cost | null;
  onClose: () => void;
}

/**
 * The 'New costs' and edit drawer: value and currency, date, optional due date, invoice number
 * and name, and a value for each cost attribute. Checked as typed with the server's rules; what
 * the server refuses shows on its field, and the form keeps what was typed.
 */
export function CostDrawer({ opened, cost, onClose }: CostDrawerProps) {
  const narrow = useMediaQuery('(max-width: 62em)');
  const settings = useAccountSettings({ enabled: opened });
  const attributes = useCostAttributes();
  const ready = settings.data !== undefined && attributes.data !== undefined;
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : 520}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          {cost ? 'Edit cost' : 'New costs'}
        </Text>
      }
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {ready ? (
        <CostFormView key={cost?.id ?? 'new'} cost={cost} currency={settings.data.currency} usedCurrencies={settings.data.used_currencies} attributes={attributes.data} onDone={onClose} />
      ) : settings.isError || attributes.isError ? (
        <FailureAlert messages={['We could not load the form, please try again.']} />
      ) : (
        <Stack gap="lg" aria-label="Loading the cost form">
          <Skeleton height={56} />
          <Skeleton height={56} />
          <Skeleton height={56} />
          <Skeleton height={120} />
        </Stack>
      )}
    </Drawer>
  );
}

/** A refusal's errors as form errors: '/body/value' on `value`, '/body/segments/2/value' on that attribute's input. */
export function costFormErrors(errors: readonly ApiErrorItem[], form: CostForm): Record<string, string> {
  const attributeIds = Object.keys(form.segments);
  const fields = new Set(['value', 'currency', 'date', 'due_date', 'invoice_number', 'name']);
  const result: Record<string, string> = {};
  for (const error of errors) {
    const parts = (error.source?.pointer ?? '').split('/').filter(Boolean);
    if (parts[0] === 'body') parts.shift();
    const detail = error.detail ?? error.title ?? 'Invalid';
    let field: string | undefined;
    if (parts[0] === 'segments') {
      const id = attributeIds[Number(parts[1])];
      field = id ? `segments.${id}` : undefined;
    } else if (parts[0] && fields.has(parts[0])) field = parts[0];
    if (field && !(field in result)) result[field] = detail;
  }
  return result;
}

interface CostFormViewProps {
  cost: Cost | null;
  currency: string;
  usedCurrencies: readonly string[];
  attributes: readonly { id: string; name: string }[];
  onDone: () => void;
}

function CostFormView({ cost, currency, usedCurrencies, attributes, onDone }: CostFormViewProps) {
  const save = useSaveCost();
  const [failure, setFailure] = useState<string | null>(null);
  const attributeIds = attributes.map((attribute) => attribute.id);
  const form = useForm<CostForm>({
    initialValues: cost ? costToForm(cost, attributeIds) : newCostForm(currency.toUpperCase(), attributeIds),
    validate: superstructResolver(costFormStruct),
  });
  const menu = costCurrencyMenu([...usedCurrencies, form.values.currency].filter(Boolean));
  const failureMessage = cost ? COST_UPDATE_FAILURE : COST_CREATE_FAILURE;

  const handleSubmit = form.onSubmit(async (values) => {
    setFailure(null);
    const outcome = await save.mutateAsync({ id: cost?.id ?? null, body: costFormToBody(values) });
    if (!outcome.ok) {
      form.setErrors(costFormErrors(outcome.errors, values));
      setFailure(failureMessage);
      toastError(failureMessage);
      return;
    }
    toastSuccess(cost ? COST_UPDATED : COST_CREATED);
    onDone();
  });

  return (
    <form onSubmit={handleSubmit} noValidate aria-label={cost ? 'Edit cost' : 'New cost'}>
      <Stack gap="lg">
        <FailureAlert messages={failure ? [failure] : []} />
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <TextInput label="Value" placeholder="1200.20" withAsterisk inputMode="decimal" {...form.getInputProps('value')} />
          <Select
            label="Currency"
            withAsterisk
            searchable
            allowDeselect={false}
            data={menu}
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps('currency')}
            onChange={(value) => form.setFieldValue('currency', value ?? '')}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <DateInput
            label="Date"
            withAsterisk
            placeholder={SINCE_INPUT_FORMAT}
            valueFormat={SINCE_INPUT_FORMAT}
            dateParser={parseSinceInput}
            leftSection={<IconCalendar size={16} />}
            popoverProps={{ withinPortal: true }}
            value={form.values.date || null}
            onChange={(value) => form.setFieldValue('date', value ?? '')}
            error={form.errors.date}
          />
          <DateInput
            label="Due date"
            placeholder={SINCE_INPUT_FORMAT}
            valueFormat={SINCE_INPUT_FORMAT}
            dateParser={parseSinceInput}
            leftSection={<IconCalendar size={16} />}
            popoverProps={{ withinPortal: true }}
            clearable
            value={form.values.due_date || null}
            onChange={(value) => form.setFieldValue('due_date', value ?? '')}
            error={form.errors.due_date}
          />
        </SimpleGrid>
        <TextInput label="Invoice number" placeholder="FV/2026/03/14" {...form.getInputProps('invoice_number')} />
        <TextInput label="Name" placeholder="Google Ads, March" {...form.getInputProps('name')} />
        {attributes.length > 0 ? (
          <Stack gap="sm" component="section" aria-label="Cost attributes">
            <Title order={3} fz="sm">
              Cost attributes
            </Title>
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
              {attributes.map((attribute) => (
                <TextInput key={attribute.id} label={attribute.name} placeholder="No value" {...form.getInputProps(`segments.${attribute.id}`)} />
              ))}
            </SimpleGrid>
          </Stack>
        ) : null}
        <Group justify="flex-end" gap="sm" pt="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} leftSection={<IconDeviceFloppy size={16} />}>
            {cost ? 'Save cost' : 'Add cost'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
