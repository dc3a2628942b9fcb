import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_MAPPING_DATE_REQUIRED, COST_MAPPING_VALUE_REQUIRED, type Cost } from '../../../models/costs';
import { COST_IMPORT_NOT_FOUND, COST_IMPORT_NOT_WAITING, COST_MAPPING_BEYOND } from '../../../server/costs/import';
import { NO_DATA_ROWS, ONLY_CSV } from '../../../server/imports/messages';
import { multipart } from '../attack/support';
import { createAuthTestApp, expectSignInRequired, problemsOf, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * The cost CSV import: upload, finalize with a mapping (run in the request, one transaction),
 * status. Valid rows become costs (with attribute values), refused ones are listed by row number.
 */

interface ImportView {
  id: string;
  status: string;
  total_rows: number;
  result: { status: string; success_count: number; failure_count: number; failures: { row_number: number; row: string; message: string }[] };
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let attributeId: string;

const api = (method: 'GET' | 'POST', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function upload(csv: string, who: SignedUp | null = owner, filename = 'costs.csv'): Promise<LightMyRequestResponse> {
  const form = multipart([{ name: 'file', filename, type: 'text/csv', content: csv }]);
  return app.inject({ method: 'POST', url: '/api/v11/costs/csv_import', headers: { ...(who ? { authorization: who.authorization } : {}), 'content-type': form.contentType }, payload: form.payload });
}

async function uploaded(csv: string, who: SignedUp = owner): Promise<string> {
  const response = await upload(csv, who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: string }).id;
}

const CSV = [
  'amount,currency,date,due,invoice,name,category',
  '1200.20,USD,2026-02-01,2026-02-28,FV/1,Ads,Marketing',
  '"1 000,50",pln,01.02.2026,,FV/2,Office,',
  'abc,USD,2026-02-01,,FV/3,Broken,',
  '15,XYZ,2026-02-30,,FV/4,Two problems,',
  ',USD,,,FV/5,Nothing,',
  '99,,2026-01-15,,,,Tools',
].join('\n');

const MAPPING = { skip_headers: true, value: 0, currency: 1, date: 2, due_date: 3, invoice_number: 4, name: 5 };

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  const attribute = await api('POST', '/object_attributes', owner, { name: 'Category', object: 'cost' });
  attributeId = (attribute.json() as { id: string }).id;
}, 60_000);
afterAll(() => harness?.close());

