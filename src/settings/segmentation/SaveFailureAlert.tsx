import { Alert, List } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { SEGMENTATION_SAVE_FAILURE } from '../../../models/segmentation';

/** A refused save: 'Could not add segmentation', with the server's messages that no field shows; nothing when `messages` is null. */
export function SaveFailureAlert({ messages }: { messages: readonly string[] | null }) {
  if (messages === null) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={SEGMENTATION_SAVE_FAILURE} role="alert">
      {messages.length > 0 ? (
        <List size="sm" spacing={2}>
          {messages.map((message) => (
            <List.Item key={message}>{message}</List.Item>
          ))}
        </List>
      ) : null}
    </Alert>
  );
}
