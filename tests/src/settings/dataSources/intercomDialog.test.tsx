import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntegrationAnswer } from '../../../../models/integrations';
import { ATTRIBUTE_NAME_EMPTY, INTEGRATION_NAMES } from '../../../../models/integrations';
import type { IntegrationName } from '../../../../models/integrations';
import { tokenStore } from '../../../../src/api/tokenStore';
import { IntegrationCards } from '../../../../src/settings/dataSources/IntegrationCards';
import { createFakeLiveChannels } from '../../cable/fakeLiveChannels';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { apiUser, createFakeApi } from '../../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../../support/fakeApi';

/** Intercom's configuration dialog (a select and a nested body) on the Data sources cards, against a fake API. */

const AUTHORIZED = { enabled: true, configurable: true, authorized: true, config: { workspace_id: 'ecahpwf5' } };

function integration(name: IntegrationName, overrides: Partial<IntegrationAnswer> = {}): IntegrationAnswer {
  const oauth = name === 'stripe' || name === 'intercom' || name === 'hubspot';
  return {
    name,
    enabled: ['stripe', 'chargebee', 'fakturownia'].includes(name),
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

function setup(intercom: Partial<IntegrationAnswer>, handlers: Record<string, (request: { body: unknown }) => FakeAnswer> = {}) {
  const items = INTEGRATION_NAMES.map((name) => integration(name, name === 'intercom' ? intercom : {}));
  const api: FakeApi = createFakeApi({
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser) } }),
    'GET /integrations': () => ({ status: 200, body: { items } }),
    ...handlers,
  });
  const live = createFakeLiveChannels();
  const navigate = vi.fn();
  renderWithProviders(<IntegrationCards channels={live.channels} navigate={navigate} />, { user: fullAccessUser, api, path: '/settings' });
  return { api, navigate };
}

const findCard = async (name: string) => within(await screen.findByRole('region', { name }));

async function openDialog() {
  const card = await findCard('Intercom');
  await userEvent.click(card.getByRole('button', { name: 'Configure Intercom' }));
  return { card, dialog: within(await screen.findByRole('dialog', { name: 'Connect Intercom' })) };
}

afterEach(() => tokenStore.clear());

describe('Data sources: the Intercom dialog', () => {
  it('chooses the object type, keeps Save disabled while the attribute name is empty, and sends the nested body', async () => {
    const saved = { ...AUTHORIZED, configured: true, sync_status: 'queued' as const, config: { workspace_id: 'ecahpwf5', customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } } };
    const { api, navigate } = setup(AUTHORIZED, { 'POST /integrations/:name': () => ({ status: 200, body: integration('intercom', saved) }) });
    const { card, dialog } = await openDialog();
    expect(card.getByText('Configuration needed')).toBeInTheDocument();
    expect(navigate).not.toHaveBeenCalled();

    const objectType = dialog.getByLabelText('Object type', { selector: 'input' });
    expect(objectType).toHaveValue('Customer');
    const save = dialog.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await userEvent.type(dialog.getByRole('textbox', { name: 'Attribute name' }), '   ');
    expect(save).toBeDisabled();
    await userEvent.clear(dialog.getByRole('textbox', { name: 'Attribute name' }));
    await userEvent.type(dialog.getByRole('textbox', { name: 'Attribute name' }), 'company_id');
    expect(save).toBeEnabled();

    await userEvent.click(objectType);
    await userEvent.click(await screen.findByRole('option', { name: 'Company' }));
    expect(objectType).toHaveValue('Company');
    await userEvent.click(save);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.requestsTo('POST /integrations/intercom')[0]?.body).toEqual({ customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } });
    expect(await card.findByText('Sync in progress (0%)')).toBeInTheDocument();
  });

  it('shows the server’s refusal under the nested field', async () => {
    const { api } = setup(AUTHORIZED, {
      'POST /integrations/:name': () => ({ status: 422, body: { errors: [{ detail: ATTRIBUTE_NAME_EMPTY, source: { pointer: '/body/customer_public_id_path/attribute_name' } }] } }),
    });
    const { dialog } = await openDialog();
    await userEvent.type(dialog.getByRole('textbox', { name: 'Attribute name' }), 'email');
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(ATTRIBUTE_NAME_EMPTY)).toBeInTheDocument();
    expect(dialog.getByRole('textbox', { name: 'Attribute name' })).toHaveAttribute('aria-invalid', 'true');
    expect(api.requestsTo('POST /integrations/intercom')[0]?.body).toEqual({ customer_public_id_path: { object_type: 'customer', attribute_name: 'email' } });
  });

  it('starts from the saved setting when changing it', async () => {
    setup({
      ...AUTHORIZED,
      configured: true,
      initially_synced: true,
      initial_progress: 100,
      config: { workspace_id: 'ecahpwf5', customer_public_id_path: { object_type: 'company', attribute_name: 'custom_attributes.account_id' } },
    });
    const card = await findCard('Intercom');
    expect(await card.findByText('Connected')).toBeInTheDocument();
    await userEvent.click(card.getByRole('button', { name: /Manage/ }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Change configuration' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Connect Intercom' }));
    expect(dialog.getByLabelText('Object type', { selector: 'input' })).toHaveValue('Company');
    expect(dialog.getByRole('textbox', { name: 'Attribute name' })).toHaveValue('custom_attributes.account_id');
    expect(dialog.getByRole('button', { name: 'Save' })).toBeEnabled();
  });
});
