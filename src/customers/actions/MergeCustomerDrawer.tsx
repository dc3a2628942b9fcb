import { Alert, Button, Drawer, Group, Stack, Text } from '@mantine/core';
import { IconArrowMerge, IconInfoCircle } from '@tabler/icons-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { DRAWER_WIDTH_MIN } from '../../../models/constants';
import { MERGE_FAILURE_MESSAGE, SELECT_CUSTOMER_MESSAGE } from '../../../models/customers';
import { CustomerSearchSelect } from '../CustomerSearchSelect';
import type { Customer, CustomerRow, CustomerServices } from '../customersApi';
import { useCustomerChange } from './useCustomerChange';

export interface MergeCustomerDrawerProps {
  opened: boolean;
  /** The open customer: the one the chosen customer is merged into. */
  customer: Customer;
  services: CustomerServices;
  onClose: () => void;
}

/**
 * 'Merge customer': the customer chosen here is merged into the open one
 * (`POST /customers/{id}/merge` with its id as `source_id`): its payments, attribute values,
 * children and links move to the open customer, and it is removed. The drawer then shows the
 * open customer with its new numbers.
 */
export function MergeCustomerDrawer({ opened, customer, services, onClose }: MergeCustomerDrawerProps) {
  const [source, setSource] = useState<CustomerRow | null>(null);
  const [error, setError] = useState<string | null>(null);
  const merge = useCustomerChange({
    call: (sourceId: string) => services.merge(customer.id, sourceId),
    failure: MERGE_FAILURE_MESSAGE,
    gone: (sourceId) => [sourceId],
    onDone: () => handleClose(),
  });

  function handleClose() {
    setSource(null);
    setError(null);
    onClose();
  }

  const handleChange = (row: CustomerRow | null) => {
    setSource(row);
    if (row) setError(null);
  };

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!source) {
      setError(SELECT_CUSTOMER_MESSAGE);
      return;
    }
    void merge.run(source.id);
  };

  return (
    <Drawer opened={opened} onClose={handleClose} position="right" size={DRAWER_WIDTH_MIN} padding="xl" title={<Text fw={650} fz="lg">Merge customer</Text>}>
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <Text size="sm">
            Choose the customer to merge into <strong>{customer.name}</strong>.
          </Text>
          <CustomerSearchSelect label="Customer to merge" value={source} onChange={handleChange} services={services} excludeIds={[customer.id]} error={error} />
          <Alert variant="light" color="yellow" icon={<IconInfoCircle size={18} />}>
            Its payments, attribute values and children move to {customer.name}, and it is removed. Every report recalculates. This cannot be undone.
          </Alert>
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={handleClose}>
              Cancel
            </Button>
            <Button type="submit" leftSection={<IconArrowMerge size={16} />} loading={merge.pending}>
              Merge
            </Button>
          </Group>
        </Stack>
      </form>
    </Drawer>
  );
}
