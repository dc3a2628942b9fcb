import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { defaultFakeApi, fullAccessUser, renderApp, sharedReportOnlyUser } from '../renderApp';
import { apiErrors, type FakeAnswer } from '../support/fakeApi';

const DEMO_SECRET = 'D'.repeat(32);

/** The fake API of a server whose public demo report answers `demo` at GET /demo/report. */
function apiWithDemo(demo: FakeAnswer = { status: 200, body: { secret: DEMO_SECRET, title: '2026-03 business overview' } }, user = fullAccessUser) {
  const api = defaultFakeApi(user);
  api.on('GET /demo/report', () => demo);
  return api;
}

describe('/getting-started', () => {
  it('offers Stripe, Chargebee and HubSpot as coming soon, with no link, and the CSV import that exists', async () => {
    renderApp({ path: '/getting-started', user: fullAccessUser, api: apiWithDemo() });

    const integrations = within(await screen.findByRole('list', { name: 'Integrations' }));
    const cards = integrations.getAllByRole('listitem');
    expect(cards.map((card) => card.getAttribute('aria-label'))).toEqual(['Stripe: coming soon', 'Chargebee: coming soon', 'HubSpot: coming soon']);
    for (const card of cards) expect(within(card).getByText('Coming soon')).toBeInTheDocument();
    expect(integrations.queryAllByRole('link')).toHaveLength(0);
    expect(screen.getByRole('link', { name: 'Import payments from CSV' })).toHaveAttribute('href', '/import-subscriptions');
  });

  it('walks through the demo report, connecting data, creating a report and segmentation, with help by e-mail', async () => {
    renderApp({ path: '/getting-started', user: fullAccessUser, api: apiWithDemo() });

    const steps = within(await screen.findByRole('list', { name: 'Steps' }));
    expect(steps.getAllByRole('listitem', { name: /^Step \d/ }).map((step) => step.getAttribute('aria-label'))).toEqual([
      'Step 1: Explore the demo report',
      'Step 2: Connect your data',
      'Step 3: Create your report',
      'Step 4: Segment your customers',
    ]);
    expect(screen.getByRole('link', { name: 'Create a report' })).toHaveAttribute('href', '/reports/library');
    expect(screen.getByLabelText('Video: Segment your customers')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Watch the intro' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'help@subscope.dev' })).toHaveAttribute('href', 'mailto:help@subscope.dev');
  });

  it('opens the public demo report, a real report with demo data, not the new account’s empty list', async () => {
    const user = userEvent.setup({ delay: null });
    const api = apiWithDemo();
    const { location } = renderApp({ path: '/getting-started', user: fullAccessUser, api });
    const open = await screen.findByRole('link', { name: 'Open the demo report' });
    expect(open).toHaveAttribute('href', `/demo/${DEMO_SECRET}`);
    await user.click(open);
    expect(location.history?.at(-1)).toBe(`/demo/${DEMO_SECRET}`);
  });

  it('says so when the server has no demo report', async () => {
    renderApp({ path: '/getting-started', user: fullAccessUser, api: apiWithDemo(apiErrors(404, { detail: 'There is no demo report on this server' })) });
    expect(await screen.findByText(/This server has no demo report/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Open the demo report' })).not.toBeInTheDocument();
  });

  it('offers Try again when the demo report could not be asked for', async () => {
    const user = userEvent.setup({ delay: null });
    let answer: FakeAnswer = apiErrors(500, { detail: 'Something went wrong' });
    const api = defaultFakeApi(fullAccessUser);
    api.on('GET /demo/report', () => answer);
    renderApp({ path: '/getting-started', user: fullAccessUser, api });
    expect(await screen.findByText('We could not find the demo report.')).toBeInTheDocument();
    answer = { status: 200, body: { secret: DEMO_SECRET, title: 'Demo' } };
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('link', { name: 'Open the demo report' })).toHaveAttribute('href', `/demo/${DEMO_SECRET}`);
  });

  it('loads nothing from other sites (video placeholders only)', async () => {
    const { container } = renderApp({ path: '/getting-started', user: fullAccessUser, api: apiWithDemo() });
    await screen.findByRole('heading', { level: 1, name: 'Getting started' });

    expect(container.querySelectorAll('iframe, video, img[src^="http"]')).toHaveLength(0);
  });

  it('leaves out connecting data and creating reports for a shared_report_only user', async () => {
    renderApp({ path: '/getting-started', user: sharedReportOnlyUser, api: apiWithDemo(undefined, sharedReportOnlyUser) });

    await screen.findByRole('heading', { level: 1, name: 'Getting started' });
    expect(screen.queryByRole('list', { name: 'Integrations' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create a report' })).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Open the demo report' })).toHaveAttribute('href', `/demo/${DEMO_SECRET}`);
  });
});
