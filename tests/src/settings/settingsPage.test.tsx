import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fullAccessUser, renderApp, sharedReportOnlyUser } from '../renderApp';
import { currentPlan, plans, settingsServer } from './settingsFixtures';

/** The Settings page's sections and the Plan section, against a fake API. */

vi.mock('../../../src/settings/segmentation/SegmentationSection', () => ({ SegmentationSection: () => <p>Segmentation list</p> }));

describe('Settings page', () => {
  it('has the sections Account, Plan, Data sources, Custom attributes, Segmentation and Users, in this order', async () => {
    renderApp({ path: '/settings', user: fullAccessUser, api: settingsServer().api });
    await screen.findByRole('heading', { level: 1, name: 'Settings' });

    const sections = (await screen.findAllByRole('heading', { level: 2 })).map((heading) => heading.textContent);
    expect(sections).toEqual(['Account', 'Plan', 'Data sources', 'Custom attributes', 'Segmentation', 'Users']);
    expect(within(screen.getByRole('region', { name: 'Segmentation' })).getByText('Segmentation list')).toBeInTheDocument();
    const dataSources = within(screen.getByRole('region', { name: 'Data sources' }));
    expect(dataSources.getByRole('heading', { name: 'Import CSV' })).toBeInTheDocument();
    expect(dataSources.getByRole('heading', { name: 'API' })).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Users' })).getByRole('link', { name: 'Manage users' })).toHaveAttribute('href', '/users');
    expect(screen.queryByText(/coming soon/i)).not.toBeInTheDocument();
  });

  it('shows no settings to a user without full access', async () => {
    renderApp({ path: '/settings', user: sharedReportOnlyUser, api: settingsServer().api });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Account' })).not.toBeInTheDocument());
  });
});

describe('Settings: the Plan section', () => {
  it('shows the current plan, its limits with the usage as progress bars, and the other plans', async () => {
    const server = settingsServer();
    server.api.hold('GET /plans');
    renderApp({ path: '/settings', user: fullAccessUser, api: server.api });
    const section = within(await screen.findByRole('region', { name: 'Plan' }));
    expect(section.getByLabelText('Loading your plan')).toBeInTheDocument();
    server.api.release('GET /plans', { status: 200, body: { items: plans, current_plan_id: currentPlan.id } });

    const current = within(await section.findByLabelText('Current plan'));
    expect(current.getByRole('heading', { name: 'Growth' })).toBeInTheDocument();
    expect(current.getByText('$49 / month')).toBeInTheDocument();
    expect(current.getByRole('progressbar', { name: 'Customers: 850 of 1,000' })).toHaveAttribute('aria-valuenow', '85');
    expect(current.getByRole('progressbar', { name: 'Users: 2 of 5' })).toHaveAttribute('aria-valuenow', '40');
    expect(current.getByRole('progressbar', { name: 'Integrations: 0 of 3' })).toBeInTheDocument();

    const others = within(section.getByRole('list', { name: 'Other plans' }));
    expect(others.getByRole('listitem', { name: 'Starter' })).toHaveTextContent('Free');
    expect(others.getByRole('listitem', { name: 'Starter' })).toHaveTextContent('Up to 100 customers · Up to 2 users · Up to 1 integration');
    expect(others.getByRole('listitem', { name: 'Scale' })).toHaveTextContent('$199 / month');
    expect(others.getByRole('listitem', { name: 'Scale' })).toHaveTextContent('Unlimited customers · Unlimited users · Unlimited integrations');
    expect(others.queryByRole('listitem', { name: 'Growth' })).not.toBeInTheDocument();
    expect(server.api.requestsTo(`GET /plans/${currentPlan.id}`)).toHaveLength(1);
  });

  it('says when the plan cannot be fetched', async () => {
    const server = settingsServer({ overrides: { 'GET /plans': () => ({ status: 500 }) } });
    renderApp({ path: '/settings', user: fullAccessUser, api: server.api });
    const section = within(await screen.findByRole('region', { name: 'Plan' }));
    expect(await section.findByText('We could not fetch your plan')).toBeInTheDocument();
    expect(section.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
