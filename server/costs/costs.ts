import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { isIsoDay } from '../../models/accountSettings';
import {
  COST_ATTRIBUTE_NOT_FOUND,
  COST_CURRENCY_REQUIRED,
  COST_CURRENCY_UNKNOWN,
  COST_DATE_INVALID,
  COST_DATE_REQUIRED,
  COST_NOT_FOUND,
  COST_TEXT_MAX,
  COST_VALUE_MAX_MINOR,
  COST_VALUE_NOT_NUMBER,
  COST_VALUE_REQUIRED,
  newCostId,
  type Cost,
} from '../../models/costs';
import { Problems } from '../auth/problems';
import { afterChange, asChange } from '../customers/changes';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';

/**
 * Costs of an account (docs/costs.md): the paged list, create or replace, delete. Each write is
 * one transaction; the writes raise the account's data_version through the snapshot triggers
 * (its reports turn stale), and `afterChange` drops the metrics snapshot and recalculates the
 * latest reports, so the costs and CAC sections and their details follow.
 */

export type CostSortField = 'date' | 'value';
export type CostSortOrder = 'asc' | 'desc';
export const COSTS_PAGE_DEFAULT = 50;
export const COSTS_PAGE_MAX = 200;
export const BAD_CURSOR = 'The cursor is not one this list gave';
export const BAD_SORT = "Sort by 'date' or 'value', then ':asc' or ':desc'";

/** What a create or replace may carry; unchecked (the routes' schemas check only the shape). */
export interface CostInput {
  value?: unknown;
  currency?: string | null;
  date?: string | null;
  due_date?: string | null;
  invoice_number?: string | null;
  name?: string | null;
  segments?: { id: string; value: string | null }[];
}

/** A calendar day as read from the database (a string, or a Date on some drivers). */
export function dayText(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value).slice(0, 10);
}

const blankToNull = (value: string | null | undefined): string | null => {
  const trimmed = value?.replaceAll('\u0000', '').trim();
  return trimmed ? trimmed : null;
};

/** The sort of the list: 'date:desc' unless told; null when `text` is not one. */
export function parseCostSort(text: string | undefined): { field: CostSortField; order: CostSortOrder } | null {
  const [field, order = 'desc'] = (text ?? 'date:desc').split(':');
  if ((field !== 'date' && field !== 'value') || (order !== 'asc' && order !== 'desc')) return null;
  return { field, order };
}

interface Cursor {
  /** The sort key of the last row given (a day or a value). */
  k: string | number;
  id: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, field: CostSortField): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof parsed.id === 'string' && parsed.id.length <= 64 && (field === 'date' ? typeof parsed.k === 'string' && isIsoDay(parsed.k) : Number.isSafeInteger(parsed.k))) {
      return { k: parsed.k as string | number, id: parsed.id };
    }
  } catch {
    // Not base64 JSON: refused below.
  }
  throw ApiError.of(422, BAD_CURSOR, '/querystring/next');
}

/** The account's cost attributes (object 'cost'), by name. */
export async function costAttributes(db: Kysely<DB>, accountId: string): Promise<{ id: string; name: string }[]> {
  return db.selectFrom('object_attributes').select(['id', 'name']).where('account_id', '=', accountId).where('object', '=', 'cost').orderBy(sql`lower(name)`).orderBy('id').execute();
}

/** The costs of these ids as the API answers them (every cost attribute listed, null without a value), in the ids' order. */
export async function costRows(db: Kysely<DB>, accountId: string, ids: readonly string[]): Promise<Cost[]> {
  if (ids.length === 0) return [];
  const [rows, attributes, values] = await Promise.all([
    db
      .selectFrom('costs')
      .select(['id', 'name', 'value', 'currency', 'date', 'due_date', 'invoice_number', 'source'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute(),
    costAttributes(db, accountId),
    db.selectFrom('cost_segment_values').select(['cost_id', 'attribute_id', 'value']).where('account_id', '=', accountId).where('cost_id', 'in', ids).execute(),
  ]);
  const valueOf = new Map(values.map((row) => [`${row.cost_id}\u0000${row.attribute_id}`, row.value]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        id: row.id,
        name: row.name,
        value: Number(row.value),
        currency: row.currency,
        date: dayText(row.date),
        due_date: row.due_date === null ? null : dayText(row.due_date),
        invoice_number: row.invoice_number,
        segments: attributes.map((attribute) => ({ id: attribute.id, name: attribute.name, value: valueOf.get(`${id}\u0000${attribute.id}`) ?? null })),
        source: row.source,
      },
    ];
  });
}

/** One page of the account's costs, keyset-paged by (sort key, id). */
export async function listCosts(db: Kysely<DB>, accountId: string, options: { sort?: string; next?: string; limit?: number }): Promise<{ items: Cost[]; next: string | null }> {
  const sort = parseCostSort(options.sort);
  if (!sort) throw ApiError.of(422, BAD_SORT, '/querystring/sort_by');
  const limit = Math.min(Math.max(options.limit ?? COSTS_PAGE_DEFAULT, 1), COSTS_PAGE_MAX);
  const cursor = options.next ? decodeCursor(options.next, sort.field) : null;
  const direction = sort.order === 'asc' ? sql`>` : sql`<`;
  let query = db.selectFrom('costs').select(['id', 'date', 'value']).where('account_id', '=', accountId);
  if (cursor) {
    const key = sort.field === 'date' ? sql`${cursor.k}::date` : sql`${cursor.k}::bigint`;
    query = query.where(sql<boolean>`(${sql.ref(sort.field)}, id) ${direction} (${key}, ${cursor.id})`);
  }
  const rows = await query.orderBy(sort.field, sort.order).orderBy('id', sort.order).limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = rows.length > limit && last ? encodeCursor({ k: sort.field === 'date' ? dayText(last.date) : Number(last.value), id: last.id }) : null;
  return { items: await costRows(db, accountId, page.map((row) => row.id)), next };
}

