import { Button, FileInput, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { useSelector } from '@xstate/react';
import { IconFileTypeCsv, IconUpload } from '@tabler/icons-react';
import { CSV_FILE_EXTENSION } from '../../models/constants';
import type { SegmentsImportActorRef } from '../../machines/segmentsImport/segmentsImportMachine';
import { selectFailureMessages, selectFile, selectIsUploading } from '../../machines/segmentsImport/selectors';
import { FailureAlert } from '../components/FailureAlert';

/** Step 1: choose a .csv file and upload it (the file stays chosen when the upload fails). */
export function SegmentsImportUploadStep({ actor }: { actor: SegmentsImportActorRef }) {
  const file = useSelector(actor, selectFile);
  const uploading = useSelector(actor, selectIsUploading);
  const fileError = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['file'])[0] ?? null);
  const uploadFailure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['upload']));

  return (
    <Stack gap="lg" pt="lg">
      <Text c="dimmed" maw={680}>
        Upload a CSV file with one customer per row: the customer&apos;s ID and the attribute&apos;s value. You match the columns in
        the next step; other columns are ignored.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          actor.send({ type: 'segmentsImport.upload' });
        }}
      >
        <Stack gap="md" maw={520}>
          <FileInput
            label="CSV file"
            placeholder="Choose a .csv file"
            accept={CSV_FILE_EXTENSION}
            value={file}
            onChange={(chosen) => actor.send({ type: 'segmentsImport.fileChosen', file: chosen })}
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
              <Button variant="default" onClick={() => actor.send({ type: 'segmentsImport.cancelUpload' })}>
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
          {[0, 1, 2].map((cell) => (
            <Skeleton key={cell} height={30} radius="sm" />
          ))}
        </Group>
        {[0, 1, 2, 3].map((row) => (
          <Group key={row} gap="sm" wrap="nowrap">
            {[0, 1, 2].map((cell) => (
              <Skeleton key={cell} height={12} radius="xl" />
            ))}
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
