import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_NOT_NUMBER, DURATION_REQUIRED, LINE_NAME_REQUIRED, RULE_ALREADY_PRESENT, RULE_PRODUCT_REQUIRED, RULE_TEXT_TOO_LONG, type InvoiceItem } from '../../../models/invoices';
import type { Payment } from '../../../models/payments';
import { distillItems } from '../../../server/invoices/distill';
import { BAD_CURSOR } from '../../../server/invoices/items';
import { createAuthTestApp, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * The rejected invoices and import rules calls (GET /invoice_items, /invoice_items/status,
 * /distillers/exact_match_affected_invoices; POST /distillers): a rule turns the rejected lines
 * of its name into payments at once and the report's MRR follows (the test clock's today is
 * 2026-03-02).
 */

interface Section {
  definition_id: string;
  segments: { is_total: boolean; series: { data_points: { time: string; value: number | null }[] }[] }[];
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let report: { id: string; secret: string };
let sequence = 0;

const api = (method: 'GET' | 'POST', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

/** A line of an invoice as a sync writes it, rejected unless told. */
async function line(who: SignedUp, fields: { name: string; value?: number; buyer?: string; buyerId?: string | null; issueDate?: string; status?: 'distillation_failed' | 'pending' | 'distilled' }) {
  sequence += 1;
  const id = `inv${String(sequence).padStart(13, '0')}`;
  await harness.db.kysely
    .insertInto('invoice_items')
    .values({
      account_id: who.user.account_id,
      id,
      source: 'fakturownia',
      external_id: `${sequence}:1`,
      name: fields.name,
      value: fields.value ?? 120_000,
      currency: 'USD',
      quantity: 1,
      invoice_number: `FV ${sequence}/2026`,
      invoice_buyer_name: fields.buyer ?? 'Acme',
      invoice_buyer_id: fields.buyerId === undefined ? '5260001246' : fields.buyerId,
      invoice_issue_date: fields.issueDate ?? '2026-02-10',
      processing_status: fields.status ?? 'distillation_failed',
    })
    .execute();
  return id;
}

const rule = (overrides: Record<string, unknown> = {}) => ({
  line_name: 'Pro plan (annual)',
  item_type: 'recurring',
  issue_date_treatment: 'started_at',
  product_key: 'Pro',
  duration_in_months: 12,
  matcher: 'equal',
  ...overrides,
});

async function mrrThisMonth(): Promise<number | null> {
  await app.reports.settled();
  const response = await api('GET', `/business_reports/by_secret?secret=${report.secret}`);
  expect(response.statusCode, response.body).toBe(200);
  const section = (response.json() as { sections: Section[] }).sections.find((s) => s.definition_id === 'mrr') as Section;
  return section.segments.find((s) => s.is_total)?.series[0]?.data_points.at(-1)?.value ?? null;
}

async function payments(who: SignedUp = owner): Promise<Payment[]> {
  const response = await api('GET', '/subscription_histories?limit=200', who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: Payment[] }).items;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const created = await api('POST', '/business_reports', owner, { title: 'MRR', sections: [{ definition_id: 'mrr' }] });
  expect(created.statusCode, created.body).toBe(201);
  report = created.json() as { id: string; secret: string };
}, 60_000);
afterAll(() => harness?.close());

describe(`invoices on ${testEngine}: who may`, () => {
  it('are for signed-in full users', async () => {
    expectSignInRequired(await api('GET', '/invoice_items', null));
    expectSignInRequired(await api('GET', '/invoice_items/status', null));
    expectSignInRequired(await api('GET', '/distillers/exact_match_affected_invoices?line_name=x', null));
    expectSignInRequired(await api('POST', '/distillers', null, rule()));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/invoice_items', colleague)).statusCode).toBe(403);
    expect((await api('POST', '/distillers', colleague, rule())).statusCode).toBe(403);
  });
});

