import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  CONFIG_UNREADABLE,
  CUSTOM_CONFIG_FAILURE,
  CUSTOM_SAVE_FAILURE,
  CUSTOM_VALUES,
  POSSIBLE_VALUES_FAILURE,
  SERIES_NAME_REQUIRED,
  USER_FILTERED_DEFINITION_ID,
} from '../../../../models/customSections';
import type { CustomSectionConfig } from '../../../../models/customSections';
import type { SectionPreview } from '../../../../machines/sectionEditor/types';
import { inspectorRegistry } from '../../../../src/inspector/registry';
import type { ReportView } from '../../../../src/reports/page/reportApi';
import { months, mrrSection } from '../charts/sectionFixtures';
import { reportView } from '../page/reportFixtures';
import { defaultFakeApi, fullAccessUser, renderApp } from '../../renderApp';
import { apiErrors } from '../../support/fakeApi';
import type { FakeApi, FakeRequest } from '../../support/fakeApi';

// ApexCharts draws SVG with layout jsdom does not have: a stub shows the series it is given.
vi.mock('react-apexcharts/core', () => ({
  default: (props: { series: { name: string }[] }) => <div data-testid="apex-chart">{props.series.map((series) => series.name).join(' | ')}</div>,
}));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

/** The custom section editor over the fake API: build, preview, save; the server's refusals; what cannot be edited. */

const SECRET = 'S'.repeat(32);
const REPORT_ID = 'rep1';
const CUSTOM_ID = 'sec_custom';

const CATALOGUE = 'GET /user_filtered_config';
const POSSIBLE_VALUES = 'GET /user_filtered_config/possible_values';
const PREVIEW = `POST /business_report/${REPORT_ID}/sections/preview`;
const CREATE = `POST /business_report/${REPORT_ID}/sections`;
const UPDATE = `PUT /business_report/sections/${CUSTOM_ID}`;

const catalogue = {
  values: CUSTOM_VALUES,
  filters: [
    { object: 'customer', field: 'segment', field_id: 'seg_plan', name: 'Plan', operators: ['eq', 'in', 'in_reporting_month'], groupable: true, filterable: true },
    { object: 'customer', field: 'deal_owner', field_id: null, name: 'Deal owner', operators: ['eq', 'in'], groupable: false, filterable: true },
    { object: 'payment', field: 'product', field_id: null, name: 'Product', operators: ['eq', 'in'], groupable: true, filterable: true },
    { object: 'cost', field: 'attribute', field_id: 'cat_kind', name: 'Cost kind', operators: ['eq', 'in'], groupable: true, filterable: true },
  ],
};

/** A stored custom config: Pro customers' MRR, and new customers. */
const storedConfig: CustomSectionConfig = {
  groups: [],
  series: [
    {
      name: 'Pro MRR',
      value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } },
      groups: [],
      filters: [{ type: 'filter', object: 'customer', field: 'segment', field_id: 'seg_plan', operator: 'in', value: ['Pro'] }],
      reference: null,
      hidden: false,
    },
    {
      name: 'New customers',
      value: { object: 'customers', attribute: 'new', label: 'New customers', arguments: { periods_back: 0 } },
      groups: [],
      filters: [],
      reference: null,
      hidden: false,
    },
  ],
};

/** The report: an MRR section, and the custom section (with `custom`'s config, or none). */
function report(custom: { config?: unknown } = { config: storedConfig }): ReportView {
  const section = { ...mrrSection({ id: CUSTOM_ID, definition_id: USER_FILTERED_DEFINITION_ID, title: 'Pro growth', position: 1 }), ...custom };
  return reportView({ id: REPORT_ID, secret: SECRET, sections: [mrrSection({ id: 'sec-mrr', title: 'MRR' }), section] as ReportView['sections'] });
}

/** A preview of series named `names`. */
function previewOf(names: string[]): SectionPreview {
  const periods = months(3);
  return {
    unit: 'minor_units',
    currency: 'USD',
    periods,
    segments: [
      {
        id: 'total',
        name: 'Total',
        is_total: true,
        grouped_segment_names: [],
        series: names.map((name, index) => ({ name, data_points: periods.map((period, k) => ({ time: period.first_day, value: (index + 1) * 1000 * (k + 1) })) })),
      },
    ],
  };
}

const queryOf = (request: FakeRequest) => Object.fromEntries(new URL(request.headers.get('x-test-url') ?? 'http://localhost/').searchParams);

