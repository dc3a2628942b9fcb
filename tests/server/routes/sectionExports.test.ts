import type { FastifyInstance } from 'fastify';
import Papa from 'papaparse';
import { readSheet } from 'read-excel-file/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { createMetricsService } from '../../../server/metrics/service';
import { runDetailsExport } from '../../../server/reports/exports/sectionDetails';
import { createAuthTestApp, errorsOf, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { CableClient, listen, tokenOf } from '../cable/support';
import { testEngine } from '../helpers/database';

/**
 * Section exports over the API (the test clock's today is 2026-03-02: a new report shows
 * 2025-04 to 2026-03, February 2026 the last complete month). Three customers pay monthly:
 * Ada Corp $100 from June 2025, '=HYPERLINK(…)' $50 from September 2025 and '-Minus Ltd'
 * $25 from October 2025; the last two names are formula-like, as an attacker would write them.
 */

interface Section {
  id: string;
  definition_id: string;
  title: string;
  periods: { label: string; first_day: string }[];
  segments: { id: string; series: { name: string; segment_value?: string; data_points: { time: string; value: number | null; count?: number }[] }[] }[];
}

const SEGMENT = 'customer_segment:seg-country';
const EVIL_NAME = '=HYPERLINK("http://evil.example","click")';

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let colleague: SignedUp;
let mrr: Section;
let customers: Section;
let strangerSection: Section;
let movementsSection: Section;
const clients: CableClient[] = [];

const api = (method: 'GET' | 'POST', url: string, who?: SignedUp) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {} });

async function reportOf(who: SignedUp, definitions: string[]): Promise<{ id: string; secret: string; sections: Section[] }> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v11/business_reports',
    headers: { authorization: who.authorization },
    payload: { title: 'exports', sections: definitions.map((definition_id) => ({ definition_id })) },
  });
  expect(response.statusCode, response.body).toBe(201);
  const { id, secret } = response.json() as { id: string; secret: string };
  await app.reports.settled();
  return { id, secret, sections: await sectionsOf(who, secret) };
}

async function sectionsOf(who: SignedUp, secret: string): Promise<Section[]> {
  const read = await api('GET', `/business_reports/by_secret?secret=${secret}`, who);
  expect(read.statusCode, read.body).toBe(200);
  return (read.json() as { sections: Section[] }).sections;
}

/** The CSV's rows (the byte order mark dropped), as text. */
function csvRows(body: string): string[][] {
  expect(body.startsWith('\uFEFF')).toBe(true);
  return Papa.parse<string[]>(body.slice(1), { skipEmptyLines: true }).data;
}

async function finished(exportId: string, who: SignedUp = owner): Promise<{ id: string; status: string; url: string | null; file_name: string | null }> {
  let status: { id: string; status: string; url: string | null; file_name: string | null } | undefined;
  await expect
    .poll(
      async () => {
        const response = await api('GET', `/section_exports/${exportId}`, who);
        status = response.json() as typeof status;
        return status?.status;
      },
      { timeout: 20_000 },
    )
    .not.toBe('in_progress');
  return status as NonNullable<typeof status>;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app, { name: 'Ada Owner' });
  stranger = await signUp(app);
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  const pay = [
    { id: 'c1', name: 'Ada Corp', start: '2025-06-01', value: 120_000, country: 'DE' },
    { id: 'c2', name: EVIL_NAME, start: '2025-09-01', value: 60_000, country: '=1+1' },
    { id: 'c3', name: '-Minus Ltd', start: '2025-10-01', value: 30_000, country: 'DE' },
  ];
  await db.insertInto('object_attributes').values({ account_id: account, id: 'att-country', name: 'Country', object: 'customer' }).execute();
  await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-country', object_attribute_id: 'att-country', name: 'Country' }).execute();
  await db.insertInto('products').values({ account_id: account, key: 'pro', name: 'Pro' }).execute();
  for (const [k, customer] of pay.entries()) {
    await db.insertInto('customers').values({ account_id: account, id: customer.id, name: customer.name, public_id: null }).execute();
    await db
      .insertInto('payments')
      .values({
        account_id: account,
        id: `subh00000000ex${k}`,
        customer_id: customer.id,
        started_at: customer.start,
        ended_at: isoFromDay(addMonths(dayFromIso(customer.start), 12)),
        duration_in_months: 12,
        total_value: customer.value,
        currency: 'USD',
        invoice_number: null,
        external_id: null,
        import_id: null,
      })
      .execute();
    // Seats: 2, 3 and 4 (the units-sold export counts them).
    await db.insertInto('payment_items').values({ account_id: account, payment_id: `subh00000000ex${k}`, position: 0, product_key: 'pro', type: 'recurring', quantity: k + 2 }).execute();
    await db.insertInto('customer_segment_values').values({ account_id: account, customer_id: customer.id, segment_id: 'seg-country', year: 2025, month: 1, value: customer.country }).execute();
  }
  const report = await reportOf(owner, ['mrr', 'customers']);
  const [mrrSection] = report.sections;
  if (!mrrSection) throw new Error('no section');
  // The MRR chart split by country.
  await db.insertInto('report_section_segments').values({ account_id: account, section_id: mrrSection.id, segmenter_id: SEGMENT, position: 0 }).execute();
  const refresh = await api('POST', `/business_reports/${report.id}/refresh`, owner);
  expect(refresh.statusCode, refresh.body).toBe(202);
  await app.reports.settled();
  [mrr, customers] = (await sectionsOf(owner, report.secret)) as [Section, Section];
  strangerSection = (await reportOf(stranger, ['mrr'])).sections[0] as Section;
  movementsSection = (await reportOf(owner, ['mrr_movements'])).sections[0] as Section;
  colleague = await sharedReportOnlyColleague(app, harness.db, owner);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(() => harness?.close());

