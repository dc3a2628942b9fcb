import type { FastifyInstance } from 'fastify';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { ITEM_TYPES, type ItemType } from '../../models/constants';
import {
  DURATION_NOT_NUMBER,
  DURATION_REQUIRED,
  DURATION_TOO_LONG,
  INVOICE_ITEM_SORTS,
  INVOICE_ITEMS_PAGE,
  ISSUE_DATE_TREATMENTS,
  LINE_NAME_REQUIRED,
  RULE_ALREADY_PRESENT,
  RULE_DURATION_MAX,
  RULE_PRODUCT_REQUIRED,
  RULE_TEXT_MAX,
  RULE_TEXT_TOO_LONG,
  type InvoiceItem,
  type InvoiceItemSort,
  type IssueDateTreatment,
} from '../../models/invoices';
import { randomAlphanumeric } from '../auth/secrets';
import { Problems } from '../auth/problems';
import { afterChange } from '../customers/changes';
import type { DB, InvoiceProcessingStatus } from '../db/schema';
import { ApiError } from '../http/errors';
import { distillItems } from './distill';

/**
 * Invoice line items and import rules (docs/invoices.md): the paged list of lines (the rejected
 * ones on /invoices), whether any is rejected (the top bar's link), how many rejected lines a
 * rule would take, and creating a rule, which turns the rejected lines it matches into payments
 * at once and recalculates the reports.
 */

export const BAD_CURSOR = 'The cursor is not one this list gave';
export const INVOICE_ITEMS_PAGE_MAX = 200;

const newDistillerId = () => `dst${randomAlphanumeric(13)}`;

interface Cursor {
  k: string | number;
  id: string;
}

const SORT_KEYS: Record<string, { expression: RawBuilder<unknown>; numeric: boolean; cast: RawBuilder<unknown> }> = {
  created_at: {
    expression: sql`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`,
    numeric: false,
    cast: sql``,
  },
  name: { expression: sql`name`, numeric: false, cast: sql`` },
  value: { expression: sql`value`, numeric: true, cast: sql`::bigint` },
  issue_date: { expression: sql`coalesce(to_char(invoice_issue_date, 'YYYY-MM-DD'), '')`, numeric: false, cast: sql`` },
};

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, numeric: boolean): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    const keyOk = numeric ? Number.isSafeInteger(parsed.k) : typeof parsed.k === 'string' && parsed.k.length <= 4 * RULE_TEXT_MAX && !parsed.k.includes('\u0000');
    if (typeof parsed.id === 'string' && parsed.id.length <= 64 && !parsed.id.includes('\u0000') && keyOk) return { k: parsed.k as string | number, id: parsed.id };
  } catch {
    // Not base64 JSON: refused below.
  }
  throw ApiError.of(422, BAD_CURSOR, '/querystring/next');
}

const dayText = (value: unknown): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));

/** One page of the account's line items of a status, keyset-paged by (sort key, id), with the count of them all. */
export async function listInvoiceItems(
  db: Kysely<DB>,
  accountId: string,
  options: { status: InvoiceProcessingStatus; sort?: InvoiceItemSort; next?: string; limit?: number },
): Promise<{ items: InvoiceItem[]; total_count: number; next: string | null }> {
  const sort = options.sort ?? 'created_at:desc';
  if (!(INVOICE_ITEM_SORTS as readonly string[]).includes(sort)) throw ApiError.of(422, 'Unknown sort', '/querystring/sort_by');
  const [field = 'created_at', order] = sort.split(':') as [string, 'asc' | 'desc'];
  const key = SORT_KEYS[field] ?? (SORT_KEYS.created_at as NonNullable<(typeof SORT_KEYS)[string]>);
  const limit = Math.min(Math.max(options.limit ?? INVOICE_ITEMS_PAGE, 1), INVOICE_ITEMS_PAGE_MAX);
  const cursor = options.next ? decodeCursor(options.next, key.numeric) : null;
  const direction = order === 'asc' ? sql`>` : sql`<`;
  const orderSql = order === 'asc' ? sql`asc` : sql`desc`;
  const after = cursor ? sql`and (${key.expression}, id) ${direction} (${cursor.k}${key.cast}, ${cursor.id})` : sql``;
  const [{ rows }, count] = await Promise.all([
    sql<{
      id: string;
      k: string | number;
      name: string;
      value: string | number;
      currency: string;
      quantity: number;
      source: string;
      processing_status: InvoiceProcessingStatus;
      invoice_number: string | null;
      invoice_buyer_name: string | null;
      invoice_buyer_id: string | null;
      invoice_issue_date: unknown;
    }>`select id, ${key.expression} as k, name, value, currency, quantity, source, processing_status, invoice_number, invoice_buyer_name, invoice_buyer_id, invoice_issue_date
         from invoice_items
        where account_id = ${accountId} and processing_status = ${options.status} ${after}
        order by ${key.expression} ${orderSql}, id ${orderSql}
        limit ${limit + 1}`.execute(db),
    db
      .selectFrom('invoice_items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .where('processing_status', '=', options.status)
      .executeTakeFirstOrThrow(),
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      name: row.name,
      value: Number(row.value),
      currency: row.currency,
      quantity: Number(row.quantity),
      source: row.source,
      processing_status: row.processing_status,
      invoice: {
        number: row.invoice_number,
        buyer_name: row.invoice_buyer_name,
        buyer_id: row.invoice_buyer_id,
        issue_date: row.invoice_issue_date === null ? null : dayText(row.invoice_issue_date),
      },
    })),
    total_count: Number(count.n),
    next: rows.length > limit && last ? encodeCursor({ k: key.numeric ? Number(last.k) : String(last.k), id: last.id }) : null,
  };
}

