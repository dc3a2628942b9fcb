import { Button, FileInput, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { shallowEqual, useSelector } from '@xstate/react';
import { IconFileTypeCsv, IconUpload } from '@tabler/icons-react';
import { CSV_FILE_EXTENSION } from '../../../models/constants';
import type { MappingWizardActorRef } from '../../../machines/mappingWizard/mappingWizardMachine';
import { selectFailureMessages, selectFile, selectIsUploading } from '../../../machines/mappingWizard/selectors';
import type { FieldRolesConfig } from '../../../machines/mappingWizard/types';
import { FailureAlert } from '../../components/FailureAlert';
import type { MappingWizardTexts } from './wizardTexts';

interface UploadStepProps {
  actor: MappingWizardActorRef;
  config: FieldRolesConfig;
  texts: MappingWizardTexts;
}

/** Step 1: choose a .csv file and upload it (the file stays chosen when the upload fails). */
export function UploadStep({ actor, config, texts }: UploadStepProps) {
  const file = useSelector(actor, selectFile);
  const uploading = useSelector(actor, selectIsUploading);
  const fileError = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['file'])[0] ?? null);
  const uploadFailure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['upload']), shallowEqual);

  return (
    <Stack gap="lg" pt="lg">
      <Text c="dimmed" maw={680}>
        {texts.uploadIntro}
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          actor.send({ type: 'mappingWizard.upload' });
        }}
      >
        <Stack gap="md" maw={520}>
          <FileInput
            label="CSV file"
            placeholder={`Choose a ${CSV_FILE_EXTENSION} file`}
            accept={CSV_FILE_EXTENSION}
            value={file}
            onChange={(chosen) => actor.send({ type: 'mappingWizard.fileChosen', file: chosen })}
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
              <Button variant="default" onClick={() => actor.send({ type: 'mappingWizard.cancelUpload' })}>
                Cancel
              </Button>
            ) : null}
          </Group>
        </Stack>
      </form>
      {uploading ? <PreviewSkeleton columns={Math.min(6, config.roles.length + 1)} /> : null}
    </Stack>
  );
}

/** The shape of the preview table while the file goes up. */
function PreviewSkeleton({ columns }: { columns: number }) {
  const cells = Array.from({ length: columns }, (_, index) => index);
  return (
    <Paper withBorder p="md" aria-busy="true" aria-label="Loading preview">
      <Stack gap="sm">
        <Group gap="sm" wrap="nowrap">
          {cells.map((cell) => (
            <Skeleton key={cell} height={30} radius="sm" />
          ))}
        </Group>
        {[0, 1, 2, 3].map((row) => (
          <Group key={row} gap="sm" wrap="nowrap">
            {cells.map((cell) => (
              <Skeleton key={cell} height={12} radius="xl" />
            ))}
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
