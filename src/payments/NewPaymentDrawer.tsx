import { Button, Divider, Drawer, Group, ScrollArea, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { DRAWER_WIDTH_MAX } from '../../models/constants';
import { NEW_PAYMENT_FORM_VALUES, newPaymentId, paymentFormToBody, todayIso } from '../../models/payments';
import type { Payment, PaymentFormValues } from '../../models/payments';
import { useApi } from '../api/ApiContext';
import { FailureAlert } from '../components/FailureAlert';
import { createCustomerServices } from '../customers/customersApi';
import type { CustomerRow } from '../customers/customersApi';
import { toastSuccess } from '../notifications/toast';
import { useAccountSettings } from '../settings/account/accountSettingsApi';
import { PaymentCustomerFields } from './PaymentCustomerFields';
import type { CustomerMode } from './PaymentCustomerFields';
import { PaymentFields } from './PaymentFields';
import { PAYMENT_CREATE_FAILURE } from './paymentsApi';
import type { ProductOption } from './paymentsApi';
import { usePaymentForm, usePaymentServices, usePaymentWrite } from './usePaymentForm';

export const PAYMENT_CREATED = 'Payment created. Your reports are being recalculated.';

interface NewPaymentDrawerProps {
  opened: boolean;
  onClose: () => void;
}

/** Currency a new payment starts in when the account's is not known. */
const FALLBACK_CURRENCY = 'USD';

/**
 * The 'New payment' drawer: the customer form and the subscription form; 'Create' and 'Create
 * and add another' (which keeps the customer and starts the rest afresh), both enabled only
 * while both forms are valid. Each payment gets a client id (`newPaymentId`), kept across
 * retries so a repeated request cannot create it twice.
 */
export function NewPaymentDrawer({ opened, onClose }: NewPaymentDrawerProps) {
  const narrow = useMediaQuery('(max-width: 62em)');
  const settings = useAccountSettings({ enabled: opened });
  const currency = settings.data?.currency ?? (settings.isError ? FALLBACK_CURRENCY : null);
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : DRAWER_WIDTH_MAX}
      padding="xl"
      title={
        <Text component="span" fw={650} fz="lg">
          New payment
        </Text>
      }
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {currency === null ? (
        <Stack gap="md" aria-label="Loading the payment form">
          <Skeleton height={36} />
          <Skeleton height={56} />
          <Skeleton height={220} />
        </Stack>
      ) : (
        <NewPaymentForm currency={currency.toUpperCase()} onDone={onClose} />
      )}
    </Drawer>
  );
}

function freshValues(currency: string, customer: CustomerRow | null): PaymentFormValues {
  return { ...NEW_PAYMENT_FORM_VALUES, started_at: todayIso(), currency, customer_id: customer?.id ?? '' };
}

/** The customer the next payment of 'Create and add another' is for: the one just paid for. */
function customerOf(payment: Payment): CustomerRow {
  return { id: payment.customer.id, name: payment.customer.name, public_id: null, parent_id: null, children_count: 0, include_in_calculations_by_default: true };
}

function NewPaymentForm({ currency, onDone }: { currency: string; onDone: () => void }) {
  const client = useApi();
  const customerServices = useMemo(() => createCustomerServices(client), [client]);
  const services = usePaymentServices();
  const [customerMode, setCustomerMode] = useState<CustomerMode>('existing');
  const [customer, setCustomer] = useState<CustomerRow | null>(null);
  const [product, setProduct] = useState<ProductOption | null>(null);
  const [paymentId, setPaymentId] = useState(newPaymentId);
  const [other, setOther] = useState<string[]>([]);
  // Remounts the fields whose inputs keep their own text (the product box) when the form starts afresh.
  const [round, setRound] = useState(0);
  const form = usePaymentForm(freshValues(currency, null), true);
  const create = usePaymentWrite((values: PaymentFormValues) => services.create(paymentId, paymentFormToBody(values)), PAYMENT_CREATE_FAILURE);
  const valid = form.isValid();

  const submit = async (another: boolean) => {
    if (form.validate().hasErrors) return;
    setOther([]);
    const outcome = await create.run(form.getValues(), form);
    if (!outcome.ok) {
      setOther(outcome.other);
      return;
    }
    toastSuccess(PAYMENT_CREATED);
    if (!another) {
      onDone();
      return;
    }
    const kept = customerOf(outcome.output);
    setCustomerMode('existing');
    setCustomer(kept);
    setProduct(null);
    setPaymentId(newPaymentId());
    setRound((value) => value + 1);
    form.setValues(freshValues(currency, kept));
    form.resetDirty();
    form.clearErrors();
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit(false);
      }}
      noValidate
    >
      <Stack gap="lg">
        <Stack gap="sm" component="section" aria-label="Customer">
          <Title order={3} fz="md">
            Customer
          </Title>
          <PaymentCustomerFields form={form} mode={customerMode} onModeChange={setCustomerMode} customer={customer} onCustomerChange={setCustomer} services={customerServices} />
        </Stack>
        <Divider />
        <Stack gap="sm" component="section" aria-label="Subscription">
          <Title order={3} fz="md">
            Subscription
          </Title>
          <PaymentFields key={round} form={form} services={services} product={product} onProductChange={setProduct} />
        </Stack>
        <FailureAlert messages={other} title={PAYMENT_CREATE_FAILURE} />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" leftSection={<IconPlus size={16} />} disabled={!valid} loading={create.pending} onClick={() => void submit(true)}>
            Create and add another
          </Button>
          <Button type="submit" disabled={!valid} loading={create.pending}>
            Create
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
