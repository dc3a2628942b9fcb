import { Alert, Button, Group, Stack } from '@mantine/core';
import { shallowEqual, useSelector } from '@xstate/react';
import { IconAlertTriangle, IconArrowRight, IconCircleCheck, IconUpload } from '@tabler/icons-react';
import { Link } from 'wouter';
import type { MappingWizardActorRef } from '../../../machines/mappingWizard/mappingWizardMachine';
import {
  selectCounts,
  selectFailureMessages,
  selectFailureRows,
  selectOutcome,
  selectSuccessMessage,
} from '../../../machines/mappingWizard/selectors';
import type { FieldRolesConfig } from '../../../machines/mappingWizard/types';
import { FailureAlert } from '../../components/FailureAlert';
import { ImportFailureTable } from '../ImportFailureTable';
import type { MappingWizardTexts } from './wizardTexts';

const rows = (count: number) => (count === 1 ? '1 row' : `${count} rows`);

interface ResultStepProps {
  actor: MappingWizardActorRef;
  config: FieldRolesConfig;
  texts: MappingWizardTexts;
}

/** The finalized import: every row imported, the refused rows with the counts, or the failure. */
export function ResultStep({ actor, config, texts }: ResultStepProps) {
  const outcome = useSelector(actor, selectOutcome);
  const successMessage = useSelector(actor, (snapshot) => selectSuccessMessage(snapshot, config));
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
            {texts.importedCount(counts.successCount)} imported, {rows(counts.failureCount)} could not be imported.
          </Alert>
          <ImportFailureTable failures={failureRows} total={counts.failureCount} />
        </>
      ) : null}

      {outcome === 'failed' ? <FailureAlert messages={failure} title="The import failed" /> : null}

      <Group gap="sm">
        <Button
          variant={outcome === 'succeeded' ? 'default' : 'filled'}
          leftSection={<IconUpload size={16} />}
          onClick={() => actor.send({ type: 'mappingWizard.reset' })}
        >
          Import another file
        </Button>
        {outcome === 'failed' ? null : (
          <Button
            component={Link}
            href={texts.resultLink.href}
            variant={outcome === 'succeeded' ? 'filled' : 'default'}
            rightSection={<IconArrowRight size={16} />}
          >
            {texts.resultLink.label}
          </Button>
        )}
      </Group>
    </Stack>
  );
}
