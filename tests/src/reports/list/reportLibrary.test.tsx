import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPORT_ADD_FAILURE_MESSAGE, TEMPLATES_FETCH_FAILURE_MESSAGE } from '../../../../src/reports/list/messages';
import { fullAccessUser, renderApp } from '../../renderApp';
import { apiErrors } from '../../support/fakeApi';
import type { FakeApi } from '../../support/fakeApi';
import { reportsApi } from './reportFixtures';

const CREATE = 'POST /business_reports';
const TEMPLATES = 'GET /business_report/templates';

function renderLibrary(api: FakeApi = reportsApi()) {
  return renderApp({ path: '/reports/library', user: fullAccessUser, api });
}

const choice = (name: string) => within(screen.getByRole('article', { name }));

beforeEach(() => {
  // Only the clock's date: a new report is named after the current month.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-03-15T12:00:00Z'));
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the report library at /reports/library', () => {
  it("offers a blank report and the server's templates, each with the title the report gets", async () => {
    renderLibrary();

    expect(await screen.findByRole('heading', { level: 1, name: 'Create new report' })).toBeInTheDocument();
    await screen.findByRole('article', { name: 'Business overview' });
    const names = screen.getAllByRole('article').map((article) => within(article).getByRole('heading', { level: 2 }).textContent);
    expect(names).toEqual(['Blank report', 'Business overview', 'Customer success overview']);

    expect(choice('Blank report').getByText('Named “2026-03 business report”; rename it on the report.')).toBeInTheDocument();
    expect(choice('Blank report').getByText('No charts')).toBeInTheDocument();
    expect(choice('Business overview').getByText('MRR and where it moved, customers won and lost.')).toBeInTheDocument();
    expect(choice('Business overview').getByText('3 charts')).toBeInTheDocument();
    expect(choice('Business overview').getByText(/“2026-03 business overview”/)).toBeInTheDocument();
    expect(choice('Customer success overview').getByText(/“2026-03 customer success overview”/)).toBeInTheDocument();
  });

  it('creates a report from a template and opens it', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on(CREATE, () => ({ status: 201, body: { id: 'rep_new', secret: 'n3w-s3cr3t' } }));
    const { location } = renderLibrary(api);

    await user.click(await screen.findByRole('button', { name: 'Create report from Business overview' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/n3w-s3cr3t'));
    expect(api.requestsTo(CREATE).map((request) => request.body)).toEqual([
      {
        title: '2026-03 business overview',
        sections: [{ definition_id: 'mrr' }, { definition_id: 'mrr_movements' }, { definition_id: 'customers' }],
      },
    ]);
  });

  it('creates a blank report without sections', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on(CREATE, () => ({ status: 201, body: { id: 'rep_blank', secret: 'bl4nk' } }));
    const { location } = renderLibrary(api);

    await user.click(await screen.findByRole('button', { name: 'Create blank report' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/bl4nk'));
    expect(api.requestsTo(CREATE)[0]?.body).toEqual({ title: '2026-03 business report', sections: [] });
  });

  it('shows the chosen button loading, and the others disabled, while the report is created', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.hold(CREATE);
    const { location } = renderLibrary(api);

    const button = await screen.findByRole('button', { name: 'Create report from Customer success overview' });
    await user.click(button);

    await waitFor(() => expect(api.waiting(CREATE)).toBe(1));
    expect(button).toHaveAttribute('data-loading');
    expect(screen.getByRole('button', { name: 'Create blank report' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Create report from Business overview' })).toBeDisabled();

    api.release(CREATE, { status: 201, body: { id: 'rep_cs', secret: 'cs-s3cr3t' } });
    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/cs-s3cr3t'));
    expect(api.requestsTo(CREATE)).toHaveLength(1);
  });

  it(`toasts '${REPORT_ADD_FAILURE_MESSAGE}' when the report cannot be created, and stays usable`, async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    api.on(CREATE, () => apiErrors(422, { pointer: '/sections/0/definition_id', detail: 'is not a known section' }));
    const { location } = renderLibrary(api);

    const button = await screen.findByRole('button', { name: 'Create report from Business overview' });
    await user.click(button);

    expect(await screen.findByText(REPORT_ADD_FAILURE_MESSAGE)).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/reports/library');
    await waitFor(() => expect(button).toBeEnabled());
    expect(button).not.toHaveAttribute('data-loading');
    expect(screen.getByRole('button', { name: 'Create blank report' })).toBeEnabled();

    api.on(CREATE, () => ({ status: 201, body: { id: 'rep_retry', secret: 'r3try' } }));
    await user.click(screen.getByRole('button', { name: 'Create blank report' }));
    await waitFor(() => expect(location.history?.at(-1)).toBe('/reports/r3try'));
  });

  it('shows the templates loading, and keeps the blank report while they load', async () => {
    const api = reportsApi();
    api.hold(TEMPLATES);
    renderLibrary(api);

    expect(await screen.findAllByLabelText('Loading templates')).not.toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Create blank report' })).toBeEnabled();
  });

  it('still offers the blank report when the templates cannot be fetched, and retries', async () => {
    const user = userEvent.setup({ delay: null });
    const api = reportsApi();
    const templatesAnswer = { status: 200, body: { items: [] as unknown[] } };
    api.on(TEMPLATES, () => ({ status: 500 }));
    renderLibrary(api);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(TEMPLATES_FETCH_FAILURE_MESSAGE);
    expect(screen.getByRole('button', { name: 'Create blank report' })).toBeEnabled();

    api.on(TEMPLATES, () => templatesAnswer);
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.queryByText(TEMPLATES_FETCH_FAILURE_MESSAGE)).not.toBeInTheDocument());
    expect(screen.getAllByRole('article')).toHaveLength(1);
  });

  it('is reached from the empty reports list', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderApp({ path: '/', user: fullAccessUser, api: reportsApi([]) });

    await user.click(await screen.findByRole('link', { name: 'Browse templates' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Create new report' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/reports/library');
  });
});
