import { Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
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
import type { ConfigurationForm } from './integrationForms';

interface ConfigurationDialogProps {
  name: IntegrationName;
  actor: IntegrationSyncActorRef;
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
  const form = useForm<Record<string, string>>({
    initialValues: initialValues(definition, config),
    validate: superstructResolver(definition.struct),
  });
  const { setErrors } = form;
  useEffect(() => {
    if (failure?.kind === 'invalid') setErrors(failure.fields);
  }, [failure, setErrors]);

  const handleSubmit = form.onSubmit((values) => actor.send({ type: 'integration.save', configuration: values }));
  const messages = failure && failure.kind !== 'invalid' ? failure.messages : [];
  return (
    <form onSubmit={handleSubmit} noValidate aria-label={`${INTEGRATION_LABELS[name]} configuration`}>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Subscope reads your {INTEGRATION_LABELS[name]} data and never changes it. The first sync starts as soon as you save.
        </Text>
        {definition.fields.map((field) =>
          field.secret ? (
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
          <Button type="submit" loading={saving}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
