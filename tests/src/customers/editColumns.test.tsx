import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DRAWER_WIDTH_MIN } from '../../../models/constants';
import type { CustomerColumn } from '../../../src/customers/customerListApi';
import { apiErrors } from '../support/fakeApi';
import { columns, customersApi, definition, DEFINITION_ID, matchEmptyMediaQuery, renderCustomersPage, sent } from './customersPageFixtures';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));

const drawer = () => within(screen.getByRole('dialog', { name: 'Edit columns' }));
const headers = () => [...screen.getByRole('table', { name: 'Customers' }).querySelectorAll('thead th')].map((header) => header.textContent);
const savedColumns = (body: unknown) => (body as { customer_columns: { id: string; visible: boolean }[] }).customer_columns;

/** PUT /users/me answers the columns it was given, in that order (as the server stores them). */
function withSaving(api: ReturnType<typeof customersApi>, all: CustomerColumn[]) {
  api.on('PUT /users/me', ({ body }) => {
    const choice = savedColumns(body);
    const stored = choice.map((entry) => ({ ...(all.find((column) => column.id === entry.id) as CustomerColumn), visible: entry.visible }));
    return { status: 200, body: { user: { customer_columns: stored } } };
  });
  return api;
}

async function openDrawer() {
  const user = userEvent.setup({ delay: null });
  await user.click(await editColumnsButton());
  await screen.findByRole('dialog', { name: 'Edit columns' });
  return user;
}

/** 'Edit columns', once the user's columns are in (disabled until then). */
async function editColumnsButton(): Promise<HTMLElement> {
  const button = await screen.findByRole('button', { name: 'Edit columns' });
  await waitFor(() => expect(button).toBeEnabled());
  return button;
}

