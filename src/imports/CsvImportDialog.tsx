import {
  Alert,
  Badge,
  Button,
  Code,
  FileInput,
  Group,
  Loader,
  Modal,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { IconAlertCircle, IconCircleCheck, IconFileTypeCsv, IconUpload } from '@tabler/icons-react';
import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import type { ActorRefFrom } from 'xstate';
import { csvImportActors } from '../../machines/csvImport/csvImportActors';
import { csvImportMachine } from '../../machines/csvImport/csvImportMachine';
import {
  selectBadge,
  selectCanUpload,
  selectFailure,
  selectFile,
  selectFileError,
  selectFileName,
  selectPhase,
  selectProgress,
  selectResult,
  selectValidationFailures,
} from '../../machines/csvImport/selectors';
import type { CsvImportContext, CsvImportRowFailure } from '../../machines/csvImport/types';
import { CSV_FILE_EXTENSION, CSV_IMPORT_COLUMN_ORDER } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { useInspection } from '../inspector/useInspection';
import { toastError, toastImportNotice } from '../notifications/toast';
import { createCsvImportServices, storedCsvImport } from './csvImportApi';

export type CsvImportActor = ActorRefFrom<typeof csvImportMachine>;

/**
 * Runs the CSV import machine for a page: the API calls, the stored import id and the toasts
 * are its provided effects, and the actor is registered with the state inspector. The actor
 * outlives the dialog's visibility, so an import goes on (and toasts its outcome) while the
 * dialog is closed; on mounting it resumes an import stored before a reload.
 */
export function useCsvImport(): CsvImportActor {
  const client = useApi();
  const logic = useMemo(
    () =>
      csvImportMachine.provide({
        actors: csvImportActors(createCsvImportServices(client)),
        actions: {
          storeImportId: (_, { importId }) => storedCsvImport.write(importId),
          forgetStoredImport: () => storedCsvImport.clear(),
          notify: (_, notice) => {
            if (notice.kind === 'failure') toastError(notice.message);
            else toastImportNotice(notice.message);
          },
        },
      }),
    [client],
  );
  const inspect = useInspection('csvImport', { importIdOf: (context) => (context as CsvImportContext).importId });
  return useActorRef(logic, { inspect });
}

const BADGE_COLOR = { running: 'blue', done: 'teal', failed: 'red' } as const;

/** The import's status beside the card's title: 'Import in progress (40%)', 'Import completed', 'Import failed'. */
export function CsvImportStatusBadge({ actor }: { actor: CsvImportActor }) {
  const badge = useSelector(actor, selectBadge);
  if (!badge) return null;
  return (
    <Badge variant="light" color={BADGE_COLOR[badge.tone]}>
      {badge.label}
    </Badge>
  );
}

interface CsvImportDialogProps {
  actor: CsvImportActor;
  opened: boolean;
  onClose: () => void;
}

/**
 * The CSV import dialog: choose a .csv file of payments, follow the import's progress, read
 * its result. Closing it never stops an import; 'Dismiss' clears a completed result and
 * 'Try again' leaves a failure for a new upload.
 */
export function CsvImportDialog({ actor, opened, onClose }: CsvImportDialogProps) {
  const phase = useSelector(actor, selectPhase);

  const handleDismiss = () => {
    actor.send({ type: 'csvImport.dismiss' });
    onClose();
  };
  const handleTryAgain = () => actor.send({ type: 'csvImport.tryAgain' });

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="xl"
      centered
      title={
        <Text component="span" fw={650} fz="lg">
          Import CSV
        </Text>
      }
    >
      {phase === 'checking' ? (
        <Group gap="sm" py="lg" justify="center">
          <Loader size="sm" />
          <Text c="dimmed">Looking for an import in progress…</Text>
        </Group>
      ) : null}
      {phase === 'notStarted' || phase === 'uploading' ? <UploadForm actor={actor} onCancel={onClose} /> : null}
      {phase === 'inProgress' ? <ImportProgress actor={actor} onClose={onClose} /> : null}
      {phase === 'completed' ? <ImportResult actor={actor} onDismiss={handleDismiss} /> : null}
      {phase === 'validationFailure' || phase === 'error' || phase === 'pollingLimitReached' ? (
        <ImportFailure actor={actor} onTryAgain={handleTryAgain} />
      ) : null}
    </Modal>
  );
}

