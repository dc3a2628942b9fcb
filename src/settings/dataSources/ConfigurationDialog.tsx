import { Button, Group, Modal, PasswordInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useSelector } from '@xstate/react';
import { useEffect } from 'react';
import type { IntegrationSyncActorRef } from '../../../machines/integrationSync/integrationSyncMachine';
import { selectConfig, selectDialogOpen, selectSaveFailure, selectSaving } from '../../../machines/integrationSync/selectors';
import { INTEGRATION_LABELS } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';
import { FailureAlert } from '../../components/FailureAlert';
import { superstructResolver } from '../../forms/superstructResolver';
import { CONFIGURATION_FORMS, initialValues } from './integrationForms';
import type { ConfigurationField, ConfigurationForm } from './integrationForms';

interface ConfigurationDialogProps {
  name: IntegrationName;
  actor: IntegrationSyncActorRef;
}

type FormValues = Record<string, unknown>;

/** The value at a dotted key (`customer_public_id_path.attribute_name`) of a nested object. */
function valueAt(values: Record<string, unknown>, key: string): unknown {
  let value: unknown = values;
  for (const segment of key.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * The dialog's starting values, nested as the body is: each field's saved non-secret setting
 * (read at its dotted key), else a select's first choice, else empty.
 */
export function startingValues(definition: ConfigurationForm, config: Record<string, unknown>): FormValues {
  const flat = initialValues(definition, config);
  const values: FormValues = {};
  for (const field of definition.fields) {
    const saved = field.fromConfig ? valueAt(config, field.key) : undefined;
    const chosen = typeof saved === 'string' && saved !== '' ? saved : flat[field.key] || field.options?.[0]?.value || '';
    const segments = field.key.split('.');
    let target = values;
    for (const segment of segments.slice(0, -1)) {
      const next = target[segment];
      target = (typeof next === 'object' && next !== null ? next : (target[segment] = {})) as FormValues;
    }
    target[segments.at(-1) as string] = chosen;
  }
  return values;
}

/** The server's refusals by field: a pointer names its last segment (`attribute_name`), the form its dotted key. */
export function fieldErrorsOf(fields: ConfigurationField[], refused: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = { ...refused };
  for (const field of fields) {
    const message = refused[field.key] ?? refused[field.key.split('.').at(-1) as string];
    if (message) errors[field.key] = message;
  }
  return errors;
}

/**
 * The configuration dialog of an integration (open while its machine is configuring or
 * saving): the spec's fields checked with the server's rules before sending, and the server's
 * refusal shown in place (a field's message, the cannot-connect message, or 'We could not
 * save configuration').
 */
export function ConfigurationDialog({ name, actor }: ConfigurationDialogProps) {
  const opened = useSelector(actor, selectDialogOpen);
  const form = CONFIGURATION_FORMS[name];
  const handleClose = () => actor.send({ type: 'integration.cancel' });
  return (
    <Modal opened={opened && !!form} onClose={handleClose} title={`Connect ${INTEGRATION_LABELS[name]}`} centered>
      {form ? <ConfigurationFormView name={name} actor={actor} form={form} onCancel={handleClose} /> : null}
    </Modal>
  );
}

function ConfigurationFormView({ name, actor, form: definition, onCancel }: ConfigurationDialogProps & { form: ConfigurationForm; onCancel: () => void }) {
  const saving = useSelector(actor, selectSaving);
  const failure = useSelector(actor, selectSaveFailure);
  const config = useSelector(actor, selectConfig);
  const form = useForm<FormValues>({
    initialValues: startingValues(definition, config),
    validate: superstructResolver(definition.struct),
  });
  const { setErrors } = form;
  useEffect(() => {
    if (failure?.kind === 'invalid') setErrors(fieldErrorsOf(definition.fields, failure.fields));
  }, [failure, setErrors, definition.fields]);

  const handleSubmit = form.onSubmit((values) => actor.send({ type: 'integration.save', configuration: values }));
  const messages = failure && failure.kind !== 'invalid' ? failure.messages : [];
  return (
    <form onSubmit={handleSubmit} noValidate aria-label={`${INTEGRATION_LABELS[name]} configuration`}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Subscope reads your {INTEGRATION_LABELS[name]} data and never changes it. The first sync starts as soon as you save.
        </Text>
        {definition.fields.map((field) =>
          field.options ? (
            <Select key={field.key} label={field.label} description={field.description} data={field.options} allowDeselect={false} {...form.getInputProps(field.key)} />
          ) : field.secret ? (
            <PasswordInput key={field.key} label={field.label} description={field.description} autoComplete="off" {...form.getInputProps(field.key)} />
          ) : (
            <TextInput key={field.key} label={field.label} description={field.description} autoComplete="off" {...form.getInputProps(field.key)} />
          ),
        )}
        <FailureAlert messages={messages} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={saving}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={definition.saveDisabledWhileInvalid === true && !form.isValid()}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
