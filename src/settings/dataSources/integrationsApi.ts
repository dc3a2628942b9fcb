import { useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { saveFailure } from '../../../machines/integrationSync/integrationSyncActors';
import type { IntegrationSyncServices } from '../../../machines/integrationSync/integrationSyncActors';
import { CANNOT_CONNECT_MESSAGES, INTEGRATION_NAMES, SAVE_CONFIGURATION_FAILURE } from '../../../models/integrations';
import type { CannotConnectCode, IntegrationName } from '../../../models/integrations';
import type { ApiClient } from '../../api/client';
import { useApi } from '../../api/ApiContext';
import { apiErrorField, apiErrorItems } from '../../api/errors';
import { ApiCallError, apiKey } from '../../api/queries';
import type { paths } from '../../api/schema';
import type { LiveChannels } from '../../cable/liveChannels';

/** An integration as GET /integrations answers it. */
export type Integration = paths['/integrations']['get']['responses'][200]['content']['application/json']['items'][number];
/** One line of GET /integrations/{name}/sync_log. */
export type SyncLogEntry = paths['/integrations/{name}/sync_log']['get']['responses'][200]['content']['application/json']['items'][number];

/** The live channels of the cards (server/cable/integrationsChannel.ts, integrationStatusEventsChannel.ts). */
export const INTEGRATIONS_CHANNEL = 'IntegrationsChannel';
export const INTEGRATION_STATUS_EVENTS_CHANNEL = 'IntegrationStatusEventsChannel';

export const INTEGRATIONS_FETCH_FAILURE = 'We could not get your data sources';

const INTEGRATIONS_KEY = apiKey('/integrations');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isName = (value: unknown): value is IntegrationName => typeof value === 'string' && (INTEGRATION_NAMES as readonly string[]).includes(value);
const isIntegration = (value: unknown): value is Integration => isRecord(value) && isName(value.name) && typeof value.configured === 'boolean';

/** Every card's integration (GET /integrations), in the order of the cards. */
export function useIntegrations() {
  const client = useApi();
  return useQuery({
    queryKey: INTEGRATIONS_KEY,
    queryFn: async ({ signal }) => {
      const { data, response } = await client.GET('/integrations', { signal });
      if (!data) throw new ApiCallError(INTEGRATIONS_FETCH_FAILURE, response.status);
      return data.items;
    },
  });
}

/** Puts an answer about one integration into the cached list (a channel message, a call's answer). */
export function patchIntegration(queryClient: QueryClient, integration: Integration): void {
  queryClient.setQueryData<Integration[]>(INTEGRATIONS_KEY, (items) =>
    items ? items.map((item) => (item.name === integration.name ? integration : item)) : items,
  );
}

/** What IntegrationStatusEventsChannel says about one integration. */
export type IntegrationStatusEvent = { event: 'initially_synced'; integration: IntegrationName } | { event: 'sync_failed'; integration: IntegrationName; error: string };

export function toStatusEvent(message: unknown): IntegrationStatusEvent | null {
  if (!isRecord(message) || !isName(message.integration)) return null;
  if (message.event === 'initially_synced') return { event: 'initially_synced', integration: message.integration };
  if (message.event === 'sync_failed') return { event: 'sync_failed', integration: message.integration, error: typeof message.error === 'string' ? message.error : '' };
  return null;
}

/** The integrations an IntegrationsChannel message carries (the whole list after confirming, then one per change). */
export function toIntegrations(message: unknown): Integration[] {
  if (!isRecord(message)) return [];
  if (message.type === 'integrations' && Array.isArray(message.items)) return message.items.filter(isIntegration);
  if (message.type === 'integration' && isIntegration(message.integration)) return [message.integration];
  return [];
}

/**
 * Listens to both channels while the Data sources section is shown: each answer is put into the
 * cached list (the cards follow it), each status event handed to its card. Returns the unsubscribe.
 */
export function watchIntegrations(
  channels: LiveChannels,
  handlers: { answer: (integration: Integration) => void; statusEvent: (event: IntegrationStatusEvent) => void; reconnected: () => void },
): () => void {
  const stopAnswers = channels.subscribe(
    { channel: INTEGRATIONS_CHANNEL },
    { received: (message) => toIntegrations(message).forEach(handlers.answer), connected: handlers.reconnected },
  );
  const stopEvents = channels.subscribe(
    { channel: INTEGRATION_STATUS_EVENTS_CHANNEL },
    {
      received: (message) => {
        const event = toStatusEvent(message);
        if (event) handlers.statusEvent(event);
      },
    },
  );
  return () => {
    stopAnswers();
    stopEvents();
  };
}

/** A refused save as the dialog shows it: a field's message, the provider's cannot-connect message, or 'We could not save configuration'. */
export function toSaveRefusal(status: number, body: unknown) {
  const items = status === 422 || status === 400 ? apiErrorItems(body) : [];
  const code = items.map((item) => item.code).find((c): c is CannotConnectCode => !!c && c in CANNOT_CONNECT_MESSAGES);
  if (code) return saveFailure('cannotConnect', {}, [CANNOT_CONNECT_MESSAGES[code]]);
  const fields: Record<string, string> = {};
  for (const item of items) {
    const field = apiErrorField(item);
    if (field && field !== 'body' && item.detail && !(field in fields)) fields[field] = item.detail;
  }
  if (Object.keys(fields).length > 0) return saveFailure('invalid', fields);
  return saveFailure('unavailable', {}, [SAVE_CONFIGURATION_FAILURE]);
}

/** The cards' calls over the API client; each answer also goes into the cached list. */
export function createIntegrationServices(client: ApiClient, queryClient: QueryClient): IntegrationSyncServices {
  return {
    async saveConfiguration(name, configuration, signal) {
      let answer;
      try {
        // Each provider with a dialog has its own route and body schema (POST /integrations/chargebee, …); the dialog's fields are that body.
        answer = await client.POST(`/integrations/${name}` as '/integrations/chargebee', { body: configuration, signal });
      } catch (error) {
        if (signal.aborted) throw error;
        throw saveFailure('unavailable', {}, [SAVE_CONFIGURATION_FAILURE]);
      }
      const { data, error, response } = answer;
      if (!data) throw toSaveRefusal(response.status, error);
      patchIntegration(queryClient, data);
      return data;
    },
    async retrySync(name, signal) {
      const { data, response } = await client.POST('/integrations/{name}/sync', { params: { path: { name } }, signal });
      if (!data) throw new ApiCallError(`POST /integrations/${name}/sync answered ${response.status}`, response.status);
      patchIntegration(queryClient, data);
      return data;
    },
    async disconnect(name, signal) {
      const { response } = await client.DELETE('/integrations/{name}', { params: { path: { name } }, signal });
      if (!response.ok) throw new ApiCallError(`DELETE /integrations/${name} answered ${response.status}`, response.status);
      void queryClient.invalidateQueries({ queryKey: INTEGRATIONS_KEY });
    },
  };
}

/**
 * Where an OAuth card sends the browser: the connect URL with the user's token, the
 * `frontend_request` flag, and the way back to Settings on this site.
 */
export function oauthRedirectUrl(connectUrl: string, token: string, origin: string): string {
  const query = new URLSearchParams({ authorization: token, frontend_request: 'true', redirect_url: `${origin}/settings` });
  return `${connectUrl}${connectUrl.includes('?') ? '&' : '?'}${query.toString()}`;
}
