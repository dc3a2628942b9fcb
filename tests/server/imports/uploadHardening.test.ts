import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT, CSV_IMPORT_PREVIEW_TTL_MS } from '../../../models/constants';
import {
  fileTooLarge,
  MULTIPART_NO_BOUNDARY,
  MULTIPART_TRUNCATED,
  NO_DATA_ROWS,
  NO_FILE,
  NUL_IN_FILE_NAME,
  pendingUploadsTooLarge,
  UPLOAD_EXPIRED,
} from '../../../server/imports/messages';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/**
 * What an API client sees when it sends the imports what an attacker (or an odd spreadsheet)
 * would: ambiguous amounts, old Mac line endings, a header alone, binary files, rows wider than
 * the header, broken multipart bodies; and what uploads leave behind (expiry, refused uploads,
 * the account's bound of pending bytes). Both upload routes, over real HTTP.
 */

interface Failure {
  row_number: number;
  row: string;
  message: string;
}
interface ErrorBody {
  errors: { detail: string; status: string; source?: { pointer: string }; code?: string }[];
}
interface ImportView {
  status: string;
  total_rows: number;
  result: { status: string; success_count: number; failure_count: number; failures: Failure[]; error?: string };
}

const DIALOG_ORDER = 'customer_id,started_at,ended_at,monthly_amount';
const UPLOAD_LIMIT = 2 * 1024 * 1024;
const SUBSCRIPTIONS = '/api/v11/subscriptions/csv_import';
const SEGMENTS = '/api/v11/segments_importer/draft';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);

