import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ATTRIBUTE_NAME_REQUIRED, ATTRIBUTE_NAME_TAKEN, ATTRIBUTE_REMOVE_FAILURE, ATTRIBUTES_FETCH_FAILURE } from '../../../models/attributes';
import { apiKey } from '../../../src/api/queries';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors } from '../support/fakeApi';
import { channelAttribute, departmentAttribute, planAttribute, settingsServer } from './settingsFixtures';
import type { SettingsServer } from './settingsFixtures';

/** Settings → Custom attributes against a fake API. */

vi.mock('../../../src/settings/segmentation/SegmentationSection', () => ({ SegmentationSection: () => null }));

const section = () => within(screen.getByRole('region', { name: 'Custom attributes' }));
const card = (name: string) => within(section().getByRole('listitem', { name }));

async function renderSettings(server: SettingsServer = settingsServer()) {
  const user = userEvent.setup({ delay: null });
  const view = renderApp({ path: '/settings', user: fullAccessUser, api: server.api });
  await screen.findByRole('region', { name: 'Custom attributes' });
  return { user, server, ...view };
}

async function openActions(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(await section().findByRole('button', { name: `Actions for ${name}` }));
}

describe('Settings: custom attributes', () => {
  it('shows a card per attribute with its name and object, customer attributes linking to their values import', async () => {
    const server = settingsServer();
    server.api.hold('GET /object_attributes');
    await renderSettings(server);
    expect(await section().findByLabelText('Loading custom attributes')).toBeInTheDocument();
    server.api.release('GET /object_attributes', { status: 200, body: { items: [departmentAttribute, channelAttribute, planAttribute] } });

    const names = (await section().findAllByRole('listitem')).map((item) => item.getAttribute('aria-label'));
    expect(names).toEqual(['Plan', 'Channel', 'Department']);
    expect(card('Plan').getByText('Customer')).toBeInTheDocument();
    expect(card('Channel').getByText('Payment')).toBeInTheDocument();
    expect(card('Department').getByText('Cost')).toBeInTheDocument();
    expect(card('Plan').getByRole('link', { name: 'Import attribute values of Plan' })).toHaveAttribute('href', '/import-segments?segment=seg_att_plan');
    expect(card('Channel').queryByRole('link')).not.toBeInTheDocument();
    expect(section().getByRole('link', { name: 'Import attribute values' })).toHaveAttribute('href', '/import-segments');
  });

  it('says when there are none', async () => {
    await renderSettings(settingsServer({ attributes: [] }));
    expect(await section().findByText('No custom attributes yet')).toBeInTheDocument();
  });

  it(`shows and toasts '${ATTRIBUTES_FETCH_FAILURE}' when the list cannot be fetched`, async () => {
    await renderSettings(settingsServer({ overrides: { 'GET /object_attributes': () => ({ status: 500 }) } }));
    await waitFor(() => expect(screen.getAllByText(ATTRIBUTES_FETCH_FAILURE)).toHaveLength(2));
    expect(section().getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it(`adds an attribute: '${ATTRIBUTE_NAME_REQUIRED}' first, then the name and object are sent and the card appears`, async () => {
    const { user, server, queryClient } = await renderSettings();
    queryClient.setQueryData(apiKey('/customer_segments'), []);
    queryClient.setQueryData(apiKey('/business_report/section_definitions'), []);
    await section().findByRole('listitem', { name: 'Plan' });
    await user.click(section().getByRole('button', { name: 'Add attribute' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add attribute' }));

    await user.click(dialog.getByRole('button', { name: 'Add attribute' }));
    expect(await dialog.findByText(ATTRIBUTE_NAME_REQUIRED)).toBeInTheDocument();
    expect(dialog.getByText('Object is required')).toBeInTheDocument();

    await user.type(dialog.getByRole('textbox', { name: /Name/ }), '  Industry ');
    await user.click(dialog.getByRole('combobox', { name: /Object/ }));
    await user.click(await screen.findByRole('option', { name: 'Customer' }));
    await user.click(dialog.getByRole('button', { name: 'Add attribute' }));

    expect(await section().findByRole('listitem', { name: 'Industry' })).toBeInTheDocument();
    expect(server.api.requestsTo('POST /object_attributes')[0]?.body).toEqual({ name: 'Industry', object: 'customer' });
    expect(screen.queryByRole('dialog', { name: 'Add attribute' })).not.toBeInTheDocument();
    // Customer segments and the section definitions (their segmenters) are read again.
    expect(queryClient.getQueryState(apiKey('/customer_segments'))?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(apiKey('/business_report/section_definitions'))?.isInvalidated).toBe(true);
  });

  it("shows the server's refusal of a name at the name and keeps the modal open", async () => {
    const { user } = await renderSettings(
      settingsServer({ overrides: { 'POST /object_attributes': () => apiErrors(422, { pointer: '/name', detail: ATTRIBUTE_NAME_TAKEN }) } }),
    );
    await section().findByRole('listitem', { name: 'Plan' });
    await user.click(section().getByRole('button', { name: 'Add attribute' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add attribute' }));
    await user.type(dialog.getByRole('textbox', { name: /Name/ }), 'plan');
    await user.click(dialog.getByRole('combobox', { name: /Object/ }));
    await user.click(await screen.findByRole('option', { name: 'Customer' }));
    await user.click(dialog.getByRole('button', { name: 'Add attribute' }));

    expect(await dialog.findByText(ATTRIBUTE_NAME_TAKEN)).toBeInTheDocument();
    expect(dialog.getByRole('textbox', { name: /Name/ })).toHaveValue('plan');
  });

  it('renames an attribute, keeping its object', async () => {
    const { user, server } = await renderSettings();
    await openActions(user, 'Channel');
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rename attribute' }));
    const name = dialog.getByRole('textbox', { name: /Name/ });
    expect(name).toHaveValue('Channel');
    expect(dialog.queryByRole('combobox', { name: /Object/ })).not.toBeInTheDocument();

    await user.clear(name);
    await user.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(ATTRIBUTE_NAME_REQUIRED)).toBeInTheDocument();
    await user.type(name, 'Sales channel');
    await user.click(dialog.getByRole('button', { name: 'Save' }));

    expect(await section().findByRole('listitem', { name: 'Sales channel' })).toBeInTheDocument();
    expect(card('Sales channel').getByText('Payment')).toBeInTheDocument();
    expect(server.api.requestsTo(`PUT /object_attributes/${channelAttribute.id}`)[0]?.body).toEqual({ name: 'Sales channel' });
  });

  it('deletes an attribute after a confirmation', async () => {
    const { user, server, queryClient } = await renderSettings();
    const reportKey = apiKey('/business_reports/by_secret', { secret: 'sec_1' });
    queryClient.setQueryData(reportKey, { id: 'rep_1' });
    await openActions(user, 'Plan');
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete attribute' }));
    expect(dialog.getByText(/Delete “Plan”\?/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Delete attribute' }));

    await waitFor(() => expect(section().queryByRole('listitem', { name: 'Plan' })).not.toBeInTheDocument());
    expect(server.api.requestsTo(`DELETE /object_attributes/${planAttribute.id}`)).toHaveLength(1);
    // Sections segmented by it lose that segment: the reports are read again.
    expect(queryClient.getQueryState(reportKey)?.isInvalidated).toBe(true);
  });

  it('sends nothing when the deletion is cancelled', async () => {
    const { user, server } = await renderSettings();
    await openActions(user, 'Plan');
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete attribute' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete attribute' })).not.toBeInTheDocument());
    expect(server.api.requestsTo(`DELETE /object_attributes/${planAttribute.id}`)).toHaveLength(0);
    expect(section().getByRole('listitem', { name: 'Plan' })).toBeInTheDocument();
  });

  it("toasts the server's detail when a deletion is refused (422)", async () => {
    const detail = "Attribute is used by segmentation 'Size'. Delete the segmentation first.";
    const { user } = await renderSettings(settingsServer({ overrides: { 'DELETE /object_attributes/:id': () => apiErrors(422, { detail }) } }));
    await openActions(user, 'Plan');
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete attribute' })).getByRole('button', { name: 'Delete attribute' }));

    expect(await screen.findByText(detail)).toBeInTheDocument();
    expect(section().getByRole('listitem', { name: 'Plan' })).toBeInTheDocument();
  });

  it(`toasts '${ATTRIBUTE_REMOVE_FAILURE}' when a deletion fails otherwise`, async () => {
    const { user } = await renderSettings(settingsServer({ overrides: { 'DELETE /object_attributes/:id': () => ({ status: 500 }) } }));
    await openActions(user, 'Plan');
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete attribute' })).getByRole('button', { name: 'Delete attribute' }));

    expect(await screen.findByText(ATTRIBUTE_REMOVE_FAILURE)).toBeInTheDocument();
  });
});
