import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXPLORE_GROWTH_BUCKETS } from '../../../models/constants';
import type { ApexChartProps } from '../../../src/reports/charts/chartOptions';
import type { SectionPointInfo } from '../../../src/reports/charts/sectionModel';
import { SectionDetailsProvider, useSectionPointClick } from '../../../src/reports/details/SectionDetailsProvider';
import { EXPLORE_FETCH_FAILURE } from '../../../src/customers/explore/exploreApi';
import { apiErrors, type FakeApi, type FakeAnswer } from '../support/fakeApi';
import { defaultFakeApi, fullAccessUser, renderApp, renderWithProviders } from '../renderApp';
import { cohortSection, mrrSection } from '../reports/charts/sectionFixtures';
import { customer, recordUrls } from './drawerFixtures';

// ApexCharts draws SVG with layout jsdom does not have: a stub records what it is given.
const rendered = vi.hoisted(() => ({ props: [] as unknown[] }));
vi.mock('react-apexcharts/core', () => ({
  default: (props: unknown) => {
    rendered.props.push(props);
    return <div data-testid="apex-chart" />;
  },
}));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const chart = () => rendered.props.at(-1) as ApexChartProps;
const scatter = () => rendered.props.filter((props) => (props as ApexChartProps).type === 'scatter').at(-1) as ApexChartProps;

function item(id: string, name: string, months: number, newMrr: number, mrr: number, bucket: (typeof EXPLORE_GROWTH_BUCKETS)[number]) {
  return {
    customer: { id, name, deleted: false },
    months_being_customer: months,
    new_mrr_when_occurred: newMrr,
    mrr,
    accrued_total: mrr * months,
    growth_since_start: newMrr === 0 ? null : mrr / newMrr - 1,
    growth_bucket: bucket,
  };
}

const answer = {
  items: [item('c1', 'Acme', 14, 10_000, 25_000, '> 100%'), item('c2', 'Beta', 3, 20_000, 30_000, '1% - 100%'), item('c3', 'Gamma', 30, 0, 5_000, 'Starting MRR is 0'), item('c4', 'Delta', 26, 8_000, 8_000, '0 %')],
  currency: 'USD',
  title: 'MRR: 2025-03',
};

function exploreApi(reply: () => FakeAnswer = () => ({ status: 200, body: answer })): FakeApi {
  const api = defaultFakeApi(fullAccessUser);
  api.on('GET /customer_metrics', reply);
  api.on('GET /customers/:id', ({ params }) => ({ status: 200, body: customer(params.id ?? '', params.id === 'c1' ? 'Acme' : 'Other') }));
  api.on('GET /customer_metrics/:id', () => ({ status: 200, body: { customer_id: 'c1', currency: 'USD', included: true, mrr: 25_000, accrued_total: 0, one_time_accrued_total: 0, timeline: [] } }));
  api.on('GET /customers/:id/timeline', () => ({ status: 200, body: { items: [], limit: 100 } }));
  return api;
}

beforeEach(() => {
  rendered.props = [];
});
afterEach(() => {
  window.history.replaceState(null, '');
});

/** The explore page as the details dialog opens it: the route state in the browser's history. */
function renderExplore(api: FakeApi, path = '/explore/sec_mrr/total/2025-03-01', state: unknown = { title: 'MRR, 2025-03', returnTo: '/reports/abc' }) {
  window.history.replaceState(state, '');
  return renderApp({ path, user: fullAccessUser, api });
}

