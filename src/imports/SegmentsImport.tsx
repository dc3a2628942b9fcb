import { useMemo } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import { mappingWizardActors } from '../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardServices } from '../../machines/mappingWizard/mappingWizardActors';
import { segmentsImport, segmentsImportMachine } from '../../machines/mappingWizard/segmentsImport';
import { useApi } from '../api/ApiContext';
import type { LiveChannels } from '../cable/liveChannels';
import { useLiveChannels } from '../cable/LiveChannelsContext';
import { createSegmentsImportServices } from './segmentsImportApi';
import { MappingWizard } from './wizard/MappingWizard';
import type { MappingWizardTexts } from './wizard/wizardTexts';

const values = (count: number) => (count === 1 ? '1 value' : `${count} values`);

/** The attribute values import's words around the shared steps. */
export const SEGMENTS_IMPORT_TEXTS: MappingWizardTexts = {
  mapStepDescription: 'Customer ID and value',
  importStepDescription: 'Save the values',
  uploadIntro:
    "Upload a CSV file with one customer per row: the customer's ID and the attribute's value. You match the columns in the next step; other columns are ignored.",
  mappingHint: 'Pick the column of the customer ID and the column of the value; leave the others not mapped.',
  columnPickerWord: 'Role',
  requiredListTitle: 'Columns to map',
  requiredListId: 'segments-import-roles',
  skipHeadersDescription: 'The first row holds column names, not a customer',
  mappingFailureTitle: 'The values cannot be imported yet',
  importingTitle: 'Importing the attribute values…',
  importingDescription: "Each row's customer is looked up and its value saved. This page shows the result when it is done.",
  importedCount: values,
  resultLink: { href: '/customers', label: 'Go to customers' },
};

interface SegmentsImportProps {
  /** The custom attribute (customer segment) whose values are imported. */
  segmentId: string;
  /** The calls the machine makes; by default the API client's and the live channel. */
  services?: MappingWizardServices;
  /** The live channels the import's progress comes over (SegmentsImportChannel); the app's by default. */
  channels?: LiveChannels;
  /** The clock of the status polling (tests pass a SimulatedClock). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
  /** Status polls before giving up (CSV_IMPORT_MAX_POLLS by default; model tests pass fewer). */
  maxPolls?: number;
}

/**
 * The attribute values import of /import-segments: the mapping wizard with the segments config,
 * its API for `segmentId` and SegmentsImportChannel (polling stays as the fallback). (The
 * inspector's audit-log section reads GET /segments_importer/{id} for these actors.)
 */
export function SegmentsImport({ segmentId, services, channels, clock, maxPolls }: SegmentsImportProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const logic = useMemo(
    () => segmentsImportMachine.provide({ actors: mappingWizardActors(services ?? createSegmentsImportServices(client, live, segmentId)) }),
    [services, client, live, segmentId],
  );
  return (
    <MappingWizard
      config={segmentsImport}
      logic={logic}
      texts={SEGMENTS_IMPORT_TEXTS}
      input={maxPolls === undefined ? {} : { maxPolls }}
      {...(clock ? { clock } : {})}
    />
  );
}
