import { Button, Group, Paper, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { CUSTOMER_NAME_REQUIRED_MESSAGE } from '../../../models/customers';
import { apiFieldErrors } from '../../api/errors';
import { DEFAULT_ERROR_TOAST } from '../../notifications/toast';
import { CustomerChangeError } from '../customersApi';
import type { Customer, CustomerServices } from '../customersApi';
import { useCustomerChange } from './useCustomerChange';

export interface CustomerNameEditProps {
  customer: Customer;
  services: CustomerServices;
  /** Saved or cancelled. */
  onDone: () => void;
}

/** The server's message for the name field of a refused change, if it gave one. */
function nameErrorOf(error: unknown): string | undefined {
  return error instanceof CustomerChangeError ? apiFieldErrors(error.body).name : undefined;
}

/**
 * The customer's name edited in the drawer (`PUT /customers/{id}` `name`): required ('This field
 * is required'); Escape or Cancel leaves it as it was; a failure keeps what was typed.
 */
export function CustomerNameEdit({ customer, services, onDone }: CustomerNameEditProps) {
  const [name, setName] = useState(customer.name);
  const [error, setError] = useState<string | null>(null);
  const save = useCustomerChange({
    call: (value: string) => services.update(customer.id, { name: value }),
    failure: (failed) => nameErrorOf(failed) ?? DEFAULT_ERROR_TOAST,
    onDone,
  });

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const value = name.trim();
    if (value === '') {
      setError(CUSTOMER_NAME_REQUIRED_MESSAGE);
      return;
    }
    if (value === customer.name) {
      onDone();
      return;
    }
    await save.run(value);
  };

  return (
    <Paper withBorder p="md" radius="md" component="form" onSubmit={(event: FormEvent) => void handleSubmit(event)} noValidate aria-label="Edit name">
      <Group align="flex-start" gap="sm" wrap="nowrap">
        <TextInput
          label="Name"
          withAsterisk
          data-autofocus
          autoFocus
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value);
            setError(null);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.stopPropagation();
              onDone();
            }
          }}
          error={error}
          style={{ flex: 1 }}
        />
        <Group gap="xs" mt={25} wrap="nowrap">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.pending}>
            Save
          </Button>
        </Group>
      </Group>
    </Paper>
  );
}
