import { integrationsStream, readAnswers, type IntegrationsMessage } from '../integrations/answers';
import type { CableChannel } from './channels';

export const INTEGRATIONS_CHANNEL = 'IntegrationsChannel';

/**
 * `IntegrationsChannel` with params `{channel: 'IntegrationsChannel'}`: the account's data source
 * cards. Right after the confirmation `{type: 'integrations', items}` (every card), then
 * `{type: 'integration', integration}` on each change (status, first sync's percent, configured),
 * about once a second at most while a sync runs. For the full users of the account; a
 * subscription naming anything else is refused.
 */
export const integrationsChannel: CableChannel = {
  name: INTEGRATIONS_CHANNEL,
  async authorize({ db, auth, params }) {
    if (auth.permissionLevel !== 'user' || Object.keys(params).some((key) => key !== 'channel')) return null;
    return {
      streams: [integrationsStream(auth.accountId)],
      current: async (): Promise<IntegrationsMessage> => ({ type: 'integrations', items: await readAnswers(db, auth.accountId) }),
    };
  },
};
