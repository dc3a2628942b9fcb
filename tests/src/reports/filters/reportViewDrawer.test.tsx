import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { REPORT_VIEW_DRAWER_WIDTH, SEGMENT_SEARCH_LIMIT } from '../../../../models/constants';
import { VIEW_SAVE_FAILURE } from '../../../../models/reportFilter';
import type { ReportViewFilter } from '../../../../models/reportFilter';
import { ReportViewDrawer } from '../../../../src/reports/filters/ReportViewDrawer';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { filtersApi, SECRET } from './filterFixtures';

type User = ReturnType<typeof userEvent.setup>;

function renderDrawer({ filter = null as ReportViewFilter | null, api = filtersApi() } = {}) {
  api.on('PUT /business_reports/:id', () => ({ status: 200, body: {} }));
  const onSaved = vi.fn<(filter: ReportViewFilter | null) => void>();
  const onClose = vi.fn();
  const view = renderWithProviders(
    <ReportViewDrawer opened onClose={onClose} reportId="rep1" secret={SECRET} filter={filter} onSaved={onSaved} />,
    { user: fullAccessUser, api },
  );
  return { ...view, api, onSaved, onClose, user: userEvent.setup({ delay: null }) };
}

const drawer = () => within(screen.getByRole('dialog', { name: 'Define report view' }));
const condition = (n: number) => within(drawer().getByRole('group', { name: `Condition ${n}` }));

/** Opens a Select of the condition and picks an option. */
async function choose(user: User, n: number, label: string, option: string) {
  await user.click(condition(n).getByRole('combobox', { name: label }));
  await user.click(await screen.findByRole('option', { name: option }));
}

