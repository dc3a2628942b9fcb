import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { LiveChannels } from '../../../../src/cable/liveChannels';
import type { ReportServices, ReportView } from '../../../../src/reports/page/reportApi';
import { ReportPageLoader } from '../../../../src/reports/page/ReportPageLoader';
import type { SectionDefinition } from '../../../../src/reports/page/sections/sectionsApi';
import { mrrSection, segment } from '../charts/sectionFixtures';
import { reportView } from '../page/reportFixtures';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';
import { apiErrors, type FakeApi } from '../../support/fakeApi';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

/** Section editing on the report page: the 'Add chart' dialog and each section's menu, over a fake API. */

const now = () => new Date(2026, 2, 2, 9, 0);

// jsdom has no FontFaceSet; the description's auto-sized textarea listens on it.
beforeAll(() => {
  if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { configurable: true, value: { addEventListener: () => {}, removeEventListener: () => {} } });
});
const DEFINITIONS = 'GET /business_report/section_definitions';
const ADD = 'POST /business_report/:reportId/sections';
const UPDATE = 'PUT /business_report/sections/:id';
const DELETE_SECTION = 'DELETE /business_report/sections/:id';
const SEGMENT = '/business_report/sections/:id/segments/:segmentId';

const segmenter = (id: string, name: string, group_label = 'Customer attributes') => ({ id, name, is_total: false, type: 'customer_segment' as const, group_label });
const total = { id: 'total', name: 'Total', is_total: true, type: 'total' as const, group_label: 'Total' };
/** 13 customer attributes: the list shows 10, then '3 more, start typing segment name'. */
const attributes = Array.from({ length: 13 }, (_, k) => segmenter(`customer_segment:a${k + 1}`, `Attribute ${String(k + 1).padStart(2, '0')}`));

function definition(id: string, name: string, extra: Partial<SectionDefinition> = {}): SectionDefinition {
  return {
    id,
    name,
    description: `${name} over time`,
    formula: '',
    available: true,
    segmenters: [total, segmenter('subscription_segment:product', 'Product', 'Payment attributes')],
    supported_grouping_periods: ['week', 'month', 'quarter', 'year'],
    supported_data_types: ['line_chart', 'bar_chart'],
    default_data_type: 'line_chart',
    data_categories: ['values', 'counts'],
    underlying_data: 'subscriptions',
    decimals: 0,
    key_number_kind: 'currency',
    default_call_to_action: '',
    segmenter_call_to_action: '',
    ...extra,
  };
}

const definitions: SectionDefinition[] = [
  definition('mrr', 'MRR', { segmenters: [total, ...attributes] }),
  definition('mrr_movements', 'MRR movements'),
  definition('customers', 'Customers'),
  definition('costs', 'Costs', { underlying_data: 'costs' }),
  definition('deals_won', 'Deals won', { underlying_data: 'deals', available: false }),
];

function report(overrides: Partial<ReportView> = {}): ReportView {
  return reportView({
    summary: '',
    tags: [],
    sections: [
      mrrSection({ id: 'sec-mrr', title: 'MRR', position: 0 }),
      mrrSection({
        id: 'sec-customers',
        definition_id: 'customers',
        title: 'Customers',
        position: 1,
        segment_ids: ['subscription_segment:product'],
        segments: [segment('total', 'Total', []), segment('subscription_segment:product', 'Product', [])],
      }),
    ] as ReportView['sections'],
    ...overrides,
  });
}

/** The page's own calls (report reads), answering `current`; `setReport` changes what a reload reads. */
function fakeServices(initial: ReportView) {
  let current = initial;
  const services = {
    fetchReport: vi.fn(async () => current),
    fetchDemoReport: vi.fn(async () => current),
    fetchSharedReport: vi.fn(async () => current),
    refresh: vi.fn(async () => {}),
    updateReport: vi.fn(async () => {}),
    updateSettings: vi.fn(async () => current.settings),
    hasFinanceData: vi.fn(async () => true),
    currencies: vi.fn(async () => ['USD']),
    watch: vi.fn(() => () => {}),
  };
  return { services: services as unknown as ReportServices, spies: services, setReport: (next: ReportView) => (current = next) };
}

