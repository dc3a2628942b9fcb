import { Paper, Stepper } from '@mantine/core';
import { useActorRef, useSelector } from '@xstate/react';
import { IconX } from '@tabler/icons-react';
import { useMemo } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import { segmentsImportActors } from '../../machines/segmentsImport/segmentsImportActors';
import type { SegmentsImportServices } from '../../machines/segmentsImport/segmentsImportActors';
import { segmentsImportMachine } from '../../machines/segmentsImport/segmentsImportMachine';
import { selectIsSubmittingMapping, selectIsUploading, selectOutcome, selectStep } from '../../machines/segmentsImport/selectors';
import type { SegmentsImportStep } from '../../machines/segmentsImport/selectors';
import type { SegmentsImportContext } from '../../machines/segmentsImport/types';
import { useApi } from '../api/ApiContext';
import type { LiveChannels } from '../cable/liveChannels';
import { useLiveChannels } from '../cable/LiveChannelsContext';
import { useInspection } from '../inspector/useInspection';
import { createSegmentsImportServices } from './segmentsImportApi';
import { SegmentsImportMappingStep } from './SegmentsImportMappingStep';
import { SegmentsImportProgressStep } from './SegmentsImportProgressStep';
import { SegmentsImportResult } from './SegmentsImportResult';
import { SegmentsImportUploadStep } from './SegmentsImportUploadStep';

/** The Stepper's active index of each step (3: every step done, the result shows). */
const ACTIVE_INDEX: Record<SegmentsImportStep, number> = { upload: 0, map: 1, import: 2, done: 3 };

/** Where the machine keeps its server import id, for the state inspector. */
const importIdOf = (context: unknown) => (context as SegmentsImportContext).importId;

interface SegmentsImportProps {
  /** The custom attribute (customer segment) whose values are imported. */
  segmentId: string;
  /** The calls the machine makes; by default the API client's and the live channel. */
  services?: SegmentsImportServices;
  /** The live channels the import's progress comes over (SegmentsImportChannel); the app's by default. */
  channels?: LiveChannels;
  /** The clock of the status polling (tests pass a SimulatedClock). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
  /** Status polls before giving up (CSV_IMPORT_MAX_POLLS by default; model tests pass fewer). */
  maxPolls?: number;
}

/**
 * The attribute values import (the segments import machine): Upload → Map columns → Import, then
 * the result. While the import runs, its progress comes over SegmentsImportChannel (polling
 * stays as the fallback). The steps render from the machine's selectors and send it events; the actor is
 * registered with the state inspector with its import id. (The inspector's audit-log section
 * reads GET /subscriptions/csv_import/{id}, the payments import's, so it finds no log for an
 * attribute values import; the trace itself is complete.)
 */
export function SegmentsImport({ segmentId, services, channels, clock, maxPolls }: SegmentsImportProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const logic = useMemo(
    () => segmentsImportMachine.provide({ actors: segmentsImportActors(services ?? createSegmentsImportServices(client, live)) }),
    [services, client, live],
  );
  const actor = useActorRef(logic, {
    inspect: useInspection('segmentsImport', { importIdOf }),
    input: { segmentId, ...(maxPolls === undefined ? {} : { maxPolls }) },
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
          <SegmentsImportUploadStep actor={actor} />
        </Stepper.Step>
        <Stepper.Step label="Map columns" description="Customer ID and value" loading={submitting} allowStepSelect={false}>
          <SegmentsImportMappingStep actor={actor} />
        </Stepper.Step>
        <Stepper.Step
          label="Import"
          description="Save the values"
          loading={step === 'import'}
          allowStepSelect={false}
          color={failed ? 'red' : undefined}
          completedIcon={failed ? <IconX size={18} /> : undefined}
        >
          <SegmentsImportProgressStep actor={actor} />
        </Stepper.Step>
        <Stepper.Completed>
          <SegmentsImportResult actor={actor} />
        </Stepper.Completed>
      </Stepper>
    </Paper>
  );
}
