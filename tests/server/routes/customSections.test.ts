import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARGUMENT_NOT_NUMBER,
  ARGUMENT_REQUIRED,
  CONFIG_UNREADABLE,
  FILTER_FIELD_REQUIRED,
  FILTER_VALUE_REQUIRED,
  NO_COST_FIELDS,
  SERIES_NAME_REQUIRED,
  SERIES_REQUIRED,
  UNKNOWN_VALUE,
  newSeries,
  type CustomSeries,
} from '../../../models/customSections';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { UNKNOWN_FIELD_ID } from '../../../server/reports/customSections';
import { REPORT_NOT_FOUND } from '../../../server/reports/reports';
import { NOT_CUSTOM } from '../../../server/routes/reportSections';
import { createAuthTestApp, errorsOf, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * Custom sections over the API (docs/custom-sections.md): the values and fields of the account,
 * a field's values, the live preview, creating and changing a custom section with each
 * validation message at its field, the report computing it, and its points' details adding up.
 * The test clock's today is 2026-03-02: a new report shows 2025-04 to 2026-03.
 */

interface Series {
  name: string;
  segment_value?: string;
  component?: string;
  hidden?: boolean;
  y_reference_line?: number | null;
  unit?: string;
  data_points: { time: string; value: number | null }[];
}
interface Section {
  id: string;
  definition_id: string;
  title: string;
  config?: unknown;
  recalculation_status: string;
  underlying_data: string;
  segment_ids: string[];
  segments: { id: string; name: string; series: Series[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let reportId: string;
let secret: string;

const api = (method: 'GET' | 'POST' | 'PUT', url: string, who?: SignedUp, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const PLAN = 'seg-plan';

async function payment(account: string, id: string, customer: string, start: string, months: number, total: number, product: string) {
  const db = harness.db.kysely;
  await db.insertInto('products').values({ account_id: account, key: product, name: product }).onConflict((c) => c.doNothing()).execute();
  await db
    .insertInto('payments')
    .values({ account_id: account, id, customer_id: customer, started_at: start, ended_at: isoFromDay(addMonths(dayFromIso(start), months)), duration_in_months: months, total_value: total, currency: 'USD', invoice_number: `INV-${id}`, external_id: null, import_id: null })
    .execute();
  await db.insertInto('payment_items').values({ account_id: account, payment_id: id, product_key: product, type: 'recurring', quantity: 1 }).execute();
}

const series = (name: string, attribute = 'mrr', extra: Partial<CustomSeries> = {}, object: CustomSeries['value']['object'] = 'payments'): CustomSeries => ({
  ...newSeries(name),
  value: { object, attribute, label: attribute, arguments: { periods_back: 0 } },
  ...extra,
});
const planGroup = { type: 'group', object: 'customer', field: 'segment', field_id: PLAN };
const productIs = (value: string | string[], operator = 'eq') => ({ type: 'filter', object: 'payment', field: 'product', field_id: null, operator, value });

async function readReport(who: SignedUp = owner): Promise<Section[]> {
  await app.reports.settled();
  const response = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { sections: Section[] }).sections;
}
const totalOf = (section: Section | undefined) => section?.segments.find((s) => s.id === 'total')?.series ?? [];
const valuesOf = (s: Series | undefined) => s?.data_points.map((p) => p.value);

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
    ])
    .execute();
  // From 2025-06: Acme $100 a month on pro, Beta $50 on basic, Gamma $30 on pro (from 2025-10).
  await payment(account, 'subh00000000000a', 'c1', '2025-06-01', 12, 120_000, 'pro');
  await payment(account, 'subh00000000000b', 'c2', '2025-06-01', 12, 60_000, 'basic');
  await payment(account, 'subh00000000000c', 'c3', '2025-10-01', 12, 36_000, 'pro');
  await db.insertInto('object_attributes').values({ account_id: account, id: `${PLAN}-att`, name: 'Plan', object: 'customer' }).execute();
  await db.insertInto('customer_segments').values({ account_id: account, id: PLAN, object_attribute_id: `${PLAN}-att`, name: 'Plan' }).execute();
  await db
    .insertInto('customer_segment_values')
    .values([
      { account_id: account, customer_id: 'c1', segment_id: PLAN, year: 2025, month: 1, value: 'Enterprise' },
      { account_id: account, customer_id: 'c2', segment_id: PLAN, year: 2025, month: 1, value: 'SMB' },
      { account_id: account, customer_id: 'c3', segment_id: PLAN, year: 2025, month: 1, value: 'SMB' },
    ])
    .execute();
  await db.insertInto('object_attributes').values({ account_id: stranger.user.account_id, id: 'stranger-att', name: 'Region', object: 'customer' }).execute();
  await db.insertInto('customer_segments').values({ account_id: stranger.user.account_id, id: 'stranger-seg', object_attribute_id: 'stranger-att', name: 'Region' }).execute();
  const created = await api('POST', '/business_reports', owner, { title: 'Custom', sections: [{ definition_id: 'mrr' }] });
  expect(created.statusCode, created.body).toBe(201);
  ({ id: reportId, secret } = created.json() as { id: string; secret: string });
  await app.reports.settled();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe(`custom sections on ${testEngine}`, () => {
  it('lists the values a series can show and the account’s fields to group and filter by', async () => {
    const response = await api('GET', '/user_filtered_config', owner);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { values: { object: string; attribute: string; label: string; arguments: { name: string }[] }[]; filters: { object: string; field: string; field_id: string | null; name: string; operators: string[]; groupable: boolean; filterable: boolean }[] };
    expect(body.values.find((v) => v.attribute === 'mrr')).toMatchObject({ object: 'payments', label: 'MRR', arguments: [{ name: 'periods_back' }] });
    expect(body.filters).toContainEqual({ object: 'customer', field: 'segment', field_id: PLAN, name: 'Plan', operators: ['eq', 'in', 'in_reporting_month'], groupable: true, filterable: true });
    expect(body.filters).toContainEqual({ object: 'payment', field: 'product', field_id: null, name: 'Product', operators: ['eq', 'in'], groupable: true, filterable: true });
    // Another account's attribute is not offered; a colleague who only sees shared reports is still a user of the account.
    expect(body.filters.some((f) => f.field_id === 'stranger-seg')).toBe(false);
    expectSignInRequired(await api('GET', '/user_filtered_config'));
  });

  it('answers a field’s values in the account, and 404 for a field it does not have', async () => {
    const plan = await api('GET', `/user_filtered_config/possible_values?object=customer&field=segment&field_id=${PLAN}`, owner);
    expect(plan.json()).toEqual({ items: [{ value: 'Enterprise' }, { value: 'SMB' }] });
    expect((await api('GET', '/user_filtered_config/possible_values?object=payment&field=product', owner)).json()).toEqual({ items: [{ value: 'basic' }, { value: 'pro' }] });
    const elsewhere = await api('GET', '/user_filtered_config/possible_values?object=customer&field=segment&field_id=stranger-seg', owner);
    expect(elsewhere.statusCode).toBe(404);
    expect(errorsOf(elsewhere)[0]?.detail).toBe(UNKNOWN_FIELD_ID);
    expect((await api('GET', '/user_filtered_config/possible_values?object=planet&field=segment', owner)).statusCode).toBe(400);
  });

  it('previews a config in the report without saving it', async () => {
    const response = await api('POST', `/business_report/${reportId}/sections/preview`, owner, { config: { groups: [], series: [series('Pro MRR', 'mrr', { filters: [productIs('pro') as never] })] } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { unit: string; periods: { first_day: string }[]; segments: Section['segments'] };
    expect(body.periods.map((p) => p.first_day.slice(0, 7))).toEqual(['2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03']);
    expect(valuesOf(body.segments[0]?.series[0])).toEqual([0, 0, 10_000, 10_000, 10_000, 10_000, 13_000, 13_000, 13_000, 13_000, 13_000, 13_000]);
    expect((await readReport()).map((s) => s.definition_id)).toEqual(['mrr']);
    const invalid = await api('POST', `/business_report/${reportId}/sections/preview`, owner, { config: { groups: [], series: [{ ...series(''), value: { object: 'payments', attribute: 'mrr', arguments: { periods_back: 'x' } } }] } });
    expect(invalid.statusCode).toBe(422);
    expect(errorsOf(invalid).map((e) => [e.source?.pointer, e.detail])).toEqual([
      ['/config/series/0/name', SERIES_NAME_REQUIRED],
      ['/config/series/0/value/arguments/periods_back', ARGUMENT_NOT_NUMBER],
    ]);
    expect((await api('POST', `/business_report/${reportId}/sections/preview`, stranger, { config: { groups: [], series: [series('x')] } })).statusCode).toBe(404);
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('POST', `/business_report/${reportId}/sections/preview`, colleague, { config: { groups: [], series: [series('x')] } })).statusCode).toBe(403);
  });

  it('refuses a config with each message at its field', async () => {
    const post = (config: unknown) => api('POST', `/business_report/${reportId}/sections`, owner, { definition_id: 'user_filtered', config });
    const problems = async (config: unknown) => {
      const response = await post(config);
      expect(response.statusCode, response.body).toBe(422);
      return errorsOf(response).map((e) => [e.source?.pointer, e.detail]);
    };
    expect(await problems(undefined)).toEqual([['/config/series', SERIES_REQUIRED]]);
    expect(await problems({ groups: [], series: [] })).toEqual([['/config/series', SERIES_REQUIRED]]);
    expect(await problems('not a config')).toEqual([['/config', CONFIG_UNREADABLE]]);
    expect(await problems({ series: [{ ...series('A'), value: { object: 'payments', attribute: 'mrr', arguments: { periods_back: '' } } }] })).toEqual([['/config/series/0/value/arguments/periods_back', ARGUMENT_REQUIRED]]);
    expect(await problems({ series: [{ ...series('A'), value: { object: 'payments', attribute: 'happiness' } }] })).toEqual([['/config/series/0/value', UNKNOWN_VALUE]]);
    expect(
      await problems({
        series: [
          series('A', 'mrr', {
            filters: [
              { type: 'filter', object: 'payment', field: '', field_id: null, operator: 'eq', value: 'pro' },
              { type: 'filter', object: 'payment', field: 'product', field_id: null, operator: 'in', value: [] },
            ] as never,
          }),
        ],
      }),
    ).toEqual([
      ['/config/series/0/filters/0/field', FILTER_FIELD_REQUIRED],
      ['/config/series/0/filters/1/value', FILTER_VALUE_REQUIRED],
    ]);
    expect(await problems({ series: [series('A', 'mrr', { groups: [{ type: 'group', object: 'customer', field: 'segment', field_id: 'stranger-seg' }] })] })).toEqual([
      ['/config/series/0/groups/0/field', UNKNOWN_FIELD_ID],
    ]);
    expect(await problems({ series: [series('A', 'mrr', { groups: [{ type: 'group', object: 'cost', field: 'attribute', field_id: 'x' }] })] })).toEqual([
      ['/config/series/0/groups/0/field', NO_COST_FIELDS],
    ]);
    expect((await readReport()).map((s) => s.definition_id)).toEqual(['mrr']);
  });

  it('creates a custom section the report computes, with its groups as segments and details adding up', async () => {
    const config = {
      groups: [planGroup],
      series: [series('MRR'), series('Pro MRR a month before', 'mrr', { filters: [productIs(['pro'], 'in') as never], value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 1 } }, reference: 150 }), series('Customers', 'count', { hidden: true }, 'customers')],
    };
    const created = await api('POST', `/business_report/${reportId}/sections`, owner, { definition_id: 'user_filtered', config, title: '  Revenue mix ' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ definition_id: 'user_filtered', title: 'Revenue mix', segment_ids: [`customer_segment:${PLAN}`] });
    const section = (await readReport()).find((s) => s.id === (created.json() as { id: string }).id);
    expect(section).toMatchObject({ definition_id: 'user_filtered', title: 'Revenue mix', recalculation_status: 'recalculated', underlying_data: 'subscriptions' });
    expect((section?.config as { series: { name: string }[] }).series.map((s) => s.name)).toEqual(['MRR', 'Pro MRR a month before', 'Customers']);
    const [mrr, before, customers] = totalOf(section);
    expect(valuesOf(mrr)?.slice(-3)).toEqual([18_000, 18_000, 18_000]);
    expect(valuesOf(before)?.slice(6, 8)).toEqual([10_000, 13_000]);
    expect(before).toMatchObject({ y_reference_line: 15_000, component: 'series:1', unit: 'minor_units' });
    expect(customers).toMatchObject({ hidden: true, unit: 'count' });
    const plan = section?.segments.find((s) => s.id === `customer_segment:${PLAN}`);
    expect(plan?.series.filter((s) => s.component === 'series:0').map((s) => [s.name, valuesOf(s)?.at(-1)])).toEqual([
      ['MRR: Enterprise', 10_000],
      ['MRR: SMB', 8_000],
      ['MRR: Other', 0],
    ]);
    const details = await api('GET', `/business_report/sections/${section?.id}/details?date=2025-11-01&component=series:1`, owner);
    expect(details.statusCode, details.body).toBe(200);
    const body = details.json() as { definition_id: string; period: { first_day: string }; items: { name: string; value: number; details: { total_value: number; top_customers: { name: string; value: number }[] } }[] };
    expect(body.definition_id).toBe('user_filtered');
    expect(body.period.first_day).toBe('2025-10-01');
    expect(body.items[0]).toMatchObject({ name: 'Pro MRR a month before', value: 13_000 });
    expect(body.items[0]?.details.total_value).toBe(13_000);
    expect(body.items[0]?.details.top_customers.map((row) => [row.name, row.value])).toEqual([
      ['Acme', 10_000],
      ['Gamma', 3_000],
    ]);
    // The data export: a column per series named by it, each in its own unit (money in dollars, customers counted).
    const exported = await api('GET', `/business_report/sections/${section?.id}/export_data`, owner);
    expect(exported.statusCode, exported.body).toBe(200);
    const rows = exported.body.trim().split(/\r?\n/).map((line) => line.split(','));
    expect(rows[0]).toEqual(['Period', 'Start date', 'MRR (USD)', 'Pro MRR a month before (USD)', 'Customers']);
    expect(rows.at(-1)).toEqual(['2026-03', '2026-03-01', '180', '130', '3']);
  });

  it('changes a custom section’s calculation, and refuses a config on a catalogue section', async () => {
    const sections = await readReport();
    const custom = sections.find((s) => s.definition_id === 'user_filtered') as Section;
    const changed = await api('PUT', `/business_report/sections/${custom.id}`, owner, { definition_id: 'user_filtered', config: { groups: [], series: [series('Basic', 'mrr', { filters: [productIs('basic') as never] })] } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ segment_ids: [] });
    const after = (await readReport()).find((s) => s.id === custom.id);
    expect(totalOf(after).map((s) => s.name)).toEqual(['Basic']);
    expect(valuesOf(totalOf(after)[0])?.at(-1)).toBe(5_000);
    const invalid = await api('PUT', `/business_report/sections/${custom.id}`, owner, { definition_id: 'user_filtered', config: { groups: [], series: [series(' ')] } });
    expect(errorsOf(invalid).map((e) => [e.source?.pointer, e.detail])).toEqual([['/config/series/0/name', SERIES_NAME_REQUIRED]]);
    // Its chart, resolution and data category change like any section's, within what it can show.
    expect((await api('PUT', `/business_report/sections/${custom.id}`, owner, { data_type: 'bar_chart', use_hierarchy: false, resolution: 'quarter' })).statusCode).toBe(200);
    expect((await readReport()).find((s) => s.id === custom.id)?.segments[0]?.series[0]?.data_points).toHaveLength(4);
    const cohort = await api('PUT', `/business_report/sections/${custom.id}`, owner, { data_type: 'cohort', use_hierarchy: false, resolution: 'month' });
    expect(errorsOf(cohort).map((e) => e.source?.pointer)).toEqual(['/data_type']);
    const counts = await api('PUT', `/business_report/sections/${custom.id}`, owner, { data_categories: ['counts'] });
    expect(errorsOf(counts).map((e) => e.source?.pointer)).toEqual(['/data_categories/0']);
    const catalogue = sections.find((s) => s.definition_id === 'mrr') as Section;
    const refused = await api('PUT', `/business_report/sections/${catalogue.id}`, owner, { definition_id: 'user_filtered', config: { groups: [], series: [series('x')] } });
    expect(refused.statusCode).toBe(422);
    expect(errorsOf(refused)[0]?.detail).toBe(NOT_CUSTOM);
    expect((await api('PUT', `/business_report/sections/${custom.id}`, stranger, { definition_id: 'user_filtered', config: { groups: [], series: [series('x')] } })).statusCode).toBe(404);
  });

  it('a stored config that cannot be read fails its section with the message', async () => {
    const sections = await readReport();
    const custom = sections.find((s) => s.definition_id === 'user_filtered') as Section;
    await harness.db.kysely.updateTable('report_sections').set({ config: JSON.stringify({ series: 'broken' }) }).where('id', '=', custom.id).execute();
    expect((await api('POST', `/business_reports/${reportId}/refresh`, owner)).statusCode).toBe(202);
    const after = (await readReport()).find((s) => s.id === custom.id) as Section & { error: string | null };
    expect(after.recalculation_status).toBe('failed');
    expect(after.error).toBe(CONFIG_UNREADABLE);
    expect((await api('POST', `/business_report/${REPORT_NOT_FOUND.length}x/sections/preview`, owner, { config: {} })).statusCode).toBe(404);
  });
});