describe(`import uploads under attack on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    harness = await createAuthTestApp({ uploadLimitBytes: UPLOAD_LIMIT });
    app = harness.app;
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => harness?.close());

  /** A multipart upload as a browser sends it. */
  async function upload(path: string, who: SignedUp, content: BlobPart, options: { name?: string; field?: string; columnOrder?: string } = {}) {
    const form = new FormData();
    if (options.columnOrder) form.append('column_order', options.columnOrder);
    form.append(options.field ?? 'csv', new Blob([content], { type: 'text/csv' }), options.name ?? 'file.csv');
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: who.authorization }, body: form });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & Partial<ErrorBody> };
  }

  /** A request written byte by byte: what no browser sends. */
  function raw(path: string, who: SignedUp, contentType: string, body: Uint8Array): Promise<{ status: number; body: ErrorBody }> {
    const port = Number(new URL(base).port);
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, path, method: 'POST', headers: { authorization: who.authorization, 'content-type': contentType, 'content-length': body.length } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as ErrorBody }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  const BOUNDARY = 'x-boundary-41';
  function multipart(field: string, fileName: string, content: Uint8Array | string): Buffer {
    return Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`),
      Buffer.from(content),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
  }

  async function subscriptionImport(id: string, who: SignedUp): Promise<ImportView> {
    await app.imports.settled();
    const response = await app.inject({ method: 'GET', url: `${SUBSCRIPTIONS}/${id}`, headers: { authorization: who.authorization } });
    expect(response.statusCode).toBe(200);
    return response.json() as ImportView;
  }

  async function segmentImport(id: string, who: SignedUp): Promise<ImportView> {
    await app.imports.settled();
    const response = await app.inject({ method: 'GET', url: `/api/v11/segments_importer/${id}`, headers: { authorization: who.authorization } });
    expect(response.statusCode).toBe(200);
    return response.json() as ImportView;
  }

  const finalizePage = (id: string, who: SignedUp, payload: object) =>
    app.inject({ method: 'POST', url: `${SUBSCRIPTIONS}/${id}/finalize`, headers: { authorization: who.authorization }, payload });

  /** What the account's imports keep: stored files' chunks and staged rows, and each import's status. */
  async function stored(accountId: string) {
    const db = harness.db.kysely;
    const files = await db.selectFrom('import_files').select('chunk').where('account_id', '=', accountId).execute();
    const rows = await db.selectFrom('import_rows').select('row_number').where('account_id', '=', accountId).execute();
    const imports = await db.selectFrom('imports').select(['id', 'status', 'result']).where('account_id', '=', accountId).orderBy('created_at').execute();
    return { files: files.length, rows: rows.length, imports };
  }

  async function withSegment(who: SignedUp): Promise<string> {
    const account = who.user.account_id;
    const db = harness.db.kysely;
    await db.insertInto('object_attributes').values({ account_id: account, id: 'att-plan', name: 'Plan', object: 'customer' }).execute();
    await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-plan', object_attribute_id: 'att-plan', name: 'Plan', time_sensitive: false }).execute();
    await db
      .insertInto('customers')
      .values([
        { account_id: account, id: 'cus-1', name: 'One' },
        { account_id: account, id: 'cus-2', name: 'Two' },
        { account_id: account, id: 'cus-3', name: 'Three' },
      ])
      .execute();
    return 'seg-plan';
  }

  describe('amounts with a lone separator before three digits', () => {
    it('refuses 10.001 as ambiguous, naming the row and the column, and imports the unambiguous forms', async () => {
      const who = await signUp(app);
      const csv = [
        'customer_id,started_at,ended_at,monthly_amount',
        'c-1,2025-01-01,2025-02-01,"1,234.56"',
        'c-2,2025-01-01,2025-02-01,10.5',
        'c-3,2025-01-01,2025-02-01,1200.20',
        'c-4,2025-01-01,2025-02-01,10.001',
        'c-5,2025-01-01,2025-02-01,"10,001"',
        'c-6,2025-01-01,2025-02-01,1 200.20',
      ].join('\n');
      const { status, body } = await upload(SUBSCRIPTIONS, who, csv, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      expect(status).toBe(200);
      const view = await subscriptionImport(String(body.id), who);
      expect(view.status).toBe('done');
      // '1,234.56', '10.5' and '1200.20' prove '.' the decimal separator: '10.001' has three
      // decimals (refused for dollars), and '10,001' is ten thousand and one.
      expect(view.result.failures).toEqual([{ row_number: 5, row: 'c-4,2025-01-01,2025-02-01,10.001', message: "Monthly amount '10.001' has more than 2 decimals" }]);
      const payments = await harness.db.kysely.selectFrom('payments').select(['customer_id', 'total_value']).where('account_id', '=', who.user.account_id).orderBy('customer_id').execute();
      expect(payments.map((p) => [p.customer_id, Number(p.total_value)])).toEqual([
        ['c-1', 123_456],
        ['c-2', 1_050],
        ['c-3', 120_020],
        ['c-5', 1_000_100],
        ['c-6', 120_020],
      ]);
    });

    it('refuses them when nothing else in the column shows the decimal separator, with advice', async () => {
      const who = await signUp(app);
      const csv = ['customer_id,started_at,ended_at,monthly_amount', 'c-1,2025-01-01,2025-02-01,100', 'c-2,2025-01-01,2025-02-01,250', 'c-3,2025-01-01,2025-02-01,7', 'c-4,2025-01-01,2025-02-01,10.001'].join('\n');
      const { body } = await upload(SUBSCRIPTIONS, who, csv, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      const view = await subscriptionImport(String(body.id), who);
      expect(view.result).toMatchObject({ status: 'done', success_count: 3, failure_count: 1 });
      expect(view.result.failures).toEqual([{ row_number: 5, row: 'c-4,2025-01-01,2025-02-01,10.001', message: "Monthly amount '10.001' is ambiguous: write 10001 or 10.00" }]);
    });

    it('reads them by a decimal comma the column proves (1.234,56 and 1 200,20 in a semicolon file)', async () => {
      const who = await signUp(app);
      const csv = ['customer_id;started_at;ended_at;monthly_amount', 'c-1;2025-01-01;2025-02-01;1.234,56', 'c-2;2025-01-01;2025-02-01;10.001', 'c-3;2025-01-01;2025-02-01;1 200,20'].join('\r\n');
      const { body } = await upload(SUBSCRIPTIONS, who, csv, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      const view = await subscriptionImport(String(body.id), who);
      expect(view.result).toMatchObject({ status: 'done', success_count: 3, failure_count: 0 });
      const payments = await harness.db.kysely.selectFrom('payments').select(['customer_id', 'total_value']).where('account_id', '=', who.user.account_id).orderBy('customer_id').execute();
      expect(payments.map((p) => Number(p.total_value))).toEqual([123_456, 1_000_100, 120_020]);
    });
  });

  describe('line endings and empty files', () => {
    it('reads a file whose lines end with a bare CR (classic Mac OS) row by row', async () => {
      const who = await signUp(app);
      const csv = 'customer_id,started_at,ended_at,monthly_amount\rc-1,2025-01-01,2025-02-01,10\rc-2,2025-01-01,2025-02-01,20\r';
      const preview = await upload(SUBSCRIPTIONS, who, csv);
      expect(preview.status).toBe(200);
      expect(preview.body).toMatchObject({ total_rows: 3, columns: 4 });
      expect(preview.body.preview_rows).toEqual([
        ['customer_id', 'started_at', 'ended_at', 'monthly_amount'],
        ['c-1', '2025-01-01', '2025-02-01', '10'],
        ['c-2', '2025-01-01', '2025-02-01', '20'],
      ]);
      const dialog = await upload(SUBSCRIPTIONS, who, csv, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      const view = await subscriptionImport(String(dialog.body.id), who);
      expect(view.result).toMatchObject({ status: 'done', success_count: 2, failure_count: 0 });
    });

    it('never ends a header-only file done: the dialog and the page answer 422 saying it has no rows, and the import is failed', async () => {
      const who = await signUp(app);
      const header = 'customer_id,started_at,ended_at,monthly_amount\n';
      const dialog = await upload(SUBSCRIPTIONS, who, header, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      expect(dialog.status).toBe(422);
      expect(dialog.body.errors?.[0]).toMatchObject({ detail: NO_DATA_ROWS, status: '422' });

      const page = await upload(SUBSCRIPTIONS, who, header);
      expect(page.status).toBe(200);
      const id = String(page.body.import_id);
      const finalize = await finalizePage(id, who, { skip_headers: true, customer_id: 0, started_at: 1, monthly_amount: 3, invoice_number: 4, months: 5 });
      expect(finalize.statusCode, finalize.body).toBe(422);
      expect((finalize.json() as ErrorBody).errors[0], finalize.body).toMatchObject({ detail: NO_DATA_ROWS, status: '422' });
      const view = await subscriptionImport(id, who);
      expect(view).toMatchObject({ status: 'failed', result: { status: 'failed', error: NO_DATA_ROWS } });
      const kept = await stored(who.user.account_id);
      expect(kept.imports.map((row) => row.status)).toEqual(['failed', 'failed']);
      expect(kept.files).toBe(0);
    });

    it('answers the attribute values import the same for a header-only file', async () => {
      const who = await signUp(app);
      const segment = await withSegment(who);
      const draft = await upload(SEGMENTS, who, 'Customer,Plan\n');
      expect(draft.status).toBe(200);
      const finalize = await app.inject({
        method: 'POST',
        url: '/api/v11/segments_importer/finalize',
        headers: { authorization: who.authorization },
        payload: { import_id: draft.body.import_id, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segment },
      });
      expect(finalize.statusCode).toBe(422);
      expect((finalize.json() as ErrorBody).errors[0]?.detail).toBe(NO_DATA_ROWS);
      expect(await segmentImport(String(draft.body.import_id), who)).toMatchObject({ status: 'failed', result: { error: NO_DATA_ROWS } });
      expect((await stored(who.user.account_id)).rows).toBe(0);
    });
  });

  describe('binary files renamed .csv', () => {
    it.each([SUBSCRIPTIONS, SEGMENTS])('refuses a PNG on %s with 422 and a clear message, keeping nothing', async (path) => {
      const who = await signUp(app);
      const { status, body } = await upload(path, who, PNG, { name: 'photo.csv', field: path === SUBSCRIPTIONS ? 'paying_customers' : 'csv' });
      expect(status).toBe(422);
      expect(body.errors?.[0]).toMatchObject({ status: '422', detail: 'The file is not CSV text: it looks like a PNG image. Save the data as CSV (comma-separated values) and upload that file.' });
      const kept = await stored(who.user.account_id);
      expect(kept).toMatchObject({ files: 0, rows: 0 });
      expect(kept.imports.map((row) => [row.status, (row.result as { error?: string }).error])).toEqual([['failed', body.errors?.[0]?.detail]]);
    });

    it('refuses binary data after a text beginning (NUL bytes) and answers a client still sending a large file', async () => {
      const who = await signUp(app);
      const text = 'customer_id,started_at,ended_at,monthly_amount\n'.repeat(2_000);
      const garbage = new Uint8Array(1_500_000).fill(0);
      const { status, body } = await upload(SEGMENTS, who, new Blob([text, garbage]));
      expect(status).toBe(422);
      expect(body.errors?.[0]?.detail).toMatch(/^The file is not CSV text: it looks like binary data \(it has NUL bytes\)/);
      expect(await stored(who.user.account_id)).toMatchObject({ files: 0, rows: 0 });
    });
  });

  describe('rows with more cells than the header', () => {
    it('refuses them in the payments import with their row number; the other rows are imported in the same transaction', async () => {
      const who = await signUp(app);
      const csv = [
        'customer_id,started_at,ended_at,monthly_amount',
        'c-1,2025-01-01,2025-02-01,10',
        'c-2,2025-01-01,2025-02-01,1,234.50',
        'c-3,2025-01-01,2025-02-01,30,',
        'c-4,2025-01-01,2025-02-01,40,note,more',
      ].join('\n');
      const { body } = await upload(SUBSCRIPTIONS, who, csv, { field: 'paying_customers', columnOrder: DIALOG_ORDER });
      const view = await subscriptionImport(String(body.id), who);
      expect(view.result).toMatchObject({ status: 'done', success_count: 2, failure_count: 2 });
      expect(view.result.failures).toEqual([
        { row_number: 3, row: 'c-2,2025-01-01,2025-02-01,1,234.50', message: "Row 3 has 5 columns, more than the 4 of the header row (a value with ',' in it must be in quotes)" },
        { row_number: 5, row: 'c-4,2025-01-01,2025-02-01,40,note,more', message: "Row 5 has 6 columns, more than the 4 of the header row (a value with ',' in it must be in quotes)" },
      ]);
      const payments = await harness.db.kysely.selectFrom('payments').select(['customer_id', 'total_value']).where('account_id', '=', who.user.account_id).orderBy('customer_id').execute();
      // A trailing empty cell is no reason.
      expect(payments.map((p) => [p.customer_id, Number(p.total_value)])).toEqual([
        ['c-1', 1_000],
        ['c-3', 3_000],
      ]);
    });

    it('refuses them in the attribute values import', async () => {
      const who = await signUp(app);
      const segment = await withSegment(who);
      const draft = await upload(SEGMENTS, who, 'Customer;Plan\ncus-1;Pro\ncus-2;Basic;extra\ncus-3;Pro; \n');
      const finalize = await app.inject({
        method: 'POST',
        url: '/api/v11/segments_importer/finalize',
        headers: { authorization: who.authorization },
        payload: { import_id: draft.body.import_id, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segment },
      });
      expect(finalize.statusCode, finalize.body).toBe(200);
      const view = await segmentImport(String(draft.body.import_id), who);
      expect(view.result).toMatchObject({ status: 'done', success_count: 2, failure_count: 1 });
      expect(view.result.failures).toEqual([{ row_number: 3, row: 'cus-2;Basic;extra', message: "Row 3 has 3 columns, more than the 2 of the header row (a value with ';' in it must be in quotes)" }]);
      const values = await harness.db.kysely.selectFrom('customer_segment_values').select('customer_id').where('account_id', '=', who.user.account_id).orderBy('customer_id').execute();
      expect(values.map((v) => v.customer_id)).toEqual(['cus-1', 'cus-3']);
    });
  });

  describe('broken multipart bodies', () => {
    for (const [path, field] of [
      [SUBSCRIPTIONS, 'paying_customers'],
      [SEGMENTS, 'csv'],
    ] as const) {
      it(`answers 4xx in the error shape, never 500, on ${path}`, async () => {
        const who = await signUp(app);
        const file = multipart(field, 'plans.csv', 'cus-1,Pro\n');

        const noBoundary = await raw(path, who, 'multipart/form-data', file);
        expect(noBoundary.status, JSON.stringify(noBoundary.body)).toBe(400);
        expect(noBoundary.body.errors[0]).toMatchObject({ status: '400', detail: MULTIPART_NO_BOUNDARY });

        const truncated = await raw(path, who, `multipart/form-data; boundary=${BOUNDARY}`, file.subarray(0, file.length - 12));
        expect(truncated.status).toBe(400);
        expect(truncated.body.errors[0]).toMatchObject({ status: '400', detail: MULTIPART_TRUNCATED });

        const noFile = await raw(path, who, `multipart/form-data; boundary=${BOUNDARY}`, Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`));
        expect(noFile.status).toBe(422);
        expect(noFile.body.errors[0]).toMatchObject({ status: '422', detail: NO_FILE });

        const nulName = await raw(path, who, `multipart/form-data; boundary=${BOUNDARY}`, multipart(field, 'plans\u0000.csv', 'cus-1,Pro\n'));
        expect(nulName.status).toBe(400);
        expect(nulName.body.errors[0]).toMatchObject({ status: '400', detail: NUL_IN_FILE_NAME, source: { pointer: `/body/${field}` } });

        const kept = await stored(who.user.account_id);
        // The cut-off body had begun its file: that import failed and kept nothing.
        expect(kept).toMatchObject({ files: 0, rows: 0 });
        expect(kept.imports.map((row) => [row.status, (row.result as { error?: string }).error])).toEqual([['failed', MULTIPART_TRUNCATED]]);
      });
    }

    it('fails the import of a client that hangs up in the middle of its file, keeping nothing', async () => {
      const who = await signUp(app);
      const file = multipart('csv', 'plans.csv', 'cus-1,Pro\n'.repeat(1_000));
      // Announces the whole body, sends half and hangs up: nobody hears an answer, but nothing stays.
      const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${SEGMENTS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${who.authorization}\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${file.length}\r\n\r\n`,
      );
      socket.write(file.subarray(0, file.length / 2));
      await expect.poll(async () => (await stored(who.user.account_id)).imports.map((row) => row.status), { timeout: 10_000 }).toEqual(['uploaded']);
      socket.destroy();
      await expect
        .poll(async () => (await stored(who.user.account_id)).imports.map((row) => [row.status, (row.result as { error?: string } | null)?.error]), { timeout: 10_000 })
        .toEqual([['failed', MULTIPART_TRUNCATED]]);
      expect(await stored(who.user.account_id)).toMatchObject({ files: 0, rows: 0 });
    });
  });

  describe('what uploads leave behind', () => {
    it('expires a file left in preview after CSV_IMPORT_PREVIEW_TTL_MS, freeing its bytes; finalize then says so', async () => {
      expect(CSV_IMPORT_PREVIEW_TTL_MS).toBe(24 * 60 * 60 * 1000);
      const who = await signUp(app);
      const payments = await upload(SUBSCRIPTIONS, who, 'customer_id,started_at,ended_at,monthly_amount\nc-1,2025-01-01,2025-02-01,10\n');
      const values = await upload(SEGMENTS, who, 'Customer,Plan\ncus-1,Pro\n');
      const ids = [String(payments.body.import_id), String(values.body.import_id)];
      expect(await stored(who.user.account_id)).toMatchObject({ files: 1, rows: 2 });

      // A minute before its time nothing happens.
      const early = await app.imports.sweep(new Date(Date.now() + CSV_IMPORT_PREVIEW_TTL_MS - 60_000));
      expect(early.expired.filter((id) => ids.includes(id))).toEqual([]);
      expect((await stored(who.user.account_id)).imports.map((row) => row.status)).toEqual(['preview', 'preview']);

      const late = await app.imports.sweep(new Date(Date.now() + CSV_IMPORT_PREVIEW_TTL_MS + 60_000));
      expect(late.expired.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
      const kept = await stored(who.user.account_id);
      expect(kept).toMatchObject({ files: 0, rows: 0 });
      expect(kept.imports.map((row) => [row.status, (row.result as { error?: string }).error])).toEqual([
        ['failed', UPLOAD_EXPIRED],
        ['failed', UPLOAD_EXPIRED],
      ]);
      const view = await subscriptionImport(ids[0] as string, who);
      expect(view).toMatchObject({ status: 'failed', result: { status: 'failed', error: UPLOAD_EXPIRED } });
      const finalize = await finalizePage(ids[0] as string, who, { skip_headers: true, customer_id: 0, started_at: 1, monthly_amount: 3, invoice_number: 4, months: 5 });
      expect(finalize.statusCode).toBe(422);
      expect((finalize.json() as ErrorBody).errors[0]?.detail).toBe(UPLOAD_EXPIRED);
    });

    it.each([SUBSCRIPTIONS, SEGMENTS])('keeps nothing of an upload over the size limit on %s (413)', async (path) => {
      const who = await signUp(app);
      const db = harness.db.kysely;
      const count = async () => ({
        files: Number((await db.selectFrom('import_files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
        rows: Number((await db.selectFrom('import_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
      });
      await app.imports.settled();
      const before = await count();
      const line = 'cus-1,2025-01-01,2025-02-01,100\n';
      const { status, body } = await upload(path, who, line.repeat(Math.ceil((UPLOAD_LIMIT + 1024) / line.length)), { field: path === SUBSCRIPTIONS ? 'paying_customers' : 'csv' });
      expect(status).toBe(413);
      expect(body.errors?.[0]).toMatchObject({ status: '413', detail: fileTooLarge(UPLOAD_LIMIT) });
      expect(await count()).toEqual(before);
      const kept = await stored(who.user.account_id);
      expect(kept).toMatchObject({ files: 0, rows: 0 });
      expect(kept.imports.map((row) => row.status)).toEqual(['failed']);
    }, 60_000);

    it("refuses with 413 an upload past the account's bound of pending bytes, and counts only imports that keep bytes", async () => {
      expect(CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT).toBe(1024 * 1024 * 1024);
      const who = await signUp(app);
      const account = who.user.account_id;
      const db = harness.db.kysely;
      // An upload waiting for its mapping that (as the database counts it) nearly fills the bound.
      await db
        .insertInto('imports')
        .values({ account_id: account, id: 'imp-waiting', kind: 'segments', status: 'preview', file_name: 'big.csv', byte_size: CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT - 100 })
        .execute();
      const csv = `Customer,Plan\n${'cus-1,Pro\n'.repeat(20)}`;
      const over = await upload(SEGMENTS, who, csv);
      expect(over.status).toBe(413);
      expect(over.body.errors?.[0]).toMatchObject({ status: '413', detail: pendingUploadsTooLarge(CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT) });
      expect(over.body.errors?.[0]?.detail).toBe(
        'Uploads not yet imported would take more than 1 GB for this account: finish the imports waiting for their mapping, or wait until they expire (after 24 hours)',
      );
      let kept = await stored(account);
      expect(kept).toMatchObject({ files: 0, rows: 0 });
      expect(kept.imports.map((row) => row.status)).toEqual(['preview', 'failed']);

      // At the bound already: refused before the file is read (no import at all).
      await db.updateTable('imports').set({ byte_size: CSV_IMPORT_MAX_PENDING_BYTES_PER_ACCOUNT }).where('account_id', '=', account).where('id', '=', 'imp-waiting').execute();
      const full = await upload(SUBSCRIPTIONS, who, csv);
      expect(full.status).toBe(413);
      kept = await stored(account);
      expect(kept.imports).toHaveLength(2);

      // Another account is not concerned, and once the big upload is done the account uploads again.
      const other = await signUp(app);
      expect((await upload(SEGMENTS, other, csv)).status).toBe(200);
      await db.updateTable('imports').set({ status: 'done' }).where('account_id', '=', account).where('id', '=', 'imp-waiting').execute();
      expect((await upload(SEGMENTS, who, csv)).status).toBe(200);
    });
  });
});
