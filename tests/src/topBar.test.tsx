import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { TopBar } from '../../src/components/TopBar';
import { REDIRECT_AFTER_SIGN_IN_KEY } from '../../src/session/redirectAfterSignIn';
import type { AuthUser } from '../../models/auth';
import { defaultFakeApi, fullAccessUser, renderApp, renderWithProviders } from './renderApp';

const navLabels = ['Reports', 'Customers', 'Payments', 'Costs'];

function mainNav() {
  return within(screen.getByRole('navigation', { name: 'Main' }));
}

describe('top bar for a signed-in user', () => {
  it('shows Reports, Customers, Payments, Costs and Create new report', async () => {
    renderApp({ path: '/customers', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Customers' });

    const nav = mainNav();
    expect(nav.getByRole('link', { name: 'Reports' })).toHaveAttribute('href', '/');
    expect(nav.getByRole('link', { name: 'Customers' })).toHaveAttribute('href', '/customers');
    expect(nav.getByRole('link', { name: 'Payments' })).toHaveAttribute('href', '/payments');
    expect(nav.getByRole('link', { name: 'Costs' })).toHaveAttribute('href', '/costs');
    expect(screen.getByRole('link', { name: 'Create new report' })).toHaveAttribute('href', '/reports/library');
    expect(screen.queryByRole('link', { name: 'Sign in' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Import rejected invoices' })).not.toBeInTheDocument();
  });

  it('highlights the link of the open page, also on a sub-path', async () => {
    renderApp({ path: '/customers/42', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1 });

    expect(mainNav().getByRole('link', { name: 'Customers' })).toHaveAttribute('aria-current', 'page');
    for (const label of ['Reports', 'Payments', 'Costs']) {
      expect(mainNav().getByRole('link', { name: label })).not.toHaveAttribute('aria-current');
    }
  });

  it('styles the active item without changing its width: the same font weight as the others', async () => {
    const { location } = renderApp({ path: '/customers', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Customers' });
    const weights = () => navLabels.map((label) => getComputedStyle(mainNav().getByRole('link', { name: label })).fontWeight);
    const onCustomers = weights();
    expect(new Set(onCustomers).size).toBe(1);
    location.navigate('/payments');
    await screen.findByRole('heading', { level: 1, name: 'Payments' });
    expect(weights()).toEqual(onCustomers);
  });

  it('counts /subscriptions as Payments and a report as Reports', async () => {
    const { location } = renderApp({ path: '/subscriptions', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Payments' });
    expect(mainNav().getByRole('link', { name: 'Payments' })).toHaveAttribute('aria-current', 'page');

    location.navigate('/reports/abc');
    // The fake API has no such report: its page says so.
    await screen.findByRole('heading', { level: 1, name: 'Report not found' });
    expect(mainNav().getByRole('link', { name: 'Reports' })).toHaveAttribute('aria-current', 'page');
  });

  it('navigates with its links without reloading the page', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderApp({ path: '/', user: fullAccessUser });
    await screen.findByRole('heading', { level: 1, name: 'Reports' });

    await user.click(mainNav().getByRole('link', { name: 'Costs' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Costs' })).toBeInTheDocument();
    expect(location.history?.at(-1)).toBe('/costs');
  });

  it("shows 'Import rejected invoices' when rejected items exist", () => {
    renderWithProviders(<TopBar hasRejectedInvoices />, { user: fullAccessUser });
    expect(mainNav().getByRole('link', { name: 'Import rejected invoices' })).toHaveAttribute('href', '/invoices');
  });

  it('has a user menu with Getting started, Settings and Sign out', async () => {
    const user = userEvent.setup({ delay: null });
    renderWithProviders(<TopBar />, { user: fullAccessUser });

    await user.click(screen.getByRole('button', { name: 'User menu' }));

    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByRole('menuitem', { name: 'Getting started' })).toHaveAttribute('href', '/getting-started');
    expect(screen.getByRole('menuitem', { name: 'Settings' })).toHaveAttribute('href', '/settings');
    expect(screen.getByRole('menuitem', { name: 'Sign out' })).toBeInTheDocument();
  });

  it('signs out through the auth machine: DELETE /users/sign_out, the token and the stored import forgotten, /sign_in', async () => {
    const user = userEvent.setup({ delay: null });
    window.localStorage.setItem('subscope.token', 'jwt');
    window.localStorage.setItem('subscope.csvImport.importId', 'impAbc');
    const api = defaultFakeApi();
    api.on('DELETE /users/sign_out', () => ({ status: 204 }));
    const { location } = renderWithProviders(<TopBar />, { user: fullAccessUser, api });

    await user.click(screen.getByRole('button', { name: 'User menu' }));
    await user.click(screen.getByRole('menuitem', { name: 'Sign out' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/sign_in'));
    expect(api.requestsTo('DELETE /users/sign_out')[0]?.headers.get('Authorization')).toBe('Bearer jwt');
    expect(window.localStorage.getItem('subscope.token')).toBeNull();
    expect(window.localStorage.getItem('subscope.csvImport.importId')).toBeNull();
    expect(screen.getByRole('link', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('gives a shared-report-only user no navigation, report creation or settings', async () => {
    const user = userEvent.setup({ delay: null });
    const restricted: AuthUser = { ...fullAccessUser, permission_level: 'shared_report_only' };
    renderWithProviders(<TopBar />, { user: restricted });

    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create new report' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'User menu' }));
    expect(screen.queryByRole('menuitem', { name: 'Settings' })).not.toBeInTheDocument();
    expect(screen.getByRole('menuitem', { name: 'Sign out' })).toBeInTheDocument();
  });

  it('opens the navigation drawer from the burger on small screens', async () => {
    const user = userEvent.setup({ delay: null });
    renderWithProviders(<TopBar />, { user: fullAccessUser, path: '/costs' });

    await user.click(screen.getByRole('button', { name: 'Open navigation' }));

    const drawer = within(await screen.findByRole('dialog'));
    for (const label of navLabels) expect(drawer.getByRole('link', { name: label })).toBeInTheDocument();
    expect(drawer.getByRole('link', { name: 'Costs' })).toHaveAttribute('aria-current', 'page');
    expect(drawer.getByRole('link', { name: 'Create new report' })).toHaveAttribute('href', '/reports/library');
  });
});

describe('top bar for an anonymous visitor', () => {
  it("shows 'Sign in' and no navigation", async () => {
    renderApp({ path: '/reports/shared/abc' });
    await screen.findByRole('heading', { level: 1 });

    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign_in');
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Create new report' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'User menu' })).not.toBeInTheDocument();
  });

  it("stores the current path, with its query, when 'Sign in' is clicked and goes to /sign_in", async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderApp({ path: '/reports/shared/abc?currency=eur' });
    await screen.findByRole('heading', { level: 1 });

    await user.click(screen.getByRole('link', { name: 'Sign in' }));

    expect(window.localStorage.getItem(REDIRECT_AFTER_SIGN_IN_KEY)).toBe('/reports/shared/abc?currency=eur');
    expect(location.history?.at(-1)).toBe('/sign_in');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
  });
});

describe('colour scheme toggle', () => {
  it('switches to dark and remembers the choice', async () => {
    const user = userEvent.setup({ delay: null });
    renderWithProviders(<TopBar />);

    await user.click(screen.getByRole('button', { name: 'Switch to dark mode' }));

    expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'dark');
    expect(window.localStorage.getItem('subscope.colorScheme')).toBe('dark');
    expect(screen.getByRole('button', { name: 'Switch to light mode' })).toBeInTheDocument();
  });
});