function editorApi(options: { report?: ReportView } = {}): FakeApi {
  const api = defaultFakeApi(fullAccessUser);
  api.on('GET /business_reports/by_secret', () => ({ status: 200, body: options.report ?? report() }));
  api.on(CATALOGUE, () => ({ status: 200, body: catalogue }));
  api.on(POSSIBLE_VALUES, (request) => ({ status: 200, body: { items: queryOf(request).field === 'segment' ? [{ value: 'Basic' }, { value: 'Pro' }, { value: 'Team' }] : [{ value: 'Widgets' }] } }));
  api.on(PREVIEW, (request) => ({ status: 200, body: previewOf((request.body as { config: CustomSectionConfig }).config.series.map((series) => series.name)) }));
  api.on(CREATE, () => ({ status: 201, body: { id: 'sec_new' } }));
  api.on(UPDATE, () => ({ status: 200, body: { id: CUSTOM_ID } }));
  // The fake keeps paths: the URL (with its query) travels as a header.
  api.client.use({
    onRequest({ request }) {
      request.headers.set('x-test-url', request.url);
      return request;
    },
  });
  return api;
}

type User = ReturnType<typeof userEvent.setup>;

function renderEditor(api: FakeApi = editorApi(), sectionId?: string) {
  const path = sectionId ? `/reports/${SECRET}/new-section/${sectionId}` : `/reports/${SECRET}/new-section`;
  return renderApp({ path, user: fullAccessUser, api });
}

const seriesCard = (number: number) => screen.findByRole('group', { name: `Series ${number}` });

/** Opens a picker (by its label, within `scope`) and picks `option`. */
async function pick(user: User, scope: HTMLElement, label: string, option: string) {
  await user.click(within(scope).getByRole('combobox', { name: label }));
  await user.click(await screen.findByRole('option', { name: option }));
}

const previewBodies = (api: FakeApi) => api.requestsTo(PREVIEW).map((request) => request.body as { config: CustomSectionConfig; resolution: string });

