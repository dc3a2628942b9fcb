import { Alert, Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import { shallowEqual, useSelector } from '@xstate/react';
import { IconAlertTriangle, IconArrowRight, IconCircleCheck, IconUpload } from '@tabler/icons-react';
import { Link } from 'wouter';
import type { SegmentsImportActorRef } from '../../machines/segmentsImport/segmentsImportMachine';
import {
  selectCounts,
  selectFailureMessages,
  selectFailureRows,
  selectOutcome,
  selectSuccessMessage,
} from '../../machines/segmentsImport/selectors';
import type { SegmentsImportFailureRow } from '../../machines/segmentsImport/types';
import { FailureAlert } from '../components/FailureAlert';

const values = (count: number) => (count === 1 ? '1 value' : `${count} values`);
const rows = (count: number) => (count === 1 ? '1 row' : `${count} rows`);

/** The finalized import: every value imported, the refused rows with the counts, or the failure. */
export function SegmentsImportResult({ actor }: { actor: SegmentsImportActorRef }) {
  const outcome = useSelector(actor, selectOutcome);
  const successMessage = useSelector(actor, selectSuccessMessage);
  const counts = useSelector(actor, selectCounts, shallowEqual);
  const failureRows = useSelector(actor, selectFailureRows);
  const failure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['import', 'statusUnknown']), shallowEqual);

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
            {values(counts.successCount)} imported, {rows(counts.failureCount)} could not be imported.
          </Alert>
          <FailureTable failures={failureRows} total={counts.failureCount} />
        </>
      ) : null}

      {outcome === 'failed' ? <FailureAlert messages={failure} title="The import failed" /> : null}

      <Group gap="sm">
        <Button
          variant={outcome === 'succeeded' ? 'default' : 'filled'}
          leftSection={<IconUpload size={16} />}
          onClick={() => actor.send({ type: 'segmentsImport.reset' })}
        >
          Import another file
        </Button>
        {outcome === 'failed' ? null : (
          <Button
            component={Link}
            href="/customers"
            variant={outcome === 'succeeded' ? 'filled' : 'default'}
            rightSection={<IconArrowRight size={16} />}
          >
            Go to customers
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** The refused rows: row number, the row as read, and why. */
function FailureTable({ failures, total }: { failures: readonly SegmentsImportFailureRow[]; total: number }) {
  if (failures.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        The server did not list the refused rows.
      </Text>
    );
  }
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
