import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SECONDS_PER_DAY } from '../../../models/accountSettings';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createAuthTestApp, MINUTE, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * The account settings move the numbers: each setting changed with PUT /account_settings, the
 * report read again with GET /business_reports/by_secret (the test clock's today is 2026-03-02:
 * a new report shows 2025-04 to 2026-03). Every account here is its own business.
 */

interface Point {
  time: string;
  value: number | null;
}
interface Series {
  name: string;
  component?: string;
  data_points: Point[];
}
interface Section {
  definition_id: string;
  error: string | null;
  segments: { is_total: boolean; series: Series[] }[];
}
interface Report {
  id: string;
  refreshed_at: string | null;
  recalculation_status: string;
  freshness_status: string;
  sections: Section[];
}

let harness: AuthTestApp;
let app: FastifyInstance;

const api = (method: 'GET' | 'POST' | 'PUT', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

let paymentCount = 0;
/** A recurring payment of `months` whole months; answers its id. */
async function pay(who: SignedUp, customer: string, start: string, months: number, total: number, currency = 'USD'): Promise<string> {
  const db = harness.db.kysely;
  const account = who.user.account_id;
  paymentCount += 1;
  const id = `subh${String(paymentCount).padStart(12, '0')}`;
  await db.insertInto('customers').values({ account_id: account, id: customer, name: customer, public_id: null }).onConflict((c) => c.doNothing()).execute();
  await db.insertInto('products').values({ account_id: account, key: 'plan', name: 'Plan' }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency, invoice_number: null, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: 'plan', type: 'recurring', quantity: 1 }).execute();
  return id;
}

async function putSettings(who: SignedUp, change: object): Promise<void> {
  const response = await api('PUT', '/account_settings', who, change);
  expect(response.statusCode, response.body).toBe(200);
}

async function newReport(who: SignedUp, definitions: string[]): Promise<string> {
  const response = await api('POST', '/business_reports', who, { title: 'Settings at work', sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(response.statusCode, response.body).toBe(201);
  await app.reports.settled();
  return (response.json() as { secret: string }).secret;
}

async function bySecret(who: SignedUp, secret: string): Promise<Report> {
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Report;
}

/** Changes settings and reads the report once the recalculation the change started is done (no refresh asked). */
async function afterSettings(who: SignedUp, secret: string, change: object): Promise<Report> {
  await putSettings(who, change);
  await app.reports.settled();
  const report = await bySecret(who, secret);
  expect(report).toMatchObject({ recalculation_status: 'recalculated', freshness_status: 'fresh' });
  for (const section of report.sections) expect(section.error).toBeNull();
  return report;
}

function section(report: Report, definition: string): Section {
  const found = report.sections.find((candidate) => candidate.definition_id === definition);
  if (!found) throw new Error(`no ${definition} section`);
  return found;
}

/** The total's series of a section by movement component (or its only series), month by month from 2025-05 to 2025-10. */
function months(report: Report, definition: string, component?: string): (number | null)[] {
  const total = section(report, definition).segments.find((segment) => segment.is_total);
  const series = component === undefined ? total?.series[0] : total?.series.find((candidate) => candidate.component === component);
  if (!series) return [];
  return ['2025-05-01', '2025-06-01', '2025-07-01', '2025-08-01', '2025-09-01', '2025-10-01'].map((time) => series.data_points.find((point) => point.time === time)?.value ?? null);
}

const componentsOf = (report: Report): (string | undefined)[] =>
  section(report, 'mrr_movements').segments.find((segment) => segment.is_total)?.series.map((series) => series.component) ?? [];

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  // Euro reference rates for the test's months (dollars for one euro); a day without one uses the latest earlier.
  await harness.db.kysely
    .insertInto('exchange_rates')
    .values([
      { day: '2025-05-30', currency: 'USD', rate_per_eur: '1.10' },
      { day: '2025-06-13', currency: 'USD', rate_per_eur: '1.15' },
      { day: '2025-07-01', currency: 'USD', rate_per_eur: '1.20' },
      { day: '2025-08-01', currency: 'USD', rate_per_eur: '1.25' },
    ])
    .onConflict((c) => c.doNothing())
    .execute();
});
afterAll(() => harness?.close());

