import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  COST_CREATE_FAILURE,
  COST_DATE_REQUIRED,
  COST_DELETE_FAILURE,
  COST_UPDATE_FAILURE,
  COST_VALUE_NOT_NUMBER,
  COST_VALUE_REQUIRED,
  COSTS_EMPTY,
  COSTS_FETCH_FAILURE,
  type Cost,
} from '../../../models/costs';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors, apiUser, createFakeApi, FAKE_API_TOKEN, type FakeApi } from '../support/fakeApi';

/** The Costs page against a fake API: table, empty state, the drawers, delete, failures. */

const ads: Cost = {
  id: 'costAAAAAAAAAAAA',
  name: 'Ads',
  value: 120_020,
  currency: 'USD',
  date: '2026-03-14',
  due_date: '2026-03-31',
  invoice_number: 'FV/1',
  segments: [{ id: 'att_dept', name: 'Department', value: 'Marketing' }],
  source: 'manual',
};

interface CostsServer {
  api: FakeApi;
  costs: Cost[];
}

function costsServer(costs: Cost[] = [ads]): CostsServer {
  const state: CostsServer = { api: createFakeApi(), costs: structuredClone(costs) };
  const routes = {
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }),
    'GET /costs': () => ({ status: 200, body: { items: state.costs, next: null } }),
    'GET /object_attributes': () => ({ status: 200, body: { items: [{ id: 'att_dept', name: 'Department', object: 'cost', segment_id: null, created_at: '2026-01-05T10:00:00.000Z' }] } }),
    'GET /account_settings': () => ({
      status: 200,
      body: { currency: 'USD', anonymous_access_allowed: false, churn_window_seconds: 0, take_exchange_rates_from: 'subscription_started_at', match_movements_by_currency: true, corrections_handling: 'change_original', used_currencies: ['GBP', 'USD'], account_exchange_rates: [] },
    }),
    'POST /costs': ({ body }: { body: unknown }) => {
      const input = body as Omit<Cost, 'id' | 'source' | 'segments'> & { segments: { id: string; value: string | null }[] };
      const cost: Cost = { ...input, id: 'costBBBBBBBBBBBB', source: 'manual', due_date: input.due_date ?? null, invoice_number: input.invoice_number ?? null, name: input.name ?? null, segments: input.segments.map((s) => ({ ...s, name: 'Department' })) };
      state.costs.unshift(cost);
      return { status: 201, body: cost };
    },
    'PUT /costs/upsert/:id': ({ body, params }: { body: unknown; params: Record<string, string> }) => {
      const input = body as Cost;
      const at = state.costs.findIndex((cost) => cost.id === params.id);
      const cost = { ...state.costs[at], ...input, id: params.id as string, segments: (input.segments ?? []).map((s) => ({ ...s, name: 'Department' })) } as Cost;
      state.costs[at] = cost;
      return { status: 200, body: cost };
    },
    'DELETE /costs/:id': ({ params }: { params: Record<string, string> }) => {
      state.costs = state.costs.filter((cost) => cost.id !== params.id);
      return { status: 204 };
    },
  };
  for (const [route, handler] of Object.entries(routes)) state.api.on(route, handler as never);
  return state;
}

const table = () => screen.getByRole('table', { name: 'Costs' });

