import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_COLUMN_REQUIRED_MESSAGE } from '../../../models/customers';
import { MAPPING_INCOMPLETE, SEGMENT_IMPORT_NOT_FOUND } from '../../../server/routes/segmentImports';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

interface SegmentView {
  status: string;
  result: { status: string; success_count: number; failure_count: number; failures: { row_number: number; row: string; message: string }[] };
  audit_log: { event: string }[];
}

describe(`attribute values import on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let base: string;
  let owner: SignedUp;
  let segmentId: string;

  beforeAll(async () => {
    harness = await createAuthTestApp();
    app = harness.app;
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await signUp(app);
    const account = owner.user.account_id;
    const db = harness.db.kysely;
    await db.insertInto('object_attributes').values({ account_id: account, id: 'att-plan', name: 'Plan', object: 'customer' }).execute();
    await db.insertInto('customer_segments').values({ account_id: account, id: 'seg-plan', object_attribute_id: 'att-plan', name: 'Plan', time_sensitive: true }).execute();
    await db
      .insertInto('customers')
      .values([
        { account_id: account, id: 'cus-1', name: 'One', public_id: 'PUB-1' },
        { account_id: account, id: 'cus-2', name: 'Two' },
        { account_id: account, id: 'cus-3', name: 'Three' },
      ])
      .execute();
    segmentId = 'seg-plan';
  });
  afterAll(() => harness?.close());

  async function draft(csv: string, who: SignedUp = owner) {
    const form = new FormData();
    form.append('csv', new Blob([csv], { type: 'text/csv' }), 'plans.csv');
    const response = await fetch(`${base}/api/v11/segments_importer/draft`, { method: 'POST', headers: { authorization: who.authorization }, body: form });
    return { status: response.status, body: (await response.json()) as { import_id: string; preview_rows: string[][]; errors?: { detail: string }[] } };
  }

  const finalize = (payload: object, who: SignedUp = owner) =>
    app.inject({ method: 'POST', url: '/api/v11/segments_importer/finalize', headers: { authorization: who.authorization }, payload });

  it('previews the file, then writes each customer’s value for this month, by public id or id, and reports the rest', async () => {
    const { status, body } = await draft('Customer;Plan\nPUB-1;Pro\ncus-2;Basic\nnobody;Pro\n;Pro\ncus-2;Enterprise\n');
    expect(status).toBe(200);
    expect(body.preview_rows[0]).toEqual(['Customer', 'Plan']);
    const response = await finalize({ import_id: body.import_id, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segmentId });
    expect(response.statusCode, response.body).toBe(200);
    await app.imports.settled();
    const view = (await app.inject({ method: 'GET', url: `/api/v11/segments_importer/${body.import_id}`, headers: { authorization: owner.authorization } })).json() as SegmentView;
    expect(view.status).toBe('done');
    expect(view.result.success_count).toBe(2);
    expect(view.result.failures).toEqual([
      { row_number: 4, row: 'nobody;Pro', message: "Customer 'nobody' not found" },
      { row_number: 5, row: ';Pro', message: 'Customer ID is empty' },
      { row_number: 6, row: 'cus-2;Enterprise', message: 'Same customer as row 3' },
    ]);
    expect(view.audit_log.map((e) => e.event)).toContain('committed');
    const now = new Date();
    const values = await harness.db.kysely
      .selectFrom('customer_segment_values')
      .select(['customer_id', 'value', 'year', 'month'])
      .where('account_id', '=', owner.user.account_id)
      .orderBy('customer_id')
      .execute();
    expect(values).toEqual([
      { customer_id: 'cus-1', value: 'Pro', year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 },
      { customer_id: 'cus-2', value: 'Basic', year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 },
    ]);
  });

  it('refuses a mapping without the customer column or the value column, with the spec’s messages', async () => {
    const { body } = await draft('cus-1,Pro\n');
    const noCustomer = await finalize({ import_id: body.import_id, segment_column_index: 1, skip_headers: false, customer_segment_id: segmentId });
    expect(noCustomer.statusCode).toBe(422);
    expect(noCustomer.json().errors[0].detail).toBe(CUSTOMER_COLUMN_REQUIRED_MESSAGE);
    const noValue = await finalize({ import_id: body.import_id, public_id_column_index: 0, skip_headers: false, customer_segment_id: segmentId });
    expect(noValue.statusCode).toBe(422);
    expect(noValue.json().errors[0].detail).toBe(MAPPING_INCOMPLETE);
    const sameColumn = await finalize({ import_id: body.import_id, public_id_column_index: 0, segment_column_index: 0, skip_headers: false, customer_segment_id: segmentId });
    expect(sameColumn.json().errors[0].detail).toBe(MAPPING_INCOMPLETE);
  });

  it("lists the account's customer segments, and no other account's", async () => {
    const mine = await app.inject({ method: 'GET', url: '/api/v11/customer_segments', headers: { authorization: owner.authorization } });
    expect(mine.json()).toEqual({ items: [{ id: 'seg-plan', name: 'Plan', object_attribute_id: 'att-plan', value_source: 'parent_and_children', time_sensitive: true }] });
    const stranger = await signUp(app);
    const theirs = await app.inject({ method: 'GET', url: '/api/v11/customer_segments', headers: { authorization: stranger.authorization } });
    expect(theirs.json()).toEqual({ items: [] });
  });

  it("keeps another account's imports and segments out of reach", async () => {
    const { body } = await draft('cus-1,Pro\n');
    const stranger = await signUp(app);
    const response = await finalize({ import_id: body.import_id, public_id_column_index: 0, segment_column_index: 1, skip_headers: false, customer_segment_id: segmentId }, stranger);
    expect(response.statusCode).toBe(404);
    expect(response.json().errors[0].detail).toBe(SEGMENT_IMPORT_NOT_FOUND);
    const get = await app.inject({ method: 'GET', url: `/api/v11/segments_importer/${body.import_id}`, headers: { authorization: stranger.authorization } });
    expect(get.statusCode).toBe(404);
  });
});
