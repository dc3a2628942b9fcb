import { Alert, Button, Group, Stack } from '@mantine/core';
import { useSelector } from '@xstate/react';
import { IconAlertTriangle, IconArrowRight, IconCircleCheck, IconUpload } from '@tabler/icons-react';
import { Link } from 'wouter';
import {
  selectCounts,
  selectFailureMessages,
  selectFailureRows,
  selectOutcome,
  selectSuccessMessage,
} from '../../machines/importWizard/selectors';
import { FailureAlert } from '../components/FailureAlert';
import { ImportFailureTable } from './ImportFailureTable';
import type { ImportWizardActorRef } from '../../machines/importWizard/importWizardMachine';

const records = (count: number) => (count === 1 ? '1 record' : `${count} records`);
const rows = (count: number) => (count === 1 ? '1 row' : `${count} rows`);

/** The finalized import: every record imported, the refused rows with the counts, or the failure. */
export function ImportWizardResult({ actor }: { actor: ImportWizardActorRef }) {
  const outcome = useSelector(actor, selectOutcome);
  const successMessage = useSelector(actor, selectSuccessMessage);
  const counts = useSelector(actor, selectCounts);
  const failureRows = useSelector(actor, selectFailureRows);
  const failure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['import', 'statusUnknown']));

  return (
    <Stack gap="lg" pt="lg">
      {outcome === 'succeeded' && successMessage ? (
        <Alert color="teal" variant="light" icon={<IconCircleCheck size={18} />} title="Import complete">
          {successMessage}
        </Alert>
      ) : null}

      {outcome === 'withErrors' && counts ? (
        <>
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Import finished with errors">
            {records(counts.successCount)} imported, {rows(counts.failureCount)} could not be imported.
          </Alert>
          <ImportFailureTable failures={failureRows} total={counts.failureCount} />
        </>
      ) : null}

      {outcome === 'failed' ? <FailureAlert messages={failure} title="The import failed" /> : null}

      <Group gap="sm">
        <Button
          variant={outcome === 'succeeded' ? 'default' : 'filled'}
          leftSection={<IconUpload size={16} />}
          onClick={() => actor.send({ type: 'importWizard.reset' })}
        >
          Import another file
        </Button>
        {outcome === 'failed' ? null : (
          <Button
            component={Link}
            href="/payments"
            variant={outcome === 'succeeded' ? 'filled' : 'default'}
            rightSection={<IconArrowRight size={16} />}
          >
            Go to payments
          </Button>
        )}
      </Group>
    </Stack>
  );
}