describe('building a new section', () => {
  it('builds two series with a split and a filter, previews them with what the form says, and creates the section', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    const { location } = renderEditor(api);
    expect(await screen.findByRole('heading', { level: 1, name: 'Add a chart section' })).toBeInTheDocument();

    // Series 1: renamed, split by product, filtered to Pro and Team customers.
    const first = await seriesCard(1);
    const name = within(first).getByRole('textbox', { name: /Name/ });
    await user.clear(name);
    await user.type(name, 'Pro MRR');
    await user.click(within(first).getByRole('button', { name: 'Add split' }));
    await pick(user, first, 'Series 1 split 1', 'Product');
    await user.click(within(first).getByRole('button', { name: 'Add filter' }));
    const filter = within(first).getByRole('group', { name: 'Filter 1' });
    await pick(user, filter, 'Field', 'Plan');
    await pick(user, filter, 'Operator', 'is one of');
    await pick(user, filter, 'Values', 'Pro');
    await pick(user, filter, 'Values', 'Team');
    // The values are the field's, asked for by its object, field and id.
    expect(api.requestsTo(POSSIBLE_VALUES).map(queryOf)).toEqual([{ object: 'customer', field: 'segment', field_id: 'seg_plan' }]);

    // Series 2: new customers (the name follows the value).
    await user.click(screen.getByRole('button', { name: 'Add series' }));
    const second = await seriesCard(2);
    await pick(user, second, 'Value', 'New customers');
    expect(within(second).getByRole('textbox', { name: /Name/ })).toHaveValue('New customers');

    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Pro growth');

    const expected: CustomSectionConfig = {
      groups: [],
      series: [
        {
          name: 'Pro MRR',
          value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } },
          groups: [{ type: 'group', object: 'payment', field: 'product', field_id: null }],
          filters: [{ type: 'filter', object: 'customer', field: 'segment', field_id: 'seg_plan', operator: 'in', value: ['Pro', 'Team'] }],
          reference: null,
          hidden: false,
        },
        {
          name: 'New customers',
          value: { object: 'customers', attribute: 'new', label: 'New customers', arguments: { periods_back: 0 } },
          groups: [],
          filters: [],
          reference: null,
          hidden: false,
        },
      ],
    };
    // The preview follows the form once the user stops (debounced), at the new section's resolution.
    await waitFor(() => expect(previewBodies(api).at(-1)).toEqual({ config: expected, resolution: 'month' }));
    expect(await screen.findByTestId('apex-chart')).toHaveTextContent('Pro MRR | New customers');
    // Never asked while the form had problems (the name cleared, the filter without a field or values).
    for (const body of previewBodies(api)) {
      expect(body.config.series.every((series) => series.name.trim() !== '' && series.filters.every((one) => one.value.length > 0))).toBe(true);
    }

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.requestsTo(CREATE)).toHaveLength(1));
    expect(api.requestsTo(CREATE)[0]?.body).toEqual({ definition_id: USER_FILTERED_DEFINITION_ID, config: expected, title: 'Pro growth' });
    await waitFor(() => expect(location.history?.at(-1)).toBe(`/reports/${SECRET}`));
  });

  it('shows a skeleton before the first chart, and keeps the last chart while the next one loads', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    api.hold(PREVIEW);
    renderEditor(api);
    const first = await seriesCard(1);
    await waitFor(() => expect(api.waiting(PREVIEW)).toBe(1));
    expect(screen.getByLabelText('Loading preview')).toBeInTheDocument();
    api.release(PREVIEW, { status: 200, body: previewOf(['MRR']) });
    expect(await screen.findByTestId('apex-chart')).toHaveTextContent('MRR');

    await user.type(within(first).getByRole('textbox', { name: /Name/ }), ' total');
    await waitFor(() => expect(api.waiting(PREVIEW)).toBe(1));
    expect(screen.getByText('Updating…')).toBeInTheDocument();
    expect(screen.getByTestId('apex-chart')).toHaveTextContent('MRR');
    expect(screen.queryByLabelText('Loading preview')).not.toBeInTheDocument();
    expect(previewBodies(api).at(-1)?.config.series[0]?.name).toBe('MRR total');
  });

  it('starts the preview on the first split, as the report’s card does; the picker shows the total', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    const periods = months(3);
    const split = (name: string, value: string, k: number) => ({ name: `${name}: ${value}`, segment_value: value, data_points: periods.map((period) => ({ time: period.first_day, value: k * 1000 })) });
    api.on(PREVIEW, () => {
      const preview = previewOf(['MRR']);
      return {
        status: 200,
        body: { ...preview, segments: [...preview.segments, { id: 'customer_segment:seg_country', name: 'Country', is_total: false, grouped_segment_names: [], series: [split('MRR', 'Poland', 1), split('MRR', 'Germany', 2)] }] },
      };
    });
    renderEditor(api);
    expect(await screen.findByTestId('apex-chart')).toHaveTextContent('MRR: Poland | MRR: Germany');
    const picker = screen.getByRole('combobox', { name: 'Segment' });
    expect(picker).toHaveValue('Country');
    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: 'Total' }));
    await waitFor(() => expect(screen.getByTestId('apex-chart')).toHaveTextContent(/^MRR$/));
  });

  it('shows the problems at their fields on save and sends nothing; Ctrl+Enter saves, Escape goes back', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    const { location } = renderEditor(api);
    const first = await seriesCard(1);
    const name = within(first).getByRole('textbox', { name: /Name/ });
    await user.clear(name);
    await user.click(within(first).getByRole('button', { name: 'Add filter' }));
    // Nothing is said before a save is asked for.
    expect(within(first).queryByText(SERIES_NAME_REQUIRED)).not.toBeInTheDocument();
    await user.click(name);
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(await within(first).findByText(SERIES_NAME_REQUIRED)).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    const filter = within(first).getByRole('group', { name: 'Filter 1' });
    expect(within(filter).getAllByText('Required')).toHaveLength(2);
    expect(api.requestsTo(CREATE)).toHaveLength(0);

    await user.type(name, 'Fixed');
    expect(within(first).queryByText(SERIES_NAME_REQUIRED)).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(location.history?.at(-1)).toBe(`/reports/${SECRET}`));
    expect(api.requestsTo(CREATE)).toHaveLength(0);
  });

  it('says when the values and filters cannot be read, and reads them again on Try again', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    api.on(CATALOGUE, () => ({ status: 500, body: {} }));
    renderEditor(api);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(CUSTOM_CONFIG_FAILURE);
    expect(screen.queryByRole('group', { name: 'Series 1' })).not.toBeInTheDocument();
    api.on(CATALOGUE, () => ({ status: 200, body: catalogue }));
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await seriesCard(1)).toBeInTheDocument();
  });

  it('says next to a filter when its possible values cannot be read, and asks again', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    api.on(POSSIBLE_VALUES, () => ({ status: 500, body: {} }));
    renderEditor(api);
    const first = await seriesCard(1);
    await user.click(within(first).getByRole('button', { name: 'Add filter' }));
    await user.click(within(first).getByRole('button', { name: 'Add filter' }));
    const failing = within(first).getByRole('group', { name: 'Filter 2' });
    await pick(user, failing, 'Field', 'Plan');
    expect(await within(failing).findByText(new RegExp(POSSIBLE_VALUES_FAILURE))).toBeInTheDocument();
    // The other filter says nothing.
    expect(within(within(first).getByRole('group', { name: 'Filter 1' })).queryByText(new RegExp(POSSIBLE_VALUES_FAILURE))).not.toBeInTheDocument();

    api.on(POSSIBLE_VALUES, () => ({ status: 200, body: { items: [{ value: 'Pro' }] } }));
    await user.click(within(failing).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(within(failing).queryByText(new RegExp(POSSIBLE_VALUES_FAILURE))).not.toBeInTheDocument());
    await pick(user, failing, 'Value', 'Pro');
    expect(within(failing).getByRole('combobox', { name: 'Value' })).toHaveValue('Pro');
  });
});

