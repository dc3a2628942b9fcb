import { Alert, Badge, Group, Progress, Stack, Text } from '@mantine/core';
import { useSelector } from '@xstate/react';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { MappingWizardActorRef } from '../../../machines/mappingWizard/mappingWizardMachine';
import { selectIsLive, selectProgress, selectStatusCheckMessage } from '../../../machines/mappingWizard/selectors';
import type { MappingWizardTexts } from './wizardTexts';

/**
 * Step 3: the import runs on the server; its progress as the live channel (where the import has
 * one) or the status polls report it. 'Live' says the channel is connected.
 */
export function ProgressStep({ actor, texts }: { actor: MappingWizardActorRef; texts: MappingWizardTexts }) {
  const progress = useSelector(actor, selectProgress);
  const live = useSelector(actor, selectIsLive);
  const statusCheckMessage = useSelector(actor, selectStatusCheckMessage);

  return (
    <Stack gap="md" pt="lg" maw={640}>
      <Group justify="space-between" gap="md">
        <Group gap="xs">
          <Text fw={500}>{texts.importingTitle}</Text>
          {live ? (
            <Badge variant="dot" color="teal" size="sm" title="Progress arrives as it happens">
              Live
            </Badge>
          ) : null}
        </Group>
        <Text c="dimmed" size="sm">
          {progress}%
        </Text>
      </Group>
      <Progress value={progress} size="lg" radius="xl" striped animated aria-label="Import progress" />
      <Text size="sm" c="dimmed">
        {texts.importingDescription}
      </Text>
      {statusCheckMessage ? (
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
          {statusCheckMessage}
        </Alert>
      ) : null}
    </Stack>
  );
}
