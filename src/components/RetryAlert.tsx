import { Alert, Button } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface RetryAlertProps {
  /** What could not be done, in the spec's words ('We could not fetch costs'). */
  message: string;
  /** Asks again (refetches). */
  onRetry: () => void;
  /** A line under the message ('You can still start from a blank report.'). */
  children?: ReactNode;
}

/**
 * Something could not be read: the message, announced to screen readers, and 'Try again'. Every
 * list, card and picker that fetches shows its failure this way.
 */
export function RetryAlert({ message, onRetry, children }: RetryAlertProps) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={message} role="alert">
      {children}
      <Button display="block" mt="xs" variant="default" size="xs" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
        Try again
      </Button>
    </Alert>
  );
}
