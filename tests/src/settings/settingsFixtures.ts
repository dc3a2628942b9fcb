import type { AccountSettings } from '../../../models/accountSettings';
import type { ObjectAttribute } from '../../../models/attributes';
import type { CurrentPlan, Plan } from '../../../src/settings/plan/plansApi';
import { apiUser, createFakeApi, FAKE_API_TOKEN } from '../support/fakeApi';
import type { FakeApi, FakeHandler } from '../support/fakeApi';
import { fullAccessUser } from '../renderApp';

/** Contract-shaped answers of the Settings page's calls (issue 21 contract), over a small stateful fake server. */

export const savedSettings: AccountSettings = {
  currency: 'USD',
  anonymous_access_allowed: false,
  churn_window_seconds: 0,
  take_exchange_rates_from: 'subscription_started_at',
  match_movements_by_currency: true,
  corrections_handling: 'change_original',
  used_currencies: ['EUR', 'PLN', 'USD'],
  account_exchange_rates: [],
};

export const currencies = [
  { iso: 'EUR', name: 'Euro', minor_unit_digits: 2 },
  { iso: 'PLN', name: 'Polish zloty', minor_unit_digits: 2 },
  { iso: 'USD', name: 'US dollar', minor_unit_digits: 2 },
];

export const plans: Plan[] = [
  { id: 'starter', name: 'Starter', description: 'For a first product', monthly_price: 0, currency: 'USD', limits: { customers: 100, users: 2, integrations: 1 } },
  { id: 'growth', name: 'Growth', description: 'For a growing subscription business', monthly_price: 4_900, currency: 'USD', limits: { customers: 1_000, users: 5, integrations: 3 } },
  { id: 'scale', name: 'Scale', description: 'No limits', monthly_price: 19_900, currency: 'USD', limits: { customers: null, users: null, integrations: null } },
];

export const currentPlan: CurrentPlan = { ...plans[1]!, current: true, usage: { customers: 850, users: 2, integrations: 0 } };

export function attribute(id: string, name: string, object: ObjectAttribute['object']): ObjectAttribute {
  return { id, name, object, segment_id: object === 'customer' ? `seg_${id}` : null, created_at: '2026-01-05T10:00:00.000Z' };
}

export const planAttribute = attribute('att_plan', 'Plan', 'customer');
export const channelAttribute = attribute('att_channel', 'Channel', 'subscription_history');
export const departmentAttribute = attribute('att_dept', 'Department', 'cost');

export interface SettingsServer {
  api: FakeApi;
  settings: AccountSettings;
  attributes: ObjectAttribute[];
}

/** The routes of the Settings page with their answers; `overrides` replace single routes. */
export function settingsServer(
  options: { settings?: AccountSettings; attributes?: ObjectAttribute[]; overrides?: Record<string, FakeHandler> } = {},
): SettingsServer {
  const state: SettingsServer = {
    api: createFakeApi(),
    settings: structuredClone(options.settings ?? savedSettings),
    attributes: structuredClone(options.attributes ?? [planAttribute, channelAttribute, departmentAttribute]),
  };
  let next = 1;
  const routes: Record<string, FakeHandler> = {
    'GET /users/me': () => ({ status: 200, body: { user: apiUser(fullAccessUser, { api_token: FAKE_API_TOKEN }) } }),
    'GET /users': () => ({ status: 200, body: { items: [apiUser(fullAccessUser)] } }),
    'GET /customer_segments': () => ({ status: 200, body: { items: [] } }),
    'GET /business_reports/latest': () => ({ status: 200, body: { items: [] } }),
    'GET /account_settings': () => ({ status: 200, body: state.settings }),
    'PUT /account_settings': ({ body }) => {
      state.settings = { ...state.settings, ...(body as Partial<AccountSettings>) };
      return { status: 200, body: state.settings };
    },
    'GET /currencies': () => ({ status: 200, body: { items: currencies } }),
    'GET /plans': () => ({ status: 200, body: { items: plans, current_plan_id: currentPlan.id } }),
    'GET /plans/:id': ({ params }) =>
      params.id === currentPlan.id ? { status: 200, body: currentPlan } : { status: 404, body: { errors: [{ detail: 'Plan not found' }] } },
    'GET /object_attributes': () => ({ status: 200, body: { items: state.attributes } }),
    'POST /object_attributes': ({ body }) => {
      const { name, object } = body as { name: string; object: ObjectAttribute['object'] };
      const created = attribute(`att_new${next++}`, name, object);
      state.attributes = [...state.attributes, created];
      return { status: 201, body: created };
    },
    'PUT /object_attributes/:id': ({ params, body }) => {
      const found = state.attributes.find((item) => item.id === params.id);
      if (!found) return { status: 404, body: { errors: [{ detail: 'Not found' }] } };
      const renamed = { ...found, name: (body as { name: string }).name };
      state.attributes = state.attributes.map((item) => (item.id === found.id ? renamed : item));
      return { status: 200, body: renamed };
    },
    'DELETE /object_attributes/:id': ({ params }) => {
      state.attributes = state.attributes.filter((item) => item.id !== params.id);
      return { status: 204 };
    },
    ...options.overrides,
  };
  for (const [route, handler] of Object.entries(routes)) state.api.on(route, handler);
  return state;
}