interface CheckedCost {
  value: number;
  currency: string;
  date: string;
  due_date: string | null;
  invoice_number: string | null;
  name: string | null;
  segments: { id: string; value: string | null }[] | undefined;
}

/** The input's problems as one 422 (the form's messages), else the values to write. */
async function checked(db: Kysely<DB>, accountId: string, input: CostInput): Promise<CheckedCost> {
  const problems = new Problems();
  const value = input.value;
  if (value === undefined || value === null) problems.add('/body/value', COST_VALUE_REQUIRED);
  else if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > COST_VALUE_MAX_MINOR) problems.add('/body/value', COST_VALUE_NOT_NUMBER);
  const currency = (input.currency ?? '').trim().toUpperCase();
  if (currency === '') problems.add('/body/currency', COST_CURRENCY_REQUIRED);
  else if (!/^[A-Z]{3}$/.test(currency) || !(await db.selectFrom('currencies').select('iso').where('iso', '=', currency).executeTakeFirst())) {
    problems.add('/body/currency', COST_CURRENCY_UNKNOWN);
  }
  const date = (input.date ?? '').trim();
  if (date === '') problems.add('/body/date', COST_DATE_REQUIRED);
  else if (!isIsoDay(date)) problems.add('/body/date', COST_DATE_INVALID);
  const dueDate = blankToNull(input.due_date);
  if (dueDate !== null && !isIsoDay(dueDate)) problems.add('/body/due_date', COST_DATE_INVALID);
  const invoiceNumber = blankToNull(input.invoice_number);
  const name = blankToNull(input.name);
  if (invoiceNumber && invoiceNumber.length > COST_TEXT_MAX) problems.add('/body/invoice_number', `At most ${COST_TEXT_MAX} characters`);
  if (name && name.length > COST_TEXT_MAX) problems.add('/body/name', `At most ${COST_TEXT_MAX} characters`);
  let segments: CheckedCost['segments'];
  if (input.segments) {
    const known = new Set((await costAttributes(db, accountId)).map((attribute) => attribute.id));
    const seen = new Set<string>();
    segments = [];
    for (const [k, entry] of input.segments.entries()) {
      if (!known.has(entry.id)) throw ApiError.of(404, COST_ATTRIBUTE_NOT_FOUND, `/body/segments/${k}/id`);
      const text = blankToNull(entry.value);
      if (text && text.length > COST_TEXT_MAX) problems.add(`/body/segments/${k}/value`, `At most ${COST_TEXT_MAX} characters`);
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      segments.push({ id: entry.id, value: text });
    }
  }
  problems.check();
  return { value: value as number, currency, date, due_date: dueDate, invoice_number: invoiceNumber, name, segments };
}

/**
 * Creates the cost `id` of the account, or replaces it when it exists: every field is the
 * input's (an omitted optional one becomes null); the attribute values, when `segments` is
 * given, become exactly the non-empty ones listed. An id that another account's cost has is
 * 404 (that cost is neither read nor touched).
 */
export async function upsertCost(app: FastifyInstance, accountId: string, id: string | null, input: CostInput): Promise<Cost> {
  const db = app.db.kysely;
  if (id !== null) {
    // Cost ids are unguessable and meant to be unique: an id another account holds names that account's cost, so 404 before anything else.
    const own = await db.selectFrom('costs').select('id').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    const foreign = own ? undefined : await db.selectFrom('costs').select('id').where('account_id', '<>', accountId).where('id', '=', id).limit(1).executeTakeFirst();
    if (foreign) throw ApiError.of(404, COST_NOT_FOUND, '/params/id');
  }
  const cost = await checked(db, accountId, input);
  const costId = id ?? newCostId();
  const now = app.now();
  await asChange(() =>
    db.transaction().execute(async (trx) => {
      const fields = { name: cost.name, value: cost.value, currency: cost.currency, date: cost.date, due_date: cost.due_date, invoice_number: cost.invoice_number };
      await trx
        .insertInto('costs')
        .values({ account_id: accountId, id: costId, ...fields, source: 'manual' })
        .onConflict((conflict) => conflict.columns(['account_id', 'id']).doUpdateSet({ ...fields, updated_at: now }))
        .execute();
      if (cost.segments) {
        await trx.deleteFrom('cost_segment_values').where('account_id', '=', accountId).where('cost_id', '=', costId).execute();
        const rows = cost.segments.filter((entry) => entry.value !== null).map((entry) => ({ account_id: accountId, cost_id: costId, attribute_id: entry.id, value: entry.value }));
        if (rows.length > 0) await trx.insertInto('cost_segment_values').values(rows).execute();
      }
    }),
  );
  await afterChange(app, accountId);
  const [row] = await costRows(db, accountId, [costId]);
  if (!row) throw ApiError.of(404, COST_NOT_FOUND, '/params/id');
  return row;
}

/** Deletes the account's cost (its attribute values go with it); 404 when the account has none of this id. */
export async function deleteCost(app: FastifyInstance, accountId: string, id: string): Promise<void> {
  const deleted = await asChange(() => app.db.kysely.deleteFrom('costs').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst());
  if (Number(deleted.numDeletedRows) === 0) throw ApiError.of(404, COST_NOT_FOUND, '/params/id');
  await afterChange(app, accountId);
}
