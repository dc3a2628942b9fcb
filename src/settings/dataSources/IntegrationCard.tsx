import { Alert, Badge, Button, Card, Group, Menu, Progress, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconBrandStripe,
  IconBuildingStore,
  IconChevronDown,
  IconCreditCard,
  IconFileInvoice,
  IconHeadset,
  IconMessageChatbot,
  IconPlugConnected,
  IconReceipt,
  IconRefresh,
  IconUsersGroup,
} from '@tabler/icons-react';
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo } from 'react';
import type { ReactNode } from 'react';
import { answerEvent } from '../../../machines/integrationSync/answers';
import { integrationSyncActors } from '../../../machines/integrationSync/integrationSyncActors';
import { integrationSyncMachine } from '../../../machines/integrationSync/integrationSyncMachine';
import type { IntegrationSyncActorRef } from '../../../machines/integrationSync/integrationSyncMachine';
import { syncCompleteMessage } from '../../../machines/integrationSync/messages';
import { selectError, selectLastSyncedAt, selectPercent, selectPhase, selectRedirecting, selectRetrying, selectStatusLabel } from '../../../machines/integrationSync/selectors';
import type { IntegrationSyncServices } from '../../../machines/integrationSync/integrationSyncActors';
import type { IntegrationSyncContext } from '../../../machines/integrationSync/types';
import { INTEGRATION_LABELS } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';
import { useInspection } from '../../inspector/useInspection';
import { toastError, toastSyncComplete } from '../../notifications/toast';
import { ClosedBetaDialog } from './ClosedBetaDialog';
import { ConfigurationDialog } from './ConfigurationDialog';
import type { Integration } from './integrationsApi';

const ICONS: Record<IntegrationName, ReactNode> = {
  stripe: <IconBrandStripe size={22} stroke={1.6} />,
  chargebee: <IconCreditCard size={22} stroke={1.6} />,
  intercom: <IconMessageChatbot size={22} stroke={1.6} />,
  zendesk: <IconHeadset size={22} stroke={1.6} />,
  hubspot: <IconUsersGroup size={22} stroke={1.6} />,
  fakturownia: <IconFileInvoice size={22} stroke={1.6} />,
  wfirma: <IconReceipt size={22} stroke={1.6} />,
};

const DESCRIPTIONS: Record<IntegrationName, string> = {
  stripe: 'Customers, subscriptions, invoices and discounts from your Stripe account.',
  chargebee: 'Customers, subscriptions, invoices and coupons from your Chargebee site.',
  intercom: 'Customer attributes from Intercom, matched to your customers.',
  zendesk: 'Support tickets beside your customers.',
  hubspot: 'Deals, their stages and owners, and company attributes from HubSpot.',
  fakturownia: 'Invoices from Fakturownia, turned into payments by your import rules.',
  wfirma: 'Invoices from wFirma, turned into payments by your import rules.',
};

const PHASE_COLORS = { configurationNeeded: 'gray', syncing: 'blue', connected: 'teal', failed: 'red', disconnecting: 'gray', loading: 'gray' } as const;

export interface IntegrationCardProps {
  integration: Integration;
  services: IntegrationSyncServices;
  /** Sends the browser to an OAuth provider (window.location.assign in the app). */
  redirect: (connectUrl: string) => void;
  /** The card's machine, for the status events of its integration. */
  onActor: (name: IntegrationName, actor: IntegrationSyncActorRef | null) => void;
}

/** The machine of one card: its calls, its toasts and the redirect provided, registered with the state inspector. */
function useIntegrationSync({ integration, services, redirect }: IntegrationCardProps): IntegrationSyncActorRef {
  const logic = useMemo(
    () =>
      integrationSyncMachine.provide({
        actors: integrationSyncActors(services),
        actions: {
          notify: (_, notice) => {
            if (notice.kind === 'syncComplete') toastSyncComplete(syncCompleteMessage(notice.name));
            else toastError(notice.message);
          },
          redirect: (_, { url }) => redirect(url),
        },
      }),
    [services, redirect],
  );
  const inspect = useInspection('integrationSync', { integrationOf: (context) => (context as IntegrationSyncContext).name });
  return useActorRef(logic, { input: { name: integration.name }, inspect });
}