const noChannels: LiveChannels = { subscribe: () => () => {}, close: () => {} };

function sectionsApi(): FakeApi {
  const api = defaultFakeApi();
  api.on(DEFINITIONS, () => ({ status: 200, body: { items: definitions } }));
  api.on(ADD, () => ({ status: 201, body: {} }));
  api.on(UPDATE, () => ({ status: 200, body: {} }));
  api.on(DELETE_SECTION, () => ({ status: 204 }));
  api.on(`DELETE ${SEGMENT}`, () => ({ status: 204 }));
  api.on(`GET ${SEGMENT}`, () => ({ status: 200, body: { id: 'subscription_segment:product', name: 'Product', is_total: false, grouped_segment_names: ['basic', 'pro', 'Other'] } }));
  return api;
}

const SECRET = 'S'.repeat(32);

function renderPage(initial: ReportView = report(), api: FakeApi = sectionsApi()) {
  const fake = fakeServices(initial);
  const { location } = renderWithProviders(<ReportPageLoader secret={SECRET} services={fake.services} channels={noChannels} now={now} />, { user: fullAccessUser, api, path: `/reports/${SECRET}` });
  return { ...fake, api, location };
}

const contents = () => within(screen.getByRole('navigation', { name: 'Contents' })).getAllByRole('link').map((link) => link.textContent);

async function openMenu(user: ReturnType<typeof userEvent.setup>, title: string) {
  await user.click(await screen.findByRole('button', { name: `Section menu of ${title}` }));
  return screen.findByRole('menu');
}

async function openAddChart(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: 'Add chart' }));
  return screen.findByRole('dialog', { name: 'Add chart' });
}

