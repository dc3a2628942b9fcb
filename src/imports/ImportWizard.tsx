import { useMemo } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import { mappingWizardActors } from '../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardServices } from '../../machines/mappingWizard/mappingWizardActors';
import { paymentsImport, paymentsImportMachine } from '../../machines/mappingWizard/paymentsImport';
import type { MappingWizardInput } from '../../machines/mappingWizard/types';
import { useApi } from '../api/ApiContext';
import { createPaymentsImportServices } from './paymentsImportApi';
import { MappingWizard } from './wizard/MappingWizard';
import type { MappingWizardTexts } from './wizard/wizardTexts';

const records = (count: number) => (count === 1 ? '1 record' : `${count} records`);

/** The payments import's words around the shared steps. */
export const PAYMENTS_IMPORT_TEXTS: MappingWizardTexts = {
  mapStepDescription: 'Match columns to fields',
  importStepDescription: 'Check and save the rows',
  uploadIntro:
    'Upload a CSV file of your payments, one payment per row. Each row needs a customer ID, a start date, its period (a number of months or an end date; no end for a subscription still running) and its monthly amount or total value. An invoice number, the product and a discount are optional. You match the columns to these fields in the next step.',
  mappingHint: 'Pick the field each column holds.',
  columnPickerWord: 'Field',
  requiredListTitle: 'Required fields',
  requiredListId: 'import-required-fields',
  skipHeadersDescription: 'The first row holds column names, not a payment',
  mappingFailureTitle: 'The payments cannot be imported yet',
  importingTitle: 'Importing your payments…',
  importingDescription: 'Every row is checked, then the valid ones are saved in one go. This page shows the result when it is done.',
  importedCount: records,
  resultLink: { href: '/payments', label: 'Go to payments' },
};

interface ImportWizardProps {
  /** The calls the machine makes; by default the API client's. */
  services?: MappingWizardServices;
  /** The clock of the status polling (tests pass a SimulatedClock). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
  input?: MappingWizardInput;
}

/** The payments CSV import of /import-subscriptions: the mapping wizard with the payments config and API. */
export function ImportWizard({ services, clock, input }: ImportWizardProps) {
  const client = useApi();
  const logic = useMemo(
    () => paymentsImportMachine.provide({ actors: mappingWizardActors(services ?? createPaymentsImportServices(client)) }),
    [services, client],
  );
  return (
    <MappingWizard
      config={paymentsImport}
      logic={logic}
      texts={PAYMENTS_IMPORT_TEXTS}
      {...(input ? { input } : {})}
      {...(clock ? { clock } : {})}
    />
  );
}
