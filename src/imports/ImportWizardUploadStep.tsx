import { Button, FileInput, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { useSelector } from '@xstate/react';
import { IconFileTypeCsv, IconUpload } from '@tabler/icons-react';
import { CSV_FILE_EXTENSION } from '../../models/constants';
import { selectFailureMessages, selectFile, selectIsUploading } from '../../machines/importWizard/selectors';
import { FailureAlert } from '../components/FailureAlert';
import type { ImportWizardActorRef } from '../../machines/importWizard/importWizardMachine';

/** Step 1: choose a .csv file and upload it (the file stays chosen when the upload fails). */
export function ImportWizardUploadStep({ actor }: { actor: ImportWizardActorRef }) {
  const file = useSelector(actor, selectFile);
  const uploading = useSelector(actor, selectIsUploading);
  const fileError = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['file'])[0] ?? null);
  const uploadFailure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['upload']));

  return (
    <Stack gap="lg" pt="lg">
      <Text c="dimmed" maw={680}>
        Upload a CSV file of your payments, one payment per row. Each row needs a customer ID, an invoice number, a start date, a
        number of months and a monthly amount; you match the columns to these fields in the next step.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          actor.send({ type: 'importWizard.upload' });
        }}
      >
        <Stack gap="md" maw={520}>
          <FileInput
            label="CSV file"
            placeholder="Choose a .csv file"
            accept={CSV_FILE_EXTENSION}
            value={file}
            onChange={(chosen) => actor.send({ type: 'importWizard.fileChosen', file: chosen })}
            leftSection={<IconFileTypeCsv size={18} stroke={1.6} />}
            clearable
            disabled={uploading}
            error={fileError}
          />
          <FailureAlert messages={uploadFailure} title="The file could not be uploaded" />
          <Group gap="sm">
            <Button type="submit" leftSection={<IconUpload size={16} />} loading={uploading}>
              Upload
            </Button>
            {uploading ? (
              <Button variant="default" onClick={() => actor.send({ type: 'importWizard.cancelUpload' })}>
                Cancel
              </Button>
            ) : null}
          </Group>
        </Stack>
      </form>
      {uploading ? <PreviewSkeleton /> : null}
    </Stack>
  );
}

/** The shape of the preview table while the file goes up. */
function PreviewSkeleton() {
  return (
    <Paper withBorder p="md" aria-busy="true" aria-label="Loading preview">
      <Stack gap="sm">
        <Group gap="sm" wrap="nowrap">
          {[0, 1, 2, 3, 4, 5].map((cell) => (
            <Skeleton key={cell} height={30} radius="sm" />
          ))}
        </Group>
        {[0, 1, 2, 3].map((row) => (
          <Group key={row} gap="sm" wrap="nowrap">
            {[0, 1, 2, 3, 4, 5].map((cell) => (
              <Skeleton key={cell} height={12} radius="xl" />
            ))}
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