describe('ReportViewDrawer', () => {
  it(`opens on the right, ${REPORT_VIEW_DRAWER_WIDTH} wide, and says who sees the view`, async () => {
    renderDrawer();

    const dialog = await screen.findByRole('dialog', { name: 'Define report view' });
    expect(dialog.closest('.mantine-Drawer-root')?.getAttribute('style')).toContain(`--drawer-size: ${REPORT_VIEW_DRAWER_WIDTH}`);
    expect(drawer().getByText(/Everyone who opens this report sees it filtered/)).toBeInTheDocument();
    expect(drawer().queryByRole('button', { name: 'Remove view' })).not.toBeInTheDocument();
  });

  it('keeps Save view disabled until every condition is complete', async () => {
    const { user } = renderDrawer();
    const save = () => drawer().getByRole('button', { name: 'Save view' });
    await screen.findByRole('dialog', { name: 'Define report view' });
    expect(save()).toBeDisabled();

    await choose(user, 1, 'Filter by', 'Deal owner');
    expect(save()).toBeDisabled();
    await choose(user, 1, 'Deal owner', 'Anna Smith');
    expect(save()).toBeEnabled();

    await user.click(drawer().getByRole('button', { name: 'Add condition' }));
    expect(save()).toBeDisabled();
    await user.click(drawer().getByRole('button', { name: 'Remove condition 2' }));
    expect(save()).toBeEnabled();
  }, 40_000);

  it('saves the conditions as the report filter and reports it', async () => {
    const { user, api, onSaved, onClose } = renderDrawer();
    const urls: URL[] = [];
    api.client.use({
      onRequest({ request }) {
        urls.push(new URL(request.url));
        return request;
      },
    });
    await screen.findByRole('dialog', { name: 'Define report view' });

    await user.click(drawer().getByRole('radio', { name: 'Any of' }));
    await choose(user, 1, 'Filter by', 'Segment');
    await choose(user, 1, 'Segment', 'Plan');
    await choose(user, 1, 'Value', 'Team');
    await user.click(drawer().getByRole('button', { name: 'Add condition' }));
    await choose(user, 2, 'Filter by', 'Product');
    await choose(user, 2, 'Product', 'Pro monthly');
    await user.click(condition(2).getByRole('checkbox', { name: /Exclude/ }));
    await user.click(drawer().getByRole('button', { name: 'Save view' }));

    const expected: ReportViewFilter = {
      operator: 'or',
      arguments: [
        { type: 'segment', id: 'customer_segment:seg_plan', name: 'Plan', value: 'Team', negated: false },
        { type: 'product', product_key: 'pro_monthly', name: 'Pro monthly', negated: true },
      ],
    };
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expected));
    expect(api.requestsTo('PUT /business_reports/rep1')[0]?.body).toEqual({ filter: expected });
    expect(onClose).toHaveBeenCalled();
    const values = urls.find((url) => url.pathname.endsWith('/customer_segments/seg_plan/search_values'));
    expect(values?.searchParams.get('limit')).toBe(String(SEGMENT_SEARCH_LIMIT));
  }, 60_000);

  it('searches segment values with the typed text', async () => {
    const api = filtersApi();
    const queries: string[] = [];
    api.client.use({
      onRequest({ request }) {
        const url = new URL(request.url);
        if (url.pathname.endsWith('/search_values')) queries.push(url.searchParams.get('query') ?? '');
        return request;
      },
    });
    const { user } = renderDrawer({ api });
    await screen.findByRole('dialog', { name: 'Define report view' });
    await choose(user, 1, 'Filter by', 'Segment');
    await choose(user, 1, 'Segment', 'Plan');

    await user.type(condition(1).getByRole('combobox', { name: 'Value' }), 'Te');

    await waitFor(() => expect(queries.at(-1)).toBe('Te'));
    // Debounced: not one call per key.
    expect(queries).not.toContain('T');
  });

  it(`toasts '${VIEW_SAVE_FAILURE}' when the view cannot be saved and keeps the form`, async () => {
    const { user, api, onSaved, onClose } = renderDrawer();
    api.on('PUT /business_reports/:id', () => ({ status: 500 }));
    await screen.findByRole('dialog', { name: 'Define report view' });
    await choose(user, 1, 'Filter by', 'Deal owner');
    await choose(user, 1, 'Deal owner', 'Piotr Nowak');

    await user.click(drawer().getByRole('button', { name: 'Save view' }));

    expect(await screen.findByText(VIEW_SAVE_FAILURE)).toBeInTheDocument();
    expect(onSaved).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
    expect(condition(1).getByRole('combobox', { name: 'Deal owner' })).toHaveValue('Piotr Nowak');
    expect(drawer().getByRole('button', { name: 'Save view' })).toBeEnabled();
  });

  it("starts from the report's view and removes it with 'Remove view'", async () => {
    const filter: ReportViewFilter = {
      operator: 'or',
      arguments: [
        { type: 'segment', id: 'subscription_segment:attribute:att_region', name: 'Region', value: 'Europe', negated: true },
        { type: 'deal_owner', owner_name: 'Anna Smith', negated: false },
      ],
    };
    const { user, api, onSaved } = renderDrawer({ filter });
    await screen.findByRole('dialog', { name: 'Define report view' });

    expect(drawer().getByRole('radio', { name: 'Any of' })).toBeChecked();
    expect(condition(1).getByRole('combobox', { name: 'Filter by' })).toHaveValue('Segment');
    expect(condition(1).getByRole('combobox', { name: 'Segment' })).toHaveValue('Region');
    expect(condition(1).getByRole('combobox', { name: 'Value' })).toHaveValue('Europe');
    expect(condition(1).getByRole('checkbox', { name: /Exclude/ })).toBeChecked();
    expect(condition(2).getByRole('combobox', { name: 'Deal owner' })).toHaveValue('Anna Smith');
    expect(drawer().getByRole('button', { name: 'Save view' })).toBeEnabled();

    await user.click(drawer().getByRole('button', { name: 'Remove view' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(null));
    expect(api.requestsTo('PUT /business_reports/rep1')[0]?.body).toEqual({ filter: null });
  });
});