describe(`settings that move the numbers, on ${testEngine}`, () => {
  it('churn window: a one-month gap is churn then reactivation with no window, and bridged by a 45-day window', async () => {
    const owner = await signUp(app);
    // $100 a month for May and June, nothing in July, again from August to October.
    await pay(owner, 'Gap Ltd', '2025-05-01', 1, 10_000);
    await pay(owner, 'Gap Ltd', '2025-06-01', 1, 10_000);
    await pay(owner, 'Gap Ltd', '2025-08-01', 3, 30_000);
    const secret = await newReport(owner, ['mrr', 'mrr_movements', 'churned_customers', 'reactivated_customers']);

    const none = await bySecret(owner, secret);
    expect(months(none, 'mrr')).toEqual([10_000, 10_000, 0, 10_000, 10_000, 10_000]);
    expect(months(none, 'mrr_movements', 'churn')).toEqual([0, 0, -10_000, 0, 0, 0]);
    expect(months(none, 'mrr_movements', 'reactivation')).toEqual([0, 0, 0, 10_000, 0, 0]);
    expect(months(none, 'churned_customers')).toEqual([0, 0, 1, 0, 0, 0]);
    expect(months(none, 'reactivated_customers')).toEqual([0, 0, 0, 1, 0, 0]);

    const bridged = await afterSettings(owner, secret, { churn_window_seconds: 45 * SECONDS_PER_DAY });
    // The 31-day gap is inside the window: the customer keeps its $100 through July.
    expect(months(bridged, 'mrr')).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(months(bridged, 'mrr_movements', 'churn')).toEqual([0, 0, 0, 0, 0, 0]);
    expect(months(bridged, 'mrr_movements', 'reactivation')).toEqual([0, 0, 0, 0, 0, 0]);
    expect(months(bridged, 'churned_customers')).toEqual([0, 0, 0, 0, 0, 0]);
    expect(months(bridged, 'reactivated_customers')).toEqual([0, 0, 0, 0, 0, 0]);

    // A window shorter than the gap bridges nothing.
    const short = await afterSettings(owner, secret, { churn_window_seconds: 30 * SECONDS_PER_DAY });
    expect(months(short, 'mrr_movements', 'churn')).toEqual([0, 0, -10_000, 0, 0, 0]);
  });

  describe('exchange rates: EUR 100.00 a month from June 15 (three months) in a USD account', () => {
    let owner: SignedUp;
    let secret: string;

    beforeAll(async () => {
      owner = await signUp(app);
      await pay(owner, 'Euro GmbH', '2025-06-15', 3, 30_000, 'EUR');
      secret = await newReport(owner, ['mrr', 'mrr_movements']);
    });

    it('subscription_started_at (the default) converts every month at the start day’s rate', async () => {
      const report = await afterSettings(owner, secret, { take_exchange_rates_from: 'subscription_started_at' });
      // June 15 is a Sunday: June 13's 1.15 applies, $115.00 in June, July and August.
      expect(months(report, 'mrr')).toEqual([0, 11_500, 11_500, 11_500, 0, 0]);
    });

    it('beginning_of_month converts each month at its first day’s rate', async () => {
      const report = await afterSettings(owner, secret, { take_exchange_rates_from: 'beginning_of_month' });
      // June 1 (a Sunday): May 30's 1.10; July 1: 1.20; August 1: 1.25.
      expect(months(report, 'mrr')).toEqual([0, 11_000, 12_000, 12_500, 0, 0]);
    });

    it('account converts at the account’s own table, the row in force on the day measured', async () => {
      const report = await afterSettings(owner, secret, {
        take_exchange_rates_from: 'account',
        account_exchange_rates: [
          { since: '2025-06-01', rates: [{ iso: 'EUR', rate: 0.8 }] },
          { since: '2025-08-01', rates: [{ iso: 'EUR', rate: 0.5 }] },
        ],
      });
      // One dollar buys 0.80 euro: 100 / 0.8 = $125.00; from August 0.50 euro: $200.00.
      expect(months(report, 'mrr')).toEqual([0, 12_500, 12_500, 20_000, 0, 0]);
    });

    it('match_movements_by_currency: on, a rate change is an FX series and no expansion; off, it is expansion and there is no FX series', async () => {
      const matched = await afterSettings(owner, secret, { take_exchange_rates_from: 'beginning_of_month', match_movements_by_currency: true });
      expect(componentsOf(matched)).toContain('fx_adjustment');
      // The customer pays EUR 100.00 throughout: July's +$10.00 and August's +$5.00 are the rate only.
      expect(months(matched, 'mrr_movements', 'fx_adjustment')).toEqual([0, 0, 1_000, 500, 0, 0]);
      expect(months(matched, 'mrr_movements', 'expansion')).toEqual([0, 0, 0, 0, 0, 0]);
      expect(months(matched, 'mrr_movements', 'new_business')).toEqual([0, 11_000, 0, 0, 0, 0]);
      expect(months(matched, 'mrr_movements', 'churn')).toEqual([0, 0, 0, 0, -12_500, 0]);

      const unmatched = await afterSettings(owner, secret, { match_movements_by_currency: false });
      expect(componentsOf(unmatched)).not.toContain('fx_adjustment');
      expect(months(unmatched, 'mrr_movements', 'expansion')).toEqual([0, 0, 1_000, 500, 0, 0]);
      expect(months(unmatched, 'mrr_movements', 'net')).toEqual(months(matched, 'mrr_movements', 'net'));
    });
  });

  it('corrections_handling: when_occurred keeps the months reported before a correction and shows the difference when it was made; change_original restates', async () => {
    const owner = await signUp(app);
    const account = owner.user.account_id;
    // Six months from June at $200.00 a month, as the payment stands now...
    const id = await pay(owner, 'Fixed Inc', '2025-06-01', 6, 120_000);
    // ...corrected on August 15: until then it was recorded at $100.00 a month.
    const db = harness.db.kysely;
    await db
      .insertInto('payment_versions')
      .values({
        account_id: account,
        payment_id: id,
        version: 1,
        customer_id: 'Fixed Inc',
        started_at: '2025-06-01',
        ended_at: '2025-12-01',
        duration_in_months: 6,
        total_value: 60_000,
        currency: 'USD',
        invoice_number: null,
        items: JSON.stringify([{ product_key: 'plan', type: 'recurring', quantity: 1 }]),
        discounts: JSON.stringify([]),
        valid_from: new Date('2025-06-01T00:00:00Z'),
        valid_to: new Date('2025-08-15T12:00:00Z'),
      })
      .execute();
    await db.updateTable('payments').set({ version: 2 }).where('account_id', '=', account).where('id', '=', id).execute();
    const secret = await newReport(owner, ['mrr', 'mrr_movements']);

    const restated = await bySecret(owner, secret);
    expect(months(restated, 'mrr')).toEqual([0, 20_000, 20_000, 20_000, 20_000, 20_000]);
    expect(months(restated, 'mrr_movements', 'new_business')).toEqual([0, 20_000, 0, 0, 0, 0]);
    expect(months(restated, 'mrr_movements', 'expansion')).toEqual([0, 0, 0, 0, 0, 0]);

    const occurred = await afterSettings(owner, secret, { corrections_handling: 'when_occurred' });
    // June and July ended before the correction: they keep $100.00; August shows the +$100.00.
    expect(months(occurred, 'mrr')).toEqual([0, 10_000, 10_000, 20_000, 20_000, 20_000]);
    expect(months(occurred, 'mrr_movements', 'new_business')).toEqual([0, 10_000, 0, 0, 0, 0]);
    expect(months(occurred, 'mrr_movements', 'expansion')).toEqual([0, 0, 0, 10_000, 0, 0]);

    const back = await afterSettings(owner, secret, { corrections_handling: 'change_original' });
    expect(months(back, 'mrr')).toEqual(months(restated, 'mrr'));
  });

  describe('staleness and recalculation', () => {
    let owner: SignedUp;
    let secret: string;

    /** Runs `body` with the recalculations the API starts held back (recorded), then lets them run and waits for them. */
    async function holdingRecalculations(body: (started: () => string[]) => Promise<void>): Promise<void> {
      const reports = app.reports;
      const start = reports.start.bind(reports);
      const held: [string, string][] = [];
      const spy = vi.spyOn(reports, 'start').mockImplementation(async (accountId, reportId) => {
        held.push([accountId, reportId]);
      });
      try {
        await body(() => held.map(([, reportId]) => reportId));
      } finally {
        spy.mockRestore();
        for (const [accountId, reportId] of held) await start(accountId, reportId);
        await app.reports.settled();
      }
    }

    beforeAll(async () => {
      owner = await signUp(app);
      await pay(owner, 'Gap Ltd', '2025-05-01', 2, 20_000);
      await pay(owner, 'Gap Ltd', '2025-08-01', 3, 30_000);
      secret = await newReport(owner, ['mrr']);
    });

    it('a changed churn window makes the report stale and recalculates it without a refresh', async () => {
      const before = await bySecret(owner, secret);
      expect(before).toMatchObject({ freshness_status: 'fresh', recalculation_status: 'recalculated' });
      expect(months(before, 'mrr')[2]).toBe(0);
      harness.clock.advance(MINUTE);

      await holdingRecalculations(async (started) => {
        await putSettings(owner, { churn_window_seconds: 40 * SECONDS_PER_DAY });
        expect(started()).toEqual([before.id]);
        const stale = await bySecret(owner, secret);
        expect(stale.freshness_status).toBe('stale');
        // Still the numbers of the last recalculation.
        expect(months(stale, 'mrr')[2]).toBe(0);
      });

      const after = await bySecret(owner, secret);
      expect(after).toMatchObject({ freshness_status: 'fresh', recalculation_status: 'recalculated' });
      expect(Date.parse(after.refreshed_at ?? '')).toBeGreaterThan(Date.parse(before.refreshed_at ?? ''));
      // The 31-day July gap is inside the 40-day window now.
      expect(months(after, 'mrr')[2]).toBe(10_000);
    });

    it('a change of anonymous access alone, or a resend of the stored settings, leaves the report fresh and starts nothing', async () => {
      const before = await bySecret(owner, secret);
      expect(before.freshness_status).toBe('fresh');
      harness.clock.advance(MINUTE);
      const stored = (await api('GET', '/account_settings', owner)).json() as Record<string, unknown>;
      const { used_currencies: _used, ...writable } = stored;

      await holdingRecalculations(async (started) => {
        await putSettings(owner, { anonymous_access_allowed: true });
        expect((await bySecret(owner, secret)).freshness_status).toBe('fresh');
        await putSettings(owner, { ...writable, anonymous_access_allowed: false });
        expect((await bySecret(owner, secret)).freshness_status).toBe('fresh');
        await putSettings(owner, { account_exchange_rates: [] });
        expect((await bySecret(owner, secret)).freshness_status).toBe('fresh');
        expect(started()).toEqual([]);
      });

      const after = await bySecret(owner, secret);
      expect(after).toMatchObject({ freshness_status: 'fresh', recalculation_status: 'recalculated', refreshed_at: before.refreshed_at });
    });

    it('changing the exchange rates table alone makes the report stale and recalculates it; the same table again does not', async () => {
      harness.clock.advance(MINUTE);
      const before = await bySecret(owner, secret);
      await holdingRecalculations(async (started) => {
        await putSettings(owner, { account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 0.9 }] }] });
        expect((await bySecret(owner, secret)).freshness_status).toBe('stale');
        expect(started()).toEqual([before.id]);
      });
      const after = await bySecret(owner, secret);
      expect(after.freshness_status).toBe('fresh');
      expect(Date.parse(after.refreshed_at ?? '')).toBeGreaterThan(Date.parse(before.refreshed_at ?? ''));

      // The same table again (rates written as the drawer sends them back) moves nothing.
      await holdingRecalculations(async (started) => {
        await putSettings(owner, { account_exchange_rates: [{ since: '2025-01-01', rates: [{ iso: 'EUR', rate: 0.9 }] }] });
        expect((await bySecret(owner, secret)).freshness_status).toBe('fresh');
        expect(started()).toEqual([]);
      });
    });
  });
});
