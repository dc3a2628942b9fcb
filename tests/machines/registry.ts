import { authMachine } from '../../machines/auth/authMachine';
import { anyAuthTestModel } from './auth/authModel';
import { columnRecalculationModelEntry } from './columnRecalculation/columnRecalculationModel';
import { csvImportModelEntry } from './csvImport/csvImportModel';
import { integrationSyncModelEntry } from './integrationSync/integrationSyncModel';
import { liveConnectionModelEntry } from './liveConnection/liveConnectionModel';
import { paymentsImportModelEntry } from './mappingWizard/paymentsImportModel';
import { segmentsImportModelEntry } from './mappingWizard/segmentsImportModel';
import { presentationModelEntry } from './presentation/presentationModel';
import { recalculationModelEntry } from './recalculation/recalculationModel';
import { reportFilterModelEntry } from './reportFilter/reportFilterModel';
import { reportPageModelEntry } from './reportPage/reportPageModel';
import { sectionEditorModelEntry } from './sectionEditor/sectionEditorModel';
import { sectionExportModelEntry } from './sectionExport/sectionExportModel';
import type { MachineModelEntry } from './support/modelPaths';

/**
 * Every product machine's test model, for `npm run test:paths` (QA's list of generated
 * paths) and the coverage guard. Each machine's suite adds its entry here.
 */
export const machineModels: MachineModelEntry[] = [
  { name: 'auth', machine: authMachine, model: anyAuthTestModel },
  csvImportModelEntry,
  paymentsImportModelEntry,
  segmentsImportModelEntry,
  recalculationModelEntry,
  liveConnectionModelEntry,
  sectionExportModelEntry,
  reportFilterModelEntry,
  reportPageModelEntry,
  presentationModelEntry,
  columnRecalculationModelEntry,
  integrationSyncModelEntry,
  sectionEditorModelEntry,
];
