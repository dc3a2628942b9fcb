import { Button, Divider, Drawer, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconHierarchy2, IconUserPlus } from '@tabler/icons-react';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { DRAWER_WIDTH_MIN } from '../../../models/constants';
import { ASSIGN_PARENT_FAILURE_MESSAGE, CREATE_CUSTOMER_FAILURE_MESSAGE, CUSTOMER_NAME_REQUIRED_MESSAGE, SELECT_CUSTOMER_MESSAGE } from '../../../models/customers';
import { toastError } from '../../notifications/toast';
import { CustomerSearchSelect } from '../CustomerSearchSelect';
import type { Customer, CustomerRow, CustomerServices } from '../customersApi';
import { useCustomerChange } from './useCustomerChange';

export interface AssignParentDrawerProps {
  opened: boolean;
  customer: Customer;
  services: CustomerServices;
  onClose: () => void;
}

/**
 * 'Assign parent' (offered only to a customer without children): an existing customer found by
 * search, or a new one created by name (`POST /customers`) and then assigned
 * (`PUT /customers/{id}` `parent_id`). A parent created whose assignment then failed stays
 * chosen, so trying again assigns it instead of creating another.
 */
export function AssignParentDrawer({ opened, customer, services, onClose }: AssignParentDrawerProps) {
  const [parent, setParent] = useState<CustomerRow | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const assign = useCustomerChange({
    call: (parentId: string) => services.update(customer.id, { parent_id: parentId }),
    failure: ASSIGN_PARENT_FAILURE_MESSAGE,
    onDone: () => handleClose(),
  });

  function handleClose() {
    setParent(null);
    setError(null);
    setNewName('');
    setNameError(null);
    onClose();
  }

  const handleChange = (row: CustomerRow | null) => {
    setParent(row);
    if (row) setError(null);
  };

  const handleAssign = (event: FormEvent) => {
    event.preventDefault();
    if (!parent) {
      setError(SELECT_CUSTOMER_MESSAGE);
      return;
    }
    void assign.run(parent.id);
  };

  const handleCreate = async () => {
    const name = newName.trim();
    if (name === '') {
      setNameError(CUSTOMER_NAME_REQUIRED_MESSAGE);
      return;
    }
    setCreating(true);
    let created: CustomerRow;
    try {
      created = await services.create(name);
    } catch {
      setCreating(false);
      toastError(CREATE_CUSTOMER_FAILURE_MESSAGE);
      return;
    }
    setCreating(false);
    setParent(created);
    setNewName('');
    void assign.run(created.id);
  };

  return (
    <Drawer opened={opened} onClose={handleClose} position="right" size={DRAWER_WIDTH_MIN} padding="xl" title={<Text fw={650} fz="lg">Assign parent</Text>}>
      <Stack gap="lg">
        <form onSubmit={handleAssign} noValidate>
          <Stack gap="md">
            <Text size="sm">
              The parent of <strong>{customer.name}</strong>. Reports that use the customer hierarchy count it under its parent.
            </Text>
            <CustomerSearchSelect label="Parent customer" value={parent} onChange={handleChange} services={services} excludeIds={[customer.id]} error={error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={handleClose}>
                Cancel
              </Button>
              <Button type="submit" leftSection={<IconHierarchy2 size={16} />} loading={assign.pending && !creating}>
                Assign parent
              </Button>
            </Group>
          </Stack>
        </form>
        <Divider label="or" labelPosition="center" />
        <Stack gap="md">
          <TextInput
            label="New parent name"
            description="Creates a new customer and makes it the parent."
            value={newName}
            onChange={(event) => {
              setNewName(event.currentTarget.value);
              setNameError(null);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void handleCreate();
              }
            }}
            error={nameError}
          />
          <Group justify="flex-end">
            <Button variant="light" leftSection={<IconUserPlus size={16} />} onClick={() => void handleCreate()} loading={creating}>
              Create new parent
            </Button>
          </Group>
        </Stack>
      </Stack>
    </Drawer>
  );
}
