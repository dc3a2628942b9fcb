import { SegmentedControl, Stack, TextInput } from '@mantine/core';
import { CustomerSearchSelect } from '../customers/CustomerSearchSelect';
import type { CustomerRow, CustomerServices } from '../customers/customersApi';
import type { PaymentForm } from './PaymentFields';

export type CustomerMode = 'existing' | 'new';

interface PaymentCustomerFieldsProps {
  form: PaymentForm;
  mode: CustomerMode;
  onModeChange: (mode: CustomerMode) => void;
  /** The existing customer chosen (its id is the form's `customer_id`). */
  customer: CustomerRow | null;
  onCustomerChange: (customer: CustomerRow | null) => void;
  services: CustomerServices;
}

const MODE_OPTIONS: { value: CustomerMode; label: string }[] = [
  { value: 'existing', label: 'Existing customer' },
  { value: 'new', label: 'New customer' },
];

/**
 * The customer form of a new payment: an existing customer found by search, or a new one by
 * name (created with the payment). Whichever is chosen fills the form; the other is cleared.
 */
export function PaymentCustomerFields({ form, mode, onModeChange, customer, onCustomerChange, services }: PaymentCustomerFieldsProps) {
  const handleMode = (next: string) => {
    const chosen = next as CustomerMode;
    onModeChange(chosen);
    onCustomerChange(null);
    form.setValues({ customer_id: '', customer_name: '' });
    form.clearFieldError('customer_name');
  };
  const handleCustomer = (row: CustomerRow | null) => {
    onCustomerChange(row);
    form.setFieldValue('customer_id', row?.id ?? '');
    form.validateField('customer_name');
  };

  return (
    <Stack gap="sm">
      <SegmentedControl aria-label="Customer" data={MODE_OPTIONS} value={mode} onChange={handleMode} fullWidth />
      {mode === 'existing' ? (
        <CustomerSearchSelect label="Customer" value={customer} onChange={handleCustomer} services={services} error={form.errors.customer_name as string | undefined} />
      ) : (
        <TextInput label="Customer name" withAsterisk placeholder="Acme Inc." {...form.getInputProps('customer_name')} />
      )}
    </Stack>
  );
}