describe(`section exports on ${testEngine}`, () => {
  describe('GET /business_report/sections/{id}/export_data', () => {
    it('downloads the section’s total as the chart shows it: a row per period, money in dollars', async () => {
      const response = await api('GET', `/business_report/sections/${mrr.id}/export_data`, owner);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toBe('attachment; filename="mrr-data.csv"');
      const rows = csvRows(response.body);
      expect(rows[0]).toEqual(['Period', 'Start date', 'MRR (USD)']);
      expect(rows).toHaveLength(1 + mrr.periods.length);
      const total = mrr.segments.find((s) => s.id === 'total')?.series[0];
      // Every row is the chart's point, in dollars.
      for (const [k, period] of mrr.periods.entries()) {
        const point = total?.data_points.find((p) => p.time === period.first_day);
        expect(rows[k + 1]).toEqual([period.label, period.first_day, String((point?.value ?? 0) / 100)]);
      }
      const february = rows.find((row) => row[1] === '2026-02-01');
      expect(february?.[2]).toBe('175');
    });

    it('writes a column per segment value, neutralising a formula-like value, and picks the customer count with variant=customer_count', async () => {
      const response = await api('GET', `/business_report/sections/${mrr.id}/export_data?segment_id=${encodeURIComponent(SEGMENT)}&variant=customer_count`, owner);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-disposition']).toBe('attachment; filename="mrr-data-customer-count.csv"');
      // The raw text: the formula-like column title is quoted and starts with a single quote.
      expect(response.body).toContain(`"'=1+1 (customers)"`);
      const rows = csvRows(response.body);
      const header = rows[0] as string[];
      expect(header.slice(0, 2)).toEqual(['Period', 'Start date']);
      const de = header.indexOf('DE (customers)');
      const evil = header.indexOf("'=1+1 (customers)");
      expect(de).toBeGreaterThan(1);
      expect(evil).toBeGreaterThan(1);
      const february = rows.find((row) => row[1] === '2026-02-01') as string[];
      expect([february[de], february[evil]]).toEqual(['2', '1']);
    });

    it('narrows to one segment value', async () => {
      const response = await api('GET', `/business_report/sections/${mrr.id}/export_data?segment_id=${encodeURIComponent(SEGMENT)}&segment_value=DE`, owner);
      expect(response.statusCode, response.body).toBe(200);
      const rows = csvRows(response.body);
      expect(rows[0]).toEqual(['Period', 'Start date', 'DE (USD)']);
      expect(rows.find((row) => row[1] === '2026-02-01')?.[2]).toBe('125');
    });

    it('offers the same table as XLSX, numbers as numbers', async () => {
      const response = await api('GET', `/business_report/sections/${customers.id}/export_data?format=xlsx`, owner);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(response.headers['content-disposition']).toBe('attachment; filename="customers-data.xlsx"');
      const sheet = await readSheet(response.rawPayload);
      expect(sheet[0]).toEqual(['Period', 'Start date', 'Customers']);
      expect(sheet).toHaveLength(1 + customers.periods.length);
      const february = sheet.find((row) => row[1] === '2026-02-01');
      expect(february?.[2]).toBe(3);
    });

    it('refuses an unknown segment or value and a variant it does not know', async () => {
      const segment = await api('GET', `/business_report/sections/${mrr.id}/export_data?segment_id=nope`, owner);
      expect(segment.statusCode).toBe(422);
      expect(errorsOf(segment)[0]).toMatchObject({ source: { pointer: '/querystring/segment_id' }, detail: "The section has no segment 'nope'" });
      const value = await api('GET', `/business_report/sections/${mrr.id}/export_data?segment_id=${encodeURIComponent(SEGMENT)}&segment_value=FR`, owner);
      expect(value.statusCode).toBe(422);
      expect(errorsOf(value)[0]?.source?.pointer).toBe('/querystring/segment_value');
      expect((await api('GET', `/business_report/sections/${mrr.id}/export_data?variant=sub`, owner)).statusCode).toBe(400);
      expect((await api('GET', `/business_report/sections/${mrr.id}/export_data?format=pdf`, owner)).statusCode).toBe(400);
    });

    it('keeps another account’s section from the caller (404), asks for a sign-in (401), and gives a shared-report viewer nothing (403)', async () => {
      expect((await api('GET', `/business_report/sections/${strangerSection.id}/export_data`, owner)).statusCode).toBe(404);
      expect((await api('GET', `/business_report/sections/${mrr.id}/export_data`, stranger)).statusCode).toBe(404);
      expect((await api('GET', '/business_report/sections/sec_unknown/export_data', owner)).statusCode).toBe(404);
      expectSignInRequired(await api('GET', `/business_report/sections/${mrr.id}/export_data`));
      const shared = await api('GET', `/business_report/sections/${mrr.id}/export_data`, colleague);
      expect(shared.statusCode).toBe(403);
      expect(errorsOf(shared)[0]?.detail).toBe('You are not allowed to export this section');
    });
  });

  describe('cohort tables', () => {
    it('exports a cohort table a column per cohort, and the customers of one cohort period by period', async () => {
      const { sections } = await reportOf(owner, ['customer_cohorts']);
      const cohorts = sections[0] as Section;
      const data = await api('GET', `/business_report/sections/${cohorts.id}/export_data`, owner);
      expect(data.statusCode, data.body).toBe(200);
      const rows = csvRows(data.body);
      const header = rows[0] as string[];
      // Customer cohorts: 'initial' is the cohort's customers, then shares of them.
      expect(header.slice(0, 4)).toEqual(['Cohort', 'initial (customers)', 'month 0 (%)', 'month 1 (%)']);
      // A row per cohort, as the page's table: September 2025 gained one customer ($50), still there a month later.
      expect(rows.map((row) => row[0])).toEqual(['Cohort', ...(cohorts.segments[0]?.series.map((s) => s.name) ?? [])]);
      const september = rows.find((row) => row[0] === '2025-09') as string[];
      expect(september[1]).toBe('1');
      expect(september[3]).toBe('100');

      const started = await api('POST', `/business_report/sections/${cohorts.id}/export_details?start_date=2025-09-01&end_date=2025-11-30&cohort_date=2025-09-01`, owner);
      expect(started.statusCode, started.body).toBe(202);
      const done = await finished((started.json() as { id: string }).id);
      const file = await app.inject({ method: 'GET', url: done.url as string });
      // The September cohort's customers in its months 0, 1 and 2.
      expect(csvRows(file.body)).toEqual([
        ['Customer ID', 'Customer', '2025-09 (USD)', '2025-10 (USD)', '2025-11 (USD)'],
        ['c2', `'${EVIL_NAME}`, '50', '50', '50'],
        ['', 'Total', '50', '50', '50'],
      ]);
      const refused = await api('POST', `/business_report/sections/${cohorts.id}/export_details?date=2025-09-01`, owner);
      expect(refused.statusCode).toBe(422);
      expect(errorsOf(refused)[0]).toMatchObject({ source: { pointer: '/querystring/cohort_date' }, detail: 'A cohort date is required for a cohort table' });
    });
  });

  describe('POST /business_report/sections/{id}/export_details and the download', () => {
    it('exports the customers behind each point, neutralised, adding up to the chart; the url downloads it without a token', async () => {
      const started = await api('POST', `/business_report/sections/${mrr.id}/export_details?start_date=2026-01-01&end_date=2026-02-28&variant=money`, owner);
      expect(started.statusCode, started.body).toBe(202);
      const { id, status } = started.json() as { id: string; status: string };
      expect(status).toBe('in_progress');
      expect(id).toMatch(/^sxp[A-Za-z0-9]{32}$/);

      const done = await finished(id);
      expect(done).toMatchObject({ id, status: 'done', file_name: 'mrr-details-2026-01-01-to-2026-02-28.csv' });
      expect(done.url).toMatch(new RegExp(`^/api/v11/section_exports/${id}/download\\?key=[A-Za-z0-9]{32}$`));

      const file = await app.inject({ method: 'GET', url: done.url as string });
      expect(file.statusCode, file.body).toBe(200);
      expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(file.headers['content-disposition']).toBe('attachment; filename="mrr-details-2026-01-01-to-2026-02-28.csv"');
      expect(file.body).toContain(`"'${EVIL_NAME.replace(/"/g, '""')}"`);
      expect(csvRows(file.body)).toEqual([
        ['Customer ID', 'Customer', '2026-01 (USD)', '2026-02 (USD)'],
        ['c3', "'-Minus Ltd", '25', '25'],
        ['c2', `'${EVIL_NAME}`, '50', '50'],
        ['c1', 'Ada Corp', '100', '100'],
        ['', 'Total', '175', '175'],
      ]);

      // The user who started it downloads it with the token alone; nobody else.
      expect((await api('GET', `/section_exports/${id}/download`, owner)).statusCode).toBe(200);
      expectSignInRequired(await api('GET', `/section_exports/${id}/download`));
      expect((await api('GET', `/section_exports/${id}/download?key=wrong`)).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: done.url as string, headers: { authorization: stranger.authorization } })).statusCode).toBe(404);
      expect((await api('GET', `/section_exports/${id}/download`, stranger)).statusCode).toBe(404);
      expect((await api('GET', `/section_exports/${id}`, stranger)).statusCode).toBe(404);
      expectSignInRequired(await api('GET', `/section_exports/${id}`));
    });

    it('exports each customer’s units (variant units_sold), adding up to the units of the point', async () => {
      const started = await api('POST', `/business_report/sections/${customers.id}/export_details?start_date=2025-09-01&end_date=2025-10-31&variant=units_sold`, owner);
      expect(started.statusCode, started.body).toBe(202);
      const done = await finished((started.json() as { id: string }).id);
      expect(done).toMatchObject({ status: 'done', file_name: 'customers-details-2025-09-01-to-2025-10-31.csv' });
      const file = await app.inject({ method: 'GET', url: done.url as string });
      // September: Ada Corp (2 seats) and the evil name (3); October also -Minus Ltd (4).
      expect(csvRows(file.body)).toEqual([
        ['Customer ID', 'Customer', '2025-09', '2025-10'],
        ['c3', "'-Minus Ltd", '', '4'],
        ['c2', `'${EVIL_NAME}`, '3', '3'],
        ['c1', 'Ada Corp', '2', '2'],
        ['', 'Total', '5', '9'],
      ]);
    });

    it('exports one period’s subscriptions (variant sub) of one segment value, as XLSX', async () => {
      const started = await api('POST', `/business_report/sections/${mrr.id}/export_details?date=2026-02-01&segment_id=${encodeURIComponent(SEGMENT)}&segment_value=DE&variant=sub&format=xlsx`, owner);
      expect(started.statusCode, started.body).toBe(202);
      const done = await finished((started.json() as { id: string }).id);
      expect(done).toMatchObject({ status: 'done', file_name: 'mrr-details-2026-02-01.xlsx' });
      const file = await app.inject({ method: 'GET', url: done.url as string });
      expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const sheet = await readSheet(file.rawPayload);
      expect(sheet.map((row) => row.slice(0, 2))).toEqual([
        ['Customer ID', 'Customer'],
        ['c3', '-Minus Ltd'],
        ['c1', 'Ada Corp'],
      ]);
      expect(sheet[0]?.[2]).toBe('2026-02');
    });

    it('tells the user who started it over SectionDetailsExportChannel, and nobody else', async () => {
      const base = await listen(app);
      const started = await api('POST', `/business_report/sections/${customers.id}/export_details?date=2026-02-01`, owner);
      expect(started.statusCode, started.body).toBe(202);
      const { id } = started.json() as { id: string };
      const identifier = JSON.stringify({ channel: 'SectionDetailsExportChannel', id });
      const connect = async (who: SignedUp) => {
        const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(who.authorization) });
        clients.push(client);
        await client.waitFor((frame) => frame.type === 'welcome');
        return client;
      };
      const client = await connect(owner);
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      // Whether it finished before the subscription (the current state) or after (the event), the last message says so.
      await expect.poll(() => (client.messagesOf(identifier).at(-1) as { status?: string } | undefined)?.status, { timeout: 20_000 }).toBe('done');
      const message = client.messagesOf(identifier).at(-1) as { id: string; url: string; file_name: string };
      expect(message).toMatchObject({ id, status: 'done', file_name: 'customers-details-2026-02-01.csv' });
      const file = await app.inject({ method: 'GET', url: message.url });
      expect(csvRows(file.body)).toEqual([
        ['Customer ID', 'Customer', '2026-02 (USD)'],
        ['c3', "'-Minus Ltd", '25'],
        ['c2', `'${EVIL_NAME}`, '50'],
        ['c1', 'Ada Corp', '100'],
        ['', 'Total', '175'],
      ]);
      // The chart counts the customers: one row each.
      expect(customers.segments[0]?.series[0]?.data_points.find((p) => p.time === '2026-02-01')?.value).toBe(3);

      expect(await (await connect(stranger)).subscribeAndWait(identifier)).toBe('reject_subscription');
      expect(await (await connect(colleague)).subscribeAndWait(identifier)).toBe('reject_subscription');
      expect(await client.subscribeAndWait(JSON.stringify({ channel: 'SectionDetailsExportChannel', id: 'sxp_unknown' }))).toBe('reject_subscription');
    });

    it('marks an export that cannot be computed failed, with no file, and logs why', async () => {
      // Stored as a request would store it, but for a month the section no longer has (its range changed meanwhile).
      const id = 'sxpFailingExport00000000000000000000';
      await harness.db.kysely
        .insertInto('section_exports')
        .values({
          account_id: owner.user.account_id,
          id,
          section_id: mrr.id,
          user_id: owner.user.id,
          params: JSON.stringify({ report_id: (await harness.db.kysely.selectFrom('report_sections').select('report_id').where('id', '=', mrr.id).executeTakeFirstOrThrow()).report_id, start_date: '2019-01-01', end_date: '2019-01-31', variant: 'money', format: 'csv', download_key: 'k'.repeat(32) }),
        })
        .execute();
      const logged: string[] = [];
      const metrics = createMetricsService(harness.db);
      await runDetailsExport(harness.db.kysely, metrics, { accountId: owner.user.account_id, exportId: id }, { error: (line) => logged.push(line) });
      await metrics.close();
      expect((await api('GET', `/section_exports/${id}`, owner)).json()).toEqual({ id, status: 'failed', url: null, file_name: null });
      expect(logged).toEqual([`section export ${id} failed: No period of the section falls between these dates`]);
      expect((await api('GET', `/section_exports/${id}/download?key=${'k'.repeat(32)}`)).statusCode).toBe(404);
    });

    it('refuses dates it cannot export, an unknown segment, units sold per customer and a bad variant', async () => {
      const post = (query: string) => api('POST', `/business_report/sections/${mrr.id}/export_details?${query}`, owner);
      const stored = async () => (await harness.db.kysely.selectFrom('section_exports').select('id').where('account_id', '=', owner.user.account_id).execute()).length;
      const before = await stored();
      const cases: [string, string, string][] = [
        ['variant=money', '/querystring/date', 'Give a date, or a start date and an end date'],
        ['start_date=2026-02-01&end_date=2026-01-01', '/querystring/start_date', 'The start date is after the end date'],
        ['date=2020-01-01', '/querystring/start_date', 'No period of the section falls between these dates'],
        ['date=2026-02-01&segment_id=nope', '/querystring/segment_id', "The section has no segment 'nope'"],
      ];
      for (const [query, pointer, detail] of cases) {
        const response = await post(query);
        expect(response.statusCode, query).toBe(422);
        expect(errorsOf(response)[0], query).toMatchObject({ source: { pointer }, detail });
      }
      // Units per row: MRR, customers and revenue charts count them; movements do not.
      const movements = await api('POST', `/business_report/sections/${movementsSection.id}/export_details?date=2026-02-01&variant=units_sold`, owner);
      expect(movements.statusCode, movements.body).toBe(422);
      expect(errorsOf(movements)[0]).toMatchObject({ source: { pointer: '/querystring/variant' }, detail: 'Units sold per customer are not available for this section' });
      expect((await post('date=2026-02-01&variant=customer_count')).statusCode).toBe(400);
      expect((await post('date=02/01/2026')).statusCode).toBe(400);
      // A refused request stores nothing.
      expect(await stored()).toBe(before);
    });

    it('keeps another account’s section from the caller (404), asks for a sign-in (401), and gives a shared-report viewer nothing (403)', async () => {
      expect((await api('POST', `/business_report/sections/${strangerSection.id}/export_details?date=2026-02-01`, owner)).statusCode).toBe(404);
      expect((await api('POST', `/business_report/sections/${mrr.id}/export_details?date=2026-02-01`, stranger)).statusCode).toBe(404);
      expectSignInRequired(await api('POST', `/business_report/sections/${mrr.id}/export_details?date=2026-02-01`));
      expect((await api('POST', `/business_report/sections/${mrr.id}/export_details?date=2026-02-01`, colleague)).statusCode).toBe(403);
    });
  });
});
