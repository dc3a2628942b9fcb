import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  DURATION_NOT_NUMBER,
  DURATION_REQUIRED,
  IMPORT_REJECTED_INVOICES,
  INVOICES_FAILURE,
  LINE_NAME_REQUIRED,
  RULE_ADDED,
  RULE_ALREADY_PRESENT,
  RULE_CREATE_FAILURE,
  RULE_PRODUCT_REQUIRED,
  invoicesProcessing,
  type InvoiceItem,
} from '../../../models/invoices';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, apiUser, createFakeApi, FAKE_API_TOKEN, type FakeApi } from '../support/fakeApi';

/** /invoices against a fake API: the rejected lines, the top bar's link, the rule drawer and its answers. */

const proLine: InvoiceItem = {
  id: 'inv1',
  name: 'Pro plan (annual)',
  value: 123_000,
  currency: 'PLN',
  quantity: 1,
  source: 'fakturownia',
  processing_status: 'distillation_failed',
  invoice: { number: 'FV 12/01/2026', buyer_name: 'Acme Sp. z o.o.', buyer_id: '5260001246', issue_date: '2026-01-15' },
};
const setupLine: InvoiceItem = { ...proLine, id: 'inv2', name: 'Setup fee', value: 50_000, invoice: { ...proLine.invoice, number: 'FV 13/01/2026', buyer_id: null } };

function invoicesServer(items: InvoiceItem[] = [proLine, setupLine]): { api: FakeApi; items: InvoiceItem[] } {
  const state = { api: createFakeApi(), items: [...items] };
  state.api.on('GET /users/me', () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }));
  state.api.on('GET /invoice_items', () => ({ status: 200, body: { items: state.items, total_count: state.items.length, next: null } }));
  state.api.on('GET /invoice_items/status', () => ({ status: 200, body: { has_rejected_invoice_items: state.items.length > 0 } }));
  state.api.on('GET /distillers/exact_match_affected_invoices', () => ({ status: 200, body: { count: 3 } }));
  state.api.on('POST /distillers', ({ body }) => {
    const rule = body as { line_name: string };
    state.items = state.items.filter((item) => item.name !== rule.line_name);
    return { status: 201, body: { distiller: { id: 'dst1', matcher: 'equal', ...rule }, processed: 3 } };
  });
  return state;
}

const table = () => screen.getByRole('table', { name: 'Rejected invoice lines' });

