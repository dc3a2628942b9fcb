import { Alert, Button, Drawer, Group, Radio, ScrollArea, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { IconFilter, IconInfoCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { ITEM_TYPES, type ItemType } from '../../models/constants';
import {
  DistillerForm,
  ISSUE_DATE_TREATMENT_LABELS,
  ISSUE_DATE_TREATMENTS,
  RULE_ADDED,
  RULE_ALREADY_PRESENT,
  RULE_CREATE_FAILURE,
  invoicesProcessing,
  type DistillerFormValues,
  type InvoiceItem,
  type IssueDateTreatment,
} from '../../models/invoices';
import { apiErrorField, apiErrorText } from '../api/errors';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { toastError, toastInvoicesProcessing, toastRuleAdded } from '../notifications/toast';
import { ITEM_TYPE_LABELS } from '../payments/paymentsFilter';
import { useAffectedCount, useCreateRule } from './invoicesApi';

const ITEM_TYPE_OPTIONS = ITEM_TYPES.map((type) => ({ value: type, label: ITEM_TYPE_LABELS[type] }));
/** How long the line name rests before the drawer asks how many lines it takes. */
const AFFECTED_DEBOUNCE_MS = 250;

interface RuleDrawerProps {
  /** The rejected line the rule is made from; null: closed. */
  item: InvoiceItem | null;
  onClose: () => void;
}

/**
 * The import rule drawer, opened from a rejected line: the line name it matches exactly, the
 * item type, whether the issue date starts or ends the period, the product and the duration in
 * months, with how many rejected lines it takes. Saving creates the rule; the lines it takes
 * become payments and the reports recalculate.
 */
export function RuleDrawer({ item, onClose }: RuleDrawerProps) {
  const narrow = useMediaQuery('(max-width: 62em)');
  return (
    <Drawer
      opened={item !== null}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : 520}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          New import rule
        </Text>
      }
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {item ? <RuleForm key={item.id} item={item} onDone={onClose} /> : null}
    </Drawer>
  );
}

function RuleForm({ item, onDone }: { item: InvoiceItem; onDone: () => void }) {
  const create = useCreateRule();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<DistillerFormValues>({
    initialValues: { line_name: item.name, item_type: 'recurring', issue_date_treatment: 'started_at', product_key: '', duration_in_months: '1' },
    validate: superstructResolver(DistillerForm),
  });
  const [lineName] = useDebouncedValue(form.values.line_name, AFFECTED_DEBOUNCE_MS);
  const affected = useAffectedCount(lineName);

  const handleSubmit = form.onSubmit(async (values) => {
    setFailure(null);
    const outcome = await create.mutateAsync({
      line_name: values.line_name.trim(),
      item_type: values.item_type,
      issue_date_treatment: values.issue_date_treatment,
      product_key: values.product_key.trim(),
      duration_in_months: Number(values.duration_in_months.trim()),
      matcher: 'equal',
    });
    if (!outcome.ok) {
      if (outcome.status === 409) {
        form.setFieldError('line_name', RULE_ALREADY_PRESENT);
        setFailure(RULE_ALREADY_PRESENT);
        return;
      }
      for (const error of outcome.errors) {
        const field = apiErrorField(error);
        if (field && field in values) form.setFieldError(field, apiErrorText(error));
      }
      setFailure(RULE_CREATE_FAILURE);
      toastError(RULE_CREATE_FAILURE);
      return;
    }
    toastRuleAdded(RULE_ADDED);
    if (outcome.processed > 0) toastInvoicesProcessing(invoicesProcessing(outcome.processed));
    onDone();
  });

  const count = affected.data;
  return (
    <form onSubmit={handleSubmit} noValidate aria-label="New import rule">
      <Stack gap="lg">
        <FailureAlert messages={failure ? [failure] : []} />
        <TextInput
          label="Line name"
          description="Lines named exactly this become payments"
          withAsterisk
          leftSection={<IconFilter size={16} />}
          {...form.getInputProps('line_name')}
        />
        <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} role="status" aria-label="Affected invoices">
          {form.values.line_name.trim() === ''
            ? 'Type the line name to see how many rejected lines the rule takes.'
            : count === undefined
              ? 'Counting the rejected lines it takes…'
              : `This rule affects ${count} rejected invoice ${count === 1 ? 'line' : 'lines'}.`}
        </Alert>
        <Select
          label="Item type"
          withAsterisk
          data={ITEM_TYPE_OPTIONS}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
          {...form.getInputProps('item_type')}
          onChange={(type) => form.setFieldValue('item_type', (type ?? 'recurring') as ItemType)}
        />
        <Radio.Group label="Issue date" withAsterisk {...form.getInputProps('issue_date_treatment')} onChange={(value) => form.setFieldValue('issue_date_treatment', value as IssueDateTreatment)}>
          <Stack gap="xs" mt="xs">
            {ISSUE_DATE_TREATMENTS.map((treatment) => (
              <Radio key={treatment} value={treatment} label={ISSUE_DATE_TREATMENT_LABELS[treatment]} />
            ))}
          </Stack>
        </Radio.Group>
        <TextInput label="Product" placeholder="Pro plan" withAsterisk {...form.getInputProps('product_key')} />
        <TextInput label="Duration (months)" placeholder="12" withAsterisk inputMode="numeric" {...form.getInputProps('duration_in_months')} />
        <Group justify="flex-end" gap="sm" pt="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create rule
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