/** An integration card of Data sources: its state in the spec's words, and what it does when clicked. */
export function IntegrationCard(props: IntegrationCardProps) {
  const { integration, onActor } = props;
  const actor = useIntegrationSync(props);
  const { name } = integration;
  const label = INTEGRATION_LABELS[name];

  // Every answer about the integration (the list, the channel, a call's) goes to the machine.
  useEffect(() => {
    actor.send(answerEvent(integration));
  }, [actor, integration]);
  useEffect(() => {
    onActor(name, actor);
    return () => onActor(name, null);
  }, [actor, name, onActor]);

  const phase = useSelector(actor, selectPhase);
  const status = useSelector(actor, selectStatusLabel);
  const percent = useSelector(actor, selectPercent);
  const error = useSelector(actor, selectError);
  const retrying = useSelector(actor, selectRetrying);
  const redirecting = useSelector(actor, selectRedirecting);
  const lastSyncedAt = useSelector(actor, selectLastSyncedAt);
  const canConfigure = useSelector(actor, (snapshot) => snapshot.can({ type: 'integration.configure' }));
  const canConnect = useSelector(actor, (snapshot) => snapshot.can({ type: 'integration.connect' }));
  const canDisconnect = useSelector(actor, (snapshot) => snapshot.can({ type: 'integration.disconnect' }));
  const [betaOpened, beta] = useDisclosure(false);

  const disabled = !integration.enabled;
  const closedBeta = integration.enabled && integration.connect === 'closed_beta';

  return (
    <Card
      aria-label={label}
      aria-disabled={disabled || undefined}
      component="section"
      style={disabled ? { opacity: 0.55, filter: 'grayscale(1)' } : undefined}
    >
      <Stack gap="md" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <ThemeIcon size={40} radius="md" variant="light" color={disabled ? 'gray' : undefined} aria-hidden>
            {ICONS[name] ?? <IconBuildingStore size={22} />}
          </ThemeIcon>
          <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
            <Group gap="xs">
              <Title order={3} fz="md">
                {label}
              </Title>
              {!disabled && !closedBeta && status ? (
                <Badge variant="light" color={PHASE_COLORS[phase]} aria-label={`Status: ${status}`}>
                  {status}
                </Badge>
              ) : null}
              {phase === 'loading' && !disabled && !closedBeta ? <Skeleton height={18} width={120} aria-label={`Loading ${label}`} /> : null}
            </Group>
            <Text size="sm" c="dimmed">
              {DESCRIPTIONS[name]}
            </Text>
          </Stack>
        </Group>

        {phase === 'syncing' && !disabled ? (
          <Progress value={percent} size="sm" aria-label={`${label} first sync`} animated={percent < 100} />
        ) : null}
        {phase === 'failed' && error ? (
          <Alert color="red" variant="light" p="xs" role="alert" title="The last sync failed">
            <Text size="sm">{error}</Text>
          </Alert>
        ) : null}
        {phase === 'connected' && lastSyncedAt ? (
          <Text size="xs" c="dimmed">
            Last synced {new Date(lastSyncedAt).toLocaleString()}
          </Text>
        ) : null}

        {disabled ? null : (
          <Group gap="xs">
            {closedBeta ? (
              <Button variant="light" onClick={beta.open}>
                Join the beta
              </Button>
            ) : null}
            {canConnect ? (
              <Button variant="light" leftSection={<IconPlugConnected size={16} />} loading={redirecting} onClick={() => actor.send({ type: 'integration.connect' })}>
                Connect {label}
              </Button>
            ) : null}
            {redirecting ? (
              <Button variant="light" loading>
                Connect {label}
              </Button>
            ) : null}
            {phase === 'configurationNeeded' && canConfigure ? (
              <Button variant="light" leftSection={<IconPlugConnected size={16} />} onClick={() => actor.send({ type: 'integration.configure' })}>
                {/* An OAuth integration with a dialog (HubSpot, Intercom) is connected already: its dialog finishes the configuration. */}
                {integration.authorized ? 'Configure' : 'Connect'} {label}
              </Button>
            ) : null}
            {phase === 'configurationNeeded' && canDisconnect ? (
              // Authorized by OAuth, its dialog not saved yet: the tokens can be given up without configuring.
              <Button variant="subtle" color="red" onClick={() => actor.send({ type: 'integration.disconnect' })}>
                Disconnect
              </Button>
            ) : null}
            {phase === 'failed' ? (
              <Button variant="light" color="red" leftSection={<IconRefresh size={16} />} loading={retrying} onClick={() => actor.send({ type: 'integration.retry' })}>
                Retry
              </Button>
            ) : null}
            {phase !== 'configurationNeeded' && (canDisconnect || canConfigure) ? (
              <Menu position="bottom-start" withinPortal>
                <Menu.Target>
                  <Button variant="subtle" color="gray" rightSection={<IconChevronDown size={14} />} loading={phase === 'disconnecting'}>
                    Manage
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  {canConfigure ? <Menu.Item onClick={() => actor.send({ type: 'integration.configure' })}>Change configuration</Menu.Item> : null}
                  {canDisconnect ? (
                    <Menu.Item color="red" onClick={() => actor.send({ type: 'integration.disconnect' })}>
                      Disconnect
                    </Menu.Item>
                  ) : null}
                </Menu.Dropdown>
              </Menu>
            ) : null}
          </Group>
        )}
      </Stack>
      <ConfigurationDialog name={name} actor={actor} />
      {closedBeta ? <ClosedBetaDialog name={name} opened={betaOpened} onClose={beta.close} /> : null}
    </Card>
  );
}