describe('the Rejected invoices page', () => {
  it('shows skeletons, then each rejected line with its invoice; the top bar links here while some exist', async () => {
    const server = invoicesServer();
    server.api.hold('GET /invoice_items');
    renderApp({ path: '/invoices', user: fullAccessUser, api: server.api });
    expect(await screen.findByLabelText('Loading rejected invoices')).toBeInTheDocument();
    server.api.release('GET /invoice_items', { status: 200, body: { items: server.items, total_count: 2, next: null } });
    const row = within(await screen.findByRole('table', { name: 'Rejected invoice lines' })).getByText('Pro plan (annual)').closest('tr') as HTMLElement;
    expect(within(row).getByText('FV 12/01/2026')).toBeInTheDocument();
    expect(within(row).getByText('Acme Sp. z o.o.')).toBeInTheDocument();
    expect(within(row).getByText('5260001246')).toBeInTheDocument();
    expect(within(row).getByText('15-01-2026')).toBeInTheDocument();
    expect(within(row).getByText(/1,230\.00/)).toBeInTheDocument();
    expect(screen.getByText('2 rejected lines')).toBeInTheDocument();
    const nav = within(screen.getByRole('navigation', { name: 'Main' }));
    expect(await nav.findByRole('link', { name: IMPORT_REJECTED_INVOICES })).toHaveAttribute('href', '/invoices');
  });

  it('links from the top bar once the lines show, when the top bar asked before the first rejected line came (a sync between the two reads)', async () => {
    const server = invoicesServer();
    // The status is answered before the sync commits its lines, the list after.
    let synced = false;
    server.api.on('GET /invoice_items/status', () => ({ status: 200, body: { has_rejected_invoice_items: synced } }));
    server.api.hold('GET /invoice_items');
    renderApp({ path: '/invoices', user: fullAccessUser, api: server.api });
    await waitFor(() => expect(server.api.requestsTo('GET /invoice_items/status')).toHaveLength(1));
    synced = true;
    server.api.release('GET /invoice_items', { status: 200, body: { items: server.items, total_count: 2, next: null } });
    await within(await screen.findByRole('table', { name: 'Rejected invoice lines' })).findByText('Pro plan (annual)');
    const nav = within(screen.getByRole('navigation', { name: 'Main' }));
    expect(await nav.findByRole('link', { name: IMPORT_REJECTED_INVOICES })).toHaveAttribute('href', '/invoices');
  });

  it(`says '${INVOICES_FAILURE}' when the lines cannot be read, and reads again on 'Try again'`, async () => {
    const user = userEvent.setup({ delay: null });
    const server = invoicesServer([]);
    server.api.on('GET /invoice_items', () => apiErrors(500, { detail: 'boom' }));
    renderApp({ path: '/invoices', user: fullAccessUser, api: server.api });
    expect(await screen.findByText(INVOICES_FAILURE, {}, { timeout: 5000 })).toBeInTheDocument();
    server.api.on('GET /invoice_items', () => ({ status: 200, body: { items: [], total_count: 0, next: null } }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No rejected invoice lines')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: IMPORT_REJECTED_INVOICES })).not.toBeInTheDocument();
  });

  it("creates a rule from a line: the drawer's rules, how many lines it takes, 409 and failure, then the toasts and the line gone", async () => {
    const user = userEvent.setup({ delay: null });
    const server = invoicesServer();
    renderApp({ path: '/invoices', user: fullAccessUser, api: server.api });
    await user.click(await screen.findByRole('button', { name: 'Create rule from Pro plan (annual)' }));
    const drawer = within(await screen.findByRole('dialog', { name: 'New import rule' }));
    expect(drawer.getByLabelText(/Line name/)).toHaveValue('Pro plan (annual)');
    expect(await drawer.findByText('This rule affects 3 rejected invoice lines.')).toBeInTheDocument();

    await user.clear(drawer.getByLabelText(/Line name/));
    await user.clear(drawer.getByLabelText(/Duration/));
    await user.click(drawer.getByRole('button', { name: 'Create rule' }));
    expect(await drawer.findByText(LINE_NAME_REQUIRED)).toBeInTheDocument();
    expect(drawer.getByText(RULE_PRODUCT_REQUIRED)).toBeInTheDocument();
    expect(drawer.getByText(DURATION_REQUIRED)).toBeInTheDocument();
    await user.click(drawer.getByLabelText(/Duration/));
    await user.paste('12x');
    await user.click(drawer.getByRole('button', { name: 'Create rule' }));
    expect(await drawer.findByText(DURATION_NOT_NUMBER)).toBeInTheDocument();
    expect(server.api.requestsTo('POST /distillers')).toHaveLength(0);

    await user.click(drawer.getByLabelText(/Line name/));
    await user.paste('Pro plan (annual)');
    await user.click(drawer.getByLabelText(/Product/));
    await user.paste('Pro');
    await user.clear(drawer.getByLabelText(/Duration/));
    await user.paste('12');
    await user.click(drawer.getByLabelText('Issue date is the end of the period'));

    server.api.on('POST /distillers', () => apiErrors(409, { pointer: '/body/line_name', detail: RULE_ALREADY_PRESENT }));
    await user.click(drawer.getByRole('button', { name: 'Create rule' }));
    expect(await drawer.findByRole('alert')).toHaveTextContent(RULE_ALREADY_PRESENT);

    server.api.on('POST /distillers', () => apiErrors(500, { detail: 'boom' }));
    await user.click(drawer.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(drawer.getByRole('alert')).toHaveTextContent(RULE_CREATE_FAILURE));

    server.api.on('POST /distillers', (request) => {
      server.items = server.items.filter((item) => item.name !== 'Pro plan (annual)');
      return { status: 201, body: { distiller: { id: 'dst1', matcher: 'equal', ...(request.body as object) }, processed: 3 } };
    });
    await user.click(drawer.getByRole('button', { name: 'Create rule' }));
    expect(await screen.findByText(RULE_ADDED)).toBeInTheDocument();
    expect(screen.getByText(invoicesProcessing(3))).toBeInTheDocument();
    expect(server.api.requestsTo('POST /distillers').at(-1)?.body).toEqual({
      line_name: 'Pro plan (annual)',
      item_type: 'recurring',
      issue_date_treatment: 'ended_at',
      product_key: 'Pro',
      duration_in_months: 12,
      matcher: 'equal',
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New import rule' })).not.toBeInTheDocument());
    await waitFor(() => expect(within(table()).queryByText('Pro plan (annual)')).not.toBeInTheDocument());
    expect(within(table()).getByText('Setup fee')).toBeInTheDocument();
  });
});
