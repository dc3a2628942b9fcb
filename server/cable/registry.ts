import { channelRegistry } from './channels';
import { businessReportChannel } from './businessReportChannel';
import { customerColumnsChannel } from './customerColumnsChannel';
import { integrationsChannel } from './integrationsChannel';
import { integrationStatusEventsChannel } from './integrationStatusEventsChannel';
import { sectionDetailsExportChannel } from './sectionDetailsExportChannel';
import { segmentsImportChannel } from './segmentsImportChannel';

/** The live channels the server offers: each is a `CableChannel` (server/cable/channels.ts). */
export const cableChannels = channelRegistry([
  segmentsImportChannel,
  businessReportChannel,
  sectionDetailsExportChannel,
  customerColumnsChannel,
  integrationsChannel,
  integrationStatusEventsChannel,
]);
