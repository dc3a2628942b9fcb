import { Alert, Button, Code, Group, Stack, Table, Text } from '@mantine/core';
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
import type { ImportFailureRow } from '../../machines/importWizard/types';
import { FailureAlert } from '../components/FailureAlert';
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
          <FailureTable failures={failureRows} total={counts.failureCount} />
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

/** The refused rows: row number, the row as read, and why. */
function FailureTable({ failures, total }: { failures: readonly ImportFailureRow[]; total: number }) {
  return (
    <Stack gap="xs">
      <Table.ScrollContainer minWidth={640}>
        <Table withTableBorder verticalSpacing="sm" striped aria-label="Rows that could not be imported">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={120}>Row number</Table.Th>
              <Table.Th>Row</Table.Th>
              <Table.Th>Message</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {failures.map((failure) => (
              <Table.Tr key={failure.rowNumber}>
                <Table.Td>{failure.rowNumber}</Table.Td>
                <Table.Td>
                  <Code style={{ whiteSpace: 'pre' }}>{failure.row}</Code>
                </Table.Td>
                <Table.Td>{failure.message}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {total > failures.length ? (
        <Text size="sm" c="dimmed">
          The first {failures.length} of {total} refused rows are listed.
        </Text>
      ) : null}
    </Stack>
  );
}
