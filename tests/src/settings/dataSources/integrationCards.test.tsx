import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntegrationAnswer } from '../../../../models/integrations';
import {
  CANNOT_CONNECT_MESSAGES,
  CHARGEBEE_API_KEY_EMPTY,
  CHARGEBEE_SITE_EMPTY,
  CLOSED_BETA_TITLE,
  FAKTUROWNIA_SUBDOMAIN_EMPTY,
  INTEGRATION_NAMES,
  SAVE_CONFIGURATION_FAILURE,
} from '../../../../models/integrations';
import type { IntegrationName } from '../../../../models/integrations';
import { tokenStore } from '../../../../src/api/tokenStore';
import { IntegrationCards } from '../../../../src/settings/dataSources/IntegrationCards';
import { createFakeLiveChannels } from '../../cable/fakeLiveChannels';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { apiUser, createFakeApi } from '../../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../../support/fakeApi';

/** The Data sources integration cards against a fake API and fake live channels. */

function integration(name: IntegrationName, overrides: Partial<IntegrationAnswer> = {}): IntegrationAnswer {
  const oauth = name === 'stripe' || name === 'intercom' || name === 'hubspot';
  return {
    name,
    enabled: ['stripe', 'chargebee', 'fakturownia', 'zendesk'].includes(name),
    configurable: !oauth && name !== 'zendesk',
    configured: false,
    authorized: false,
    initially_synced: false,
    initial_progress: 0,
    connect_url: oauth ? `/users/auth/${name}` : null,
    connect: name === 'zendesk' ? 'closed_beta' : oauth ? 'oauth' : 'dialog',
    sync_status: 'idle',
    last_synced_at: null,
    last_error: null,
    config: {},
    ...overrides,
  };
}

function listOf(overrides: Partial<Record<IntegrationName, Partial<IntegrationAnswer>>> = {}): IntegrationAnswer[] {
  return INTEGRATION_NAMES.map((name) => integration(name, overrides[name]));
}

function setup(items: IntegrationAnswer[] = listOf(), handlers: Record<string, (request: { body: unknown }) => FakeAnswer> = {}, path = '/settings') {
  const api: FakeApi = createFakeApi({
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser) } }),
    'GET /integrations': () => ({ status: 200, body: { items } }),
    ...handlers,
  });
  const live = createFakeLiveChannels();
  const navigate = vi.fn();
  const view = renderWithProviders(<IntegrationCards channels={live.channels} navigate={navigate} />, { user: fullAccessUser, api, path });
  return { ...view, api, live, navigate };
}

const card = (name: string) => within(screen.getByRole('region', { name }));
const findCard = async (name: string) => within(await screen.findByRole('region', { name }));

/** Speaks on one channel as the server would. */
function tell(live: ReturnType<typeof createFakeLiveChannels>, channel: string, message: unknown) {
  const subscription = live.active().find((s) => s.params.channel === channel);
  if (!subscription) throw new Error(`nobody listens to ${channel}`);
  subscription.handlers.received?.(message);
}

afterEach(() => tokenStore.clear());

