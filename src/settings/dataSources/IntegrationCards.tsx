import { Button, Card, Skeleton, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { IntegrationSyncActorRef } from '../../../machines/integrationSync/integrationSyncMachine';
import { oauthFailedMessage } from '../../../machines/integrationSync/messages';
import { INTEGRATION_LABELS, INTEGRATION_NAMES } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';
import { useApi } from '../../api/ApiContext';
import { tokenStore } from '../../api/tokenStore';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import type { LiveChannels } from '../../cable/liveChannels';
import { FailureAlert } from '../../components/FailureAlert';
import { invoiceStatusKey } from '../../invoices/invoicesApi';
import { toastError, toastSuccess } from '../../notifications/toast';
import { IntegrationCard } from './IntegrationCard';
import { createIntegrationServices, INTEGRATIONS_FETCH_FAILURE, oauthRedirectUrl, patchIntegration, useIntegrations, watchIntegrations } from './integrationsApi';

/** Data sources whose lines go through the import rules (their rejected lines show in the top bar). */
const INVOICING_TOOLS: ReadonlySet<IntegrationName> = new Set(['fakturownia', 'wfirma']);

const isName = (value: string | null): value is IntegrationName => value !== null && (INTEGRATION_NAMES as readonly string[]).includes(value);

export interface IntegrationCardsProps {
  /** The live channels (the app's by default). */
  channels?: LiveChannels;
  /** Sends the browser elsewhere (the OAuth redirect); window.location.assign by default. */
  navigate?: (url: string) => void;
}

/**
 * The integration cards of Data sources (grid items beside the CSV and API cards): every
 * integration of GET /integrations, kept current by IntegrationsChannel, each card's machine
 * told of IntegrationStatusEventsChannel's events. Coming back from an OAuth provider
 * (`?integration=stripe&status=connected|failed`) says how it went and cleans the address.
 */
export function IntegrationCards({ channels, navigate }: IntegrationCardsProps) {
  const client = useApi();
  const queryClient = useQueryClient();
  const live = useLiveChannels(channels);
  const query = useIntegrations();
  const actors = useRef(new Map<IntegrationName, IntegrationSyncActorRef>());
  const services = useMemo(() => createIntegrationServices(client, queryClient), [client, queryClient]);
  const redirect = useCallback(
    (connectUrl: string) => (navigate ?? ((url: string) => window.location.assign(url)))(oauthRedirectUrl(connectUrl, tokenStore.get() ?? '', window.location.origin)),
    [navigate],
  );
  const handleActor = useCallback((name: IntegrationName, actor: IntegrationSyncActorRef | null) => {
    if (actor) actors.current.set(name, actor);
    else actors.current.delete(name);
  }, []);

  const { refetch } = query;
  useEffect(
    () =>
      watchIntegrations(live, {
        answer: (integration) => {
          patchIntegration(queryClient, integration);
          // A finished sync of an invoicing tool may have brought lines no rule knows: the top bar asks again.
          if (INVOICING_TOOLS.has(integration.name) && integration.sync_status === 'idle') void queryClient.invalidateQueries({ queryKey: invoiceStatusKey });
        },
        statusEvent: (event) => {
          if (event.event === 'initially_synced') void queryClient.invalidateQueries({ queryKey: invoiceStatusKey });
          const actor = actors.current.get(event.integration);
          if (event.event === 'initially_synced') actor?.send({ type: 'integration.initiallySynced' });
          else actor?.send({ type: 'integration.syncFailed', error: event.error });
        },
        reconnected: () => void refetch(),
      }),
    [live, queryClient, refetch],
  );

  // The way back from an OAuth provider.
  const search = useSearch();
  const [location, setLocation] = useLocation();
  useEffect(() => {
    const params = new URLSearchParams(search);
    const name = params.get('integration');
    const status = params.get('status');
    if (!isName(name) || (status !== 'connected' && status !== 'failed')) return;
    // One toast however often the effect runs before the address is cleaned.
    const id = `oauth-return-${name}`;
    if (status === 'connected') toastSuccess(`${INTEGRATION_LABELS[name]} is connected: the first sync has started`, { id });
    else toastError(oauthFailedMessage(name), { id });
    params.delete('integration');
    params.delete('status');
    const rest = params.toString();
    setLocation(`${location}${rest ? `?${rest}` : ''}`, { replace: true });
  }, [search, location, setLocation]);

  if (query.isPending) {
    return INTEGRATION_NAMES.map((name) => (
      <Card key={name} aria-label={`Loading ${INTEGRATION_LABELS[name]}`} aria-busy="true">
        <Stack gap="sm">
          <Skeleton height={40} width={40} radius="md" />
          <Skeleton height={14} width="50%" />
          <Skeleton height={12} />
        </Stack>
      </Card>
    ));
  }
  if (query.isError) {
    return (
      <Card>
        <Stack gap="sm" align="flex-start">
          <FailureAlert messages={[INTEGRATIONS_FETCH_FAILURE]} />
          <Button variant="light" onClick={() => void refetch()} loading={query.isFetching}>
            Try again
          </Button>
        </Stack>
      </Card>
    );
  }
  return query.data.map((integration) => (
    <IntegrationCard key={integration.name} integration={integration} services={services} redirect={redirect} onActor={handleActor} />
  ));
}
