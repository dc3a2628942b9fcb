import { Paper, Stepper } from '@mantine/core';
import { useActorRef, useSelector } from '@xstate/react';
import { IconX } from '@tabler/icons-react';
import { useMemo } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import { importWizardActors } from '../../machines/importWizard/importWizardActors';
import type { ImportWizardServices } from '../../machines/importWizard/importWizardActors';
import { importWizardMachine } from '../../machines/importWizard/importWizardMachine';
import { selectIsSubmittingMapping, selectIsUploading, selectOutcome, selectStep } from '../../machines/importWizard/selectors';
import type { ImportWizardStep } from '../../machines/importWizard/selectors';
import type { ImportWizardContext, ImportWizardInput } from '../../machines/importWizard/types';
import { useApi } from '../api/ApiContext';
import { useInspection } from '../inspector/useInspection';
import { createImportWizardServices } from './importWizardApi';
import { ImportWizardMappingStep } from './ImportWizardMappingStep';
import { ImportWizardProgressStep } from './ImportWizardProgressStep';
import { ImportWizardResult } from './ImportWizardResult';
import { ImportWizardUploadStep } from './ImportWizardUploadStep';

/** The Stepper's active index of each step (3: every step done, the result shows). */
const ACTIVE_INDEX: Record<ImportWizardStep, number> = { upload: 0, map: 1, import: 2, done: 3 };

interface ImportWizardProps {
  /** The calls the machine makes; by default the API client's. */
  services?: ImportWizardServices;
  /** The clock of the status polling (tests pass a SimulatedClock). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
  input?: ImportWizardInput;
}

/**
 * The subscription CSV import (the import wizard machine): Upload → Map columns → Import, then
 * the result. The steps render from the machine's selectors and send it events; the actor is
 * registered with the state inspector with its import id.
 */
export function ImportWizard({ services, clock, input = {} }: ImportWizardProps) {
  const client = useApi();
  const logic = useMemo(
    () => importWizardMachine.provide({ actors: importWizardActors(services ?? createImportWizardServices(client)) }),
    [services, client],
  );
  const inspect = useInspection('importWizard', { importIdOf: (context) => (context as ImportWizardContext).importId });
  const actor = useActorRef(logic, { inspect, input, ...(clock ? { clock } : {}) });

  const step = useSelector(actor, selectStep);
  const uploading = useSelector(actor, selectIsUploading);
  const submitting = useSelector(actor, selectIsSubmittingMapping);
  const outcome = useSelector(actor, selectOutcome);
  const failed = outcome === 'failed';

  return (
    <Paper withBorder p={{ base: 'md', sm: 'xl' }}>
      <Stepper active={ACTIVE_INDEX[step]} allowNextStepsSelect={false} size="sm" aria-label="Import steps">
        <Stepper.Step label="Upload" description="Your .csv file" loading={uploading} allowStepSelect={false}>
          <ImportWizardUploadStep actor={actor} />
        </Stepper.Step>
        <Stepper.Step label="Map columns" description="Match columns to fields" loading={submitting} allowStepSelect={false}>
          <ImportWizardMappingStep actor={actor} />
        </Stepper.Step>
        <Stepper.Step
          label="Import"
          description="Check and save the rows"
          loading={step === 'import'}
          allowStepSelect={false}
          color={failed ? 'red' : undefined}
          completedIcon={failed ? <IconX size={18} /> : undefined}
        >
          <ImportWizardProgressStep actor={actor} />
        </Stepper.Step>
        <Stepper.Completed>
          <ImportWizardResult actor={actor} />
        </Stepper.Completed>
      </Stepper>
    </Paper>
  );
}
