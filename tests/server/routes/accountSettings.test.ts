import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import { BAD_SINCE, CHURN_WINDOW_RANGE, DUPLICATE_ISO, DUPLICATE_SINCE, MAX_CHURN_WINDOW_SECONDS, RATE_NOT_POSITIVE, RATES_REQUIRED } from '../../../models/accountSettings';
import { createAuthTestApp, errorsOf, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** Account settings over the API: read, change (any subset, one transaction), validation, and what anonymous access opens. */

interface Settings {
  currency: string;
  anonymous_access_allowed: boolean;
  churn_window_seconds: number;
  take_exchange_rates_from: string;
  match_movements_by_currency: boolean;
  corrections_handling: string;
  used_currencies: string[];
  account_exchange_rates: { since: string; rates: { iso: string; rate: number }[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'PUT', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `${API_PREFIX}${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function settingsOf(who: SignedUp): Promise<Settings> {
  const response = await api('GET', '/account_settings', who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Settings;
}

async function put(change: unknown, who: SignedUp = owner) {
  return api('PUT', '/account_settings', who, change);
}

async function addPayment(accountId: string, id: string, currency: string): Promise<void> {
  const db = harness.db.kysely;
  await db.insertInto('customers').values({ account_id: accountId, id: `cus${id}`, name: 'Customer', public_id: null }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: accountId, id, customer_id: `cus${id}`, started_at: '2025-06-01', ended_at: '2025-07-01', duration_in_months: 1, total_value: 1_000, currency, invoice_number: null, external_id: null, import_id: null })
    .execute();
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  await addPayment(owner.user.account_id, 'subh000000000001', 'USD');
  await addPayment(owner.user.account_id, 'subh000000000002', 'EUR');
  await addPayment(owner.user.account_id, 'subh000000000003', 'USD');
});
afterAll(() => harness?.close());

describe(`account settings on ${testEngine}`, () => {
  it('reads the account’s settings with its payments’ currencies', async () => {
    expect(await settingsOf(owner)).toEqual({
      currency: 'USD',
      anonymous_access_allowed: false,
      churn_window_seconds: 0,
      take_exchange_rates_from: 'subscription_started_at',
      match_movements_by_currency: true,
      corrections_handling: 'change_original',
      used_currencies: ['EUR', 'USD'],
      account_exchange_rates: [],
    });
    expect((await settingsOf(stranger)).used_currencies).toEqual([]);
    expectSignInRequired(await api('GET', '/account_settings'));
    expectSignInRequired(await api('PUT', '/account_settings', undefined, { anonymous_access_allowed: true }));
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/account_settings', viewer)).statusCode).toBe(403);
    expect((await put({ anonymous_access_allowed: true }, viewer)).statusCode).toBe(403);
  });

  it('changes any subset, replaces the exchange rates as a whole, and answers them all; the other account is untouched', async () => {
    const strangerBefore = await settingsOf(stranger);
    const changed = await put({
      currency: 'EUR',
      churn_window_seconds: 30 * 86_400,
      take_exchange_rates_from: 'account',
      match_movements_by_currency: false,
      corrections_handling: 'when_occurred',
      account_exchange_rates: [
        { since: '2025-01-01', rates: [{ iso: 'USD', rate: 1.08 }, { iso: 'PLN', rate: 4.24 }] },
        { since: '2024-06-01', rates: [{ iso: 'USD', rate: 1.1 }] },
      ],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const expected = {
      currency: 'EUR',
      anonymous_access_allowed: false,
      churn_window_seconds: 2_592_000,
      take_exchange_rates_from: 'account',
      match_movements_by_currency: false,
      corrections_handling: 'when_occurred',
      used_currencies: ['EUR', 'USD'],
      account_exchange_rates: [
        { since: '2024-06-01', rates: [{ iso: 'USD', rate: 1.1 }] },
        { since: '2025-01-01', rates: [{ iso: 'PLN', rate: 4.24 }, { iso: 'USD', rate: 1.08 }] },
      ],
    };
    expect(changed.json()).toEqual(expected);
    expect(await settingsOf(owner)).toEqual(expected);
    // One field alone: the rest stays.
    const one = await put({ match_movements_by_currency: true });
    expect(one.json()).toEqual({ ...expected, match_movements_by_currency: true });
    // Rates replaced as a whole.
    const replaced = await put({ account_exchange_rates: [{ since: '2026-01-01', rates: [{ iso: 'USD', rate: 1.2 }] }] });
    expect((replaced.json() as Settings).account_exchange_rates).toEqual([{ since: '2026-01-01', rates: [{ iso: 'USD', rate: 1.2 }] }]);
    expect(await settingsOf(stranger)).toEqual(strangerBefore);
    // Back to the defaults for the next tests.
    const back = await put({ currency: 'USD', take_exchange_rates_from: 'subscription_started_at', account_exchange_rates: [], churn_window_seconds: 0, corrections_handling: 'change_original', match_movements_by_currency: true });
    expect(back.statusCode, back.body).toBe(200);
  });

  it('refuses invalid values with 422 at the field, and writes nothing of such a change', async () => {
    const before = await settingsOf(owner);
    const cases: [object, string, string][] = [
      [{ currency: 'XYZ' }, '/currency', 'Unknown currency'],
      [{ churn_window_seconds: -1 }, '/churn_window_seconds', CHURN_WINDOW_RANGE],
      [{ churn_window_seconds: MAX_CHURN_WINDOW_SECONDS + 1 }, '/churn_window_seconds', CHURN_WINDOW_RANGE],
      [{ account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'USD', rate: 0 }] }] }, '/account_exchange_rates/0/rates/0/rate', RATE_NOT_POSITIVE],
      [{ account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'USD', rate: -2 }] }] }, '/account_exchange_rates/0/rates/0/rate', RATE_NOT_POSITIVE],
      [{ account_exchange_rates: [{ since: '2026-02-30', rates: [{ iso: 'USD', rate: 1 }] }] }, '/account_exchange_rates/0/since', BAD_SINCE],
      [{ account_exchange_rates: [{ since: '0000-01-01', rates: [{ iso: 'USD', rate: 1 }] }] }, '/account_exchange_rates/0/since', BAD_SINCE],
      [{ account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'USD', rate: 1 }] }, { since: '2025-01-01', rates: [] }] }, '/account_exchange_rates/1/since', DUPLICATE_SINCE],
      [{ account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'USD', rate: 1 }, { iso: 'USD', rate: 2 }] }] }, '/account_exchange_rates/0/rates/1/iso', DUPLICATE_ISO],
      [{ account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'XYZ', rate: 1 }] }] }, '/account_exchange_rates/0/rates/0/iso', 'Unknown currency'],
      [{ take_exchange_rates_from: 'account', account_exchange_rates: [] }, '/account_exchange_rates', RATES_REQUIRED],
      [{ take_exchange_rates_from: 'account' }, '/account_exchange_rates', RATES_REQUIRED],
    ];
    for (const [change, pointer, detail] of cases) {
      const response = await put({ anonymous_access_allowed: true, ...change });
      expect(response.statusCode, JSON.stringify(change)).toBe(422);
      expect(errorsOf(response).map((e) => [e.source?.pointer, e.detail]), JSON.stringify(change)).toContainEqual([pointer, detail]);
    }
    // Wrong types (the app's schemas coerce only what converts losslessly: 1 to true, '86400' to 86400), unknown fields, huge strings, NUL bytes, numbers beyond doubles: 400, never 5xx.
    for (const body of [
      { anonymous_access_allowed: 'yes' },
      { churn_window_seconds: 1.5 },
      { take_exchange_rates_from: 'tomorrow' },
      { corrections_handling: null },
      { currency: 'usd' },
      { currency: 'x'.repeat(100_000) },
      { currency: 'E\u0000R' },
      { account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'USD', rate: 1e12 }] }] },
      { account_exchange_rates: [{ since: '2025-1-1', rates: [] }] },
      { account_exchange_rates: 'none' },
      { account_id: 'acc000000000000' },
    ]) {
      const response = await put(body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    for (const raw of ['{"churn_window_seconds": 1e400}', '{"churn_window_seconds": 18446744073709551616}', '{"account_exchange_rates": [{"since": "2025-01-01", "rates": [{"iso": "USD", "rate": 1e-400}]}]}']) {
      const response = await app.inject({ method: 'PUT', url: `${API_PREFIX}/account_settings`, headers: { authorization: owner.authorization, 'content-type': 'application/json' }, payload: raw });
      expect([400, 422], raw).toContain(response.statusCode);
    }
    expect(await settingsOf(owner)).toEqual(before);
  });

  it('opens the account’s reports by their secret to anyone while anonymous access is allowed, and closes them again', async () => {
    const created = await api('PUT', '/account_settings', owner, {});
    expect(created.statusCode).toBe(200);
    const report = await app.inject({ method: 'POST', url: `${API_PREFIX}/business_reports`, headers: { authorization: owner.authorization }, payload: { title: 'Open', sections: [{ definition_id: 'mrr' }] } });
    expect(report.statusCode, report.body).toBe(201);
    const { secret } = report.json() as { secret: string };
    await app.reports.settled();
    const read = () => app.inject({ method: 'GET', url: `${API_PREFIX}/business_reports/by_secret?secret=${secret}` });
    expectSignInRequired(await read());
    expect(((await put({ anonymous_access_allowed: true })).json() as Settings).anonymous_access_allowed).toBe(true);
    const open = await read();
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toMatchObject({ title: 'Open', can_edit: false });
    expect(((await put({ anonymous_access_allowed: false })).json() as Settings).anonymous_access_allowed).toBe(false);
    expectSignInRequired(await read());
  });
});