describe('Data sources: the integration cards', () => {
  it('shows every integration in order with the spec’s card states; unavailable ones are greyed with nothing to click', async () => {
    setup(
      listOf({
        stripe: { configured: true, sync_status: 'syncing', initial_progress: 40 },
        fakturownia: { configured: true, initially_synced: true, initial_progress: 100, last_synced_at: '2026-11-26T10:00:00.000Z' },
      }),
    );
    await findCard('Chargebee');
    const names = screen.getAllByRole('heading', { level: 3 }).map((heading) => heading.textContent);
    expect(names).toEqual(['Stripe', 'Chargebee', 'Intercom', 'Zendesk', 'HubSpot', 'Fakturownia', 'wFirma']);
    expect(await card('Stripe').findByText('Sync in progress (40%)')).toBeInTheDocument();
    expect(card('Stripe').getByRole('progressbar', { name: 'Stripe first sync' })).toHaveAttribute('aria-valuenow', '40');
    expect(card('Chargebee').getByText('Configuration needed')).toBeInTheDocument();
    expect(card('Fakturownia').getByText('Connected')).toBeInTheDocument();
    for (const name of ['Intercom', 'HubSpot', 'wFirma']) {
      expect(screen.getByRole('region', { name })).toHaveAttribute('aria-disabled', 'true');
      expect(card(name).queryByRole('button')).not.toBeInTheDocument();
    }
    expect(screen.queryByText(/coming soon/i)).not.toBeInTheDocument();
  });

  it('opens the closed-beta dialog with a contact link for Zendesk', async () => {
    setup();
    await userEvent.click(await (await findCard('Zendesk')).findByRole('button', { name: 'Join the beta' }));
    const dialog = within(await screen.findByRole('dialog', { name: CLOSED_BETA_TITLE }));
    expect(dialog.getByRole('link', { name: /Contact us/ })).toHaveAttribute('href', expect.stringMatching(/^mailto:/));
  });

  it('sends the browser to the OAuth connect URL with the token, frontend_request and the way back', async () => {
    tokenStore.set('jwt.of.ada');
    const { navigate } = setup();
    await userEvent.click(await (await findCard('Stripe')).findByRole('button', { name: 'Connect Stripe' }));
    expect(navigate).toHaveBeenCalledTimes(1);
    const url = new URL(navigate.mock.calls[0]?.[0] as string, 'http://localhost');
    expect(url.pathname).toBe('/users/auth/stripe');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      authorization: 'jwt.of.ada',
      frontend_request: 'true',
      redirect_url: `${window.location.origin}/settings`,
    });
  });

  it('checks the Chargebee dialog’s fields, shows each refusal, then syncs with the percentage and the sync-complete toast', async () => {
    const answers: FakeAnswer[] = [
      { status: 422, body: { errors: [{ code: 'cannot_connect_to_chargebee', detail: CANNOT_CONNECT_MESSAGES.cannot_connect_to_chargebee, source: { pointer: '/body' } }] } },
      { status: 422, body: { errors: [{ detail: 'Use the site name only: letters, digits and dashes', source: { pointer: '/body/chargebee_site' } }] } },
      { status: 500, body: {} },
      { status: 200, body: integration('chargebee', { configured: true, sync_status: 'queued', config: { chargebee_site: 'acme' } }) },
    ];
    const { api, live } = setup(listOf(), { 'POST /integrations/:name': () => answers.shift() ?? { status: 500 } });
    await userEvent.click(await (await findCard('Chargebee')).findByRole('button', { name: 'Connect Chargebee' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Connect Chargebee' }));

    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(CHARGEBEE_SITE_EMPTY)).toBeInTheDocument();
    expect(dialog.getByText(CHARGEBEE_API_KEY_EMPTY)).toBeInTheDocument();
    expect(api.requestsTo('POST /integrations/chargebee')).toHaveLength(0);

    await userEvent.type(dialog.getByLabelText('Site'), 'acme');
    await userEvent.type(dialog.getByLabelText('API key'), 'wrong_key');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(CANNOT_CONNECT_MESSAGES.cannot_connect_to_chargebee)).toBeInTheDocument();
    expect(api.requestsTo('POST /integrations/chargebee')[0]?.body).toEqual({ chargebee_site: 'acme', chargebee_api_key: 'wrong_key' });

    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText('Use the site name only: letters, digits and dashes')).toBeInTheDocument();

    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(SAVE_CONFIGURATION_FAILURE)).toBeInTheDocument();

    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await card('Chargebee').findByText('Sync in progress (0%)')).toBeInTheDocument();

    tell(live, 'IntegrationsChannel', { type: 'integration', integration: integration('chargebee', { configured: true, sync_status: 'syncing', initial_progress: 55 }) });
    expect(await card('Chargebee').findByText('Sync in progress (55%)')).toBeInTheDocument();

    tell(live, 'IntegrationsChannel', { type: 'integration', integration: integration('chargebee', { configured: true, initially_synced: true, initial_progress: 100 }) });
    tell(live, 'IntegrationStatusEventsChannel', { event: 'initially_synced', integration: 'chargebee' });
    expect(await card('Chargebee').findByText('Connected')).toBeInTheDocument();
    expect(await screen.findByText('Chargebee is synced: your reports now include its data')).toBeInTheDocument();
  });

  it('checks the Fakturownia dialog with its own messages', async () => {
    setup();
    await userEvent.click(await (await findCard('Fakturownia')).findByRole('button', { name: 'Connect Fakturownia' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Connect Fakturownia' }));
    await userEvent.type(dialog.getByLabelText('API token'), 'tok');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(FAKTUROWNIA_SUBDOMAIN_EMPTY)).toBeInTheDocument();
    await userEvent.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(card('Fakturownia').getByText('Configuration needed')).toBeInTheDocument();
  });

  it('shows why a sync failed and retries it', async () => {
    const { api } = setup(listOf({ chargebee: { configured: true, sync_status: 'failed', initial_progress: 30, last_error: 'Chargebee refused the API key' } }), {
      'POST /integrations/:name/sync': () => ({ status: 202, body: integration('chargebee', { configured: true, sync_status: 'queued', initial_progress: 30 }) }),
    });
    const chargebee = await findCard('Chargebee');
    expect(await chargebee.findByText('Chargebee refused the API key')).toBeInTheDocument();
    await userEvent.click(chargebee.getByRole('button', { name: 'Retry' }));
    expect(await chargebee.findByText('Sync in progress (30%)')).toBeInTheDocument();
    expect(api.requestsTo('POST /integrations/chargebee/sync')).toHaveLength(1);
  });

  it('says how the OAuth return went and cleans the address', async () => {
    const { location } = setup(listOf(), {}, '/settings?integration=stripe&status=failed');
    expect(await screen.findByText('We could not connect to Stripe, please try again')).toBeInTheDocument();
    await waitFor(() => expect(location.history?.at(-1)).toBe('/settings'));
  });

  it('says when the integrations cannot be read, with Try again', async () => {
    let fail = true;
    setup(listOf(), { 'GET /integrations': () => (fail ? { status: 500 } : { status: 200, body: { items: listOf() } }) });
    expect(await screen.findByText('We could not get your data sources')).toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await findCard('Chargebee')).toBeTruthy();
  });

  it('opens HubSpot’s dialog once its OAuth connect is done, instead of redirecting again', async () => {
    const hubspot = { enabled: true, configurable: true, authorized: true, config: { hub_id: '62515' } };
    const { api, navigate } = setup(listOf({ hubspot }), {
      'POST /integrations/:name': () => ({ status: 200, body: integration('hubspot', { ...hubspot, configured: true, sync_status: 'queued', config: { hub_id: '62515', public_id_attribute_name: 'customer_id' } }) }),
    });
    const card = await findCard('HubSpot');
    expect(card.getByText('Configuration needed')).toBeInTheDocument();
    expect(card.queryByRole('button', { name: 'Connect HubSpot' })).not.toBeInTheDocument();
    await userEvent.click(card.getByRole('button', { name: 'Configure HubSpot' }));
    expect(navigate).not.toHaveBeenCalled();
    const dialog = within(await screen.findByRole('dialog', { name: 'Connect HubSpot' }));
    // Save stays disabled while the attribute name is empty.
    expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
    expect(api.requestsTo('POST /integrations/hubspot')).toHaveLength(0);
    await userEvent.type(dialog.getByLabelText('Attribute name'), 'customer_id');
    expect(dialog.getByRole('button', { name: 'Save' })).toBeEnabled();
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.requestsTo('POST /integrations/hubspot')[0]?.body).toEqual({ public_id_attribute_name: 'customer_id' });
    expect(await card.findByText('Sync in progress (0%)')).toBeInTheDocument();
  });

  it('disconnects an OAuth integration whose dialog was never saved, so the next click redirects again', async () => {
    const hubspot = { enabled: true, configurable: true, authorized: true, connect: 'oauth' as const, connect_url: '/users/auth/hubspot', config: { hub_id: '62515' } };
    const { api } = setup(listOf({ hubspot }), { 'DELETE /integrations/:name': () => ({ status: 204 }) });
    const card = await findCard('HubSpot');
    await userEvent.click(card.getByRole('button', { name: 'Disconnect' }));
    expect(await card.findByRole('button', { name: 'Connect HubSpot' })).toBeInTheDocument();
    expect(api.requestsTo('DELETE /integrations/hubspot')).toHaveLength(1);
    expect(card.queryByRole('button', { name: 'Disconnect' })).not.toBeInTheDocument();
  });
});