describe('the Costs page', () => {
  it('shows skeletons, then the costs with their attribute values, and links to the CSV import', async () => {
    const server = costsServer();
    server.api.hold('GET /costs');
    renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    expect(await screen.findByLabelText('Loading costs')).toBeInTheDocument();
    server.api.release('GET /costs', { status: 200, body: { items: server.costs, next: null } });
    const row = within(await screen.findByRole('table', { name: 'Costs' })).getByText('FV/1').closest('tr') as HTMLElement;
    expect(within(row).getByText('14-03-2026')).toBeInTheDocument();
    expect(within(row).getByText('$1,200.20')).toBeInTheDocument();
    expect(within(row).getByText('31-03-2026')).toBeInTheDocument();
    expect(within(row).getByText('Marketing')).toBeInTheDocument();
    expect(within(table()).getByRole('columnheader', { name: 'Department' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Import CSV' })).toHaveAttribute('href', '/import-costs');
    expect(server.api.requestsTo('GET /costs')[0]?.params).toBeDefined();
  });

  it(`shows the empty state '${COSTS_EMPTY}', and '${COSTS_FETCH_FAILURE}' when the costs cannot be read`, async () => {
    const server = costsServer([]);
    const { unmount } = renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    expect(await screen.findByText(COSTS_EMPTY)).toBeInTheDocument();
    unmount();
    server.api.on('GET /costs', () => apiErrors(500, { detail: 'boom' }));
    renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    expect(await screen.findByRole('alert')).toHaveTextContent(COSTS_FETCH_FAILURE);
  });

  it('adds a cost: checks the form as the server does, keeps what was typed on a refusal, shows the server’s field errors', async () => {
    const user = userEvent.setup({ delay: null });
    const server = costsServer();
    renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    await user.click((await screen.findAllByRole('button', { name: 'New costs' }))[0] as HTMLElement);
    const form = within(await screen.findByRole('dialog', { name: 'New costs' }));
    await form.findByLabelText(/Value/);
    await user.click(form.getByRole('button', { name: 'Add cost' }));
    expect(await form.findByText(COST_VALUE_REQUIRED)).toBeInTheDocument();
    expect(form.getByText(COST_DATE_REQUIRED)).toBeInTheDocument();
    await user.type(form.getByLabelText(/Value/), '12x');
    await user.click(form.getByRole('button', { name: 'Add cost' }));
    expect(await form.findByText(COST_VALUE_NOT_NUMBER)).toBeInTheDocument();
    // The menu: usd, pln, eur, then the account's other used currencies.
    await user.click(form.getAllByLabelText(/Currency/)[0] as HTMLElement);
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['USD', 'PLN', 'EUR', 'GBP']);
    await user.click(screen.getByRole('option', { name: 'PLN' }));

    await user.clear(form.getByLabelText(/Value/));
    await user.type(form.getByLabelText(/Value/), '1200.20');
    await user.type(form.getByLabelText(/^Date/), '01-03-2026');
    await user.type(form.getByLabelText('Invoice number'), 'FV/9');
    await user.type(form.getByLabelText('Department'), 'Sales');
    server.api.on('POST /costs', () => apiErrors(422, { pointer: '/body/date', detail: 'Should be a date (YYYY-MM-DD)' }));
    await user.click(form.getByRole('button', { name: 'Add cost' }));
    expect(await form.findByText('Should be a date (YYYY-MM-DD)')).toBeInTheDocument();
    expect(form.getByRole('alert')).toHaveTextContent(COST_CREATE_FAILURE);
    expect(form.getByLabelText(/Value/)).toHaveValue('1200.20');
    expect(form.getByLabelText('Invoice number')).toHaveValue('FV/9');
    expect(server.api.requestsTo('POST /costs').at(-1)?.body).toEqual({
      value: 120_020,
      currency: 'PLN',
      date: '2026-03-01',
      due_date: null,
      invoice_number: 'FV/9',
      name: null,
      segments: [{ id: 'att_dept', value: 'Sales' }],
    });

    server.api.on('POST /costs', ({ body }) => {
      const cost = { ...(body as Cost), id: 'costBBBBBBBBBBBB', source: 'manual', segments: [{ id: 'att_dept', name: 'Department', value: 'Sales' }] };
      server.costs.unshift(cost);
      return { status: 201, body: cost };
    });
    await user.click(form.getByRole('button', { name: 'Add cost' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New costs' })).not.toBeInTheDocument());
    expect(await within(table()).findByText('FV/9')).toBeInTheDocument();
  });

  it('edits a cost with PUT /costs/upsert/{id}: an emptied attribute value is sent as null', async () => {
    const user = userEvent.setup({ delay: null });
    const server = costsServer();
    renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    await user.click(await screen.findByRole('button', { name: 'Actions of the cost FV/1' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const form = within(await screen.findByRole('dialog', { name: 'Edit cost' }));
    expect(await form.findByLabelText(/Value/)).toHaveValue('1200.20');
    await user.clear(form.getByLabelText('Department'));
    await user.clear(form.getByLabelText(/Value/));
    await user.type(form.getByLabelText(/Value/), '99');
    server.api.on('PUT /costs/upsert/:id', () => apiErrors(500, { detail: 'boom' }));
    await user.click(form.getByRole('button', { name: 'Save cost' }));
    expect(await form.findByRole('alert')).toHaveTextContent(COST_UPDATE_FAILURE);
    expect(form.getByLabelText(/Value/)).toHaveValue('99');
    expect(server.api.requestsTo(`PUT /costs/upsert/${ads.id}`).at(-1)?.body).toMatchObject({ value: 9_900, currency: 'USD', date: '2026-03-14', due_date: '2026-03-31', segments: [{ id: 'att_dept', value: null }] });
  });

  it(`deletes a cost after a confirmation, and says '${COST_DELETE_FAILURE}' when it cannot`, async () => {
    const user = userEvent.setup({ delay: null });
    const server = costsServer();
    renderApp({ path: '/costs', user: fullAccessUser, api: server.api });
    server.api.on('DELETE /costs/:id', () => ({ status: 500 }));
    await user.click(await screen.findByRole('button', { name: 'Actions of the cost FV/1' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete cost' })).getByRole('button', { name: 'Delete cost' }));
    expect(await screen.findByText(COST_DELETE_FAILURE)).toBeInTheDocument();
    expect(within(table()).getByText('FV/1')).toBeInTheDocument();

    server.api.on('DELETE /costs/:id', ({ params }) => {
      server.costs = server.costs.filter((cost) => cost.id !== params.id);
      return { status: 204 };
    });
    await user.click(screen.getByRole('button', { name: 'Actions of the cost FV/1' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete cost' })).getByRole('button', { name: 'Delete cost' }));
    expect(await screen.findByText(COSTS_EMPTY)).toBeInTheDocument();
    expect(server.api.requestsTo(`DELETE /costs/${ads.id}`)).toHaveLength(2);
  });
});
