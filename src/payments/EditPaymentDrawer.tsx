import { Alert, Badge, Button, Divider, Drawer, Group, ScrollArea, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconAlertCircle, IconDeviceFloppy, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DRAWER_WIDTH_MAX } from '../../models/constants';
import { paymentFormToBody, paymentToFormValues, REMOVE_PAYMENT_FAILURE_MESSAGE } from '../../models/payments';
import type { Payment, PaymentFormValues } from '../../models/payments';
import { FailureAlert } from '../components/FailureAlert';
import { toastSuccess } from '../notifications/toast';
import { PaymentAttributes } from './PaymentAttributes';
import { PaymentFields } from './PaymentFields';
import { showDay } from './paymentDates';
import { formatDuration, formatPaymentMoney, ONGOING } from './paymentFormat';
import { PAYMENT_FETCH_FAILURE, PAYMENT_UPDATE_FAILURE, paymentKey } from './paymentsApi';
import type { ProductOption } from './paymentsApi';
import { usePaymentForm, usePaymentServices, usePaymentWrite } from './usePaymentForm';

export const PAYMENT_SAVED = 'Payment saved. Your reports are being recalculated.';
export const PAYMENT_REMOVED = 'Payment deleted. Your reports are being recalculated.';

interface EditPaymentDrawerProps {
  /** The payment shown; null: closed. */
  paymentId: string | null;
  /** The payment as the table already has it (shown at once); without it the drawer reads it. */
  initial?: Payment | null;
  onClose: () => void;
}

/**
 * The edit drawer of one payment (opened from the payments table or a customer's payments
 * timeline): the subscription form prefilled (PUT /subscriptions/history/{id}), the payment's
 * attribute values, and delete with a confirmation (DELETE /subscriptions/history/{id}). Every
 * write reads the payments, customers and reports again.
 */
export function EditPaymentDrawer({ paymentId, initial, onClose }: EditPaymentDrawerProps) {
  const narrow = useMediaQuery('(max-width: 62em)');
  const services = usePaymentServices();
  const payment = useQuery({
    queryKey: paymentKey(paymentId ?? ''),
    enabled: paymentId !== null,
    queryFn: ({ signal }) => services.payment(paymentId ?? '', signal),
    initialData: initial && initial.id === paymentId ? initial : undefined,
    // The table's copy is shown at once and read again behind it.
    initialDataUpdatedAt: 0,
  });
  const shown = payment.data ?? null;

  return (
    <Drawer
      opened={paymentId !== null}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : DRAWER_WIDTH_MAX}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          {shown ? `Payment: ${shown.customer.name}` : 'Payment'}
        </Text>
      }
      styles={{ title: { minWidth: 0, overflowWrap: 'anywhere' } }}
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {shown ? (
        <PaymentEditor key={shown.id} payment={shown} onDeleted={onClose} />
      ) : payment.isPending || payment.isFetching ? (
        <Stack gap="md" aria-label="Loading the payment">
          <Skeleton height={56} />
          <Skeleton height={220} />
          <Skeleton height={56} />
        </Stack>
      ) : (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          {payment.isError ? PAYMENT_FETCH_FAILURE : 'This payment no longer exists.'}
        </Alert>
      )}
    </Drawer>
  );
}

/** '$1,200.00 over 12 months, ends 01-01-2027' or '$100.00 a month, ongoing'. */
function paymentSummary(payment: Payment): string {
  if (payment.ended_at === null || payment.duration_in_months === null) return `${formatPaymentMoney(payment.monthly_amount, payment.currency)} a month, ${ONGOING}`;
  const months = formatDuration(payment.duration_in_months);
  return `${formatPaymentMoney(payment.total_value, payment.currency)} over ${months} ${months === '1' ? 'month' : 'months'}, ends ${showDay(payment.ended_at)}`;
}

function PaymentEditor({ payment, onDeleted }: { payment: Payment; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const services = usePaymentServices();
  const item = payment.items[0];
  const [product, setProduct] = useState<ProductOption | null>(item ? { key: item.product_key, name: item.product_name } : null);
  const [other, setOther] = useState<string[]>([]);
  const form = usePaymentForm(paymentToFormValues(payment), false);
  const save = usePaymentWrite((values: PaymentFormValues) => services.update(payment.id, paymentFormToBody(values)), PAYMENT_UPDATE_FAILURE);
  const remove = usePaymentWrite(() => services.remove(payment.id), REMOVE_PAYMENT_FAILURE_MESSAGE);

  const handleSaved = (saved: Payment) => queryClient.setQueryData(paymentKey(saved.id), saved);

  const handleSubmit = form.onSubmit(async (values) => {
    setOther([]);
    const outcome = await save.run(values, form);
    if (!outcome.ok) {
      setOther(outcome.other);
      return;
    }
    toastSuccess(PAYMENT_SAVED);
    handleSaved(outcome.output);
    form.resetDirty(paymentToFormValues(outcome.output));
  });

  const handleDelete = () => {
    modals.openConfirmModal({
      title: 'Delete payment',
      children: (
        <Text size="sm">
          Delete this payment of “{payment.customer.name}”
          {payment.invoice_number ? ` (invoice ${payment.invoice_number})` : ''}? It no longer counts in any report.
        </Text>
      ),
      labels: { confirm: 'Delete payment', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void remove.run(undefined).then((outcome) => {
          if (!outcome.ok) return;
          toastSuccess(PAYMENT_REMOVED);
          onDeleted();
        }),
    });
  };

  return (
    <Stack gap="lg">
      <Group gap="xs" wrap="wrap">
        <Badge variant="light" color="gray" tt="none">
          {payment.id}
        </Badge>
        {payment.version > 1 ? (
          <Badge variant="light" color="blue">
            Version {payment.version}
          </Badge>
        ) : null}
        <Text size="sm" c="dimmed">
          {paymentSummary(payment)}
        </Text>
      </Group>
      <form onSubmit={handleSubmit} noValidate aria-label="Subscription">
        <Stack gap="md">
          <Title order={3} fz="md">
            Subscription
          </Title>
          <PaymentFields form={form} services={services} product={product} onProductChange={setProduct} />
          <FailureAlert messages={other} title={PAYMENT_UPDATE_FAILURE} />
          <Group justify="flex-end">
            <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} loading={save.pending} disabled={!form.isValid() || !form.isDirty()}>
              Save payment
            </Button>
          </Group>
        </Stack>
      </form>
      <Divider />
      <PaymentAttributes payment={payment} onSaved={handleSaved} />
      <Divider />
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" c="dimmed">
          Deleting a payment removes it from every report.
        </Text>
        <Button color="red" variant="light" leftSection={<IconTrash size={16} />} onClick={handleDelete} loading={remove.pending}>
          Delete payment
        </Button>
      </Group>
    </Stack>
  );
}
