import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { FILTER_TEXT_VISIBLE_VALUES, PRODUCT_SEARCH_LIMIT, SEGMENT_SEARCH_LIMIT } from '../../../../models/constants';
import { FILTER_FETCH_FAILURE, FILTER_NO_RESULTS } from '../../../../models/reportFilter';
import type { FilterItem } from '../../../../models/reportFilter';
import { FilterPicker } from '../../../../src/reports/filters/FilterPicker';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { filtersApi, SECRET } from './filterFixtures';

function renderPicker({ api = filtersApi(), signedIn = true } = {}) {
  const onApply = vi.fn<(item: FilterItem) => void>();
  const onClose = vi.fn();
  const view = renderWithProviders(<FilterPicker opened onClose={onClose} secret={SECRET} signedIn={signedIn} onApply={onApply} />, {
    user: signedIn ? fullAccessUser : null,
    api,
  });
  return { ...view, onApply, onClose, user: userEvent.setup({ delay: null }) };
}

const dialog = () => within(screen.getByRole('dialog', { name: 'Filter report' }));
const optionNames = () => screen.getAllByRole('option').map((option) => option.getAttribute('aria-label'));
const groupNames = () => within(screen.getByRole('listbox')).getAllByRole('group').map((group) => group.getAttribute('aria-label'));

