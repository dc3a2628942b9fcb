import { channelRegistry } from './channels';
import { businessReportChannel } from './businessReportChannel';
import { segmentsImportChannel } from './segmentsImportChannel';

/**
 * The live channels the server offers. SectionDetailsExportChannel,
 * IntegrationStatusEventsChannel and IntegrationsChannel (spec, second document) join here as
 * their features are built: each is a `CableChannel` (server/cable/channels.ts).
 */
export const cableChannels = channelRegistry([segmentsImportChannel, businessReportChannel]);