describe('GET /api/v11/invoice_items and /invoice_items/status', () => {
  it('lists only the account’s rejected lines, a page at a time, with their invoice; the status says whether any exist', async () => {
    expect((await api('GET', '/invoice_items/status')).json()).toEqual({ has_rejected_invoice_items: false });
    const first = await line(owner, { name: 'Setup fee', value: 50_000, buyer: 'Beta', buyerId: null });
    await line(owner, { name: 'Consulting', value: 70_000 });
    await line(owner, { name: 'Already done', status: 'distilled' });
    await line(stranger, { name: 'Theirs' });
    expect((await api('GET', '/invoice_items/status')).json()).toEqual({ has_rejected_invoice_items: true });

    const page1 = await api('GET', '/invoice_items?processing_status=distillation_failed&sort_by=name:asc&limit=1');
    expect(page1.statusCode, page1.body).toBe(200);
    const body1 = page1.json() as { items: InvoiceItem[]; total_count: number; next: string | null };
    expect(body1.total_count).toBe(2);
    expect(body1.items.map((item) => item.name)).toEqual(['Consulting']);
    const page2 = (await api('GET', `/invoice_items?sort_by=name:asc&limit=1&next=${body1.next}`)).json() as typeof body1;
    expect(page2.items).toEqual([
      {
        id: first,
        name: 'Setup fee',
        value: 50_000,
        currency: 'USD',
        quantity: 1,
        source: 'fakturownia',
        processing_status: 'distillation_failed',
        invoice: { number: expect.stringMatching(/^FV /) as string, buyer_name: 'Beta', buyer_id: null, issue_date: '2026-02-10' },
      },
    ]);
    expect(page2.next).toBeNull();
    const byValue = (await api('GET', '/invoice_items?sort_by=value:desc')).json() as typeof body1;
    expect(byValue.items.map((item) => item.value)).toEqual([70_000, 50_000]);
  });

  it('refuses a cursor it did not give and an unknown sort', async () => {
    const bad = await api('GET', '/invoice_items?next=garbage');
    expect(bad.statusCode).toBe(422);
    expect(problemsOf(bad)).toEqual([{ pointer: '/querystring/next', detail: BAD_CURSOR }]);
    expect((await api('GET', '/invoice_items?sort_by=nope:asc')).statusCode).toBe(400);
  });
});

