import { Alert, List } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface FailureAlertProps {
  /** One line each; several are shown as a list (sign-up's 'field message' lines). */
  messages: readonly string[];
  title?: string;
  children?: ReactNode;
}

/** A form's failure, announced to screen readers; nothing when there is none. */
export function FailureAlert({ messages, title, children }: FailureAlertProps) {
  if (messages.length === 0) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={title} role="alert">
      {messages.length === 1 ? (
        messages[0]
      ) : (
        <List size="sm" spacing={2}>
          {messages.map((message) => (
            <List.Item key={message}>{message}</List.Item>
          ))}
        </List>
      )}
      {children}
    </Alert>
  );
}
