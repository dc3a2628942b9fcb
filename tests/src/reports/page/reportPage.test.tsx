import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi, type Mock } from 'vitest';
import type { LiveChannels } from '../../../../src/cable/liveChannels';
import { ReportCallError, reportKey, type ReportServices, type ReportUpdate, type ReportView } from '../../../../src/reports/page/reportApi';
import { ReportPageLoader } from '../../../../src/reports/page/ReportPageLoader';
import { reportView } from './reportFixtures';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { REDIRECT_AFTER_SIGN_IN_KEY } from '../../../../src/session/redirectAfterSignIn';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

/** 2026-03-02, the day the tests' reports are read. */
const now = () => new Date(2026, 2, 2, 9, 0);

const report = reportView;

/** The page's calls, each a spy answering as given; `push` sends a live update to the page. */
function fakeServices(initial: ReportView, overrides: Partial<Record<keyof ReportServices, Mock>> = {}) {
  let current = initial;
  let listener: ((update: ReportUpdate) => void) | null = null;
  let connection: { connected(): void; lost(): void } | null = null;
  const services = {
    fetchReport: vi.fn(async () => current),
    fetchDemoReport: vi.fn(async () => current),
    fetchSharedReport: vi.fn(async () => current),
    refresh: vi.fn(async () => {}),
    updateReport: vi.fn(async () => {}),
    updateSettings: vi.fn(async (_id: string, change: Partial<ReportView['settings']>) => ({ ...current.settings, ...change })),
    hasFinanceData: vi.fn(async () => true),
    currencies: vi.fn(async () => ['EUR', 'PLN', 'USD']),
    watch: vi.fn((_secret: string, _id: string, handlers: { update(update: ReportUpdate): void; connected(): void; lost(): void }) => {
      listener = handlers.update;
      connection = handlers;
      return () => {
        listener = null;
      };
    }),
    ...overrides,
  };
  return {
    services: services as unknown as ReportServices,
    spies: services,
    /** The server's report from now on (what a reload reads). */
    setReport: (next: ReportView) => {
      current = next;
    },
    push: (update: ReportUpdate) => act(() => listener?.(update)),
    connected: () => act(() => connection?.connected()),
    lost: () => act(() => connection?.lost()),
  };
}

const noChannels: LiveChannels = { subscribe: () => () => {}, close: () => {} };

function renderPage(services: ReportServices) {
  return renderWithProviders(<ReportPageLoader secret={'S'.repeat(32)} services={services} channels={noChannels} now={now} />, { user: fullAccessUser });
}

