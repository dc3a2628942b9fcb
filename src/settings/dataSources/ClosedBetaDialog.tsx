import { Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { HELP_EMAIL } from '../../../models/constants';
import { CLOSED_BETA_TITLE, INTEGRATION_LABELS } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';

/** 'Integration in closed beta': what a closed-beta card (Zendesk) opens, with a way to ask to join. */
export function ClosedBetaDialog({ name, opened, onClose }: { name: IntegrationName; opened: boolean; onClose: () => void }) {
  const label = INTEGRATION_LABELS[name];
  return (
    <Modal opened={opened} onClose={onClose} title={CLOSED_BETA_TITLE} centered>
      <Stack gap="md">
        <Text size="sm">The {label} integration is open to a few accounts while we finish it. Write to us and we will add yours.</Text>
        <Group justify="space-between">
          <Anchor href={`mailto:${HELP_EMAIL}?subject=${encodeURIComponent(`${label} closed beta`)}`} size="sm">
            Contact us at {HELP_EMAIL}
          </Anchor>
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
