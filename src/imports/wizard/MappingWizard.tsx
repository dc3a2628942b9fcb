import { Paper, Stepper } from '@mantine/core';
import { useActorRef, useSelector } from '@xstate/react';
import { IconX } from '@tabler/icons-react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import type { MappingWizardMachine } from '../../../machines/mappingWizard/mappingWizardMachine';
import { selectIsSubmittingMapping, selectIsUploading, selectOutcome, selectStep } from '../../../machines/mappingWizard/selectors';
import type { MappingWizardStep } from '../../../machines/mappingWizard/selectors';
import type { FieldRolesConfig, MappingWizardContext, MappingWizardInput } from '../../../machines/mappingWizard/types';
import { useInspection } from '../../inspector/useInspection';
import { MappingStep } from './MappingStep';
import { ProgressStep } from './ProgressStep';
import { ResultStep } from './ResultStep';
import { UploadStep } from './UploadStep';
import type { MappingWizardTexts } from './wizardTexts';

/** The Stepper's active index of each step (3: every step done, the result shows). */
const ACTIVE_INDEX: Record<MappingWizardStep, number> = { upload: 0, map: 1, import: 2, done: 3 };

/** Where the machine keeps its server import id, for the state inspector. */
const importIdOf = (context: unknown) => (context as MappingWizardContext).importId;

export interface MappingWizardProps {
  config: FieldRolesConfig;
  /** The config's machine with its calls provided (the page's API adapter). */
  logic: MappingWizardMachine;
  /** The words of the page around the steps. */
  texts: MappingWizardTexts;
  input?: MappingWizardInput;
  /** The clock of the status polling (tests pass a SimulatedClock). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
}

/**
 * A column-mapping import: Upload → Map columns → Import, then the result. The steps render from
 * the machine's selectors and send it events; the actor is registered with the state inspector
 * (named by the config's id) with its import id.
 */
export function MappingWizard({ config, logic, texts, input = {}, clock }: MappingWizardProps) {
  const actor = useActorRef(logic, {
    inspect: useInspection(config.id, { importIdOf }),
    input,
    ...(clock ? { clock } : {}),
  });

  const step = useSelector(actor, selectStep);
  const uploading = useSelector(actor, selectIsUploading);
  const submitting = useSelector(actor, selectIsSubmittingMapping);
  const outcome = useSelector(actor, selectOutcome);
  const failed = outcome === 'failed';

  return (
    <Paper withBorder p={{ base: 'md', sm: 'xl' }}>
      <Stepper active={ACTIVE_INDEX[step]} allowNextStepsSelect={false} size="sm" aria-label="Import steps">
        <Stepper.Step label="Upload" description="Your .csv file" loading={uploading} allowStepSelect={false}>
          <UploadStep actor={actor} config={config} texts={texts} />
        </Stepper.Step>
        <Stepper.Step label="Map columns" description={texts.mapStepDescription} loading={submitting} allowStepSelect={false}>
          <MappingStep actor={actor} config={config} texts={texts} />
        </Stepper.Step>
        <Stepper.Step
          label="Import"
          description={texts.importStepDescription}
          loading={step === 'import'}
          allowStepSelect={false}
          color={failed ? 'red' : undefined}
          completedIcon={failed ? <IconX size={18} /> : undefined}
        >
          <ProgressStep actor={actor} texts={texts} />
        </Stepper.Step>
        <Stepper.Completed>
          <ResultStep actor={actor} config={config} texts={texts} />
        </Stepper.Completed>
      </Stepper>
    </Paper>
  );
}