describe('the state inspector', () => {
  it('records the editor’s machine under its name, with the edits it took', async () => {
    const user = userEvent.setup({ delay: null });
    renderEditor();
    const first = await seriesCard(1);
    await user.type(within(first).getByRole('textbox', { name: /Name/ }), '!');
    const editor = inspectorRegistry.list().filter((actor) => actor.name === 'sectionEditor' && actor.live);
    expect(editor).toHaveLength(1);
    const events = editor[0]?.trace.map((entry) => entry.event.type) ?? [];
    expect(events).toContain('xstate.done.actor.load');
    expect(events).toContain('editor.edit');
  });
});

describe('editing a custom section', () => {
  it('opens the stored config, saves it with PUT, and puts the server’s 422 errors on their fields and the rest on top', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    api.on(UPDATE, () => ({
      status: 422,
      body: {
        errors: [
          { source: { pointer: '/config/series/1/name' }, detail: 'Another series has this name', title: 'Invalid', status: '422' },
          { source: { pointer: '/config/series/0/filters/0/value' }, title: 'Pro is not a plan any more', status: '422' },
          { source: { pointer: '/definition_id' }, code: 'definition_locked', status: '422' },
          { detail: 'The report is being recalculated', status: '422' },
        ],
      },
    }));
    const { location } = renderEditor(api, CUSTOM_ID);
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit section calculation' })).toBeInTheDocument();
    const first = await seriesCard(1);
    expect(within(first).getByRole('textbox', { name: /Name/ })).toHaveValue('Pro MRR');
    expect(screen.queryByRole('textbox', { name: 'Title' })).not.toBeInTheDocument();
    // The stored config is previewed at the section's resolution.
    await waitFor(() => expect(previewBodies(api).at(-1)).toEqual({ config: storedConfig, resolution: 'month' }));

    await user.click(screen.getByRole('button', { name: 'Save' }));
    const second = await seriesCard(2);
    expect(await within(second).findByText('Another series has this name')).toBeInTheDocument();
    expect(within(second).getByRole('textbox', { name: /Name/ })).toHaveAttribute('aria-invalid', 'true');
    expect(within(within(first).getByRole('group', { name: 'Filter 1' })).getByText('Pro is not a plan any more')).toBeInTheDocument();
    const top = screen.getAllByRole('alert').find((alert) => alert.textContent?.includes('The section was not saved')) as HTMLElement;
    expect(top).toHaveTextContent('definition_locked');
    expect(top).toHaveTextContent('The report is being recalculated');
    expect(api.requestsTo(UPDATE).map((request) => request.body)).toEqual([{ definition_id: USER_FILTERED_DEFINITION_ID, config: storedConfig }]);
    // Still here, with everything as it was.
    expect(location.history?.at(-1)).toBe(`/reports/${SECRET}/new-section/${CUSTOM_ID}`);
    expect(within(second).getByRole('textbox', { name: /Name/ })).toHaveValue('New customers');

    // Renamed: that field's message goes, the others stay.
    await user.type(within(second).getByRole('textbox', { name: /Name/ }), ' (all)');
    expect(within(second).queryByText('Another series has this name')).not.toBeInTheDocument();
    expect(within(first).getByText('Pro is not a plan any more')).toBeInTheDocument();
  });

  it('says the generic message when the save fails otherwise, keeping the form', async () => {
    const user = userEvent.setup({ delay: null });
    const api = editorApi();
    api.on(UPDATE, () => apiErrors(500, { detail: 'Internal error' }));
    renderEditor(api, CUSTOM_ID);
    const first = await seriesCard(1);
    await user.clear(within(first).getByRole('textbox', { name: /Name/ }));
    await user.type(within(first).getByRole('textbox', { name: /Name/ }), 'Team MRR');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(CUSTOM_SAVE_FAILURE)).toBeInTheDocument();
    expect(screen.queryByText('Internal error')).not.toBeInTheDocument();
    expect(within(first).getByRole('textbox', { name: /Name/ })).toHaveValue('Team MRR');
    expect(screen.getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('says it cannot read a stored config that configProblems refuses, instead of the form', async () => {
    const api = editorApi({ report: report({ config: { series: [{ name: '', value: { object: 'payments', attribute: 'mrr' } }] } }) });
    renderEditor(api, CUSTOM_ID);
    expect(await screen.findByText(CONFIG_UNREADABLE)).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Series 1' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to report' })).toHaveAttribute('href', `/reports/${SECRET}`);
    expect(api.requestsTo(PREVIEW)).toHaveLength(0);
  });

  it('says the same of a custom section stored without a config', async () => {
    renderEditor(editorApi({ report: report({}) }), CUSTOM_ID);
    expect(await screen.findByText(CONFIG_UNREADABLE)).toBeInTheDocument();
  });
});
