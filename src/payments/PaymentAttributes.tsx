import { Button, Group, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';
import type { ObjectAttribute } from '../../models/attributes';
import type { Payment } from '../../models/payments';
import { FailureAlert } from '../components/FailureAlert';
import { toastSuccess } from '../notifications/toast';
import { useObjectAttributes } from '../settings/attributes/attributesApi';
import { PAYMENT_UPDATE_FAILURE } from './paymentsApi';
import type { PaymentSegmentValue } from './paymentsApi';
import { usePaymentServices, usePaymentWrite } from './usePaymentForm';

export const PAYMENT_ATTRIBUTES_SAVED = 'Payment attributes saved';

interface PaymentAttributesProps {
  payment: Payment;
  onSaved: (payment: Payment) => void;
}

/**
 * The payment's attribute values: one input per custom attribute of payments (object
 * 'subscription_history', GET /object_attributes), saved together with
 * PUT /subscriptions/history/{latest_history_id} `{segments}`; an emptied value is sent as null.
 */
export function PaymentAttributes({ payment, onSaved }: PaymentAttributesProps) {
  const attributes = useObjectAttributes();
  const paymentAttributes = (attributes.data ?? []).filter((attribute) => attribute.object === 'subscription_history');
  return (
    <Stack gap="sm" component="section" aria-label="Payment attributes">
      <Title order={3} fz="md">
        Attributes
      </Title>
      {attributes.data === undefined ? (
        attributes.isError && !attributes.isFetching ? (
          <Text size="sm" c="dimmed">
            We could not fetch the payment attributes.
          </Text>
        ) : (
          <Skeleton height={56} aria-label="Loading attributes" />
        )
      ) : paymentAttributes.length === 0 ? (
        <Text size="sm" c="dimmed">
          No payment attributes yet. Add them in Settings, under Custom attributes.
        </Text>
      ) : (
        <AttributesForm key={`${payment.id}:${payment.version}`} payment={payment} attributes={paymentAttributes} onSaved={onSaved} />
      )}
    </Stack>
  );
}

function AttributesForm({ payment, attributes, onSaved }: { payment: Payment; attributes: ObjectAttribute[]; onSaved: (payment: Payment) => void }) {
  const services = usePaymentServices();
  const [other, setOther] = useState<string[]>([]);
  const form = useForm<Record<string, string>>({
    initialValues: Object.fromEntries(attributes.map((attribute) => [attribute.id, payment.segments.find((segment) => segment.id === attribute.id)?.value ?? ''])),
  });
  const save = usePaymentWrite((segments: PaymentSegmentValue[]) => services.update(payment.latest_history_id, { segments }), PAYMENT_UPDATE_FAILURE);

  const handleSubmit = form.onSubmit(async (values) => {
    setOther([]);
    const segments = attributes.map((attribute) => {
      const value = (values[attribute.id] ?? '').trim();
      return { id: attribute.id, value: value === '' ? null : value };
    });
    const outcome = await save.run(segments);
    if (!outcome.ok) {
      setOther(outcome.other);
      return;
    }
    toastSuccess(PAYMENT_ATTRIBUTES_SAVED);
    onSaved(outcome.output);
  });

  return (
    <form onSubmit={handleSubmit} noValidate aria-label="Attribute values">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          {attributes.map((attribute) => (
            <TextInput key={attribute.id} label={attribute.name} placeholder="No value" {...form.getInputProps(attribute.id)} />
          ))}
        </SimpleGrid>
        <FailureAlert messages={other} title={PAYMENT_UPDATE_FAILURE} />
        <Group justify="flex-end">
          <Button type="submit" variant="default" leftSection={<IconDeviceFloppy size={16} />} loading={save.pending} disabled={!form.isDirty()}>
            Save attributes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