describe('the Edit columns drawer', () => {
  beforeEach(matchEmptyMediaQuery);

  it(`lists the user’s columns in order, ${DRAWER_WIDTH_MIN} wide`, async () => {
    renderCustomersPage();
    await openDrawer();
    const items = drawer().getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('aria-label'))).toEqual(['Name', 'Customer ID', 'Added at', 'MRR', 'Total', 'Country', 'Bookings per MRR']);
    expect(screen.getByRole('dialog', { name: 'Edit columns' }).closest('.mantine-Drawer-root')?.getAttribute('style')).toContain(`--drawer-size: ${DRAWER_WIDTH_MIN}`);
  });

  it('hides a column and saves the choice with PUT /users/me; the table follows', async () => {
    const all = columns();
    const api = withSaving(customersApi({ columns: all }), all);
    renderCustomersPage(api);
    const user = await openDrawer();
    await user.click(drawer().getByRole('switch', { name: 'Show Customer ID' }));
    await user.click(drawer().getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit columns' })).not.toBeInTheDocument());
    expect(savedColumns(sent(api, 'PUT /users/me')[0]?.body)).toEqual(all.map(({ id }) => ({ id, visible: id !== 'public_id' })));
    await waitFor(() => expect(headers()).not.toContain('Customer ID'));
  });

  it('shows a hidden column again', async () => {
    const all = columns().map((column) => (column.id === 'total' ? { ...column, visible: false } : column));
    const api = withSaving(customersApi({ columns: all }), all);
    renderCustomersPage(api);
    await screen.findByRole('link', { name: 'Acme' });
    expect(headers()).not.toContain('Total');
    const user = await openDrawer();
    await user.click(drawer().getByRole('switch', { name: 'Show Total' }));
    await user.click(drawer().getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(headers()).toContain('Total'));
  });

  it('toasts when the choice cannot be saved, and stays open', async () => {
    const api = customersApi();
    api.on('PUT /users/me', () => apiErrors(500, { detail: 'boom' }));
    renderCustomersPage(api);
    const user = await openDrawer();
    await user.click(drawer().getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('We could not save your changes. Please try again.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Edit columns' })).toBeInTheDocument();
  });

  describe('reordering', () => {
    // jsdom lays nothing out: each column of the list gets a 40 px tall box by its position.
    let restore: () => void = () => {};
    beforeEach(() => {
      const original = Element.prototype.getBoundingClientRect;
      Element.prototype.getBoundingClientRect = function getBoundingClientRect(this: Element) {
        const item = this.closest('[data-column-index]');
        if (!item) return original.call(this);
        const top = Number(item.getAttribute('data-column-index')) * 40;
        return { x: 0, y: top, top, left: 0, width: 300, height: 36, right: 300, bottom: top + 36, toJSON: () => ({}) } as DOMRect;
      };
      restore = () => {
        Element.prototype.getBoundingClientRect = original;
      };
    });
    afterEach(() => restore());

    it('moves a column with the keyboard (Space, arrow down, Space) and saves the new order', async () => {
      const all = columns();
      const api = withSaving(customersApi({ columns: all }), all);
      renderCustomersPage(api);
      await openDrawer();
      const handle = drawer().getByRole('button', { name: 'Drag Customer ID' });
      handle.focus();
      await act(async () => {
        fireEvent.keyDown(handle, { key: ' ', code: 'Space' });
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
      await act(async () => {
        fireEvent.keyDown(handle, { key: 'ArrowDown', code: 'ArrowDown' });
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
      await act(async () => {
        fireEvent.keyDown(handle, { key: ' ', code: 'Space' });
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
      await waitFor(() => expect(drawer().getAllByRole('listitem').map((item) => item.getAttribute('aria-label')).slice(0, 3)).toEqual(['Name', 'Added at', 'Customer ID']));
      await userEvent.setup({ delay: null }).click(drawer().getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(sent(api, 'PUT /users/me')).toHaveLength(1));
      expect(savedColumns(sent(api, 'PUT /users/me')[0]?.body).map((column) => column.id).slice(0, 3)).toEqual(['name', 'added_at', 'public_id']);
      await waitFor(() => expect(headers().slice(0, 3)).toEqual(['Name', 'Added at', 'Customer ID']));
    });
  });

  it('offers no edit or delete while a calculated column is computed', async () => {
    renderCustomersPage(customersApi({ columns: columns(definition('in_progress')) }));
    await openDrawer();
    const item = within(drawer().getByRole('listitem', { name: 'Bookings per MRR' }));
    expect(item.getByText('Calculating:')).toBeInTheDocument();
    expect(item.getByRole('button', { name: 'Edit Bookings per MRR' })).toBeDisabled();
    expect(item.getByRole('button', { name: 'Delete Bookings per MRR' })).toBeDisabled();
  });

  it('deletes a calculated column after confirmation', async () => {
    const api = customersApi();
    api.on('DELETE /customer_related_metric_definitions/:id', () => ({ status: 204 }));
    renderCustomersPage(api);
    const user = await openDrawer();
    await user.click(drawer().getByRole('button', { name: 'Delete Bookings per MRR' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete the column “Bookings per MRR”?' });
    expect(api.requestsTo(`DELETE /customer_related_metric_definitions/${DEFINITION_ID}`)).toHaveLength(0);
    api.on('GET /users/me', () => ({ status: 200, body: { user: { customer_columns: columns(null) } } }));
    await user.click(within(confirm).getByRole('button', { name: 'Delete column' }));
    await waitFor(() => expect(api.requestsTo(`DELETE /customer_related_metric_definitions/${DEFINITION_ID}`)).toHaveLength(1));
    await waitFor(() => expect(headers()).not.toContain('Bookings per MRR'));
  });

  it('keeps the column and toasts when it cannot be deleted; cancel asks nothing', async () => {
    const api = customersApi();
    api.on('DELETE /customer_related_metric_definitions/:id', () => apiErrors(409, { detail: 'in progress' }));
    renderCustomersPage(api);
    const user = await openDrawer();
    await user.click(drawer().getByRole('button', { name: 'Delete Bookings per MRR' }));
    await user.click(within(await screen.findByRole('dialog', { name: /Delete the column/ })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /Delete the column/ })).not.toBeInTheDocument());
    await user.click(drawer().getByRole('button', { name: 'Delete Bookings per MRR' }));
    await user.click(within(await screen.findByRole('dialog', { name: /Delete the column/ })).getByRole('button', { name: 'Delete column' }));
    expect(await screen.findByText('We could not delete this column, please try again.')).toBeInTheDocument();
    expect(drawer().getByRole('button', { name: 'Delete Bookings per MRR' })).toBeEnabled();
  });
});
