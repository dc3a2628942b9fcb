import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  ACCOUNT_SETTINGS_FETCH_FAILURE,
  ACCOUNT_SETTINGS_SAVE_FAILURE,
  CHURN_WINDOW_NOT_NUMBER,
  RATE_NOT_NUMBER,
  RATES_REQUIRED,
  SETTING_REQUIRED,
} from '../../../models/accountSettings';
import { apiKey } from '../../../src/api/queries';
import { ACCOUNT_SETTINGS_SAVED } from '../../../src/settings/account/AccountSettingsDrawer';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiErrors } from '../support/fakeApi';
import { savedSettings, settingsServer } from './settingsFixtures';
import type { SettingsServer } from './settingsFixtures';

/** The Account section of Settings and its drawer, against a fake API. */

// The Segmentation section is another view's (tests/src/settings/segmentation/).
vi.mock('../../../src/settings/segmentation/SegmentationSection', () => ({ SegmentationSection: () => null }));

const drawer = () => screen.getByRole('dialog', { name: 'Account settings' });
const accountCard = () => within(screen.getByRole('region', { name: 'Account' }));

async function openDrawer(server: SettingsServer = settingsServer()) {
  const user = userEvent.setup({ delay: null });
  const view = renderApp({ path: '/settings', user: fullAccessUser, api: server.api });
  await user.click(await screen.findByRole('button', { name: 'Edit account settings' }));
  await within(await screen.findByRole('dialog', { name: 'Account settings' })).findByLabelText(/Churn window/);
  return { user, server, ...view };
}

async function save(user: UserEvent) {
  await user.click(within(drawer()).getByRole('button', { name: 'Save settings' }));
}

async function chooseOwnRates(user: UserEvent) {
  await user.click(within(drawer()).getByRole('radio', { name: 'My own exchange rates' }));
}

describe('Settings: the Account card', () => {
  it('shows the account currency and the settings in words, with a skeleton while they load', async () => {
    const server = settingsServer({ settings: { ...savedSettings, churn_window_seconds: 45 * 86_400, anonymous_access_allowed: true } });
    server.api.hold('GET /account_settings');
    renderApp({ path: '/settings', user: fullAccessUser, api: server.api });

    expect(await screen.findAllByLabelText('Loading your account settings')).not.toHaveLength(0);
    server.api.release('GET /account_settings', { status: 200, body: server.settings });

    expect(await accountCard().findByLabelText('Account currency USD')).toHaveTextContent('USD');
    expect(accountCard().getByText('45 days')).toBeInTheDocument();
    expect(accountCard().getByText('Anyone with the secret URL')).toBeInTheDocument();
    expect(accountCard().getByText('Rate of the day the payment started')).toBeInTheDocument();
    expect(accountCard().getByText('Restate the original month')).toBeInTheDocument();
  });

  it(`shows and toasts '${ACCOUNT_SETTINGS_FETCH_FAILURE}' when they cannot be fetched, and Try again reads them again`, async () => {
    const server = settingsServer({ overrides: { 'GET /account_settings': () => ({ status: 500 }) } });
    const user = userEvent.setup({ delay: null });
    renderApp({ path: '/settings', user: fullAccessUser, api: server.api });

    // The card's message and the toast.
    await waitFor(() => expect(screen.getAllByText(ACCOUNT_SETTINGS_FETCH_FAILURE)).toHaveLength(2));
    server.api.on('GET /account_settings', () => ({ status: 200, body: server.settings }));
    await user.click(accountCard().getByRole('button', { name: 'Try again' }));
    expect(await accountCard().findByLabelText('Account currency USD')).toBeInTheDocument();
  });
});