/** Whether the account has a rejected line (the top bar shows 'Import rejected invoices'). */
export async function hasRejectedItems(db: Kysely<DB>, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('invoice_items').select('id').where('account_id', '=', accountId).where('processing_status', '=', 'distillation_failed').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** How many rejected lines are named exactly `lineName` (what a rule of that name would take). */
export async function affectedCount(db: Kysely<DB>, accountId: string, lineName: string): Promise<number> {
  const row = await db
    .selectFrom('invoice_items')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('processing_status', '=', 'distillation_failed')
    .where('name', '=', lineName)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What `POST /distillers` may carry; unchecked (the route's schema checks only the shape). */
export interface DistillerInput {
  line_name?: unknown;
  item_type?: unknown;
  issue_date_treatment?: unknown;
  product_key?: unknown;
  duration_in_months?: unknown;
  matcher?: unknown;
}

export interface Distiller {
  id: string;
  line_name: string;
  matcher: 'equal';
  item_type: ItemType;
  issue_date_treatment: IssueDateTreatment;
  product_key: string;
  duration_in_months: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.replaceAll('\u0000', '').trim() : '');

/** The rule's problems as one 422 (the drawer's messages), else the rule. */
export function checkDistiller(input: DistillerInput): Omit<Distiller, 'id'> {
  const problems = new Problems();
  const lineName = text(input.line_name);
  if (lineName === '') problems.add('/body/line_name', LINE_NAME_REQUIRED);
  else if (lineName.length > RULE_TEXT_MAX) problems.add('/body/line_name', RULE_TEXT_TOO_LONG);
  const productKey = text(input.product_key);
  if (productKey === '') problems.add('/body/product_key', RULE_PRODUCT_REQUIRED);
  else if (productKey.length > RULE_TEXT_MAX) problems.add('/body/product_key', RULE_TEXT_TOO_LONG);
  const raw = input.duration_in_months;
  let duration = 0;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) problems.add('/body/duration_in_months', DURATION_REQUIRED);
  else {
    const digits = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (!Number.isSafeInteger(digits) || digits < 1) problems.add('/body/duration_in_months', DURATION_NOT_NUMBER);
    else if (digits > RULE_DURATION_MAX) problems.add('/body/duration_in_months', DURATION_TOO_LONG);
    else duration = digits;
  }
  const itemType = input.item_type ?? 'recurring';
  if (!(ITEM_TYPES as readonly unknown[]).includes(itemType)) problems.add('/body/item_type', `Item type is one of ${ITEM_TYPES.join(', ')}`);
  const treatment = input.issue_date_treatment ?? 'started_at';
  if (!(ISSUE_DATE_TREATMENTS as readonly unknown[]).includes(treatment)) problems.add('/body/issue_date_treatment', `Issue date treatment is one of ${ISSUE_DATE_TREATMENTS.join(', ')}`);
  if (input.matcher !== undefined && input.matcher !== 'equal') problems.add('/body/matcher', "The matcher is 'equal'");
  problems.check();
  return {
    line_name: lineName,
    matcher: 'equal',
    item_type: itemType as ItemType,
    issue_date_treatment: treatment as IssueDateTreatment,
    product_key: productKey,
    duration_in_months: duration,
  };
}

/**
 * Creates the rule and, in the same transaction, turns the rejected lines it matches into
 * payments; then the reports recalculate. 409 when the account has a rule of that line name.
 */
export async function createDistiller(app: FastifyInstance, accountId: string, input: DistillerInput): Promise<{ distiller: Distiller; processed: number }> {
  const rule = checkDistiller(input);
  const id = newDistillerId();
  const processed = await app.db.kysely.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('distillers')
      .values({ account_id: accountId, id, ...rule })
      .onConflict((oc) => oc.columns(['account_id', 'matcher', 'line_name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw ApiError.of(409, RULE_ALREADY_PRESENT, '/body/line_name');
    const ids = await trx
      .selectFrom('invoice_items')
      .select('id')
      .where('account_id', '=', accountId)
      .where('processing_status', '=', 'distillation_failed')
      .where('name', '=', rule.line_name)
      .execute();
    const result = await distillItems(
      trx,
      accountId,
      ids.map((row) => row.id),
    );
    return result.distilled;
  });
  if (processed > 0) await afterChange(app, accountId);
  return { distiller: { id, ...rule }, processed };
}