describe('the explore page', () => {
  it('asks for the point’s customers and plots them by months as a customer and new MRR when occurred, a series per growth bucket', async () => {
    const api = exploreApi();
    const urls = recordUrls(api);
    renderExplore(api);
    expect(await screen.findByRole('heading', { level: 1, name: 'MRR, 2025-03' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to report' })).toHaveAttribute('href', '/reports/abc');
    await waitFor(() => expect(scatter()).toBeDefined());

    const asked = urls.find((url) => url.pathname.endsWith('/customer_metrics'));
    expect(Object.fromEntries(asked?.searchParams ?? [])).toEqual({ section_id: 'sec_mrr', segment_id: 'total', date: '2025-03-01' });
    const props = scatter();
    expect(props.series.map((series) => series.name)).toEqual([...EXPLORE_GROWTH_BUCKETS]);
    expect(props.series.find((series) => series.name === '> 100%')?.data).toEqual([{ x: 14, y: 10_000 }]);
    expect(props.options.yaxis).toMatchObject({ title: { text: 'New MRR when occurred' } });
    expect(props.options.xaxis).toMatchObject({ type: 'numeric', title: { text: 'Months being customer' } });
    expect((props.options.annotations?.xaxis ?? []).map((line) => line.x)).toEqual([12, 24, 36]);
    expect(screen.getByRole('radio', { name: 'New MRR when occurred' })).toBeChecked();
  });

  it('names every growth bucket in the legend, with its customers', async () => {
    renderExplore(exploreApi());
    const legend = await screen.findByRole('group', { name: 'Legend' });
    expect(within(legend).getAllByRole('button').map((button) => button.textContent)).toEqual([
      '0 % (1)',
      '1% - 100% (1)',
      '> 100% (1)',
      'Negative growth (0)',
      'Starting MRR is 0 (1)',
      'Churned customers (0)',
    ]);
    // A click shows that bucket alone.
    await userEvent.setup({ delay: null }).click(within(legend).getByRole('button', { name: '> 100% (1)' }));
    await waitFor(() => expect(scatter().series.map((series) => series.name)).toEqual(['> 100%']));
  });

  it('switches the y axis among the four figures, kept in the URL', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderExplore(exploreApi());
    await waitFor(() => expect(scatter()).toBeDefined());
    expect(screen.getAllByRole('radio').map((radio) => radio.closest('div')?.textContent)).toEqual(['New MRR when occurred', 'Accrued total', 'Growth since start', 'MRR']);

    await user.click(screen.getByRole('radio', { name: 'MRR' }));
    await waitFor(() => expect(scatter().options.yaxis).toMatchObject({ title: { text: 'MRR' } }));
    expect(scatter().series.find((series) => series.name === '1% - 100%')?.data).toEqual([{ x: 3, y: 30_000 }]);
    expect(location.history?.at(-1)).toBe('/explore/sec_mrr/total/2025-03-01?y=mrr');

    await user.click(screen.getByRole('radio', { name: 'Growth since start' }));
    // In percent; a customer that started at 0 has no growth and is not plotted.
    await waitFor(() => expect(scatter().series.find((series) => series.name === '> 100%')?.data).toEqual([{ x: 14, y: 150 }]));
    expect(scatter().series.find((series) => series.name === 'Starting MRR is 0')?.data).toEqual([]);

    await user.click(screen.getByRole('radio', { name: 'Accrued total' }));
    await waitFor(() => expect(scatter().series.find((series) => series.name === '0 %')?.data).toEqual([{ x: 26, y: 208_000 }]));
  });

  it('opens the customer of a clicked point in the drawer', async () => {
    renderExplore(exploreApi());
    await waitFor(() => expect(scatter()).toBeDefined());
    const props = scatter();
    const seriesIndex = props.series.findIndex((series) => series.name === '> 100%');
    act(() => props.options.chart?.events?.dataPointSelection?.(new MouseEvent('click'), undefined, { seriesIndex, dataPointIndex: 0, w: {} as never }));
    expect(await screen.findByRole('dialog', { name: /Details: Acme/ })).toBeInTheDocument();
  });

  it('takes the server’s title when opened without route state, and goes back to the reports', async () => {
    renderExplore(exploreApi(), '/explore/sec_mrr/customer_segment:plan/2025-03-01?segment_value=Growth', null);
    expect(await screen.findByRole('heading', { level: 1, name: 'MRR: 2025-03' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to reports' })).toHaveAttribute('href', '/');
  });

  it('shows a skeleton, then says when no customer is behind the point', async () => {
    const api = exploreApi();
    api.hold('GET /customer_metrics');
    renderExplore(api);
    expect(await screen.findByTestId('explore-skeleton')).toBeInTheDocument();
    act(() => api.release('GET /customer_metrics', { status: 200, body: { items: [], currency: 'USD', title: 'MRR: 2025-03' } }));
    expect(await screen.findByText('No customers behind this data point')).toBeInTheDocument();
    expect(rendered.props.filter((props) => (props as ApexChartProps).type === 'scatter')).toHaveLength(0);
  });

  it('says when the customers cannot be fetched, and tries again', async () => {
    let fail = true;
    const user = userEvent.setup({ delay: null });
    renderExplore(exploreApi(() => (fail ? apiErrors(500, { detail: 'boom' }) : { status: 200, body: answer })));
    expect(await screen.findByRole('alert')).toHaveTextContent(EXPLORE_FETCH_FAILURE);
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(scatter()).toBeDefined());
  });
});

/** Stands for a chart: a button per point that calls what the provider gives. */
function FakeChart({ point }: { point: SectionPointInfo }) {
  const onPointClick = useSectionPointClick();
  return (
    <button type="button" onClick={() => onPointClick?.(point)}>
      Point {point.time}
    </button>
  );
}

function detailsAnswer(underlying: string): FakeAnswer {
  return {
    status: 200,
    body: {
      section_id: 'sec_mrr',
      definition_id: 'mrr',
      underlying_data: underlying,
      period: { label: '2025-03', first_day: '2025-03-01', last_day: '2025-03-31', measure_day: '2025-03-31', current: false, complete: true },
      currency: 'USD',
      unit: 'minor_units',
      items: [
        {
          name: 'MRR',
          underlying_data: underlying,
          value: 100,
          details: { total_count: 0, total_value: 0, total_quantity: null, top_customers: [], top_costs: [], top_deals: [], rest: { count: 0, value: 0 }, calculation_details: [], additional_lists: [] },
        },
      ],
    },
  };
}

describe('Explore customers in a point’s details', () => {
  const march: SectionPointInfo = { sectionId: 'sec_mrr', segmentId: 'customer_segment:plan', segmentValue: 'Growth', seriesName: 'Growth', time: '2025-03-01', value: 100 };

  it('opens the explore page of the point, with the dialog’s title and the way back in route state', async () => {
    const user = userEvent.setup({ delay: null });
    const api = defaultFakeApi(fullAccessUser);
    api.on('GET /business_report/sections/:id/details', () => detailsAnswer('subscriptions'));
    const { location } = renderWithProviders(
      <SectionDetailsProvider sections={[mrrSection()]} currency="USD">
        <FakeChart point={march} />
      </SectionDetailsProvider>,
      { user: fullAccessUser, api, path: '/reports/abc' },
    );
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const dialog = await screen.findByRole('dialog', { name: 'MRR, 2025-03' });
    await user.click(await within(dialog).findByRole('button', { name: 'Explore customers' }));
    expect(location.history?.at(-1)).toBe('/explore/sec_mrr/customer_segment%3Aplan/2025-03-01?segment_value=Growth');
    expect(location.state).toEqual({ title: 'MRR, 2025-03', returnTo: '/reports/abc' });
  });

  it('is not offered for costs or deals', async () => {
    const user = userEvent.setup({ delay: null });
    const api = defaultFakeApi(fullAccessUser);
    api.on('GET /business_report/sections/:id/details', () => detailsAnswer('costs'));
    renderWithProviders(
      <SectionDetailsProvider sections={[mrrSection()]} currency="USD">
        <FakeChart point={march} />
      </SectionDetailsProvider>,
      { user: fullAccessUser, api },
    );
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const dialog = await screen.findByRole('dialog', { name: 'MRR, 2025-03' });
    expect(await within(dialog).findByText('No costs')).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Explore customers' })).not.toBeInTheDocument();
  });

  it('is not offered for a cohort cell', async () => {
    const user = userEvent.setup({ delay: null });
    const api = defaultFakeApi(fullAccessUser);
    api.on('GET /business_report/sections/:id/cohort_details', () => detailsAnswer('subscriptions'));
    const cohorts = cohortSection();
    const cell: SectionPointInfo = { sectionId: cohorts.id, segmentId: 'total', seriesName: '2025-01', time: '2025-03-01', cohortDate: '2025-01-01', column: 2, value: 100 };
    renderWithProviders(
      <SectionDetailsProvider sections={[cohorts]} currency="USD">
        <FakeChart point={cell} />
      </SectionDetailsProvider>,
      { user: fullAccessUser, api },
    );
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('No customers')).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Explore customers' })).not.toBeInTheDocument();
    expect(chart()).toBeUndefined();
  });
});
