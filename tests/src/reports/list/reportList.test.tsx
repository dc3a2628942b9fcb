import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { HELP_EMAIL } from '../../../../models/constants';
import { REPORT_REMOVE_FAILURE_MESSAGE, REPORTS_FETCH_FAILURE_MESSAGE } from '../../../../src/reports/list/messages';
import { REPORT_TAG_FILTER_STORAGE_KEY } from '../../../../src/reports/list/tagFilter';
import { fullAccessUser, renderApp, sharedReportOnlyUser } from '../../renderApp';
import { apiErrors } from '../../support/fakeApi';
import type { FakeApi } from '../../support/fakeApi';
import { boardPack, churnReview, investorUpdate, reportsApi } from './reportFixtures';

const LATEST = 'GET /business_reports/latest';

function renderReports(api: FakeApi = reportsApi()) {
  return renderApp({ path: '/', user: fullAccessUser, api });
}

/** The card of the report titled `title`. */
function card(title: string) {
  return within(screen.getByRole('article', { name: title }));
}

const cardTitles = () => screen.getAllByRole('article').map((article) => within(article).getByRole('heading', { level: 2 }).textContent);

describe('the reports list at /', () => {
  it('shows a card per report: the title linking to the report, range, owner, summary, tags and state', async () => {
    renderReports();

    expect(await screen.findByRole('heading', { level: 1, name: 'Reports' })).toBeInTheDocument();
    await screen.findByRole('article', { name: 'March board pack' });
    expect(cardTitles()).toEqual(['March board pack', 'Churn review', 'Investor update']);

    const board = card('March board pack');
    expect(board.getByRole('link', { name: 'March board pack' })).toHaveAttribute('href', '/reports/s3cr3t-board');
    expect(board.getByText('Apr 2025 – Mar 2026')).toBeInTheDocument();
    expect(board.getByText('By Grace Hopper')).toBeInTheDocument();
    expect(board.getByText('MRR grew 4% on expansion; churn stayed under 2%.')).toBeInTheDocument();
    const tags = within(board.getByRole('list', { name: 'Tags' })).getAllByRole('listitem');
    expect(tags.map((tag) => tag.textContent)).toEqual(['board', 'monthly']);
    expect(board.getByText('Up to date')).toBeInTheDocument();

    const churn = card('Churn review');
    expect(churn.getByText('Jan 2025 – Dec 2025')).toBeInTheDocument();
    expect(churn.queryByText(/^By /)).not.toBeInTheDocument();
    expect(churn.getByText('Outdated')).toBeInTheDocument();

    expect(card('Investor update').getByText('Recalculating')).toBeInTheDocument();
  });

  it('shows skeletons while the list loads', async () => {
    const api = reportsApi();
    api.hold(LATEST);
    renderReports(api);

    expect(await screen.findByLabelText('Loading reports')).toBeInTheDocument();
    await waitFor(() => expect(api.waiting(LATEST)).toBeGreaterThan(0));
    api.release(LATEST, { status: 200, body: { items: [boardPack] } });
    expect(await screen.findByRole('article', { name: 'March board pack' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading reports')).not.toBeInTheDocument();
  });

  it('filters by tag and keeps the chosen tags after the page is opened again', async () => {
    const user = userEvent.setup({ delay: null });
    const first = renderReports();
    const filter = within(await screen.findByRole('group', { name: 'Filter by tag' }));
    expect(filter.getAllByRole('checkbox').map((chip) => chip.getAttribute('value'))).toEqual(['board', 'customer success', 'monthly']);

    await user.click(filter.getByRole('checkbox', { name: 'board' }));

    expect(cardTitles()).toEqual(['March board pack', 'Investor update']);
    expect(screen.getByText('Showing 2 of 3 reports')).toBeInTheDocument();
    expect(JSON.parse(window.localStorage.getItem(REPORT_TAG_FILTER_STORAGE_KEY) ?? '[]')).toEqual(['board']);

    first.unmount();
    renderReports();

    const again = within(await screen.findByRole('group', { name: 'Filter by tag' }));
    expect(again.getByRole('checkbox', { name: 'board' })).toBeChecked();
    expect(again.getByRole('checkbox', { name: 'monthly' })).not.toBeChecked();
    expect(cardTitles()).toEqual(['March board pack', 'Investor update']);

    await user.click(again.getByRole('checkbox', { name: 'customer success' }));
    expect(cardTitles()).toEqual(['March board pack', 'Churn review', 'Investor update']);

    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(again.getByRole('checkbox', { name: 'board' })).not.toBeChecked();
    expect(window.localStorage.getItem(REPORT_TAG_FILTER_STORAGE_KEY)).toBeNull();
  });

  it('ignores a stored tag that no report carries any more', async () => {
    window.localStorage.setItem(REPORT_TAG_FILTER_STORAGE_KEY, JSON.stringify(['archived']));
    renderReports();

    await screen.findByRole('article', { name: 'March board pack' });
    expect(cardTitles()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });

  it('offers delete only on reports the user can edit', async () => {
    renderReports();
    await screen.findByRole('article', { name: 'March board pack' });

    expect(card('March board pack').getByRole('button', { name: 'Delete report March board pack' })).toBeInTheDocument();
    expect(card('Investor update').getByRole('button', { name: 'Delete report Investor update' })).toBeInTheDocument();
    expect(card('Churn review').queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('deletes a report after confirmation and removes its card', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on('DELETE /business_reports/:id', () => ({ status: 204 }));
    renderReports(api);
    await screen.findByRole('article', { name: 'March board pack' });

    await user.click(card('March board pack').getByRole('button', { name: 'Delete report March board pack' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete report' }));
    expect(dialog.getByText(/Delete “March board pack”\?/)).toBeInTheDocument();
    expect(api.requestsTo('DELETE /business_reports/rep_board')).toHaveLength(0);
    await user.click(dialog.getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByRole('article', { name: 'March board pack' })).not.toBeInTheDocument());
    expect(api.requestsTo('DELETE /business_reports/rep_board')).toHaveLength(1);
    expect(cardTitles()).toEqual(['Churn review', 'Investor update']);
    expect(screen.getByText('Operation succeeded')).toBeInTheDocument();
  });

  it('keeps the report when the user cancels', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    renderReports(api);
    await screen.findByRole('article', { name: 'March board pack' });

    await user.click(card('March board pack').getByRole('button', { name: 'Delete report March board pack' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete report' })).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete report' })).not.toBeInTheDocument());
    expect(api.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
    expect(cardTitles()).toHaveLength(3);
  });

  it(`toasts '${REPORT_REMOVE_FAILURE_MESSAGE}' when the delete fails, and keeps the card`, async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on('DELETE /business_reports/:id', () => apiErrors(403, { detail: 'You are not allowed to edit this report' }));
    renderReports(api);
    await screen.findByRole('article', { name: 'March board pack' });

    await user.click(card('March board pack').getByRole('button', { name: 'Delete report March board pack' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete report' })).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText(REPORT_REMOVE_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(api.requestsTo('DELETE /business_reports/rep_board')).toHaveLength(1);
    expect(cardTitles()).toEqual(['March board pack', 'Churn review', 'Investor update']);
    await waitFor(() =>
      expect(card('March board pack').getByRole('button', { name: 'Delete report March board pack' })).toBeEnabled(),
    );
  });

  it(`shows '${REPORTS_FETCH_FAILURE_MESSAGE}' with a get-in-touch link when the list cannot be fetched`, async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on(LATEST, () => ({ status: 500 }));
    renderReports(api);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(REPORTS_FETCH_FAILURE_MESSAGE);
    expect(within(alert).getByRole('link', { name: 'get in touch' })).toHaveAttribute('href', `mailto:${HELP_EMAIL}`);
    expect(screen.getByRole('heading', { level: 1, name: 'Reports' })).toBeInTheDocument();
    expect(screen.queryByRole('article')).not.toBeInTheDocument();

    api.on(LATEST, () => ({ status: 200, body: { items: [boardPack] } }));
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));

    expect(await screen.findByRole('article', { name: 'March board pack' })).toBeInTheDocument();
    expect(screen.queryByText(REPORTS_FETCH_FAILURE_MESSAGE)).not.toBeInTheDocument();
  });

  it('shows the first steps, leading to the report library, when the account has no report', async () => {
    renderReports(reportsApi([]));

    expect(await screen.findByRole('heading', { level: 2, name: 'No reports yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Browse templates' })).toHaveAttribute('href', '/reports/library');
    expect(screen.getByRole('link', { name: 'Import payments' })).toHaveAttribute('href', '/import-subscriptions');
    expect(screen.queryByRole('group', { name: 'Filter by tag' })).not.toBeInTheDocument();
  });

  it('shows the first steps once the last report is deleted', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi([investorUpdate]);
    api.on('DELETE /business_reports/:id', () => ({ status: 204 }));
    renderReports(api);

    await user.click(await screen.findByRole('button', { name: 'Delete report Investor update' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete report' })).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByRole('heading', { level: 2, name: 'No reports yet' })).toBeInTheDocument();
  });

  it('shows a shared_report_only user only that reports open through their share URL', async () => {
    const api = reportsApi();
    renderApp({ path: '/', user: sharedReportOnlyUser, api });

    expect(await screen.findByText('Reports are accessible via their share URL')).toBeInTheDocument();
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Loading reports')).not.toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Filter by tag' })).not.toBeInTheDocument();
    expect(api.requestsTo(LATEST)).toHaveLength(0);
  });

  it('shows no delete button when the filter leaves only reports the user cannot edit', async () => {
    const user = userEvent.setup({ delay: null });
    renderReports();
    await user.click(within(await screen.findByRole('group', { name: 'Filter by tag' })).getByRole('checkbox', { name: 'customer success' }));

    expect(cardTitles()).toEqual([churnReview.title]);
    expect(screen.queryByRole('button', { name: /Delete report/ })).not.toBeInTheDocument();
  });
});
