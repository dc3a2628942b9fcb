import { Group, NumberInput, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import type { UseFormReturnType } from '@mantine/form';
import { IconCalendar } from '@tabler/icons-react';
import { useId } from 'react';
import { ITEM_TYPES, PAYMENT_START_DATE_INPUT_FORMAT } from '../../models/constants';
import type { ItemType } from '../../models/constants';
import { CURRENCIES } from '../../models/money';
import { formEndDate, formMonthlyAmount } from '../../models/payments';
import type { DiscountKind, PaymentFormValues, PaymentPeriodMode } from '../../models/payments';
import { formatPaymentMoney } from './paymentFormat';
import { parseDayInput, showDay } from './paymentDates';
import type { PaymentServices, ProductOption } from './paymentsApi';
import { ITEM_TYPE_LABELS } from './paymentsFilter';
import { ProductSelect } from './ProductSelect';

export type PaymentForm = UseFormReturnType<PaymentFormValues>;

interface PaymentFieldsProps {
  form: PaymentForm;
  services: PaymentServices;
  /** The product shown in the product box (its key is the form's `product_key`). */
  product: ProductOption | null;
  onProductChange: (product: ProductOption | null) => void;
}

const PERIOD_OPTIONS: { value: PaymentPeriodMode; label: string }[] = [
  { value: 'months', label: 'In months' },
  { value: 'until', label: 'Until a date' },
  { value: 'ongoing', label: 'Ongoing' },
];
/** A field that takes the whole row of the two-column grid. */
const FULL_ROW = { gridColumn: '1 / -1' } as const;
const ITEM_TYPE_OPTIONS = ITEM_TYPES.map((type) => ({ value: type, label: ITEM_TYPE_LABELS[type] }));
const CURRENCY_OPTIONS = CURRENCIES.map(([iso, name]) => ({ value: iso, label: `${iso} · ${name}` }));
const DISCOUNT_OPTIONS: { value: DiscountKind | ''; label: string }[] = [
  { value: '', label: 'No discount' },
  { value: 'forever', label: 'Forever' },
  { value: 'finite', label: 'For some months' },
];

/**
 * The subscription form's fields: start date (DD-MM-YYYY), the period (whole months, an end
 * date or ongoing), total value (monthly amount when ongoing) and currency, product, item type,
 * units sold, invoice number and an optional discount. The monthly amount and the end date are
 * worked out as the user types.
 */
export function PaymentFields({ form, services, product, onProductChange }: PaymentFieldsProps) {
  const { values } = form;
  const periodLabelId = useId();
  const monthly = formMonthlyAmount(values);
  const end = formEndDate(values);
  const currency = values.currency || 'USD';

  const handleProduct = (next: ProductOption | null) => {
    onProductChange(next);
    form.setFieldValue('product_key', next?.key ?? '');
  };

  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="md">
        <Stack gap={4} style={FULL_ROW}>
          <Text size="sm" fw={500} id={periodLabelId}>
            Period
          </Text>
          <SegmentedControl
            aria-labelledby={periodLabelId}
            data={PERIOD_OPTIONS}
            value={values.period}
            onChange={(period) => form.setFieldValue('period', period as PaymentPeriodMode)}
            fullWidth
          />
        </Stack>
        <DateInput
          label="Start date"
          withAsterisk
          placeholder={PAYMENT_START_DATE_INPUT_FORMAT}
          valueFormat={PAYMENT_START_DATE_INPUT_FORMAT}
          dateParser={parseDayInput}
          leftSection={<IconCalendar size={16} />}
          value={values.started_at || null}
          onChange={(value) => form.setFieldValue('started_at', value ?? '')}
          error={form.errors.started_at}
          onBlur={() => form.validateField('started_at')}
          popoverProps={{ withinPortal: true }}
        />
        {values.period === 'months' ? (
          <NumberInput label="Months" withAsterisk min={1} clampBehavior="none" allowDecimal={false} allowNegative={false} {...form.getInputProps('duration_in_months')} />
        ) : values.period === 'until' ? (
          <DateInput
            label="End date"
            description="The first day after the service period"
            withAsterisk
            placeholder={PAYMENT_START_DATE_INPUT_FORMAT}
            valueFormat={PAYMENT_START_DATE_INPUT_FORMAT}
            dateParser={parseDayInput}
            leftSection={<IconCalendar size={16} />}
            value={values.ended_at || null}
            onChange={(value) => form.setFieldValue('ended_at', value ?? '')}
            error={form.errors.ended_at}
            popoverProps={{ withinPortal: true }}
          />
        ) : (
          <TextInput label="Monthly amount" withAsterisk placeholder="100.00" inputMode="decimal" {...form.getInputProps('monthly_amount')} />
        )}
        {values.period === 'ongoing' ? (
          <Text size="sm" c="dimmed" style={{ alignSelf: 'center' }}>
            An ongoing payment counts every month until an end is set.
          </Text>
        ) : (
          <TextInput label="Total value" withAsterisk placeholder="1200.20" inputMode="decimal" {...form.getInputProps('total_value')} />
        )}
        <Select label="Currency" withAsterisk searchable data={CURRENCY_OPTIONS} {...form.getInputProps('currency')} comboboxProps={{ withinPortal: true }} />
        <Paper withBorder radius="md" px="sm" py={6} role="status" aria-label="Worked out" style={FULL_ROW}>
          <Group justify="space-between" gap="xs" wrap="wrap">
            <Text size="sm" c="dimmed">
              Monthly amount
            </Text>
            <Text size="sm" fw={600} data-testid="live-monthly-amount">
              {monthly === null ? '–' : formatPaymentMoney(monthly, currency)}
            </Text>
          </Group>
          <Group justify="space-between" gap="xs" wrap="wrap">
            <Text size="sm" c="dimmed">
              End date
            </Text>
            <Text size="sm" fw={600} data-testid="live-end-date">
              {values.period === 'ongoing' ? 'ongoing' : end === null ? '–' : showDay(end)}
            </Text>
          </Group>
        </Paper>
        <ProductSelect value={product} onChange={handleProduct} services={services} error={form.errors.product_key as string | undefined} onBlur={() => form.validateField('product_key')} />
        <Select label="Item type" withAsterisk data={ITEM_TYPE_OPTIONS} allowDeselect={false} {...form.getInputProps('item_type')} onChange={(type) => form.setFieldValue('item_type', (type ?? 'recurring') as ItemType)} comboboxProps={{ withinPortal: true }} />
        <NumberInput label="Units sold" withAsterisk min={1} clampBehavior="none" allowDecimal={false} allowNegative={false} {...form.getInputProps('quantity')} />
        <TextInput label="Invoice number" placeholder="Optional" {...form.getInputProps('invoice_number')} />
      </SimpleGrid>
      <Stack gap="xs">
        <Title order={3} fz="sm">
          Discount
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <Select
            label="Kind"
            data={DISCOUNT_OPTIONS}
            allowDeselect={false}
            value={values.discount_kind}
            onChange={(kind) => form.setFieldValue('discount_kind', (kind ?? '') as DiscountKind | '')}
            comboboxProps={{ withinPortal: true }}
          />
          {values.discount_kind !== '' ? <TextInput label="Monthly discount" withAsterisk placeholder="10.00" inputMode="decimal" {...form.getInputProps('discount_amount')} /> : null}
          {values.discount_kind === 'finite' ? (
            <NumberInput label="Discount months" withAsterisk min={1} clampBehavior="none" allowDecimal={false} allowNegative={false} {...form.getInputProps('discount_months')} />
          ) : null}
        </SimpleGrid>
      </Stack>
    </Stack>
  );
}