describe('GET /api/v11/distillers/exact_match_affected_invoices', () => {
  it('counts the account’s rejected lines of exactly that name', async () => {
    await line(owner, { name: 'Pro plan (annual)' });
    await line(owner, { name: 'Pro plan (annual)', buyer: 'Gamma', buyerId: '7770002222' });
    await line(owner, { name: 'Pro plan (annual) ' + 'x' });
    await line(stranger, { name: 'Pro plan (annual)' });
    const response = await api('GET', `/distillers/exact_match_affected_invoices?line_name=${encodeURIComponent('Pro plan (annual)')}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ count: 2 });
    expect((await api('GET', '/distillers/exact_match_affected_invoices?line_name=nothing')).json()).toEqual({ count: 0 });
  });
});

describe('POST /api/v11/distillers', () => {
  it("refuses a rule with the drawer's messages", async () => {
    const empty = await api('POST', '/distillers', owner, { line_name: ' ', product_key: '', duration_in_months: '' });
    expect(empty.statusCode).toBe(422);
    expect(problemsOf(empty)).toEqual([
      { pointer: '/body/line_name', detail: LINE_NAME_REQUIRED },
      { pointer: '/body/product_key', detail: RULE_PRODUCT_REQUIRED },
      { pointer: '/body/duration_in_months', detail: DURATION_REQUIRED },
    ]);
    for (const duration of ['12a', 'twelve', 0, 1.5, -3, { months: 1 }]) {
      const response = await api('POST', '/distillers', owner, rule({ duration_in_months: duration }));
      expect(problemsOf(response), String(duration)).toEqual([{ pointer: '/body/duration_in_months', detail: DURATION_NOT_NUMBER }]);
    }
    expect((await api('POST', '/distillers', owner, rule({ item_type: 'gold' }))).statusCode).toBe(422);
    expect((await api('POST', '/distillers', owner, rule({ issue_date_treatment: 'middle' }))).statusCode).toBe(422);
    expect(problemsOf(await api('POST', '/distillers', owner, rule({ line_name: 'a'.repeat(5000) })))).toEqual([{ pointer: '/body/line_name', detail: RULE_TEXT_TOO_LONG }]);
    expect((await api('POST', '/distillers', owner, rule({ line_name: 'a\u0000b' }))).statusCode).toBeLessThan(500);
    expect((await api('POST', '/distillers', owner, [1, 2])).statusCode).toBe(400);
  });

  it('turns the rejected lines of its name into payments at once, and the MRR follows', async () => {
    expect(await mrrThisMonth()).toBe(0);
    const created = await api('POST', '/distillers', owner, rule());
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ distiller: { line_name: 'Pro plan (annual)', product_key: 'Pro', duration_in_months: 12, issue_date_treatment: 'started_at' }, processed: 2 });

    const made = (await payments()).filter((payment) => payment.items[0]?.product_key === 'Pro');
    expect(made.map((payment) => [payment.customer.name, payment.started_at, payment.ended_at, payment.total_value, payment.currency]).sort()).toEqual([
      ['Acme', '2026-02-10', '2027-02-10', 120_000, 'USD'],
      ['Gamma', '2026-02-10', '2027-02-10', 120_000, 'USD'],
    ]);
    // Two payments of 1,200.00 a year: 200.00 a month (minor units).
    expect(await mrrThisMonth()).toBe(20_000);
    expect((await api('GET', `/distillers/exact_match_affected_invoices?line_name=${encodeURIComponent('Pro plan (annual)')}`)).json()).toEqual({ count: 0 });
    const left = (await api('GET', '/invoice_items')).json() as { items: InvoiceItem[] };
    expect(left.items.map((item) => item.name)).not.toContain('Pro plan (annual)');
    // The stranger's line of that name is theirs: untouched.
    expect((await api('GET', `/distillers/exact_match_affected_invoices?line_name=${encodeURIComponent('Pro plan (annual)')}`, stranger)).json()).toEqual({ count: 1 });
    expect(await payments(stranger)).toEqual([]);
  });

  it("answers 409 'Rule already present' for a second rule of that line name", async () => {
    const again = await api('POST', '/distillers', owner, rule({ product_key: 'Other' }));
    expect(again.statusCode).toBe(409);
    expect(problemsOf(again).map((problem) => problem.detail)).toEqual([RULE_ALREADY_PRESENT]);
  });

  it("with 'ended_at' the issue date ends the period; one buyer is one customer", async () => {
    await line(owner, { name: 'Support (quarter)', value: 30_000, issueDate: '2026-03-31', buyer: 'Acme' });
    const created = await api('POST', '/distillers', owner, rule({ line_name: 'Support (quarter)', issue_date_treatment: 'ended_at', duration_in_months: '3', product_key: 'Support' }));
    expect(created.statusCode, created.body).toBe(201);
    const support = (await payments()).filter((payment) => payment.items[0]?.product_key === 'Support');
    expect(support.map((payment) => [payment.started_at, payment.ended_at, payment.duration_in_months])).toEqual([['2025-12-31', '2026-03-31', 3]]);
    const acme = (await payments()).filter((payment) => payment.customer.name === 'Acme');
    expect(new Set(acme.map((payment) => payment.customer.id)).size).toBe(1);
  });
});

describe('distillItems (what a sync calls in its transaction)', () => {
  const statusOf = async (id: string) =>
    (await harness.db.kysely.selectFrom('invoice_items').select(['processing_status', 'payment_id']).where('account_id', '=', owner.user.account_id).where('id', '=', id).executeTakeFirstOrThrow());

  it('distils the pending lines a rule knows, rejects the rest, and leaves a correction (negative value) rejected', async () => {
    const known = await line(owner, { name: 'Pro plan (annual)', status: 'pending', buyer: 'Delta', buyerId: null, issueDate: '2026-01-31' });
    const unknown = await line(owner, { name: 'Mystery', status: 'pending' });
    const correction = await line(owner, { name: 'Pro plan (annual)', status: 'pending', value: -120_000 });
    const result = await harness.db.kysely.transaction().execute((trx) => distillItems(trx, owner.user.account_id));
    expect(result).toEqual({ distilled: 1, failed: 2 });
    expect((await statusOf(unknown)).processing_status).toBe('distillation_failed');
    expect((await statusOf(correction)).processing_status).toBe('distillation_failed');
    const distilled = await statusOf(known);
    expect(distilled.processing_status).toBe('distilled');
    const payment = (await payments()).find((p) => p.id === distilled.payment_id);
    expect(payment).toMatchObject({ customer: { name: 'Delta' }, started_at: '2026-01-31', ended_at: '2027-01-31', source: 'fakturownia' });
    // Again: nothing left to do, nothing made twice.
    expect(await harness.db.kysely.transaction().execute((trx) => distillItems(trx, owner.user.account_id, [known, unknown]))).toEqual({ distilled: 0, failed: 1 });
    expect((await payments()).filter((p) => p.customer.name === 'Delta')).toHaveLength(1);
  });
});
