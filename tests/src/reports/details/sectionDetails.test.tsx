import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { CohortTable } from '../../../../src/reports/charts/CohortTable';
import type { ReportSection, SectionPointInfo } from '../../../../src/reports/charts/sectionModel';
import { detailsAllowed, ReportDetails } from '../../../../src/reports/details/ReportDetails';
import { SectionDetailsProvider, useSectionPointClick } from '../../../../src/reports/details/SectionDetailsProvider';
import { rowsChartBars } from '../../../../src/reports/details/SectionDetailsDialog';
import { createApiClient } from '../../../../src/api/client';
import { createDetailsServices } from '../../../../src/reports/details/detailsApi';
import { apiErrors, createFakeApi, FAKE_API_BASE_URL, type FakeApi, type FakeAnswer } from '../../support/fakeApi';
import { cohortSection, mrrSection } from '../charts/sectionFixtures';
import { fullAccessUser, renderWithProviders, sharedReportOnlyUser } from '../../renderApp';

vi.mock('react-apexcharts/core', () => ({ default: (props: { series: { data: number[] }[]; options: { xaxis: { categories: string[] } } }) => <div data-testid="apex-chart" data-categories={props.options.xaxis.categories.join('|')} /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const customer = (id: string, name: string, value: number, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  deleted: false,
  value,
  subscriptions: [{ product_key: 'pro' }],
  movement_from: null,
  movement_to: null,
  additional_values: [],
  ...extra,
});

function payload(extra: Record<string, unknown> = {}) {
  return {
    total_count: 4,
    total_value: 212_345,
    total_quantity: null,
    top_customers: [customer('c1', 'Acme', 150_000), customer('c2', 'Beta', 50_000)],
    rest: { count: 2, value: 12_345 },
    calculation_details: [],
    additional_lists: [],
    ...extra,
  };
}

function detailsAnswer(underlying = 'subscriptions', extra: Record<string, unknown> = {}, value = 212_345): FakeAnswer {
  return {
    status: 200,
    body: {
      section_id: 'sec_mrr',
      definition_id: 'mrr',
      underlying_data: underlying,
      period: { label: '2025-03', first_day: '2025-03-01', last_day: '2025-03-31', measure_day: '2025-03-31', current: false, complete: true },
      currency: 'USD',
      unit: 'minor_units',
      items: [{ name: 'MRR', underlying_data: underlying, value, details: payload(extra) }],
    },
  };
}

/** A point of the MRR fixture, as the chart reports a click on it. */
const march: SectionPointInfo = { sectionId: 'sec_mrr', segmentId: 'total', seriesName: 'MRR', time: '2025-03-01', value: 212_345 };

/** Stands for a chart: a button per point that calls what the provider gives. */
function FakeChart({ point }: { point: SectionPointInfo }) {
  const onPointClick = useSectionPointClick();
  return (
    <button type="button" disabled={!onPointClick} onClick={() => onPointClick?.(point)}>
      Point {point.time}
    </button>
  );
}

function renderProvider(api: FakeApi, sections: ReportSection[], child: React.ReactNode) {
  return renderWithProviders(
    <SectionDetailsProvider sections={sections} currency="USD">
      {child}
    </SectionDetailsProvider>,
    { user: fullAccessUser, api },
  );
}

describe('SectionDetailsProvider', () => {
  it('opens the point’s customers, whose values and rest add up to the point, and a customer from there', async () => {
    const user = userEvent.setup({ delay: null });
    const api = createFakeApi({
      'GET /business_report/sections/:id/details': () => detailsAnswer(),
      'GET /customers/:id': ({ params }) => ({
        status: 200,
        body: { id: params.id, name: 'Acme', public_id: null, parent_id: null, children_ids: [], include_in_calculations_by_default: true, deleted: false, segments: [], links: [], metrics: [], currency: 'USD', added_at: '2025-01-01T00:00:00Z' },
      }),
      'GET /customer_metrics/:id': () => ({ status: 200, body: { customer_id: 'c1', currency: 'USD', included: true, mrr: 150_000, accrued_total: 450_000, one_time_accrued_total: 0, timeline: [] } }),
      'GET /customers/:id/timeline': () => ({ status: 200, body: { items: [], limit: 100 } }),
    });
    api.hold('GET /business_report/sections/:id/details');
    renderProvider(api, [mrrSection()], <FakeChart point={march} />);

    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const dialog = await screen.findByRole('dialog', { name: 'MRR, 2025-03' });
    expect(within(dialog).getByTestId('details-skeleton')).toBeInTheDocument();
    api.release('GET /business_report/sections/:id/details', detailsAnswer());

    const table = await within(dialog).findByRole('table', { name: 'Customers' });
    const rows = within(table).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Acme', 'pro', '$1,500.00'],
      ['Beta', 'pro', '$500.00'],
      ['Other 2 customers', '$123.45'],
      ['Total (4 customers)', '$2,123.45'],
    ]);
    expect(within(dialog).getByRole('group', { name: 'Value on the chart' })).toHaveTextContent('Value on the chart: $2,123');
    expect(within(dialog).getByRole('group', { name: 'Listed total' })).toHaveTextContent('4 customers: $2,123.45');
    // The bars: the two customers; the rest are in the table, and the caption says so.
    expect(await within(dialog).findByTestId('apex-chart')).toHaveAttribute('data-categories', 'Acme|Beta');
    expect(within(dialog).getByRole('figure', { name: 'Chart of 2 values' })).toHaveTextContent('The 2 largest of 4; the table lists the rest.');
    expect(api.requestsTo('GET /business_report/sections/sec_mrr/details')).toHaveLength(1);

    await user.click(within(table).getByRole('button', { name: 'Acme' }));
    const drawer = await screen.findByRole('dialog', { name: /Details: Acme/ });
    expect(await within(drawer).findByRole('group', { name: 'MRR' })).toHaveTextContent('$1,500');
    expect(api.requestsTo('GET /customers/c1')).toHaveLength(1);
  });

  it('lists a stock’s customers with their value only, and a movement’s with MRR before and after', async () => {
    const user = userEvent.setup({ delay: null });
    const moved = [
      customer('c1', 'Acme', 50_000, { movement_from: { id: 'p1', monthly_amount: 100_000 }, movement_to: { id: 'p2', monthly_amount: 150_000 } }),
      customer('c2', 'Beta', 50_000, { movement_from: { id: 'p3', monthly_amount: 0 }, movement_to: { id: 'p3', monthly_amount: 50_000 } }),
    ];
    let answer = detailsAnswer();
    const api = createFakeApi({ 'GET /business_report/sections/:id/details': () => answer });
    renderProvider(api, [mrrSection()], <FakeChart point={march} />);
    const headings = async () => {
      const table = await screen.findByRole('table', { name: 'Customers' });
      return within(table).getAllByRole('columnheader').map((cell) => cell.textContent);
    };
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    // The server gives a stock's rows no movement ends (server/metrics/details.ts).
    expect(await headings()).toEqual(['Customer', 'Products', 'Value']);
    await user.click(screen.getByRole('button', { name: 'Close details' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    answer = detailsAnswer('subscriptions', { top_customers: moved, total_count: 2, total_value: 100_000, rest: { count: 0, value: 0 } }, 100_000);
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    expect(await headings()).toEqual(['Customer', 'Products', 'MRR before', 'MRR after', 'Value']);
    const acme = screen.getByRole('row', { name: /Acme/ });
    expect(within(acme).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Acme', 'pro', '$1,000.00', '$1,500.00', '$500.00']);
  });

  it('asks for the clicked series and date; a cohort cell asks /cohort_details', async () => {
    const urls: URL[] = [];
    const client = createApiClient({
      baseUrl: FAKE_API_BASE_URL,
      fetch: async (request) => {
        urls.push(new URL(request.url));
        const answer = detailsAnswer();
        return new Response(JSON.stringify(answer.body), { status: 200, headers: { 'Content-Type': 'application/json' } });
      },
    });
    const services = createDetailsServices(client);
    await services.details({ ...march, segmentId: 'subscription_segment:product', segmentValue: 'pro', component: 'churn' });
    await services.details({ sectionId: 'sec_cohorts', segmentId: 'total', seriesName: '2025-01', time: '2025-03-01', value: 0.5, column: 2, cohortDate: '2025-01-01' });
    const [chart, cohort] = urls;
    expect(chart?.pathname).toBe('/api/v11/business_report/sections/sec_mrr/details');
    expect(Object.fromEntries(chart?.searchParams ?? [])).toEqual({ date: '2025-03-01', segment_id: 'subscription_segment:product', segment_value: 'pro', component: 'churn', limit: '50' });
    expect(cohort?.pathname).toBe('/api/v11/business_report/sections/sec_cohorts/cohort_details');
    expect(Object.fromEntries(cohort?.searchParams ?? [])).toEqual({ cohort_date: '2025-01-01', date: '2025-03-01', column: '2', segment_id: 'total', limit: '50' });
  });

  it('shows the spec’s message when the details cannot be fetched', async () => {
    const user = userEvent.setup({ delay: null });
    const api = createFakeApi({ 'GET /business_report/sections/:id/details': () => apiErrors(500, { detail: 'boom' }) });
    renderProvider(api, [mrrSection()], <FakeChart point={march} />);
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const dialog = await screen.findByRole('dialog', { name: 'MRR, 2025-03' });
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('We failed to fetch details : (');
  });

  it('lists costs and deals, and says when there are none', async () => {
    const user = userEvent.setup({ delay: null });
    const costs = { top_customers: [], top_costs: [{ id: 'k1', name: 'Ads', value: 20_000, date: '2025-03-05', invoice_number: 'F/1' }], total_count: 1, total_value: 20_000, rest: { count: 0, value: 0 } };
    const api = createFakeApi({ 'GET /business_report/sections/:id/details': () => detailsAnswer('costs', costs, 20_000) });
    const costSection = mrrSection({ id: 'sec_costs', title: 'Costs', underlying_data: 'costs' });
    const view = renderProvider(api, [costSection], <FakeChart point={{ ...march, sectionId: 'sec_costs' }} />);
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    const table = await screen.findByRole('table', { name: 'Costs' });
    expect(within(table).getAllByRole('row').slice(1).map((row) => row.textContent)).toEqual(['Ads2025-03-05F/1$200.00', 'Total (1 costs)$200.00']);
    await user.click(screen.getByRole('button', { name: 'Close details' }));

    api.on('GET /business_report/sections/:id/details', () => detailsAnswer('costs', { top_customers: [], top_costs: [], total_count: 0, total_value: 0, rest: { count: 0, value: 0 } }, 0));
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    expect(await screen.findByText('No costs')).toBeInTheDocument();
    view.unmount();

    const dealSection = mrrSection({ id: 'sec_deals', title: 'Deals', underlying_data: 'deals' });
    const deals = createFakeApi({
      'GET /business_report/sections/:id/details': () => detailsAnswer('deals', { top_customers: [], top_deals: [], total_count: 0, total_value: 0, rest: { count: 0, value: 0 } }, 0),
    });
    renderProvider(deals, [dealSection], <FakeChart point={{ ...march, sectionId: 'sec_deals' }} />);
    await user.click(screen.getByRole('button', { name: 'Point 2025-03-01' }));
    expect(await screen.findByText('No deals')).toBeInTheDocument();
  });

  it('opens a cohort cell’s details from the cohort table, titled by cohort and period', async () => {
    const user = userEvent.setup({ delay: null });
    const api = createFakeApi({ 'GET /business_report/sections/:id/cohort_details': () => detailsAnswer() });
    const section = cohortSection();
    function Cohorts() {
      const onPointClick = useSectionPointClick();
      return <CohortTable section={section} segment={section.segments[0] as ReportSection['segments'][number]} {...(onPointClick ? { onPointClick } : {})} />;
    }
    renderProvider(api, [section], <Cohorts />);
    await user.click(screen.getByRole('button', { name: '2025-01 month 2' }));
    expect(await screen.findByRole('dialog', { name: 'MRR cohorts, 2025-01 month 2' })).toBeInTheDocument();
    await screen.findByRole('table', { name: 'Customers' });
    expect(api.requestsTo('GET /business_report/sections/sec_cohorts/cohort_details')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Close details' }));
    await user.click(screen.getByRole('button', { name: '2025-02 initial' }));
    expect(await screen.findByRole('dialog', { name: 'MRR cohorts, 2025-02 initial' })).toBeInTheDocument();
  });
});

describe('the data-point bar chart', () => {
  it('draws the 10 largest rows, not the others', () => {
    const rows = Array.from({ length: 12 }, (_, k) => customer(`c${k}`, `C${k}`, 1_000 - k));
    const bars = rowsChartBars({ ...payload(), top_customers: rows, rest: { count: 5, value: 50 } } as Parameters<typeof rowsChartBars>[0], 'subscriptions');
    expect(bars.map((bar) => bar.name)).toEqual(['C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8', 'C9']);
    expect(bars.at(-1)).toEqual({ name: 'C9', value: 991 });
  });


  it('hides zero values', () => {
    const bars = rowsChartBars(
      { ...payload(), top_customers: [customer('a', 'A', 500), customer('b', 'B', 0), customer('c', 'C', -200)], rest: { count: 3, value: 0 } } as Parameters<typeof rowsChartBars>[0],
      'subscriptions',
    );
    expect(bars).toEqual([
      { name: 'A', value: 500 },
      { name: 'C', value: -200 },
    ]);
  });
});

describe('who gets details', () => {
  it('is a signed-in full user of the report’s account, never on the demo', () => {
    expect(detailsAllowed(fullAccessUser, fullAccessUser.account_id, false)).toBe(true);
    expect(detailsAllowed(fullAccessUser, 'acc_other', false)).toBe(false);
    expect(detailsAllowed(fullAccessUser, fullAccessUser.account_id, true)).toBe(false);
    expect(detailsAllowed(sharedReportOnlyUser, sharedReportOnlyUser.account_id, false)).toBe(false);
    expect(detailsAllowed(null, 'acc_1', false)).toBe(false);
  });

  it('leaves the charts without clicks for a visitor', () => {
    renderWithProviders(
      <ReportDetails report={{ account_id: 'acc_1', currency: 'USD', sections: [mrrSection()] }}>
        <FakeChart point={march} />
      </ReportDetails>,
      { user: null },
    );
    expect(screen.getByRole('button', { name: 'Point 2025-03-01' })).toBeDisabled();
  });

  it('makes the charts clickable for a user of the account', () => {
    renderWithProviders(
      <ReportDetails report={{ account_id: fullAccessUser.account_id, currency: 'USD', sections: [mrrSection()] }}>
        <FakeChart point={march} />
      </ReportDetails>,
      { user: fullAccessUser },
    );
    expect(screen.getByRole('button', { name: 'Point 2025-03-01' })).toBeEnabled();
  });
});
