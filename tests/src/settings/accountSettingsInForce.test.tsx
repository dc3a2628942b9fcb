import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ACCOUNT_SETTINGS_FETCH_FAILURE } from '../../../models/accountSettings';
import { SettingsPopover } from '../../../src/reports/page/SettingsPopover';
import type { ReportSettings } from '../../../src/reports/page/reportApi';
import { fullAccessUser, renderWithProviders } from '../renderApp';
import { savedSettings, settingsServer } from './settingsFixtures';

/** The report's settings popover shows editors the account settings a number is calculated with. */

const reportSettings: ReportSettings = {
  repeatable: false,
  auto_refresh: false,
  display_quarters: false,
  subtract_forever_discount_from_mrr: true,
  subtract_finite_discount_from_mrr: true,
  currency: 'USD',
} as ReportSettings;

function renderPopover(server = settingsServer()) {
  const user = userEvent.setup({ delay: null });
  const view = renderWithProviders(<SettingsPopover settings={reportSettings} showsCurrentMonth onChange={vi.fn()} />, { user: fullAccessUser, api: server.api });
  return { user, server, ...view };
}

describe('Report settings: the account settings in force', () => {
  it('lists the churn window, exchange rates, corrections, movement matching and currency, linking to Settings', async () => {
    const server = settingsServer({
      settings: { ...savedSettings, currency: 'EUR', churn_window_seconds: 45 * 86_400, take_exchange_rates_from: 'account', corrections_handling: 'when_occurred', match_movements_by_currency: false },
    });
    const { user } = renderPopover(server);
    expect(server.api.requestsTo('GET /account_settings')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Report settings' }));

    const block = within(await screen.findByRole('region', { name: 'Account settings in force' }));
    expect(await block.findByText('45 days')).toBeInTheDocument();
    const facts = Object.fromEntries(block.getAllByRole('term').map((term) => [term.textContent, term.nextElementSibling?.textContent]));
    expect(facts).toEqual({
      Currency: 'EUR',
      'Churn window': '45 days',
      'Exchange rates': 'My own exchange rates',
      Corrections: 'Show the change when it happened',
      'Match movements by currency': 'No',
    });
    expect(block.getByRole('link', { name: 'Change them in Settings' })).toHaveAttribute('href', '/settings');
  });

  it(`says '${ACCOUNT_SETTINGS_FETCH_FAILURE}' when they cannot be read`, async () => {
    const { user } = renderPopover(settingsServer({ overrides: { 'GET /account_settings': () => ({ status: 500 }) } }));
    await user.click(screen.getByRole('button', { name: 'Report settings' }));
    const block = within(await screen.findByRole('region', { name: 'Account settings in force' }));
    expect(await block.findByText(ACCOUNT_SETTINGS_FETCH_FAILURE)).toBeInTheDocument();
  });
});
