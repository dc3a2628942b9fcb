import { integrationEventsStream } from '../integrations/answers';
import type { CableChannel } from './channels';

export const INTEGRATION_STATUS_EVENTS_CHANNEL = 'IntegrationStatusEventsChannel';

/**
 * `IntegrationStatusEventsChannel` with params `{channel: 'IntegrationStatusEventsChannel'}`:
 * `{event: 'initially_synced', integration}` when a first sync completes and
 * `{event: 'sync_failed', integration, error}` when a sync fails. For the full users of the
 * account; nothing is sent at subscription.
 */
export const integrationStatusEventsChannel: CableChannel = {
  name: INTEGRATION_STATUS_EVENTS_CHANNEL,
  async authorize({ auth, params }) {
    if (auth.permissionLevel !== 'user' || Object.keys(params).some((key) => key !== 'channel')) return null;
    return { streams: [integrationEventsStream(auth.accountId)] };
  },
};