describe(`cost CSV import on ${testEngine}`, () => {
  it('uploads and previews a file, then imports its valid rows and lists every refused row by number', async () => {
    const response = await upload(CSV);
    expect(response.statusCode, response.body).toBe(200);
    const draft = response.json() as { id: string; preview_rows: string[][]; total_rows: number; columns: number };
    expect(draft).toMatchObject({ total_rows: 7, columns: 7 });
    expect(draft.preview_rows[1]).toEqual(['1200.20', 'USD', '2026-02-01', '2026-02-28', 'FV/1', 'Ads', 'Marketing']);
    expect(((await api('GET', `/costs/csv_import/${draft.id}`)).json() as ImportView).status).toBe('preview');

    const finalized = await api('POST', `/costs/csv_import/${draft.id}/finalize`, owner, { ...MAPPING, attributes: { [attributeId]: 6 } });
    expect(finalized.statusCode, finalized.body).toBe(200);
    const view = finalized.json() as ImportView;
    expect(view.status).toBe('done');
    expect(view.result).toEqual({
      status: 'done',
      success_count: 3,
      failure_count: 3,
      failures: [
        { row_number: 4, row: 'abc,USD,2026-02-01,,FV/3,Broken,', message: "Row 4: Value 'abc' is not a number" },
        { row_number: 5, row: '15,XYZ,2026-02-30,,FV/4,Two problems,', message: "Row 5: Currency 'XYZ' is not a known currency; Date '2026-02-30' is not a date" },
        { row_number: 6, row: ',USD,,,FV/5,Nothing,', message: 'Row 6: Cost value is required; Date is required' },
      ],
    });
    expect((await api('GET', `/costs/csv_import/${draft.id}`)).json()).toMatchObject({ status: 'done', result: view.result });

    const costs = ((await api('GET', '/costs?sort_by=date:asc')).json() as { items: Cost[] }).items;
    // Two costs share a day (ties go by the random id): compared by invoice number.
    const byInvoice = [...costs].sort((a, b) => (a.invoice_number ?? '').localeCompare(b.invoice_number ?? ''));
    expect(byInvoice.map(({ id: _id, ...cost }) => cost)).toEqual([
      { name: null, value: 9_900, currency: 'USD', date: '2026-01-15', due_date: null, invoice_number: null, segments: [{ id: attributeId, name: 'Category', value: 'Tools' }], source: 'csv' },
      { name: 'Ads', value: 120_020, currency: 'USD', date: '2026-02-01', due_date: '2026-02-28', invoice_number: 'FV/1', segments: [{ id: attributeId, name: 'Category', value: 'Marketing' }], source: 'csv' },
      { name: 'Office', value: 100_050, currency: 'PLN', date: '2026-02-01', due_date: null, invoice_number: 'FV/2', segments: [{ id: attributeId, name: 'Category', value: null }], source: 'csv' },
    ]);

    // Finalized once: a second finalize is refused and writes nothing.
    const again = await api('POST', `/costs/csv_import/${draft.id}/finalize`, owner, MAPPING);
    expect(again.statusCode).toBe(422);
    expect(problemsOf(again)).toEqual([{ pointer: '/params/id', detail: COST_IMPORT_NOT_WAITING }]);
    expect(((await api('GET', '/costs')).json() as { items: Cost[] }).items).toHaveLength(3);
  });

  it('imports nothing when no row is valid, and refuses a file of a header only', async () => {
    const id = await uploaded('value,date\nx,2026-01-01\n');
    const view = (await api('POST', `/costs/csv_import/${id}/finalize`, owner, { skip_headers: true, value: 0, date: 1 })).json() as ImportView;
    expect(view.result).toMatchObject({ success_count: 0, failure_count: 1 });
    const header = await uploaded('value,date\n');
    const refused = await api('POST', `/costs/csv_import/${header}/finalize`, owner, { skip_headers: true, value: 0, date: 1 });
    expect(refused.statusCode).toBe(422);
    expect(problemsOf(refused)).toEqual([{ pointer: '/body/skip_headers', detail: NO_DATA_ROWS }]);
  });

  it('refuses incomplete mappings, unknown columns and attributes, and files that are not CSV', async () => {
    const id = await uploaded('12,2026-01-01\n');
    for (const [body, status, pointer, detail] of [
      [{ skip_headers: false, date: 1 }, 422, '/body/value', COST_MAPPING_VALUE_REQUIRED],
      [{ skip_headers: false, value: 0 }, 422, '/body/date', COST_MAPPING_DATE_REQUIRED],
      [{ skip_headers: false, value: 0, date: 5 }, 422, '/body/date', COST_MAPPING_BEYOND],
      [{ skip_headers: false, value: 0, date: 1, attributes: { nope: 0 } }, 404, '/body/attributes/nope', 'Cost attribute not found'],
    ] as const) {
      const response = await api('POST', `/costs/csv_import/${id}/finalize`, owner, body);
      expect(response.statusCode, response.body).toBe(status);
      expect(problemsOf(response)).toEqual([{ pointer, detail }]);
    }
    const notCsv = await upload('12', owner, 'costs.xlsx');
    expect(notCsv.statusCode).toBe(422);
    expect(problemsOf(notCsv)[0]?.detail).toBe(ONLY_CSV);
    // The mapping left it waiting: it still imports.
    expect(((await api('POST', `/costs/csv_import/${id}/finalize`, owner, { skip_headers: false, value: 0, date: 1 })).json() as ImportView).result.success_count).toBe(1);
  });

  it('is for signed-in users of the import’s account; wrong types and NUL bytes are no 5xx', async () => {
    expectSignInRequired(await upload(CSV, null));
    const id = await uploaded('12,2026-01-01\n');
    expectSignInRequired(await api('GET', `/costs/csv_import/${id}`, null));
    expectSignInRequired(await api('POST', `/costs/csv_import/${id}/finalize`, null, { skip_headers: false, value: 0, date: 1 }));
    for (const response of [await api('GET', `/costs/csv_import/${id}`, stranger), await api('POST', `/costs/csv_import/${id}/finalize`, stranger, { skip_headers: false, value: 0, date: 1 })]) {
      expect(response.statusCode).toBe(404);
      expect(problemsOf(response)).toEqual([{ pointer: '/params/id', detail: COST_IMPORT_NOT_FOUND }]);
    }
    // A subscriptions import is not a costs import.
    const subscriptions = await harness.db.kysely.selectFrom('imports').select('id').where('kind', '=', 'costs').executeTakeFirstOrThrow();
    expect((await api('GET', `/segments_importer/${subscriptions.id}`)).statusCode).toBe(404);
    for (const body of [{ skip_headers: 'x', value: 0, date: 1 }, { skip_headers: false, value: -1, date: 1 }, { skip_headers: false, value: 0, date: 1, attributes: { '\u0000': 0 } }, [], 'x']) {
      const response = await api('POST', `/costs/csv_import/${id}/finalize`, owner, body);
      expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, response.body).toBeLessThan(500);
    }
    const nul = await upload('12,2026-01-01,\u0000name\n');
    expect(nul.statusCode).toBeLessThan(500);
    expect(((await api('GET', `/costs/csv_import/${id}`)).json() as ImportView).status).toBe('preview');
    const done = (await api('POST', `/costs/csv_import/${id}/finalize`, owner, { skip_headers: false, value: 0, date: 1 })).json() as ImportView;
    expect(done.result.success_count).toBe(1);
  });
});
