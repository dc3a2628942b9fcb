import { channelRegistry } from './channels';
import { businessReportChannel } from './businessReportChannel';
import { customerColumnsChannel } from './customerColumnsChannel';
import { sectionDetailsExportChannel } from './sectionDetailsExportChannel';
import { segmentsImportChannel } from './segmentsImportChannel';

/**
 * The live channels the server offers. IntegrationStatusEventsChannel and IntegrationsChannel
 * (spec, second document) join here as their features are built: each is a `CableChannel`
 * (server/cable/channels.ts).
 */
export const cableChannels = channelRegistry([segmentsImportChannel, businessReportChannel, sectionDetailsExportChannel, customerColumnsChannel]);
