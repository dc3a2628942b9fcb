import { Alert, Anchor, Button, Text } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import { HELP_EMAIL } from '../../../models/constants';
import { REPORTS_FETCH_FAILURE_MESSAGE } from './messages';

/** The list could not be fetched: the spec's message, a get-in-touch link and Try again. */
export function ReportsFailure({ onRetry }: { onRetry: () => void }) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={REPORTS_FETCH_FAILURE_MESSAGE} role="alert">
      <Text size="sm">
        Please try again in a moment. If it keeps happening,{' '}
        <Anchor href={`mailto:${HELP_EMAIL}`} inherit>
          get in touch
        </Anchor>
        .
      </Text>
      <Button mt="md" variant="default" size="xs" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
        Try again
      </Button>
    </Alert>
  );
}
