import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fullAccessUser, renderApp, sharedReportOnlyUser } from '../renderApp';

describe('/getting-started', () => {
  it('offers exactly Stripe, Chargebee and HubSpot to connect, each leading to Settings', async () => {
    renderApp({ path: '/getting-started', user: fullAccessUser });

    const integrations = within(await screen.findByRole('list', { name: 'Integrations' }));
    const links = integrations.getAllByRole('link');
    expect(links.map((link) => link.getAttribute('aria-label'))).toEqual(['Connect Stripe', 'Connect Chargebee', 'Connect HubSpot']);
    for (const link of links) expect(link).toHaveAttribute('href', '/settings');
  });

  it('walks through the demo report, connecting data, creating a report and segmentation, with help by e-mail', async () => {
    renderApp({ path: '/getting-started', user: fullAccessUser });

    const steps = within(await screen.findByRole('list', { name: 'Steps' }));
    expect(steps.getAllByRole('listitem', { name: /^Step \d/ }).map((step) => step.getAttribute('aria-label'))).toEqual([
      'Step 1: Explore the demo report',
      'Step 2: Connect your data',
      'Step 3: Create your report',
      'Step 4: Segment your customers',
    ]);
    expect(screen.getByRole('link', { name: 'Open the demo report' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('link', { name: 'Create a report' })).toHaveAttribute('href', '/reports/library');
    expect(screen.getByLabelText('Video: Segment your customers')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Watch the intro' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'help@subscope.dev' })).toHaveAttribute('href', 'mailto:help@subscope.dev');
  });

  it('loads nothing from other sites (video placeholders only)', async () => {
    const { container } = renderApp({ path: '/getting-started', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Getting started' });

    expect(container.querySelectorAll('iframe, video, img[src^="http"]')).toHaveLength(0);
  });

  it('leaves out connecting data and creating reports for a shared_report_only user', async () => {
    renderApp({ path: '/getting-started', user: sharedReportOnlyUser });

    await screen.findByRole('heading', { level: 1, name: 'Getting started' });
    expect(screen.queryByRole('list', { name: 'Integrations' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create a report' })).not.toBeInTheDocument();
  });
});