describe('Settings: the account settings drawer', () => {
  it('opens with the saved settings', async () => {
    await openDrawer(settingsServer({ settings: { ...savedSettings, churn_window_seconds: 30 * 86_400, corrections_handling: 'when_occurred' } }));

    expect(within(drawer()).getByRole('combobox', { name: /Currency/ })).toHaveValue('USD · US dollar');
    expect(within(drawer()).getByRole('radio', { name: 'Login required' })).toBeChecked();
    expect(within(drawer()).getByLabelText(/Churn window/)).toHaveValue('30');
    expect(within(drawer()).getByRole('radio', { name: 'Show the change when it happened' })).toBeChecked();
    expect(within(drawer()).getByRole('radio', { name: 'Yes' })).toBeChecked();
    expect(within(drawer()).getByRole('radio', { name: 'Rate of the day the payment started' })).toBeChecked();
    expect(within(drawer()).queryByRole('table', { name: 'Exchange rates' })).not.toBeInTheDocument();
  });

  it(`says '${SETTING_REQUIRED}' for an empty churn window and '${CHURN_WINDOW_NOT_NUMBER}' for one that is not digits, sending nothing`, async () => {
    const { user, server } = await openDrawer();
    const churn = within(drawer()).getByLabelText(/Churn window/);

    await user.clear(churn);
    await save(user);
    expect(await within(drawer()).findByText(SETTING_REQUIRED)).toBeInTheDocument();

    await user.type(churn, '4.5');
    await save(user);
    expect(await within(drawer()).findByText(CHURN_WINDOW_NOT_NUMBER)).toBeInTheDocument();
    expect(server.api.requestsTo('PUT /account_settings')).toHaveLength(0);
  });

  it(`says '${SETTING_REQUIRED}' when the currency is cleared`, async () => {
    const { user } = await openDrawer();
    await user.click(within(drawer()).getByLabelText('Clear currency'));
    await save(user);
    expect(await within(drawer()).findByText(SETTING_REQUIRED)).toBeInTheDocument();
  });

  it('saves the churn window in seconds (days × 86 400) with the other settings, closes and shows the new value', async () => {
    const { user, server, queryClient } = await openDrawer();
    const reportKey = apiKey('/business_reports/by_secret', { secret: 'sec_1' });
    queryClient.setQueryData(reportKey, { id: 'rep_1' });
    const churn = within(drawer()).getByLabelText(/Churn window/);
    await user.clear(churn);
    await user.type(churn, '45');
    await user.click(within(drawer()).getByRole('radio', { name: 'Anyone with the secret URL' }));
    await user.click(within(drawer()).getByRole('radio', { name: 'No' }));
    await save(user);

    expect(await screen.findByText(ACCOUNT_SETTINGS_SAVED)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Account settings' })).not.toBeInTheDocument());
    expect(server.api.requestsTo('PUT /account_settings')[0]?.body).toEqual({
      currency: 'USD',
      anonymous_access_allowed: true,
      churn_window_seconds: 45 * 86_400,
      take_exchange_rates_from: 'subscription_started_at',
      match_movements_by_currency: false,
      corrections_handling: 'change_original',
      account_exchange_rates: [],
    });
    expect(accountCard().getByText('45 days')).toBeInTheDocument();
    // The reports are read again (the server recalculates them and pushes their updates).
    expect(queryClient.getQueryState(reportKey)?.isInvalidated).toBe(true);
  });

  it('saves another account currency picked from GET /currencies', async () => {
    const { user, server } = await openDrawer();
    await user.click(within(drawer()).getByRole('combobox', { name: /Currency/ }));
    await user.click(await screen.findByRole('option', { name: 'EUR · Euro' }));
    await save(user);

    await screen.findByText(ACCOUNT_SETTINGS_SAVED);
    expect(server.api.requestsTo('PUT /account_settings')[0]?.body).toMatchObject({ currency: 'EUR' });
    expect(await accountCard().findByLabelText('Account currency EUR')).toBeInTheDocument();
  });

  it(`keeps what was typed and toasts '${ACCOUNT_SETTINGS_SAVE_FAILURE}' when the save fails`, async () => {
    const { user } = await openDrawer(settingsServer({ overrides: { 'PUT /account_settings': () => ({ status: 500 }) } }));
    const churn = within(drawer()).getByLabelText(/Churn window/);
    await user.clear(churn);
    await user.type(churn, '12');
    await save(user);

    expect(await screen.findByText(ACCOUNT_SETTINGS_SAVE_FAILURE)).toBeInTheDocument();
    expect(drawer()).toBeInTheDocument();
    expect(within(drawer()).getByLabelText(/Churn window/)).toHaveValue('12');
  });

  it("shows a 422's messages at the fields they point at", async () => {
    const refusal = apiErrors(422, { pointer: '/churn_window_seconds', detail: 'The churn window is a whole number of seconds from 0 to 315360000 (ten years)' });
    const { user } = await openDrawer(settingsServer({ overrides: { 'PUT /account_settings': () => refusal } }));
    await save(user);

    expect(await screen.findByText(ACCOUNT_SETTINGS_SAVE_FAILURE)).toBeInTheDocument();
    expect(within(drawer()).getByLabelText(/Churn window/)).toHaveAccessibleDescription(/The churn window is a whole number of seconds/);
  });

  it(`reveals the rate table in the account mode and asks for a row: '${RATES_REQUIRED}'`, async () => {
    const { user, server } = await openDrawer();
    await chooseOwnRates(user);

    expect(within(drawer()).getByText('How many units of each currency one USD buys, from the row\'s date until the next row\'s.')).toBeInTheDocument();
    await save(user);
    expect(await within(drawer()).findByText(RATES_REQUIRED)).toBeInTheDocument();
    expect(server.api.requestsTo('PUT /account_settings')).toHaveLength(0);
  });

  it(`checks each row: since and every rate '${SETTING_REQUIRED}', a rate '${RATE_NOT_NUMBER}'`, async () => {
    const { user } = await openDrawer();
    await chooseOwnRates(user);
    await user.click(within(drawer()).getByRole('button', { name: 'Add row' }));
    const table = within(within(drawer()).getByRole('table', { name: 'Exchange rates' }));
    // A rate per used currency other than the account currency.
    expect(table.getByRole('columnheader', { name: '1 USD in EUR' })).toBeInTheDocument();
    expect(table.getByRole('columnheader', { name: '1 USD in PLN' })).toBeInTheDocument();
    expect(table.queryByRole('columnheader', { name: '1 USD in USD' })).not.toBeInTheDocument();

    await save(user);
    await waitFor(() => expect(table.getAllByText(SETTING_REQUIRED)).toHaveLength(3));

    await user.type(table.getByLabelText('EUR rate, row 1'), '4,2');
    await save(user);
    expect(await table.findByText(RATE_NOT_NUMBER)).toBeInTheDocument();
  });

  it('sends the table: the since date typed DD-MM-YYYY as YYYY-MM-DD, a rate per currency, rows added and removed', async () => {
    const { user, server } = await openDrawer();
    await chooseOwnRates(user);
    await user.click(within(drawer()).getByRole('button', { name: 'Add row' }));
    await user.click(within(drawer()).getByRole('button', { name: 'Add row' }));
    const table = within(within(drawer()).getByRole('table', { name: 'Exchange rates' }));
    await user.type(table.getByLabelText('Since, row 1'), '01-02-2024');
    await user.type(table.getByLabelText('EUR rate, row 1'), '0.92');
    await user.type(table.getByLabelText('PLN rate, row 1'), '4.05');
    await user.click(table.getByRole('button', { name: 'Remove row 2' }));
    expect(table.queryByLabelText('Since, row 2')).not.toBeInTheDocument();
    await save(user);

    await screen.findByText(ACCOUNT_SETTINGS_SAVED);
    expect(server.api.requestsTo('PUT /account_settings')[0]?.body).toMatchObject({
      take_exchange_rates_from: 'account',
      account_exchange_rates: [
        {
          since: '2024-02-01',
          rates: [
            { iso: 'EUR', rate: 0.92 },
            { iso: 'PLN', rate: 4.05 },
          ],
        },
      ],
    });
    expect(accountCard().getByText('My own exchange rates')).toBeInTheDocument();
  });

  it('shows the saved rows, dates as DD-MM-YYYY, and maps a refused rate onto its field', async () => {
    const settings = { ...savedSettings, take_exchange_rates_from: 'account' as const, account_exchange_rates: [{ since: '2024-01-01', rates: [{ iso: 'EUR', rate: 0.9 }, { iso: 'PLN', rate: 4 }] }] };
    const refusal = apiErrors(422, { pointer: '/account_exchange_rates/0/rates/1/rate', detail: 'Should be a number greater than 0' });
    const { user } = await openDrawer(settingsServer({ settings, overrides: { 'PUT /account_settings': () => refusal } }));
    const table = within(within(drawer()).getByRole('table', { name: 'Exchange rates' }));
    expect(table.getByLabelText('Since, row 1')).toHaveValue('01-01-2024');
    expect(table.getByLabelText('EUR rate, row 1')).toHaveValue('0.9');
    await save(user);

    expect(await screen.findByText(ACCOUNT_SETTINGS_SAVE_FAILURE)).toBeInTheDocument();
    expect(table.getByLabelText('PLN rate, row 1')).toHaveAccessibleDescription('Should be a number greater than 0');
  });

  it(`shows '${ACCOUNT_SETTINGS_FETCH_FAILURE}' in the drawer when the settings cannot be read`, async () => {
    const server = settingsServer({ overrides: { 'GET /account_settings': () => ({ status: 500 }) } });
    const user = userEvent.setup({ delay: null });
    renderApp({ path: '/settings', user: fullAccessUser, api: server.api });
    await user.click(await screen.findByRole('button', { name: 'Edit account settings' }));
    expect(await within(await screen.findByRole('dialog', { name: 'Account settings' })).findByText(ACCOUNT_SETTINGS_FETCH_FAILURE)).toBeInTheDocument();
  });
});