function UploadForm({ actor, onCancel }: { actor: CsvImportActor; onCancel: () => void }) {
  const file = useSelector(actor, selectFile);
  const fileError = useSelector(actor, selectFileError);
  const canUpload = useSelector(actor, selectCanUpload);
  const uploading = useSelector(actor, (snapshot) => selectPhase(snapshot) === 'uploading');

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        actor.send({ type: 'csvImport.upload' });
      }}
    >
      <Stack gap="md">
        <Text size="sm">
          Upload your payments as a {CSV_FILE_EXTENSION} file with one payment per row and these columns, in this order:
        </Text>
        <Code block>{CSV_IMPORT_COLUMN_ORDER.join(',')}</Code>
        <Text size="sm" c="dimmed">
          Dates like 2025-01-31, amounts like 1234.50 per month. The end date is the first day after the period paid for (any
          day after the start); leave it empty for a subscription that is still running. A header row is skipped. Importing the
          same file again does not duplicate payments, and ends a running one once its end date is filled in.
        </Text>
        <FileInput
          label="CSV file"
          placeholder={`Choose a ${CSV_FILE_EXTENSION} file`}
          accept={CSV_FILE_EXTENSION}
          value={file}
          onChange={(chosen) => actor.send({ type: 'csvImport.fileSelected', file: chosen })}
          error={fileError}
          clearable
          readOnly={uploading}
          leftSection={<IconFileTypeCsv size={18} stroke={1.6} />}
          data-autofocus
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={uploading} disabled={!canUpload && !uploading} leftSection={<IconUpload size={16} />}>
            Import
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ImportProgress({ actor, onClose }: { actor: CsvImportActor; onClose: () => void }) {
  const progress = useSelector(actor, selectProgress);
  const fileName = useSelector(actor, selectFileName);

  return (
    <Stack gap="md">
      <Group gap="sm" wrap="nowrap">
        <Loader size="sm" />
        <Text fw={500}>{fileName ? `Importing ${fileName}…` : 'Importing your file…'}</Text>
      </Group>
      <Group gap="sm" wrap="nowrap">
        <Progress value={progress} size="lg" radius="xl" striped animated style={{ flex: 1 }} aria-label="Import progress" />
        <Text size="sm" fw={600} w={48} ta="right">
          {progress}%
        </Text>
      </Group>
      <Text size="sm" c="dimmed">
        Large files take a few minutes. You can close this dialog: the import goes on, and we will let you know when it is done.
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Close
        </Button>
      </Group>
    </Stack>
  );
}

function ImportResult({ actor, onDismiss }: { actor: CsvImportActor; onDismiss: () => void }) {
  const result = useSelector(actor, selectResult);
  if (!result) return null;
  const failed = result.failure_count > 0;

  return (
    <Stack gap="md">
      <Alert
        color={failed ? 'yellow' : 'teal'}
        variant="light"
        icon={failed ? <IconAlertCircle size={18} /> : <IconCircleCheck size={18} />}
        title="Import completed"
      >
        {failed ? 'Some rows could not be imported; the others are in your data.' : 'All rows are in your data.'}
      </Alert>
      <SimpleGrid cols={2} spacing="md">
        <Count label="Imported" value={result.success_count} color="teal" />
        <Count label="Failed" value={result.failure_count} color={failed ? 'red' : 'dimmed'} />
      </SimpleGrid>
      {result.failures.length > 0 ? (
        <Stack gap="xs">
          <Text fw={600}>Rows that could not be imported</Text>
          {result.failure_count > result.failures.length ? (
            <Text size="sm" c="dimmed">
              The first {result.failures.length} of {result.failure_count} failed rows.
            </Text>
          ) : null}
          <FailedRows rows={result.failures} caption="Rows that could not be imported" />
        </Stack>
      ) : null}
      <Group justify="flex-end">
        <Button onClick={onDismiss}>Dismiss</Button>
      </Group>
    </Stack>
  );
}

function Count({ label, value, color }: { label: string; value: number; color: string }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" tt="uppercase" fw={700} c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700} c={color} lh={1.2} aria-label={`${label}: ${value}`}>
        {value}
      </Text>
    </Paper>
  );
}

function ImportFailure({ actor, onTryAgain }: { actor: CsvImportActor; onTryAgain: () => void }) {
  const failure = useSelector(actor, selectFailure);
  const rows = useSelector(actor, selectValidationFailures);
  if (!failure) return null;

  return (
    <Stack gap="md">
      <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={failure.message} role="alert">
        {failure.details.length > 0 ? (
          <Stack gap={2}>
            {failure.details.map((detail) => (
              <Text key={detail} size="sm">
                {detail}
              </Text>
            ))}
          </Stack>
        ) : null}
      </Alert>
      {rows.length > 0 ? <FailedRows rows={rows} caption="Rows that cannot be imported" /> : null}
      <Group justify="flex-end">
        <Button onClick={onTryAgain}>Try again</Button>
      </Group>
    </Stack>
  );
}

/** Failed rows: the row number, the row as read, and why. */
function FailedRows({ rows, caption }: { rows: readonly CsvImportRowFailure[]; caption: string }) {
  return (
    <Table.ScrollContainer minWidth={560} maxHeight={320}>
      <Table striped highlightOnHover stickyHeader verticalSpacing="xs" aria-label={caption}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={72}>Row</Table.Th>
            <Table.Th>Content</Table.Th>
            <Table.Th>Message</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.row_number}>
              <Table.Td>{row.row_number}</Table.Td>
              <Table.Td>
                <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{row.row}</Code>
              </Table.Td>
              <Table.Td>{row.message}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
