import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { API_TOKEN_FETCH_FAILURE_MESSAGE } from '../../../models/auth';
import { CUSTOM_ATTRIBUTES_FETCH_FAILURE } from '../../../src/settings/CustomAttributesCard';
import { fullAccessUser, renderApp } from '../renderApp';
import { apiUser, createFakeApi, FAKE_API_TOKEN } from '../support/fakeApi';

describe('Settings: the API token card', () => {
  it("shows the user's API token and copies it, toasting 'Copied'", async () => {
    const user = userEvent.setup();
    renderApp({ path: '/settings', user: fullAccessUser });

    expect(await screen.findByText(FAKE_API_TOKEN)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy API token' }));

    expect(await navigator.clipboard.readText()).toBe(FAKE_API_TOKEN);
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });

  it('refreshes the signed-in user from the same answer', async () => {
    const api = createFakeApi({
      'GET /users/me': () => ({ status: 200, body: { user: apiUser({ ...fullAccessUser, name: 'Ada King' }, { api_token: FAKE_API_TOKEN }) } }),
    });
    renderApp({ path: '/settings', user: fullAccessUser, api });
    const user = userEvent.setup();

    await screen.findByText(FAKE_API_TOKEN);
    await user.click(screen.getByRole('button', { name: 'User menu' }));
    expect(await screen.findByText('Ada King')).toBeInTheDocument();
  });

  it(`toasts '${API_TOKEN_FETCH_FAILURE_MESSAGE}' when the token cannot be fetched`, async () => {
    const api = createFakeApi({ 'GET /users/me': () => ({ status: 500 }) });
    renderApp({ path: '/settings', user: fullAccessUser, api });

    expect(await screen.findAllByText(API_TOKEN_FETCH_FAILURE_MESSAGE)).not.toHaveLength(0);
  });
});

describe('Settings: the custom attributes card', () => {
  it('lists the customer attributes, each linking to its attribute values import', async () => {
    const api = createFakeApi({
      'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }),
      'GET /customer_segments': () => ({
        status: 200,
        body: { items: [{ id: 'seg-plan', name: 'Plan', object_attribute_id: 'att-plan', value_source: 'parent_and_children', time_sensitive: true }] },
      }),
    });
    renderApp({ path: '/settings', user: fullAccessUser, api });

    expect(await screen.findByText('Plan')).toBeInTheDocument();
    expect(screen.getByText('By month')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Import attribute values of Plan' })).toHaveAttribute('href', '/import-segments?segment=seg-plan');
  });

  it('says when there are none', async () => {
    renderApp({ path: '/settings', user: fullAccessUser });
    expect(await screen.findByText('No customer attributes yet.')).toBeInTheDocument();
  });

  it(`shows '${CUSTOM_ATTRIBUTES_FETCH_FAILURE}' when the list cannot be fetched`, async () => {
    const api = createFakeApi({
      'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }),
      'GET /customer_segments': () => ({ status: 500 }),
    });
    renderApp({ path: '/settings', user: fullAccessUser, api });
    expect(await screen.findByText(CUSTOM_ATTRIBUTES_FETCH_FAILURE)).toBeInTheDocument();
  });
});

describe('Settings: what is coming soon', () => {
  it('names only what does not exist yet, never the custom attributes or the data import that work', async () => {
    renderApp({ path: '/settings', user: fullAccessUser });
    await screen.findByRole('heading', { level: 2, name: 'Custom attributes' });
    const soon = screen.getByText(/^Coming soon here:/);
    expect(soon).not.toHaveTextContent(/custom attributes/i);
    expect(soon).not.toHaveTextContent(/data sources/i);
    expect(soon).toHaveTextContent(/integrations with Stripe, Chargebee, HubSpot/);
    expect(soon).toHaveTextContent(/segmentation/);
    expect(screen.getByRole('heading', { level: 2, name: 'Import CSV' })).toBeInTheDocument();
  });
});
