import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { SECTION_NOT_FOUND } from '../../../server/reports/reports';
import { A_COHORT, NOT_A_COHORT } from '../../../server/routes/sectionDetails';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * Drill-down over the API: every point's details add up to the number the chart shows (the
 * test clock's today is 2026-03-02: a new report shows 2025-04 to 2026-03).
 */

interface Point {
  time: string;
  value: number | null;
  column?: 'initial' | number;
}
interface Series {
  name: string;
  segment_value?: string;
  component?: string;
  data_points: Point[];
}
interface Section {
  id: string;
  definition_id: string;
  unit: string | null;
  segments: { id: string; series: Series[] }[];
}
interface Row {
  id: string;
  name: string;
  value: number;
}
interface Payload {
  total_count: number;
  total_value: number;
  total_quantity: number | null;
  top_customers: (Row & { subscriptions: { product_key: string }[]; movement_from: unknown; movement_to: unknown })[];
  top_costs?: (Row & { date: string; invoice_number: string | null })[];
  top_deals?: (Row & { stage: string })[];
  rest: { count: number; value: number };
  calculation_details: { name: string; value: number | null }[];
  additional_lists: unknown[];
  initial_cohort_value?: number;
  initial_cohort_count?: number;
}
interface Details {
  section_id: string;
  definition_id: string;
  underlying_data: string;
  currency: string;
  unit: string;
  period: { label: string; first_day: string };
  items: { name: string; segment_value?: string; component?: string; underlying_data: string; value: number | null; details: Payload }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function payment(account: string, id: string, customer: string, start: string, months: number, total: number, product: string, type: 'recurring' | 'one_time' = 'recurring', quantity = 1) {
  const db = harness.db.kysely;
  await db.insertInto('products').values({ account_id: account, key: product, name: product }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: `INV-${id}`, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: product, type, quantity }).execute();
}

async function report(who: SignedUp, definitions: string[], segments: Record<string, string[]> = {}): Promise<Section[]> {
  const created = await api('POST', '/business_reports', who, { title: 'details', sections: definitions.map((definition_id) => ({ definition_id })) });
  expect(created.statusCode, created.body).toBe(201);
  const { id, secret } = created.json() as { id: string; secret: string };
  await app.reports.settled();
  const read = async () => (await api('GET', `/business_reports/by_secret?secret=${secret}`, who)).json() as { sections: Section[] };
  let sections = (await read()).sections;
  if (Object.keys(segments).length > 0) {
    const db = harness.db.kysely;
    for (const section of sections) {
      for (const [position, segmenter] of (segments[section.definition_id] ?? []).entries()) {
        await db.insertInto('report_section_segments').values({ account_id: who.user.account_id, section_id: section.id, segmenter_id: segmenter, position }).execute();
      }
    }
    expect((await api('POST', `/business_reports/${id}/refresh`, who)).statusCode).toBe(202);
    await app.reports.settled();
    sections = (await read()).sections;
  }
  return sections;
}