describe('FilterPicker', () => {
  it('lists segment values by segment, deal owners and products, each in its group', async () => {
    const { api } = renderPicker();

    expect(await screen.findByRole('dialog', { name: 'Filter report' })).toBeInTheDocument();
    await screen.findByRole('option', { name: 'Team yearly' });
    await screen.findByRole('option', { name: 'Anna Smith' });
    expect(groupNames()).toEqual(['Plan', 'Region', 'Deal owner', 'Product']);
    const plan = within(screen.getByRole('group', { name: 'Plan' }));
    expect(plan.getAllByRole('option').map((option) => option.getAttribute('aria-label'))).toEqual(['Pro', 'Team', 'Basic']);
    expect(within(screen.getByRole('group', { name: 'Deal owner' })).getAllByRole('option')).toHaveLength(2);
    expect(within(screen.getByRole('group', { name: 'Product' })).getByRole('option', { name: 'Pro monthly' })).toBeInTheDocument();
    expect(dialog().getByPlaceholderText('Search segments, deal owners and products')).toHaveFocus();

    expect(api.requestsTo('GET /business_report_segment_values/by_secret')).toHaveLength(1);
    expect(api.requestsTo('GET /deal_owners')).toHaveLength(1);
    expect(api.requestsTo('GET /product/search')).toHaveLength(1);
  });

  it('asks for segment values by the report secret, products with their search limit', async () => {
    const api = filtersApi();
    const urls: URL[] = [];
    api.client.use({
      onRequest({ request }) {
        urls.push(new URL(request.url));
        return request;
      },
    });
    renderPicker({ api });
    await screen.findByRole('option', { name: 'Team yearly' });

    const segments = urls.find((url) => url.pathname.endsWith('/business_report_segment_values/by_secret'));
    expect(segments?.searchParams.get('secret')).toBe(SECRET);
    expect(segments?.searchParams.get('limit')).toBe(String(SEGMENT_SEARCH_LIMIT));
    const productSearch = urls.find((url) => url.pathname.endsWith('/product/search'));
    expect(productSearch?.searchParams.get('limit')).toBe(String(PRODUCT_SEARCH_LIMIT));
  });

  it('asks the server for the typed text too, once typing stops', async () => {
    const api = filtersApi();
    const queries: string[] = [];
    api.client.use({
      onRequest({ request }) {
        const url = new URL(request.url);
        if (url.pathname.endsWith('/by_secret')) queries.push(url.searchParams.get('query') ?? '');
        return request;
      },
    });
    const { user } = renderPicker({ api });
    await screen.findByRole('option', { name: 'Team yearly' });

    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'Eur');

    // Narrowed at once from what was loaded, then by the server.
    expect(optionNames()).toEqual(['Europe']);
    await waitFor(() => expect(queries.at(-1)).toBe('Eur'));
    expect(queries).not.toContain('E');
    expect(optionNames()).toEqual(['Europe']);
  });

  it(`says '${FILTER_NO_RESULTS}' when there is nothing to filter by`, async () => {
    const api = filtersApi();
    api.on('GET /business_report_segment_values/by_secret', () => ({ status: 200, body: { items: [] } }));
    renderPicker({ api, signedIn: false });

    expect(await dialog().findByText(FILTER_NO_RESULTS)).toBeInTheDocument();
  });

  it('offers only segment values to a visitor who is not signed in', async () => {
    const { api } = renderPicker({ signedIn: false });

    await screen.findByRole('option', { name: 'Pro' });
    expect(groupNames()).toEqual(['Plan', 'Region']);
    expect(api.requestsTo('GET /deal_owners')).toHaveLength(0);
    expect(api.requestsTo('GET /product/search')).toHaveLength(0);
  });

  it('shows skeletons while the lists load', async () => {
    const api = filtersApi();
    api.hold('GET /business_report_segment_values/by_secret');
    renderPicker({ api });

    expect(await screen.findByLabelText('Loading filters')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting('GET /business_report_segment_values/by_secret')).toBe(1));
    api.release('GET /business_report_segment_values/by_secret', { status: 200, body: { items: [] } });
    await waitFor(() => expect(screen.queryByLabelText('Loading filters')).not.toBeInTheDocument());
  });

  it('filters by value, case-insensitively', async () => {
    const { user } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });

    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'tEAm');

    expect(optionNames()).toEqual(['Team', 'Team yearly']);
    expect(groupNames()).toEqual(['Plan', 'Product']);
  });

  it('filters by segment name, case-insensitively', async () => {
    const { user } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });

    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'REGION');

    expect(optionNames()).toEqual(['Europe', 'North America']);
  });

  it(`shows only the first ${FILTER_TEXT_VISIBLE_VALUES} values that match the text`, async () => {
    const api = filtersApi();
    const many = Array.from({ length: 8 }, (_, index) => ({ id: 'customer_segment:seg_city', name: 'City', value: `Town ${index + 1}` }));
    api.on('GET /business_report_segment_values/by_secret', () => ({ status: 200, body: { items: many } }));
    const { user } = renderPicker({ api });
    await screen.findByRole('option', { name: 'Anna Smith' });
    expect(within(screen.getByRole('group', { name: 'City' })).getAllByRole('option')).toHaveLength(8);

    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'town');

    expect(optionNames()).toEqual(['Town 1', 'Town 2', 'Town 3', 'Town 4', 'Town 5']);
  });

  it(`says '${FILTER_NO_RESULTS}' when nothing matches`, async () => {
    const { user } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });

    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'zzz');

    expect(dialog().getByText(FILTER_NO_RESULTS)).toBeInTheDocument();
    expect(screen.queryAllByRole('option')).toHaveLength(0);
  });

  it(`says '${FILTER_FETCH_FAILURE}' in the dialog when a list cannot be fetched, and tries again`, async () => {
    const api = filtersApi();
    api.on('GET /deal_owners', () => ({ status: 500 }));
    const { user } = renderPicker({ api });

    const alert = await dialog().findByRole('alert');
    expect(alert).toHaveTextContent(FILTER_FETCH_FAILURE);
    // What did load is still offered.
    expect(await screen.findByRole('option', { name: 'Pro' })).toBeInTheDocument();

    api.on('GET /deal_owners', () => ({ status: 200, body: { items: [{ owner_name: 'Anna Smith' }] } }));
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('option', { name: 'Anna Smith' })).toBeInTheDocument();
    expect(dialog().queryByRole('alert')).not.toBeInTheDocument();
  });

  it('applies a clicked value as "is" and closes', async () => {
    const { user, onApply, onClose } = renderPicker();

    await user.click(await screen.findByRole('option', { name: 'Team' }));

    expect(onApply).toHaveBeenCalledWith({ type: 'segment', id: 'customer_segment:seg_plan', name: 'Plan', value: 'Team', negated: false });
    expect(onClose).toHaveBeenCalled();
  });

  it('applies a value negated ("is not") with Exclude', async () => {
    const { user, onApply } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });

    await user.click(dialog().getByRole('switch', { name: 'Exclude' }));
    await user.click(screen.getByRole('option', { name: 'Anna Smith' }));

    expect(onApply).toHaveBeenCalledWith({ type: 'deal_owner', owner_name: 'Anna Smith', negated: true });
  });

  it('moves through the options with the arrow keys and applies the active one with Enter', async () => {
    const { user, onApply, onClose } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });
    const search = dialog().getByPlaceholderText('Search segments, deal owners and products');
    await user.type(search, 'team');

    expect(screen.getByRole('option', { name: 'Team' })).toHaveAttribute('aria-selected', 'true');
    expect(search).toHaveAttribute('aria-activedescendant', screen.getByRole('option', { name: 'Team' }).id);
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('option', { name: 'Team yearly' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('option', { name: 'Team' })).toHaveAttribute('aria-selected', 'false');
    await user.keyboard('{ArrowDown}');
    // Wraps round to the first.
    expect(screen.getByRole('option', { name: 'Team' })).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowUp}{Enter}');

    expect(onApply).toHaveBeenCalledWith({ type: 'product', product_key: 'team_yearly', name: 'Team yearly', negated: false });
    expect(onClose).toHaveBeenCalled();
  });

  it('applies the active option negated with Shift+Enter', async () => {
    const { user, onApply } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });
    await user.type(dialog().getByPlaceholderText('Search segments, deal owners and products'), 'europe');

    await user.keyboard('{Shift>}{Enter}{/Shift}');
    expect(onApply).toHaveBeenLastCalledWith({ type: 'segment', id: 'subscription_segment:attribute:att_region', name: 'Region', value: 'Europe', negated: true });
  });

  it('turns Exclude on from the keyboard', async () => {
    const { user, onApply } = renderPicker();
    await screen.findByRole('option', { name: 'Anna Smith' });

    await user.tab();
    expect(dialog().getByRole('switch', { name: 'Exclude' })).toHaveFocus();
    await user.keyboard(' ');
    expect(dialog().getByRole('switch', { name: 'Exclude' })).toBeChecked();
    await user.click(dialog().getByPlaceholderText('Search segments, deal owners and products'));
    await user.keyboard('{Enter}');

    expect(onApply).toHaveBeenCalledWith({ type: 'segment', id: 'customer_segment:seg_plan', name: 'Plan', value: 'Pro', negated: true });
  });
});
