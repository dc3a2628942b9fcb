import { expect } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import { multipart } from '../attack/support';
import type { AuthTestApp, SignedUp } from '../auth/support';

/** The columns of the payments `seedPlanAccount` imports, in order. */
export const PLAN_ACCOUNT_COLUMNS = 'customer_id,invoice_number,started_at,months,monthly_amount,customer_name,product,units';

/** Uploads `csv` as the multipart field `field` to `url` (an import's first step); answers the import's id. */
export async function uploadCsv(harness: AuthTestApp, who: SignedUp, url: string, field: string, csv: string): Promise<string> {
  const form = multipart([{ name: field, filename: 'data.csv', type: 'text/csv', content: csv }]);
  const response = await harness.app.inject({ method: 'POST', url: `${API_PREFIX}${url}`, headers: { authorization: who.authorization, 'content-type': form.contentType }, payload: form.payload });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { import_id: string }).import_id;
}

/** Imports `rows` of PLAN_ACCOUNT_COLUMNS into `who`'s account as a payments CSV import does, and waits for it. */
export async function importPlanPayments(harness: AuthTestApp, who: SignedUp, rows: string[]): Promise<void> {
  const payments = await uploadCsv(harness, who, '/subscriptions/csv_import', 'paying_customers', [PLAN_ACCOUNT_COLUMNS, ...rows].join('\n'));
  const mapping = Object.fromEntries(PLAN_ACCOUNT_COLUMNS.split(',').map((column, index) => [column, index]));
  const finalize = await harness.app.inject({ method: 'POST', url: `${API_PREFIX}/subscriptions/csv_import/${payments}/finalize`, headers: { authorization: who.authorization }, payload: { skip_headers: true, ...mapping } });
  expect(finalize.statusCode, finalize.body).toBe(200);
  await harness.app.imports.settled();
}

/**
 * Seeds `who`'s account as the product's imports would: payments from a CSV import (`rows` of
 * PLAN_ACCOUNT_COLUMNS), then the customer attribute `attribute` (segment id `segment`) with
 * values from an attribute import (`values`: 'customer,value' lines).
 */
export async function seedPlanAccount(harness: AuthTestApp, who: SignedUp, options: { rows: string[]; values: string[]; segment: string; attribute: string }): Promise<void> {
  const { app, db } = harness;
  await importPlanPayments(harness, who, options.rows);
  const account = who.user.account_id;
  const { segment, attribute } = options;
  await db.kysely.insertInto('object_attributes').values({ account_id: account, id: `${segment}-att`, name: attribute, object: 'customer' }).execute();
  await db.kysely.insertInto('customer_segments').values({ account_id: account, id: segment, object_attribute_id: `${segment}-att`, name: attribute }).execute();
  const values = await uploadCsv(harness, who, '/segments_importer/draft', 'csv', ['customer,value', ...options.values].join('\n'));
  const finalized = await app.inject({
    method: 'POST',
    url: `${API_PREFIX}/segments_importer/finalize`,
    headers: { authorization: who.authorization },
    payload: { import_id: values, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segment },
  });
  expect(finalized.statusCode, finalized.body).toBe(200);
  await app.imports.settled();
}