describe('the report page', () => {
  it('shows skeletons, then the report: title, summary, owner, tags, freshness, contents and each section', async () => {
    const fake = fakeServices(report());
    renderPage(fake.services);
    expect(screen.getByLabelText('Loading report')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Board, March' })).toBeInTheDocument();
    expect(screen.getByText('Growth is back.')).toBeInTheDocument();
    expect(screen.getByText('By Ada Owner')).toBeInTheDocument();
    expect(screen.getByText('board')).toBeInTheDocument();
    expect(screen.getByText('Up to date')).toBeInTheDocument();
    // Below 1600 px (jsdom has no width) the refreshed time is the badge's tooltip.
    await userEvent.setup({ delay: null }).hover(screen.getByText('Up to date'));
    expect(await screen.findByText(/^Refreshed 2 Mar 2026/)).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Contents' })).getByRole('link', { name: 'MRR' })).toHaveAttribute('href', '#section-sec-mrr');
    const section = screen.getByRole('region', { name: 'MRR' });
    expect(await within(section).findByTestId('apex-chart')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Report range' })).toHaveTextContent('Apr 2025 – Mar 2026');
    expect(screen.queryByText('Import your data')).not.toBeInTheDocument();
  });

  it("says so when the report cannot be fetched, under the page's heading", async () => {
    const fake = fakeServices(report(), { fetchReport: vi.fn(async () => Promise.reject(new Error('404'))) });
    renderPage(fake.services);
    expect(await screen.findByRole('alert')).toHaveTextContent('Uh :( we failed to fetch report');
    expect(screen.getByRole('heading', { level: 1, name: 'Report' })).toBeInTheDocument();
  });

  it('says the report was not found when the server has none by that secret (404), with a way back to the reports', async () => {
    const fake = fakeServices(report(), { fetchReport: vi.fn(async () => Promise.reject(new ReportCallError('Uh :( we failed to fetch report', 404))) });
    renderPage(fake.services);
    expect(await screen.findByRole('heading', { level: 1, name: 'Report not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to reports' })).toHaveAttribute('href', '/');
    expect(screen.queryByText('Uh :( we failed to fetch report')).not.toBeInTheDocument();
  });

  it('sends a signed-out visitor of an account that requires signing in (401) to sign in, remembering the report and its query', async () => {
    localStorage.clear();
    const fake = fakeServices(report(), { fetchReport: vi.fn(async () => Promise.reject(new ReportCallError('Uh :( we failed to fetch report', 401))) });
    const { location } = renderWithProviders(<ReportPageLoader secret={'S'.repeat(32)} currency="EUR" services={fake.services} channels={noChannels} now={now} />, {
      user: null,
      path: `/reports/${'S'.repeat(32)}?currency=EUR`,
    });
    await waitFor(() => expect(location.history?.at(-1)).toBe('/sign_in'));
    expect(localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBe(`/reports/${'S'.repeat(32)}?currency=EUR`);
    expect(fake.spies.fetchReport).toHaveBeenCalledWith('S'.repeat(32), expect.any(AbortSignal), 'EUR');
  });

  it('shows a pinned share link read only: its segment, no editing, no comments, and the currency as a badge for a signed-out visitor', async () => {
    const shared = { ...report({ can_edit: false }), shared_filter: { segmenter_id: 'customer_segment:seg_plan', segmenter_name: 'Plan', segment_value: 'Pro' } };
    const fake = fakeServices(shared);
    renderWithProviders(<ReportPageLoader secret={'H'.repeat(32)} variant="shared" services={fake.services} channels={noChannels} now={now} />, { user: null });
    expect(await screen.findByRole('heading', { level: 1, name: 'Board, March' })).toBeInTheDocument();
    expect(fake.spies.fetchSharedReport).toHaveBeenCalledWith('H'.repeat(32), null, expect.any(AbortSignal));
    expect(fake.spies.fetchReport).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent('Read only. It shows Plan: Pro only.');
    for (const name of ['Recalculate', 'Report range', 'Report settings', 'Edit title', 'Add chart', 'Share', 'Filter']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    expect(screen.getByRole('button', { name: 'Present' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Comments' })).not.toBeInTheDocument();
    expect(screen.getByText(report().currency, { selector: '.mantine-Badge-label' })).toBeInTheDocument();
    expect(fake.spies.watch).not.toHaveBeenCalled();
  });

  it('shows a report in the currency its link asks for, read only, with the way back to its own currency', async () => {
    const fake = fakeServices(report({ currency: 'EUR' }));
    renderWithProviders(<ReportPageLoader secret={'S'.repeat(32)} currency="EUR" services={fake.services} channels={noChannels} now={now} />, { user: fullAccessUser });
    expect(await screen.findByText('Shown in EUR')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Show it in the report’s own currency' })).toHaveAttribute('href', `/reports/${report().secret}`);
    expect(screen.queryByRole('button', { name: 'Recalculate' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Report currency' })).not.toBeInTheDocument();
    expect(await screen.findByRole('combobox', { name: 'Currency shown' })).toHaveValue('EUR');
  });

  it('keeps the failure message for a server that fails (5xx)', async () => {
    const fake = fakeServices(report(), { fetchReport: vi.fn(async () => Promise.reject(new ReportCallError('Uh :( we failed to fetch report', 503))) });
    renderPage(fake.services);
    expect(await screen.findByRole('alert')).toHaveTextContent('Uh :( we failed to fetch report');
    expect(screen.queryByRole('heading', { name: 'Report not found' })).not.toBeInTheDocument();
  });

  it("patches the cached report with a section's live update: the new section shows without reading the report again", async () => {
    const fake = fakeServices(report());
    const { queryClient } = renderPage(fake.services);
    expect(await screen.findByRole('region', { name: 'MRR' })).toBeInTheDocument();
    const reads = fake.spies.fetchReport.mock.calls.length;

    fake.push({ object: 'business_report_section', report_id: 'rep1', section: { ...report().sections[0]!, title: 'Monthly recurring revenue' } });

    expect(await screen.findByRole('region', { name: 'Monthly recurring revenue' })).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Contents' })).getByRole('link', { name: 'Monthly recurring revenue' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'MRR' })).not.toBeInTheDocument();
    expect(queryClient.getQueryData<ReportView>(reportKey('S'.repeat(32)))?.sections[0]?.title).toBe('Monthly recurring revenue');
    expect(fake.spies.fetchReport.mock.calls.length).toBe(reads);
  });

  it('prompts to import when the account has no finance data, linking to Settings', async () => {
    const fake = fakeServices(report(), { hasFinanceData: vi.fn(async () => false) });
    renderPage(fake.services);
    expect(await screen.findByText('Import your data')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
  });

  it('shows a stale report with the callout; Refresh recalculates it, with a spinner on each section until its update arrives', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report({ freshness_status: 'stale' }));
    renderPage(fake.services);
    const callout = await screen.findByRole('status', { name: 'Data may be outdated' });
    expect(screen.getByText('Outdated')).toBeInTheDocument();
    await user.click(within(callout).getByRole('button', { name: 'Refresh' }));
    expect(fake.spies.refresh).toHaveBeenCalledWith('rep1');
    expect(await screen.findByRole('status', { name: 'Recalculating' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Recalculate' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Report range' })).toBeDisabled();
    expect(screen.getByLabelText('Recalculating MRR')).toBeInTheDocument();

    // The section's update, then the report's: the spinner stops, the report is read again.
    fake.push({ object: 'business_report_section', report_id: 'rep1', section: { ...report().sections[0]!, recalculation_status: 'recalculated' } });
    await waitFor(() => expect(screen.queryByLabelText('Recalculating MRR')).not.toBeInTheDocument());
    fake.setReport(report({ freshness_status: 'fresh', refreshed_at: '2026-03-02T09:00:00.000Z' }));
    const readsBefore = fake.spies.fetchReport.mock.calls.length;
    fake.push({ object: 'business_report', id: 'rep1', recalculation_status: 'recalculated', freshness_status: 'fresh', refreshed_at: '2026-03-02T09:00:00.000Z' });
    expect(await screen.findByText('Up to date')).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Data may be outdated' })).not.toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Recalculating' })).not.toBeInTheDocument();
    expect(fake.spies.fetchReport.mock.calls.length).toBeGreaterThan(readsBefore);
  });

  it('shows when the live connection is down, and reads the report again once it is back', async () => {
    const fake = fakeServices(report());
    renderPage(fake.services);
    expect(await screen.findByText('Connecting')).toBeInTheDocument();
    await fake.connected();
    expect(screen.queryByText('Connecting')).not.toBeInTheDocument();
    const reads = fake.spies.fetchReport.mock.calls.length;
    await fake.lost();
    expect(screen.getByText('Offline')).toBeInTheDocument();
    fake.setReport(report({ title: 'Changed while offline' }));
    await fake.connected();
    expect(await screen.findByRole('heading', { level: 1, name: 'Changed while offline' })).toBeInTheDocument();
    expect(fake.spies.fetchReport.mock.calls.length).toBe(reads + 1);
    expect(screen.queryByText('Offline')).not.toBeInTheDocument();
  });

  it('keeps a stale report stale, with the spec’s toast, when the refresh fails', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report({ freshness_status: 'stale' }), { refresh: vi.fn(async () => Promise.reject(new Error('500'))) });
    renderPage(fake.services);
    await user.click(within(await screen.findByRole('status', { name: 'Data may be outdated' })).getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Something went wrong and we could not refresh the report')).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Data may be outdated' })).toBeInTheDocument();
  });

  it('gives a viewer who may not edit no editing control, and the stale callout no Refresh', async () => {
    const fake = fakeServices(report({ can_edit: false, freshness_status: 'stale' }));
    renderPage(fake.services);
    const callout = await screen.findByRole('status', { name: 'Data may be outdated' });
    expect(within(callout).queryByRole('button', { name: 'Refresh' })).not.toBeInTheDocument();
    for (const name of ['Recalculate', 'Report range', 'Report settings', 'Edit title', 'Edit summary', 'Add chart', 'Share']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    expect(screen.queryByRole('combobox', { name: 'Report currency' })).not.toBeInTheDocument();
    expect(fake.spies.watch).not.toHaveBeenCalled();
    // Only the account's users may ask whether it has data (an anonymous visitor would get a 401).
    expect(fake.spies.hasFinanceData).not.toHaveBeenCalled();
  });

  it('shows the public demo read only, and keeps the visitor’s title and summary in this browser without a server call', async () => {
    localStorage.clear();
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report({ can_edit: false }));
    const demoPage = () => renderWithProviders(<ReportPageLoader secret={'D'.repeat(32)} variant="demo" services={fake.services} channels={noChannels} now={now} />);
    const { unmount } = demoPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'Board, March' })).toBeInTheDocument();
    expect(fake.spies.fetchDemoReport).toHaveBeenCalledWith('D'.repeat(32), expect.any(AbortSignal));
    expect(fake.spies.fetchReport).not.toHaveBeenCalled();
    expect(screen.getByText('A demo report')).toBeInTheDocument();
    for (const name of ['Recalculate', 'Report range', 'Report settings', 'Add chart', 'Share']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    expect(screen.queryByRole('combobox', { name: 'Report currency' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Edit title' }));
    await user.clear(screen.getByRole('textbox', { name: 'Title' }));
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'My demo{Enter}');
    expect(await screen.findByRole('heading', { level: 1, name: 'My demo' })).toBeInTheDocument();
    expect(fake.spies.updateReport).not.toHaveBeenCalled();
    expect(fake.spies.watch).not.toHaveBeenCalled();
    expect(fake.spies.hasFinanceData).not.toHaveBeenCalled();

    // Back later in the same browser: the edit is still there.
    unmount();
    demoPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'My demo' })).toBeInTheDocument();
    expect(screen.getByText('Growth is back.')).toBeInTheDocument();
    localStorage.clear();
  });

  it('edits the title in place, and keeps what was typed when saving fails', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report());
    renderPage(fake.services);
    await user.click(await screen.findByRole('button', { name: 'Edit title' }));
    const field = screen.getByRole('textbox', { name: 'Title' });
    await user.clear(field);
    await user.type(field, 'Board, April{Enter}');
    expect(fake.spies.updateReport).toHaveBeenCalledWith('rep1', { title: 'Board, April' }, 'Something went wrong and we could not update report');
    expect(await screen.findByRole('heading', { level: 1, name: 'Board, April' })).toBeInTheDocument();

    fake.spies.updateReport.mockRejectedValueOnce(new Error('Something went wrong and we could not update report'));
    await user.click(screen.getByRole('button', { name: 'Edit title' }));
    await user.clear(screen.getByRole('textbox', { name: 'Title' }));
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Lost?{Enter}');
    expect(await screen.findByText('Something went wrong and we could not update report')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('Lost?');
  });

  it('adds and removes tags (the reports list filters by them), and keeps a tag that could not be saved in its field', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report());
    renderPage(fake.services);
    const tags = await screen.findByRole('group', { name: 'Tags' });
    await user.click(within(tags).getByRole('button', { name: 'Add tag' }));
    await user.type(within(tags).getByRole('textbox', { name: 'New tag' }), 'investors{Enter}');
    expect(fake.spies.updateReport).toHaveBeenLastCalledWith('rep1', { tags: ['board', 'investors'] }, 'Something went wrong and we could not update report');
    expect(await within(tags).findByText('investors')).toBeInTheDocument();
    expect(within(tags).queryByRole('textbox', { name: 'New tag' })).not.toBeInTheDocument();

    await user.click(within(tags).getByRole('button', { name: 'Remove tag board' }));
    expect(fake.spies.updateReport).toHaveBeenLastCalledWith('rep1', { tags: ['investors'] }, 'Something went wrong and we could not update report');
    await waitFor(() => expect(within(tags).queryByText('board')).not.toBeInTheDocument());

    fake.spies.updateReport.mockRejectedValueOnce(new Error('Something went wrong and we could not update report'));
    await user.click(within(tags).getByRole('button', { name: 'Add tag' }));
    await user.type(within(tags).getByRole('textbox', { name: 'New tag' }), 'q3{Enter}');
    expect(await screen.findByText('Something went wrong and we could not update report')).toBeInTheDocument();
    expect(within(tags).getByRole('textbox', { name: 'New tag' })).toHaveValue('q3');
    expect(within(tags).queryByText('q3', { selector: '.mantine-Badge-label' })).not.toBeInTheDocument();
  });

  it('checks the range as it is picked and saves a valid one; a refused save keeps the picker open with the spec’s toast', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report());
    renderPage(fake.services);
    await user.click(await screen.findByRole('button', { name: 'Report range' }));
    const picker = await screen.findByRole('dialog', { name: 'Report range' });
    const pick = async (label: string, option: string) => {
      await user.click(within(picker).getByRole('combobox', { name: label }));
      await user.click(within(picker).getByRole('option', { name: option }));
    };
    await pick('To year', '2027');
    expect(within(picker).getByRole('alert')).toHaveTextContent('Can not extend range beyound current date.');
    expect(within(picker).getByRole('button', { name: 'Apply' })).toBeDisabled();
    await pick('To year', '2025');
    await pick('To month', 'Dec');
    expect(within(picker).queryByRole('alert')).not.toBeInTheDocument();

    fake.spies.updateReport.mockRejectedValueOnce(new Error("Could not update your report's range"));
    await user.click(within(picker).getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText("Could not update your report's range")).toBeInTheDocument();
    expect(within(picker).getByRole('combobox', { name: 'To month' })).toHaveValue('Dec');

    await user.click(within(picker).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Report range' })).toHaveTextContent('Apr 2025 – Dec 2025'));
    expect(fake.spies.updateReport).toHaveBeenLastCalledWith('rep1', { period: { start_year: 2025, start_month: 4, end_year: 2025, end_month: 12 } }, "Could not update your report's range");
    // The server recalculates a new range.
    expect(await screen.findByRole('status', { name: 'Recalculating' })).toBeInTheDocument();
  });

  it('saves a setting when it is flipped, and says so when it cannot', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report());
    renderPage(fake.services);
    await user.click(await screen.findByRole('button', { name: 'Report settings' }));
    await user.click(await screen.findByRole('switch', { name: 'Display quarters' }));
    expect(fake.spies.updateSettings).toHaveBeenCalledWith('rep1', { display_quarters: true }, 'Sorry, could not update the setting. Please try again.');
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Display quarters' })).toBeChecked());

    fake.spies.updateSettings.mockRejectedValueOnce(new Error('500'));
    await user.click(screen.getByRole('switch', { name: /^Repeatable/ }));
    expect(await screen.findByText('Sorry, could not update the setting. Please try again.')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: /^Repeatable/ })).toBeChecked();
  });

  it('switches the currency (then the report recalculates), and says so when it cannot', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(report());
    renderPage(fake.services);
    const currency = await screen.findByRole('combobox', { name: 'Report currency' });
    fake.spies.updateSettings.mockRejectedValueOnce(new Error('500'));
    await user.click(currency);
    await user.click(await screen.findByRole('option', { name: 'EUR' }));
    expect(await screen.findByText('We could not update your report currency, please try again')).toBeInTheDocument();
    expect(currency).toHaveValue('USD');

    await user.click(currency);
    await user.click(await screen.findByRole('option', { name: 'PLN' }));
    expect(fake.spies.updateSettings).toHaveBeenLastCalledWith('rep1', { currency: 'PLN' }, 'We could not update your report currency, please try again');
    expect(await screen.findByRole('status', { name: 'Recalculating' })).toBeInTheDocument();
    expect(currency).toHaveValue('PLN');
  });
});