describe('the add chart dialog', () => {
  it('lists the definitions grouped, and filters by metric name only once the query is longer than 2 characters', async () => {
    const user = userEvent.setup({ delay: null });
    renderPage();
    const dialog = await openAddChart(user);
    const revenue = await within(dialog).findByRole('group', { name: 'Revenue and customers' });
    expect(within(revenue).getAllByRole('checkbox')).toHaveLength(3);
    expect(within(revenue).getByRole('checkbox', { name: /^MRR$/ })).toBeInTheDocument();
    expect(within(within(dialog).getByRole('group', { name: 'Costs' })).getByRole('checkbox', { name: /Costs/ })).toBeInTheDocument();
    // Deals need CRM deals: shown, not choosable.
    expect(within(within(dialog).getByRole('group', { name: 'Deals' })).getByRole('checkbox', { name: /Deals won/ })).toBeDisabled();

    const search = within(dialog).getByPlaceholderText('Start typing metric name');
    await user.type(search, 'mr');
    expect(within(dialog).getByRole('checkbox', { name: /Customers/ })).toBeInTheDocument();
    await user.type(search, 'r');
    expect(within(dialog).getByRole('checkbox', { name: /^MRR$/ })).toBeInTheDocument();
    expect(within(dialog).getByRole('checkbox', { name: /MRR movements/ })).toBeInTheDocument();
    expect(within(dialog).queryByRole('checkbox', { name: /Customers/ })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('group', { name: 'Costs' })).not.toBeInTheDocument();
    await user.clear(search);
    await user.type(search, 'zzz');
    expect(within(dialog).getByText('We did not find any matching sections')).toBeInTheDocument();
  });

  it('shows a chosen chart’s segments, 10 then “{n} more, start typing segment name”, matched by name', async () => {
    const user = userEvent.setup({ delay: null });
    renderPage();
    const dialog = await openAddChart(user);
    await user.click(await within(dialog).findByRole('checkbox', { name: /^MRR$/ }));
    const list = within(dialog).getByRole('group', { name: 'Segments of MRR' });
    expect(within(list).getAllByRole('checkbox')).toHaveLength(10);
    expect(within(list).getByText('3 more, start typing segment name')).toBeInTheDocument();
    expect(within(list).queryByRole('checkbox', { name: /Total/ })).not.toBeInTheDocument();
    await user.type(within(list).getByPlaceholderText('Segment name'), 'attribute 1');
    expect(within(list).getAllByRole('checkbox').map((box) => (box as HTMLInputElement).labels?.[0]?.textContent)).toEqual([
      'Attribute 10',
      'Attribute 11',
      'Attribute 12',
      'Attribute 13',
    ]);
    expect(within(list).queryByText(/more, start typing segment name/)).not.toBeInTheDocument();
  });

  it('adds the chosen charts with their segments, then reads the report again', async () => {
    const user = userEvent.setup({ delay: null });
    const { api, spies, setReport } = renderPage();
    const dialog = await openAddChart(user);
    const reads = spies.fetchReport.mock.calls.length;
    await user.click(await within(dialog).findByRole('checkbox', { name: /^MRR$/ }));
    await user.click(within(within(dialog).getByRole('group', { name: 'Segments of MRR' })).getByRole('checkbox', { name: /Attribute 02/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /Costs/ }));
    const withNew = report();
    setReport({ ...withNew, sections: [...withNew.sections, mrrSection({ id: 'sec-new', title: 'MRR', position: 2, recalculation_status: 'recalculating' }) as ReportView['sections'][number]] });
    await user.click(within(dialog).getByRole('button', { name: 'Add 2 charts' }));

    await waitFor(() => expect(api.requestsTo('POST /business_report/rep1/sections')).toHaveLength(2));
    expect(api.requestsTo('POST /business_report/rep1/sections').map((request) => request.body)).toEqual([
      { definition_id: 'mrr', segment_ids: ['customer_segment:a2'] },
      { definition_id: 'costs', segment_ids: [] },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add chart' })).not.toBeInTheDocument());
    await waitFor(() => expect(contents()).toEqual(['MRR', 'Customers', 'MRR']));
    expect(spies.fetchReport.mock.calls.length).toBeGreaterThan(reads);
  });

  it('says so when some charts could not be added', async () => {
    const user = userEvent.setup({ delay: null });
    const api = sectionsApi();
    api.on(ADD, ({ body }) => ((body as { definition_id: string }).definition_id === 'costs' ? apiErrors(422, { pointer: '/definition_id', detail: 'There is no chart of this kind' }) : { status: 201, body: {} }));
    renderPage(report(), api);
    const dialog = await openAddChart(user);
    await user.click(await within(dialog).findByRole('checkbox', { name: /^MRR$/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /Costs/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Add 2 charts' }));
    expect(await screen.findByText('Something went wrong and we could not add some of the sections to your report : (')).toBeInTheDocument();
  });

  it('says so when the definitions cannot be fetched, and Add chart stays off', async () => {
    const api = sectionsApi();
    api.on(DEFINITIONS, () => ({ status: 500, body: {} }));
    renderPage(report(), api);
    expect(await screen.findByText('We could not fetch section definitions, you will not be able to add a new chart. Try refreshing the page.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add chart' })).toBeDisabled();
  });
});

describe('the section menu', () => {
  it('moves a section, with move up disabled on the first and move down on the last', async () => {
    const user = userEvent.setup({ delay: null });
    const { api } = renderPage();
    let menu = await openMenu(user, 'MRR');
    expect(within(menu).getByRole('menuitem', { name: 'Move up' })).toBeDisabled();
    expect(within(menu).getByRole('menuitem', { name: 'Move down' })).toBeEnabled();
    await user.click(within(menu).getByRole('menuitem', { name: 'Move down' }));
    await waitFor(() => expect(contents()).toEqual(['Customers', 'MRR']));
    expect(api.requestsTo('PUT /business_report/sections/sec-mrr').map((request) => request.body)).toEqual([{ position: 1 }]);

    menu = await openMenu(user, 'MRR');
    expect(within(menu).getByRole('menuitem', { name: 'Move down' })).toBeDisabled();
    expect(within(menu).getByRole('menuitem', { name: 'Move up' })).toBeEnabled();
  });

  it('puts a section back and says so when the move cannot be saved', async () => {
    const user = userEvent.setup({ delay: null });
    const api = sectionsApi();
    api.on(UPDATE, () => ({ status: 500, body: {} }));
    renderPage(report(), api);
    const menu = await openMenu(user, 'Customers');
    await user.click(within(menu).getByRole('menuitem', { name: 'Move up' }));
    expect(await screen.findByText('We could not save your changes. Please try again.')).toBeInTheDocument();
    await waitFor(() => expect(contents()).toEqual(['MRR', 'Customers']));
  });

  it('renames a section and adds a description in place', async () => {
    // Key by key with a macrotask between keys, as a person types: with no delay at all the saved
    // description was not on screen within findByText's second (the request had been sent whole).
    const user = userEvent.setup();
    const { api } = renderPage();
    const section = await screen.findByRole('region', { name: 'MRR' });
    await user.click(within(section).getByRole('button', { name: 'Edit section title' }));
    const field = within(section).getByRole('textbox', { name: 'Section title' });
    await user.clear(field);
    await user.type(field, 'Revenue run rate{Enter}');
    expect(await screen.findByRole('heading', { level: 2, name: 'Revenue run rate' })).toBeInTheDocument();
    const renamed = screen.getByRole('region', { name: 'Revenue run rate' });
    await user.click(within(renamed).getByRole('button', { name: 'Edit section description' }));
    await user.type(within(renamed).getByRole('textbox', { name: 'Section description' }), 'Up 5% a month');
    await user.tab();
    expect(await within(renamed).findByText('Up 5% a month')).toBeInTheDocument();
    expect(api.requestsTo('PUT /business_report/sections/sec-mrr').map((request) => request.body)).toEqual([{ title: 'Revenue run rate' }, { summary: 'Up 5% a month' }]);
  });

  it('changes the chart settings (the report recalculates), and says so when it cannot', async () => {
    const user = userEvent.setup({ delay: null });
    const { api, spies } = renderPage();
    let menu = await openMenu(user, 'MRR');
    const reads = spies.fetchReport.mock.calls.length;
    await user.click(within(menu).getByRole('menuitem', { name: 'Chart settings' }));
    let dialog = await screen.findByRole('dialog', { name: 'Chart settings: MRR' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Resolution' }));
    await user.click(await screen.findByRole('option', { name: 'Quarter' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Data category' }));
    await user.click(await screen.findByRole('option', { name: 'Counts' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Chart settings: MRR' })).not.toBeInTheDocument());
    expect(api.requestsTo('PUT /business_report/sections/sec-mrr').map((request) => request.body)).toEqual([
      { data_type: 'line_chart', use_hierarchy: false, resolution: 'quarter' },
      { data_categories: ['counts'] },
    ]);
    expect(spies.fetchReport.mock.calls.length).toBeGreaterThan(reads);

    api.on(UPDATE, () => ({ status: 500, body: {} }));
    menu = await openMenu(user, 'MRR');
    await user.click(within(menu).getByRole('menuitem', { name: 'Chart settings' }));
    dialog = await screen.findByRole('dialog', { name: 'Chart settings: MRR' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Chart type' }));
    await user.click(await screen.findByRole('option', { name: 'Bar chart' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Something went wrong and we could not update section settings')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Chart settings: MRR' })).toBeInTheDocument();
  });

  it('expands, removes and adds segments, and says so when a segment cannot be removed', async () => {
    const user = userEvent.setup({ delay: null });
    const api = sectionsApi();
    renderPage(report(), api);
    const menu = await openMenu(user, 'Customers');
    await user.click(within(menu).getByRole('menuitem', { name: 'Segments' }));
    const dialog = await screen.findByRole('dialog', { name: 'Segments: Customers' });
    await user.click(within(dialog).getByRole('button', { name: 'Expand segment Product' }));
    expect(await within(dialog).findByText('basic, pro, Other')).toBeInTheDocument();
    expect(api.requestsTo(`GET /business_report/sections/sec-customers/segments/${encodeURIComponent('subscription_segment:product')}`)).toHaveLength(1);

    api.on(`DELETE ${SEGMENT}`, () => ({ status: 500, body: {} }));
    await user.click(within(dialog).getByRole('button', { name: 'Remove segment Product' }));
    expect(await screen.findByText('Something went wrong and we could not delete section segment')).toBeInTheDocument();

    api.on(`DELETE ${SEGMENT}`, () => ({ status: 204 }));
    await user.click(within(dialog).getByRole('button', { name: 'Remove segment Product' }));
    await waitFor(() => expect(api.requests.filter((request) => request.method === 'DELETE' && request.path.includes('/segments/'))).toHaveLength(2));
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Segments: Customers' })).not.toBeInTheDocument());

    // MRR shows the total only; a segment of its definition is added.
    const mrrMenu = await openMenu(user, 'MRR');
    await user.click(within(mrrMenu).getByRole('menuitem', { name: 'Segments' }));
    const mrrDialog = await screen.findByRole('dialog', { name: 'Segments: MRR' });
    expect(within(mrrDialog).getByText('This chart shows the total only. Add a segment to split it.')).toBeInTheDocument();
    await user.click(within(mrrDialog).getByRole('combobox', { name: 'Add segment' }));
    await user.click(await screen.findByRole('option', { name: 'Attribute 03' }));
    await waitFor(() => expect(api.requestsTo('PUT /business_report/sections/sec-mrr').map((request) => request.body)).toEqual([{ segment_ids: ['customer_segment:a3'] }]));
  });

  it('deletes a section after confirmation, and says so when it cannot', async () => {
    const user = userEvent.setup({ delay: null });
    const api = sectionsApi();
    api.on(DELETE_SECTION, () => ({ status: 500, body: {} }));
    renderPage(report(), api);
    let menu = await openMenu(user, 'MRR');
    await user.click(within(menu).getByRole('menuitem', { name: 'Delete section' }));
    let confirm = await screen.findByRole('dialog', { name: 'Delete section' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Something went wrong and we could not delete section')).toBeInTheDocument();
    expect(contents()).toEqual(['MRR', 'Customers']);

    api.on(DELETE_SECTION, () => ({ status: 204 }));
    menu = await openMenu(user, 'MRR');
    await user.click(within(menu).getByRole('menuitem', { name: 'Delete section' }));
    confirm = await screen.findByRole('dialog', { name: 'Delete section' });
    // Cancel keeps it.
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(api.requestsTo('DELETE /business_report/sections/sec-mrr')).toHaveLength(1);
    menu = await openMenu(user, 'MRR');
    await user.click(within(menu).getByRole('menuitem', { name: 'Delete section' }));
    confirm = await screen.findByRole('dialog', { name: 'Delete section' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(contents()).toEqual(['Customers']));
    expect(api.requestsTo('DELETE /business_report/sections/sec-mrr')).toHaveLength(2);
  });

  it('gives a viewer who may not edit no menu, no in-place editing and no definitions call', async () => {
    const { api } = renderPage(report({ can_edit: false }));
    expect(await screen.findByRole('region', { name: 'MRR' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Section menu of/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit section title' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add chart' })).not.toBeInTheDocument();
    expect(api.requestsTo(DEFINITIONS)).toHaveLength(0);
  });
});

/** A report of a catalogue chart (MRR) and a custom section ('Annual plans', definition 'user_filtered'). */
function reportWithCustomSection(overrides: Partial<ReportView> = {}): ReportView {
  const config = {
    groups: [],
    series: [{ name: 'Annual plans', value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } }, groups: [], filters: [], reference: null, hidden: false }],
  };
  return report({
    sections: [
      mrrSection({ id: 'sec-mrr', title: 'MRR', position: 0 }),
      mrrSection({ id: 'sec-custom', definition_id: 'user_filtered', title: 'Annual plans', position: 1, config }),
    ] as ReportView['sections'],
    ...overrides,
  });
}

describe('the ways to the custom section editor', () => {
  it('offers a custom section in the add chart dialog, which opens the editor of a new section', async () => {
    const user = userEvent.setup({ delay: null });
    const { location, api } = renderPage();
    const dialog = await openAddChart(user);
    const custom = within(dialog).getByRole('link', { name: /Custom section.*Build a chart of your own series, groups and filters/ });
    expect(custom).toHaveAttribute('href', `/reports/${SECRET}/new-section`);
    await user.click(custom);
    await waitFor(() => expect(location.history?.at(-1)).toBe(`/reports/${SECRET}/new-section`));
    // Nothing was added on the way.
    expect(api.requestsTo(ADD)).toHaveLength(0);
  });

  it('offers “Edit calculation” in a custom section’s menu, which opens the editor of that section', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderPage(reportWithCustomSection());
    const menu = await openMenu(user, 'Annual plans');
    const item = within(menu).getByRole('menuitem', { name: 'Edit calculation' });
    expect(item).toHaveAttribute('href', `/reports/${SECRET}/new-section/sec-custom`);
    await user.click(item);
    await waitFor(() => expect(location.history?.at(-1)).toBe(`/reports/${SECRET}/new-section/sec-custom`));
  });

  it('offers a custom section’s chart settings: line or bar charts at any resolution, its values as they are', async () => {
    const user = userEvent.setup({ delay: null });
    const { api } = renderPage(reportWithCustomSection());
    const menu = await openMenu(user, 'Annual plans');
    await user.click(within(menu).getByRole('menuitem', { name: 'Chart settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Chart settings: Annual plans' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Chart type' }));
    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(['Line chart', 'Bar chart', 'Stacked bar chart']);
    await user.click(screen.getByRole('option', { name: 'Stacked bar chart' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Resolution' }));
    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(['Week', 'Month', 'Quarter', 'Year']);
    await user.click(screen.getByRole('option', { name: 'Week' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Data category' }));
    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(['Money']);
    await user.click(screen.getByRole('option', { name: 'Money' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Chart settings: Annual plans' })).not.toBeInTheDocument());
    expect(api.requestsTo('PUT /business_report/sections/sec-custom').map((request) => request.body)).toEqual([{ data_type: 'stacked_bar_chart', use_hierarchy: false, resolution: 'week' }]);
  });

  it('has no “Edit calculation” for a catalogue chart', async () => {
    const user = userEvent.setup({ delay: null });
    renderPage(reportWithCustomSection());
    const menu = await openMenu(user, 'MRR');
    expect(within(menu).getByRole('menuitem', { name: 'Chart settings' })).toBeInTheDocument();
    expect(within(menu).queryByRole('menuitem', { name: 'Edit calculation' })).not.toBeInTheDocument();
  });

  it('gives a viewer who may not edit neither way: no menu, no add chart, no link to the editor', async () => {
    renderPage(reportWithCustomSection({ can_edit: false }));
    expect(await screen.findByRole('region', { name: 'Annual plans' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Section menu of/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add chart' })).not.toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Edit calculation' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Custom section/ })).not.toBeInTheDocument();
  });

  it('leads nowhere from a share link, even for an editor of the report (read only)', async () => {
    const fake = fakeServices(reportWithCustomSection({ can_edit: true }));
    renderWithProviders(<ReportPageLoader secret={SECRET} variant="shared" services={fake.services} channels={noChannels} now={now} />, { user: fullAccessUser, api: sectionsApi() });
    expect(await screen.findByRole('region', { name: 'Annual plans' })).toBeInTheDocument();
    expect(fake.spies.fetchSharedReport).toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: /Section menu of/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add chart' })).not.toBeInTheDocument();
  });
});
