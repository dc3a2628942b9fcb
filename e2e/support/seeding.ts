import type { APIRequestContext } from '@playwright/test';
import { expect } from './test';

/**
 * Seeding an account of a test's own through the API, as the product's screens would: payments
 * imported from a CSV, customer attributes made and set. Specs seed what their subject is not
 * through these, and drive their subject through the page.
 */

const day = (date: Date) => date.toISOString().slice(0, 10);

/** The first day (UTC) of the month `offset` months from this one. */
export function monthStart(offset: number): Date {
  const today = new Date();
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + offset, 1));
}

export interface PayingCustomer {
  id: string;
  monthly: number;
  /** Written in a `product` column when any customer has one. */
  product?: string;
}

/**
 * A payments file: each customer paying its monthly amount from `from` to `to` (first days of
 * months, by default six months ago and the month after next). Its columns are
 * `customer_id,started_at,ended_at,monthly_amount`, and `product` when a customer has one.
 */
export function paymentsCsv(customers: readonly PayingCustomer[], from = monthStart(-6), to = monthStart(2)): string {
  const withProduct = customers.some((c) => c.product !== undefined);
  const header = `customer_id,started_at,ended_at,monthly_amount${withProduct ? ',product' : ''}`;
  const rows = customers.map((c) => `${c.id},${day(from)},${day(to)},${c.monthly.toFixed(2)}${withProduct ? `,${c.product ?? ''}` : ''}`);
  return [header, ...rows].join('\n') + '\n';
}

/** The columns of a file `paymentsCsv` made, in order. */
export const csvColumns = (csv: string): string[] => (csv.split('\n')[0] ?? '').split(',');

/**
 * Imports `csv` and waits until the import is done: as the import dialog does (its columns in
 * `column_order`, the default), or as the import page does (`mapping`: the column index of each
 * field, sent to finalize).
 */
export async function importPaymentsThroughApi(request: APIRequestContext, token: string, csv: string, options: { mapping?: Record<string, number> } = {}): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const file = { name: 'payments.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) };
  const upload = await request.post('/api/v11/subscriptions/csv_import', {
    headers,
    multipart: options.mapping ? { paying_customers: file } : { column_order: csvColumns(csv).join(','), paying_customers: file },
  });
  expect(upload.status()).toBe(200);
  const { id } = (await upload.json()) as { id: string };
  if (options.mapping) {
    const finalized = await request.post(`/api/v11/subscriptions/csv_import/${id}/finalize`, { headers, data: { ...options.mapping, skip_headers: true } });
    expect(finalized.status()).toBe(200);
  }
  await expect
    .poll(async () => ((await (await request.get(`/api/v11/subscriptions/csv_import/${id}`, { headers })).json()) as { status: string }).status, { timeout: 30_000 })
    .toBe('done');
}

/**
 * Makes the customer attribute `name` and sets each customer's value (by the public id it was
 * imported with) from the month of `from` on.
 */
export async function setCustomerAttributeThroughApi(request: APIRequestContext, token: string, name: string, values: Record<string, string>, from: Date): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const attribute = await request.post('/api/v11/object_attributes', { headers, data: { name, object: 'customer' } });
  expect(attribute.status()).toBe(201);
  const { segment_id: segmentId } = (await attribute.json()) as { segment_id: string };

  const listed = await request.get('/api/v11/customers', { headers });
  expect(listed.status()).toBe(200);
  const { items } = (await listed.json()) as { items: { id: string; public_id: string | null; name: string }[] };
  for (const [publicId, value] of Object.entries(values)) {
    const row = items.find((item) => item.public_id === publicId || item.name === publicId);
    if (!row) throw new Error(`customer ${publicId} not imported`);
    const set = await request.put(`/api/v11/customer_segment_values/${row.id}/${segmentId}`, {
      headers,
      data: { year: from.getUTCFullYear(), month: from.getUTCMonth() + 1, value },
    });
    expect(set.status()).toBe(200);
  }
}

/**
 * A report made through the API, as the library does: `definitions` (MRR by default) over the
 * months `from`..`to` ('YYYY-MM'; the default period without them); answers its secret.
 */
export async function createReportThroughApi(request: APIRequestContext, token: string, options: { title: string; definitions?: readonly string[]; from?: string; to?: string }): Promise<{ secret: string }> {
  const month = (text: string) => {
    const [year, monthOfYear] = text.split('-').map(Number) as [number, number];
    return { year, month: monthOfYear };
  };
  const period = options.from && options.to ? { start_year: month(options.from).year, start_month: month(options.from).month, end_year: month(options.to).year, end_month: month(options.to).month } : undefined;
  const report = await request.post('/api/v11/business_reports', {
    headers: { authorization: `Bearer ${token}` },
    data: { title: options.title, sections: (options.definitions ?? ['mrr']).map((definition_id) => ({ definition_id })), ...(period ? { period } : {}) },
  });
  expect(report.status()).toBe(201);
  return (await report.json()) as { secret: string };
}

/** A report of one MRR chart over the default period, made through the API; answers its secret. */
export const createMrrReport = (request: APIRequestContext, token: string, title: string) => createReportThroughApi(request, token, { title });
