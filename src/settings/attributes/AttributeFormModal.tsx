import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ATTRIBUTE_NAME_MAX_LENGTH, ATTRIBUTE_OBJECTS, attributeNameError } from '../../../models/attributes';
import type { AttributeObject, ObjectAttribute } from '../../../models/attributes';
import { apiErrorField, apiErrorText } from '../../api/errors';
import { toastError, toastSuccess } from '../../notifications/toast';
import { useAttributeChanges } from './attributesApi';
import type { ChangeOutcome } from './attributesApi';

export const ATTRIBUTE_SAVE_FAILURE = 'We could not save the attribute, please try again';
export const OBJECT_REQUIRED = 'Object is required';

interface AttributeFormValues {
  name: string;
  object: AttributeObject | '';
}

interface AttributeFormModalProps {
  opened: boolean;
  onClose: () => void;
  /** The attribute to rename; none: add a new one. */
  attribute?: ObjectAttribute | null;
}

/**
 * 'Add attribute' (a name and the object it belongs to) or 'Rename attribute' (the name only:
 * an attribute keeps its object). A name the server refuses shows at the name; the modal stays
 * open with what was typed.
 */
export function AttributeFormModal({ opened, onClose, attribute }: AttributeFormModalProps) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={
        <Text component="span" fw={650} fz="lg">
          {attribute ? 'Rename attribute' : 'Add attribute'}
        </Text>
      }
      centered
    >
      {opened ? <AttributeForm key={attribute?.id ?? 'new'} attribute={attribute ?? null} onDone={onClose} /> : null}
    </Modal>
  );
}

function AttributeForm({ attribute, onDone }: { attribute: ObjectAttribute | null; onDone: () => void }) {
  const { create, rename } = useAttributeChanges();
  const form = useForm<AttributeFormValues>({
    initialValues: { name: attribute?.name ?? '', object: attribute?.object ?? '' },
    validate: {
      name: (name) => attributeNameError(name),
      object: (object) => (object === '' ? OBJECT_REQUIRED : null),
    },
  });
  const pending = create.isPending || rename.isPending;

  const handleSubmit = form.onSubmit(async ({ name, object }) => {
    const trimmed = name.trim();
    let outcome: ChangeOutcome<ObjectAttribute>;
    try {
      outcome = attribute
        ? await rename.mutateAsync({ id: attribute.id, name: trimmed })
        : await create.mutateAsync({ name: trimmed, object: object as AttributeObject });
    } catch {
      toastError(ATTRIBUTE_SAVE_FAILURE);
      return;
    }
    if (!outcome.ok) {
      const fieldErrors = Object.fromEntries(
        outcome.errors.map((item) => [apiErrorField(item), apiErrorText(item)] as const).filter(([field]) => field === 'name' || field === 'object'),
      );
      if (outcome.status === 422 && Object.keys(fieldErrors).length > 0) form.setErrors(fieldErrors);
      else toastError(ATTRIBUTE_SAVE_FAILURE);
      return;
    }
    toastSuccess(attribute ? `Attribute renamed to ${outcome.value.name}` : `Attribute ${outcome.value.name} added`);
    onDone();
  });

  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="md">
        <TextInput label="Name" withAsterisk data-autofocus maxLength={ATTRIBUTE_NAME_MAX_LENGTH + 20} {...form.getInputProps('name')} />
        {attribute ? null : (
          <Select
            label="Object"
            description="What the attribute describes: a customer, a payment or a cost."
            withAsterisk
            data={ATTRIBUTE_OBJECTS.map(({ value, label }) => ({ value, label }))}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps('object')}
            onChange={(value) => form.setFieldValue('object', (value ?? '') as AttributeObject | '')}
          />
        )}
        <Group justify="flex-end" gap="sm" mt="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={pending}>
            {attribute ? 'Save' : 'Add attribute'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