async function details(section: { id: string }, query: Record<string, string | number>, who: SignedUp = owner, path = 'details'): Promise<Details> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const response = await api('GET', `/business_report/sections/${section.id}/${path}?${search.toString()}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Details;
}

const total = (section: Section) => section.segments.find((s) => s.id === 'total')?.series[0] as Series;

/** The listed rows and the rest make the totals. */
function expectConsistent(payload: Payload) {
  const rows = payload.top_costs ?? payload.top_deals ?? payload.top_customers;
  expect(rows.length + payload.rest.count).toBe(payload.total_count);
  expect(rows.reduce((sum, row) => sum + row.value, 0) + payload.rest.value).toBeCloseTo(payload.total_value, 6);
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  const account = owner.user.account_id;
  const db = harness.db.kysely;
  await db
    .insertInto('customers')
    .values([
      { account_id: account, id: 'c1', name: 'Acme', public_id: null },
      { account_id: account, id: 'c2', name: 'Beta', public_id: null },
      { account_id: account, id: 'c3', name: 'Gamma', public_id: null },
      { account_id: account, id: 'c4', name: 'Delta', public_id: null },
    ])
    .execute();
  // MRR: Acme $100 from 2025-06 for a year (2 seats of pro), Beta $50 2025-09..2026-02,
  // Gamma $30 from 2025-10; Delta pays $500 once in January 2026.
  await payment(account, 'subh0000000000c1', 'c1', '2025-06-01', 12, 120_000, 'pro', 'recurring', 2);
  await payment(account, 'subh0000000000c2', 'c2', '2025-09-01', 6, 30_000, 'basic');
  await payment(account, 'subh0000000000c3', 'c3', '2025-10-01', 12, 36_000, 'basic');
  await payment(account, 'subh0000000000c4', 'c4', '2026-01-10', 1, 50_000, 'setup', 'one_time');
  await db
    .insertInto('costs')
    .values([
      { account_id: account, id: 'cost-ads', name: 'Ads', value: 20_000, currency: 'USD', date: '2026-01-05', due_date: null, invoice_number: 'F/1', external_id: null, import_id: null },
      { account_id: account, id: 'cost-tools', name: 'Tools', value: 5_000, currency: 'USD', date: '2026-01-20', due_date: null, invoice_number: null, external_id: null, import_id: null },
    ])
    .execute();
  await db
    .insertInto('deals')
    .values([
      { account_id: account, id: 'deal-1', public_id: 'D-1', customer_id: null, name: 'Big deal', value: 90_000, currency: 'USD', stage: 'won', stage_changed_at: '2026-01-15T10:00:00Z', owner_name: 'Ada', external_url: null },
      { account_id: account, id: 'deal-2', public_id: 'D-2', customer_id: null, name: 'Small deal', value: 10_000, currency: 'USD', stage: 'won', stage_changed_at: '2026-01-25T10:00:00Z', owner_name: null, external_url: null },
    ])
    .execute();
  // The stranger's own customer, for the 404s.
  await db.insertInto('customers').values({ account_id: stranger.user.account_id, id: 'x1', name: 'Elsewhere', public_id: null }).execute();
  await payment(stranger.user.account_id, 'subh000000000x01', 'x1', '2025-06-01', 12, 60_000, 'pro');
});
afterAll(() => harness?.close());

describe(`GET /business_report/sections/{id}/details on ${testEngine}`, () => {
  it('lists the customers behind every point of money and count sections, adding up to the point', async () => {
    const sections = await report(owner, ['mrr', 'customers', 'arr', 'new_customers', 'recognized_revenue', 'one_time_revenue']);
    let checked = 0;
    for (const section of sections) {
      for (const point of total(section).data_points) {
        if (point.value === null) continue;
        const answer = await details(section, { date: point.time });
        expect(answer.section_id).toBe(section.id);
        expect(answer.definition_id).toBe(section.definition_id);
        expect(answer.underlying_data).toBe('subscriptions');
        expect(answer.period.first_day).toBe(point.time);
        const [item] = answer.items;
        if (!item) throw new Error('no item');
        expect(item.value).toBe(point.value);
        expectConsistent(item.details);
        if (section.unit === 'count') expect(item.details.total_count).toBe(point.value);
        else expect(item.details.total_value).toBeCloseTo(point.value, 6);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('names the customers and their products: February 2026 MRR is Acme, Beta and Gamma', async () => {
    const [mrr] = await report(owner, ['mrr']);
    if (!mrr) throw new Error('no section');
    const answer = await details(mrr, { date: '2026-02-01' });
    const [item] = answer.items;
    expect(answer.currency).toBe('USD');
    expect(answer.unit).toBe('minor_units');
    expect(item?.value).toBe(18_000);
    const rows = item?.details.top_customers.map((row) => ({ name: row.name, value: row.value, products: row.subscriptions.map((s) => s.product_key) }));
    // The hierarchy is off by default: each customer is its own row, largest first.
    expect(rows).toEqual([
      { name: 'Acme', value: 10_000, products: ['pro'] },
      { name: 'Beta', value: 5_000, products: ['basic'] },
      { name: 'Gamma', value: 3_000, products: ['basic'] },
    ]);
    expect(item?.details.rest).toEqual({ count: 0, value: 0 });
    // The report's own currency asked for: the same answer.
    expect(await details(mrr, { date: '2026-02-01', currency: 'usd' })).toEqual(answer);
    // A limit lists the top ones and sums the rest.
    const limited = (await details(mrr, { date: '2026-02-01', limit: 1 })).items[0]?.details;
    expect(limited?.top_customers.map((row) => row.name)).toEqual(['Acme']);
    expect(limited?.rest).toEqual({ count: 2, value: 8_000 });
  });

  it('drills into one segment value and into one movement component', async () => {
    const [mrr, movements] = await report(owner, ['mrr', 'mrr_movements'], { mrr: ['subscription_segment:product'] });
    if (!mrr || !movements) throw new Error('no section');
    const segment = mrr.segments.find((s) => s.id === 'subscription_segment:product');
    const basic = segment?.series.find((s) => s.segment_value === 'basic');
    const point = basic?.data_points.find((p) => p.time === '2025-12-01');
    expect(point?.value).toBe(8_000);
    const answer = await details(mrr, { date: '2025-12-01', segment_id: 'subscription_segment:product', segment_value: 'basic' });
    expect(answer.items).toHaveLength(1);
    expect(answer.items[0]?.details.total_value).toBe(8_000);
    expect(answer.items[0]?.details.top_customers.map((row) => row.name)).toEqual(['Beta', 'Gamma']);

    // March 2026: Beta's payment ended: a churn of $50.
    const churn = (await details(movements, { date: '2026-03-01', component: 'churn' })).items;
    expect(churn).toHaveLength(1);
    const shown = movements.segments.find((s) => s.id === 'total')?.series.find((s) => s.component === 'churn')?.data_points.find((p) => p.time === '2026-03-01');
    expect(shown?.value).toBe(-5_000);
    expect(churn[0]?.value).toBe(shown?.value);
    expect(churn[0]?.details.total_value).toBe(shown?.value);
    expect(churn[0]?.details.top_customers.map((row) => row.name)).toEqual(['Beta']);
    expect(churn[0]?.details.top_customers[0]?.movement_from).toEqual({ id: 'subh0000000000c2', monthly_amount: 5_000 });
  });

  it('lists costs and deals for the sections built on them', async () => {
    const [costs, deals, cac] = await report(owner, ['costs', 'deals', 'cac']);
    if (!costs || !deals || !cac) throw new Error('no section');
    const costAnswer = await details(costs, { date: '2026-01-01' });
    expect(costAnswer.underlying_data).toBe('costs');
    const costPayload = costAnswer.items[0]?.details;
    expect(costAnswer.items[0]?.value).toBe(25_000);
    expect(costPayload?.total_value).toBe(25_000);
    expect(costPayload?.top_costs).toEqual([
      { id: 'cost-ads', name: 'Ads', value: 20_000, date: '2026-01-05', invoice_number: 'F/1' },
      { id: 'cost-tools', name: 'Tools', value: 5_000, date: '2026-01-20', invoice_number: null },
    ]);
    // A month without costs: none listed.
    expect((await details(costs, { date: '2025-11-01' })).items[0]?.details.top_costs).toEqual([]);

    const dealAnswer = await details(deals, { date: '2026-01-01' });
    expect(dealAnswer.underlying_data).toBe('deals');
    const won = dealAnswer.items.find((item) => item.component === 'won');
    expect(won?.details.total_value).toBe(won?.value);
    expect(won?.details.top_deals?.map((deal) => [deal.name, deal.value, deal.stage])).toEqual([
      ['Big deal', 90_000, 'won'],
      ['Small deal', 10_000, 'won'],
    ]);

    const cacAnswer = await details(cac, { date: '2026-01-01' });
    expect(cacAnswer.items[0]?.details.calculation_details.map((entry) => entry.name)).toEqual(['Costs', 'New customers', 'CAC']);
  });

  it('answers rates with the calculation behind them', async () => {
    const [rate] = await report(owner, ['customer_churn_rate']);
    if (!rate) throw new Error('no section');
    const point = total(rate).data_points.find((p) => p.time === '2026-03-01');
    const answer = await details(rate, { date: '2026-03-01' });
    const calculation = answer.items[0]?.details.calculation_details ?? [];
    expect(calculation.find((entry) => entry.name === 'Customer churn rate')?.value).toBeCloseTo(point?.value ?? NaN, 9);
    expect(calculation.find((entry) => entry.name === 'Churned customers')?.value).toBe(answer.items[0]?.details.total_count);
  });

  it('validates the query', async () => {
    const [mrr] = await report(owner, ['mrr']);
    if (!mrr) throw new Error('no section');
    const missing = await api('GET', `/business_report/sections/${mrr.id}/details`, owner);
    expect(missing.statusCode).toBe(400);
    const badDay = await api('GET', `/business_report/sections/${mrr.id}/details?date=March`, owner);
    expect(badDay.statusCode).toBe(400);
    const outside = await api('GET', `/business_report/sections/${mrr.id}/details?date=2020-01-01`, owner);
    expect(outside.statusCode).toBe(422);
    expect(problemsOf(outside)).toEqual([{ pointer: '/querystring/date', detail: 'no period of the section holds the date' }]);
    const noSegment = await api('GET', `/business_report/sections/${mrr.id}/details?date=2026-01-01&segment_id=subscription_segment:product`, owner);
    expect(noSegment.statusCode).toBe(422);
    expect(problemsOf(noSegment)[0]?.pointer).toBe('/querystring/segment_id');
    const unknownCurrency = await api('GET', `/business_report/sections/${mrr.id}/details?date=2026-01-01&currency=XYZ`, owner);
    expect(unknownCurrency.statusCode).toBe(422);
  });

  it('is for the signed-in full users of the report’s account only', async () => {
    const [mrr] = await report(owner, ['mrr']);
    if (!mrr) throw new Error('no section');
    const url = `/business_report/sections/${mrr.id}/details?date=2026-01-01`;
    expectSignInRequired(await api('GET', url));
    const other = await api('GET', url, stranger);
    expect(other.statusCode).toBe(404);
    expect(problemsOf(other)).toEqual([{ pointer: undefined, detail: SECTION_NOT_FOUND }]);
    expect((await api('GET', `/business_report/sections/${mrr.id}/cohort_details?cohort_date=2026-01-01`, stranger)).statusCode).toBe(404);
    expect((await api('GET', '/business_report/sections/secnothere/details?date=2026-01-01', owner)).statusCode).toBe(404);
    // Shared-link viewers (shared_report_only colleagues) get no details.
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', url, colleague)).statusCode).toBe(403);
    // Anonymous access to the account's reports does not open the details.
    await harness.db.kysely.updateTable('accounts').set({ anonymous_access_allowed: true }).where('id', '=', owner.user.account_id).execute();
    try {
      expectSignInRequired(await api('GET', url));
    } finally {
      await harness.db.kysely.updateTable('accounts').set({ anonymous_access_allowed: false }).where('id', '=', owner.user.account_id).execute();
    }
  });
});

describe(`GET /business_report/sections/{id}/cohort_details on ${testEngine}`, () => {
  it('lists a cohort’s customers for its initial cell and those still paying for cell k', async () => {
    const [customerCohorts, mrrCohorts, mrr] = await report(owner, ['customer_cohorts', 'mrr_cohorts', 'mrr']);
    if (!customerCohorts || !mrrCohorts || !mrr) throw new Error('no section');
    // The September 2025 cohort is Beta alone.
    const september = customerCohorts.segments.find((s) => s.id === 'total')?.series.find((s) => s.data_points.some((p) => p.column === 'initial' && p.time === '2025-09-01'));
    const initial = september?.data_points.find((p) => p.column === 'initial');
    const answer = await details(customerCohorts, { cohort_date: '2025-09-01', column: 'initial' }, owner, 'cohort_details');
    const item = answer.items[0];
    expect(item?.value).toBe(initial?.value);
    expect(item?.details.initial_cohort_count).toBe(1);
    expect(item?.details.top_customers.map((row) => row.name)).toEqual(['Beta']);

    // Its month 3 (December 2025) cell: Beta still pays, 100 %; found from the cell's date too.
    const cell = september?.data_points.find((p) => p.column === 3);
    expect(cell?.value).toBe(1);
    const byDate = await details(customerCohorts, { cohort_date: '2025-09-01', date: cell?.time ?? '' }, owner, 'cohort_details');
    expect(byDate.items[0]?.value).toBe(1);
    expect(byDate.items[0]?.details.calculation_details).toEqual([
      { name: 'Customers in the cohort', value: 1 },
      { name: 'Paying at the end of 2025-12', value: 1 },
      { name: 'Share', value: 1 },
    ]);

    // The money cohorts: the June 2025 cohort's initial is Acme's new MRR.
    const money = await details(mrrCohorts, { cohort_date: '2025-06-01', column: 'initial' }, owner, 'cohort_details');
    expect(money.items[0]?.details.initial_cohort_value).toBe(10_000);
    expect(money.items[0]?.details.total_value).toBe(10_000);

    // Each route is for its kind of section.
    const wrongKind = await api('GET', `/business_report/sections/${mrr.id}/cohort_details?cohort_date=2025-09-01`, owner);
    expect(wrongKind.statusCode).toBe(422);
    expect(problemsOf(wrongKind)[0]?.detail).toBe(NOT_A_COHORT);
    const cohortAsChart = await api('GET', `/business_report/sections/${customerCohorts.id}/details?date=2025-09-01`, owner);
    expect(cohortAsChart.statusCode).toBe(422);
    expect(problemsOf(cohortAsChart)[0]?.detail).toBe(A_COHORT);
  });
});
