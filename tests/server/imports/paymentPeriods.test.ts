import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { BOTH_AMOUNTS, MAPPING_INCOMPLETE } from '../../../server/routes/csvImports';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * Payments of any service period through both imports: a period that is not whole months, an
 * open-ended payment (empty end), a total value instead of the monthly amount, discounts, and
 * the refusals (an end not after the start, overlapping open-ended payments).
 */

interface Failure {
  row_number: number;
  row: string;
  message: string;
}

interface ImportView {
  status: string;
  result: { status: string; success_count: number; failure_count: number; created?: number; updated?: number; unchanged?: number; failures: Failure[]; error?: string };
}

const DIALOG_ORDER = 'customer_id,started_at,ended_at,monthly_amount';
const DAYS_PER_MONTH = 365 / 12;

describe(`payments of any period through the CSV imports on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    harness = await createAuthTestApp();
    app = harness.app;
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => harness?.close());

  async function upload(csv: string, who: SignedUp, columnOrder?: string) {
    const form = new FormData();
    if (columnOrder) form.append('column_order', columnOrder);
    form.append('paying_customers', new Blob([csv], { type: 'text/csv' }), 'payments.csv');
    const response = await fetch(`${base}/api/v11/subscriptions/csv_import`, { method: 'POST', headers: { authorization: who.authorization }, body: form });
    expect(response.status).toBe(200);
    return String(((await response.json()) as { id: string }).id);
  }

  async function view(id: string, who: SignedUp): Promise<ImportView> {
    await app.imports.settled();
    const response = await app.inject({ method: 'GET', url: `/api/v11/subscriptions/csv_import/${id}`, headers: { authorization: who.authorization } });
    expect(response.statusCode).toBe(200);
    return response.json() as ImportView;
  }

  const dialog = async (csv: string, who: SignedUp) => view(await upload(csv, who, DIALOG_ORDER), who);

  function finalize(id: string, who: SignedUp, mapping: Record<string, number | null>) {
    return app.inject({ method: 'POST', url: `/api/v11/subscriptions/csv_import/${id}/finalize`, headers: { authorization: who.authorization }, payload: { skip_headers: true, ...mapping } });
  }

  async function page(csv: string, who: SignedUp, mapping: Record<string, number>) {
    const id = await upload(csv, who);
    const answer = await finalize(id, who, mapping);
    expect(answer.statusCode, answer.body).toBe(200);
    return view(id, who);
  }

  async function payments(accountId: string) {
    const rows = await harness.db.kysely
      .selectFrom('payments')
      .select(['id', 'customer_id', 'invoice_number', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'monthly_amount', 'version'])
      .where('account_id', '=', accountId)
      .orderBy('customer_id')
      .orderBy('started_at')
      .execute();
    return rows.map((row) => ({ ...row, total_value: row.total_value === null ? null : Number(row.total_value) }));
  }

  const messages = (result: ImportView['result']) => result.failures.map((failure) => [failure.row_number, failure.message]);

  describe('the import dialog', () => {
    it('imports a period of any length, an open-ended payment and whole months as before; refuses an end not after the start', async () => {
      const who = await signUp(app);
      const csv = [
        'customer_id,started_at,ended_at,monthly_amount',
        'whole,2025-01-15,2025-04-14,49.90',
        'prorated,2025-01-10,2025-02-25,100',
        'open,2025-01-01,,100',
        'before,2025-03-01,2025-02-01,100',
        'same-day,2025-03-01,2025-03-01,100',
        'fifteen-days,2025-01-01,2025-01-16,30',
      ].join('\n');
      const { result } = await dialog(csv, who);
      expect(result).toMatchObject({ status: 'done', success_count: 4, failure_count: 2, created: 4 });
      expect(messages(result)).toEqual([
        [5, 'Ended at 2025-02-01 is before Started at 2025-03-01'],
        [6, 'Ended at 2025-03-01 is the same day as Started at: a payment covers at least one day, and Ended at is the first day after it'],
      ]);
      const rows = await payments(who.user.account_id);
      expect(rows.map(({ customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount }) => [customer_id, started_at, ended_at, duration_in_months, total_value, monthly_amount])).toEqual([
        // 15 days: duration in average months, the monthly amount as given, the total from both.
        ['fifteen-days', '2025-01-01', '2025-01-16', 15 / DAYS_PER_MONTH, Math.round(3_000 * (15 / DAYS_PER_MONTH)), 3_000],
        // Open-ended: no end, duration or total; the monthly amount is what counts.
        ['open', '2025-01-01', null, null, null, 10_000],
        ['prorated', '2025-01-10', '2025-02-25', 46 / DAYS_PER_MONTH, Math.round(10_000 * (46 / DAYS_PER_MONTH)), 10_000],
        // Whole months exactly as before (the end read as the period's last day, stored as the day after).
        ['whole', '2025-01-15', '2025-04-15', 3, 14_970, 4_990],
      ]);
    });

    it('a later import with the end of an open-ended payment ends it: the same payment, a new version', async () => {
      const who = await signUp(app);
      expect((await dialog('cus-1,2025-01-01,,100\n', who)).result).toMatchObject({ success_count: 1, created: 1 });
      const [before] = await payments(who.user.account_id);
      // The same file again changes nothing.
      expect((await dialog('cus-1,2025-01-01,,100\n', who)).result).toMatchObject({ success_count: 1, created: 0, updated: 0, unchanged: 1 });
      expect((await dialog('cus-1,2025-01-01,2025-03-17,100\n', who)).result).toMatchObject({ success_count: 1, created: 0, updated: 1, unchanged: 0 });
      const [after] = await payments(who.user.account_id);
      expect(after).toMatchObject({ id: before?.id, ended_at: '2025-03-17', duration_in_months: 75 / DAYS_PER_MONTH, total_value: Math.round(10_000 * (75 / DAYS_PER_MONTH)), monthly_amount: 10_000, version: 2 });
      const versions = await harness.db.kysely
        .selectFrom('payment_versions')
        .select(['version', 'ended_at', 'duration_in_months', 'total_value', 'monthly_amount'])
        .where('account_id', '=', who.user.account_id)
        .where('payment_id', '=', before?.id as string)
        .execute();
      expect(versions).toEqual([{ version: 1, ended_at: null, duration_in_months: null, total_value: null, monthly_amount: 10_000 }]);
    });

    it('refuses an open-ended row when the customer has a later open-ended payment of the product, in the file or stored, or an earlier stored one the file does not end', async () => {
      const who = await signUp(app);
      const first = await dialog(['cus-1,2025-01-01,,100', 'cus-1,2025-03-01,,120', 'cus-2,2025-01-01,,50'].join('\n'), who);
      expect(first.result).toMatchObject({ success_count: 2, failure_count: 1, created: 2 });
      expect(first.result.failures).toEqual([
        { row_number: 1, row: 'cus-1,2025-01-01,,100', message: 'Open-ended, but row 2 starts a later open-ended payment of the same customer and product: give this row its Ended at' },
      ]);
      // Only the accepted rows are stored: the refused one was taken back.
      expect((await payments(who.user.account_id)).map((p) => [p.customer_id, p.started_at])).toEqual([
        ['cus-1', '2025-03-01'],
        ['cus-2', '2025-01-01'],
      ]);

      const second = await dialog(['cus-2,2024-06-01,,40', 'cus-1,2025-05-01,,130', 'cus-3,2025-01-01,2025-02-01,10'].join('\n'), who);
      expect(second.result).toMatchObject({ success_count: 1, failure_count: 2, created: 1 });
      expect(messages(second.result)).toEqual([
        [1, 'Open-ended, but the customer already has a later open-ended payment of the same product (started 2025-01-01): give this row its Ended at'],
        [2, 'Open-ended, but the customer already has an open-ended payment of the same product since 2025-03-01: end that one first (import it again with its Ended at)'],
      ]);

      // Ending the stored one in the same file lets the next one start.
      const third = await dialog(['cus-1,2025-03-01,2025-05-01,120', 'cus-1,2025-05-01,,130'].join('\n'), who);
      expect(third.result).toMatchObject({ success_count: 2, failure_count: 0, created: 1, updated: 1 });
      expect((await payments(who.user.account_id)).filter((p) => p.customer_id === 'cus-1').map((p) => [p.started_at, p.ended_at, p.version])).toEqual([
        ['2025-03-01', '2025-05-01', 2],
        ['2025-05-01', null, 1],
      ]);
    });
  });

  describe('the import page', () => {
    it('maps a total value instead of the monthly amount, without an invoice number', async () => {
      const who = await signUp(app);
      const csv = ['Customer,Start,End,Months,Total', 'a,2025-01-01,,3,100', 'b,2025-01-01,2025-01-16,,50', 'c,2025-01-01,,,70', 'd,2025-02-01,2025-03-01,,20'].join('\n');
      const { result } = await page(csv, who, { customer_id: 0, started_at: 1, ended_at: 2, months: 3, total_value: 4 });
      expect(result).toMatchObject({ status: 'done', success_count: 3, failure_count: 1 });
      expect(messages(result)).toEqual([
        [4, "Total value '70' cannot be spread over an open-ended payment: Ended at is empty (give the end, or import open-ended payments with a Monthly amount column)"],
      ]);
      const rows = await payments(who.user.account_id);
      expect(rows.map(({ customer_id, invoice_number, ended_at, duration_in_months, total_value, monthly_amount }) => [customer_id, invoice_number, ended_at, duration_in_months, total_value, monthly_amount])).toEqual([
        // Whole months: the exact monthly amount, a fraction of a cent included.
        ['a', null, '2025-04-01', 3, 10_000, 10_000 / 3],
        ['b', null, '2025-01-16', 15 / DAYS_PER_MONTH, 5_000, 5_000 / (15 / DAYS_PER_MONTH)],
        ['d', null, '2025-03-01', 1, 2_000, 2_000],
      ]);
    });

    it('refuses a mapping without an amount or a period, or with both amounts; the invoice number is optional', async () => {
      const who = await signUp(app);
      const id = await upload('Customer,Start,End,Monthly,Total\na,2025-01-01,2025-02-01,10,10\n', who);
      const detail = (answer: Awaited<ReturnType<typeof finalize>>) => (answer.json() as { errors: { detail: string; source: { pointer: string } }[] }).errors[0];
      const noAmount = await finalize(id, who, { customer_id: 0, started_at: 1, ended_at: 2 });
      expect(noAmount.statusCode).toBe(422);
      expect(detail(noAmount)).toMatchObject({ detail: MAPPING_INCOMPLETE, source: { pointer: '/monthly_amount' } });
      const noPeriod = await finalize(id, who, { customer_id: 0, started_at: 1, monthly_amount: 3 });
      expect(noPeriod.statusCode).toBe(422);
      expect(detail(noPeriod)).toMatchObject({ detail: MAPPING_INCOMPLETE, source: { pointer: '/months' } });
      const both = await finalize(id, who, { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3, total_value: 4 });
      expect(both.statusCode).toBe(422);
      expect(detail(both)).toMatchObject({ detail: BOTH_AMOUNTS, source: { pointer: '/total_value' } });
      expect(MAPPING_INCOMPLETE).toBe('Subscription import requires mapping of monthly_amount or total_value, started_at, customer_id, months or ended_at');
      // As the page sends it: every field, null when not mapped (never read as column 0).
      const unmapped = { invoice_number: null, months: null, monthly_amount: null, revenue_type: null, currency: null, product: null, customer_name: null, units: null, discount_amount: null, discount_kind: null, discount_months: null };
      const fine = await finalize(id, who, { customer_id: 0, started_at: 1, ended_at: 2, total_value: 4, ...unmapped });
      expect(fine.statusCode, fine.body).toBe(200);
      expect((await view(id, who)).result).toMatchObject({ status: 'done', success_count: 1 });
    });

    it('writes the discount columns (monthly amount, kind, a finite one’s months) and refuses the rows that contradict themselves', async () => {
      const who = await signUp(app);
      const header = 'Customer,Invoice,Start,Months,Monthly,Discount,Kind,For';
      const csv = [
        header,
        'a,A-1,2025-01-01,12,100,10,forever,',
        'b,B-1,2025-01-01,12,100,25.50,finite,3',
        'c,C-1,2025-01-01,12,100,5,,',
        'd,D-1,2025-01-01,12,100,5,,2',
        'e,E-1,2025-01-01,12,100,,,',
        'f,F-1,2025-01-01,12,100,5,finite,',
        'g,G-1,2025-01-01,12,100,5,forever,3',
        'h,H-1,2025-01-01,12,100,5,weekly,',
        'i,I-1,2025-01-01,12,100,,finite,3',
      ].join('\n');
      const mapping = { customer_id: 0, invoice_number: 1, started_at: 2, months: 3, monthly_amount: 4, discount_amount: 5, discount_kind: 6, discount_months: 7 };
      const { result } = await page(csv, who, mapping);
      expect(result).toMatchObject({ success_count: 5, failure_count: 4 });
      expect(messages(result)).toEqual([
        [7, 'Discount months is empty: a finite discount needs its months'],
        [8, "Discount months '3': only a finite discount has months"],
        [9, "Discount kind 'weekly' is not one of forever, finite"],
        [10, "Discount monthly amount is empty, but the row gives the discount's kind"],
      ]);
      const discounts = async () =>
        (
          await harness.db.kysely
            .selectFrom('payment_discounts')
            .innerJoin('payments', (join) => join.onRef('payments.account_id', '=', 'payment_discounts.account_id').onRef('payments.id', '=', 'payment_discounts.payment_id'))
            .select(['payments.customer_id', 'payment_discounts.position', 'payment_discounts.kind', 'payment_discounts.monthly_amount', 'payment_discounts.months'])
            .where('payments.account_id', '=', who.user.account_id)
            .orderBy('payments.customer_id')
            .execute()
        ).map((d) => ({ ...d, monthly_amount: Number(d.monthly_amount) }));
      expect(await discounts()).toEqual([
        { customer_id: 'a', position: 0, kind: 'forever', monthly_amount: 1_000, months: null },
        { customer_id: 'b', position: 0, kind: 'finite', monthly_amount: 2_550, months: 3 },
        { customer_id: 'c', position: 0, kind: 'forever', monthly_amount: 500, months: null },
        { customer_id: 'd', position: 0, kind: 'finite', monthly_amount: 500, months: 2 },
      ]);

      // Again with one discount changed: that payment alone becomes a new version, its old discount kept with it.
      const again = await page(csv.replace('b,B-1,2025-01-01,12,100,25.50,finite,3', 'b,B-1,2025-01-01,12,100,25.50,finite,6'), who, mapping);
      expect(again.result).toMatchObject({ success_count: 5, created: 0, updated: 1, unchanged: 4 });
      expect((await discounts()).find((d) => d.customer_id === 'b')).toMatchObject({ months: 6 });
      const versions = await harness.db.kysely.selectFrom('payment_versions').select(['version', 'discounts', 'monthly_amount']).where('account_id', '=', who.user.account_id).execute();
      expect(versions).toEqual([{ version: 1, discounts: [{ kind: 'finite', monthly_amount: 2_550, name: null, months: 3 }], monthly_amount: 10_000 }]);
    });
  });
});
