import { sql, type Kysely, type RawBuilder } from 'kysely';
import { PAYMENT_SORT_FIELDS, type PaymentSortField } from '../../models/payments';
import type { DB, ItemType } from '../db/schema';
import type { PaymentAnswer } from './schemas';

/**
 * Reading payments for the payment calls: the answer rows of some ids, one keyset page of the
 * account's payments in a chosen order, and the search. Every query is the account's only and
 * leaves deleted payments out.
 */

interface AnswerRow {
  id: string;
  customer_id: string;
  customer_name: string;
  invoice_number: string | null;
  started_at: string;
  ended_at: string | null;
  duration_in_months: number | null;
  total_value: number | string | null;
  monthly_amount: number | null;
  currency: string;
  version: number;
  source: string;
  items: { product_key: string; product_name: string | null; type: ItemType; quantity: number }[] | null;
  discount: { kind: 'forever' | 'finite'; monthly_amount: number; months: number | null } | null;
  segments: { id: string; name: string; value: string | null }[] | null;
}

/**
 * The answer columns of a payment `p` joined to its customer `c`: its items, discount and every
 * payment attribute of the account with this payment's value, each a subquery, so that a page
 * is one statement (a plain SELECT of the same rows is what the benchmark holds it against).
 */
const ANSWER_COLUMNS = sql`p.id, p.customer_id, c.name as customer_name, p.invoice_number, p.started_at, p.ended_at, p.duration_in_months, p.total_value,
       p.monthly_amount, p.currency, p.version, p.source,
       (select jsonb_agg(jsonb_build_object('product_key', i.product_key, 'product_name', pr.name, 'type', i.type, 'quantity', i.quantity) order by i.position)
          from payment_items i left join products pr on pr.account_id = i.account_id and pr.key = i.product_key
         where i.account_id = p.account_id and i.payment_id = p.id) as items,
       (select jsonb_build_object('kind', d.kind, 'monthly_amount', d.monthly_amount, 'months', d.months)
          from payment_discounts d where d.account_id = p.account_id and d.payment_id = p.id order by d.position limit 1) as discount,
       (select jsonb_agg(jsonb_build_object('id', a.id, 'name', a.name, 'value', v.value) order by a.name, a.id)
          from object_attributes a
          left join payment_segment_values v on v.account_id = a.account_id and v.attribute_id = a.id and v.payment_id = p.id
         where a.account_id = p.account_id and a.object = 'subscription_history') as segments`;

function answerOf(row: AnswerRow): PaymentAnswer {
  const total = row.total_value === null ? null : Number(row.total_value);
  const duration = row.duration_in_months === null ? null : Number(row.duration_in_months);
  return {
    id: row.id,
    customer: { id: row.customer_id, name: row.customer_name },
    customer_id: row.customer_id,
    invoice_number: row.invoice_number,
    started_at: String(row.started_at),
    ended_at: row.ended_at === null ? null : String(row.ended_at),
    duration_in_months: duration,
    total_value: total,
    monthly_amount: row.monthly_amount !== null ? Number(row.monthly_amount) : total !== null && duration ? total / duration : 0,
    currency: row.currency,
    items: (row.items ?? []).map((item) => ({ product_key: item.product_key, product_name: item.product_name ?? item.product_key, type: item.type, quantity: Number(item.quantity) })),
    discount: row.discount ? { kind: row.discount.kind, monthly_amount: Number(row.discount.monthly_amount), months: row.discount.months === null ? null : Number(row.discount.months) } : null,
    segments: (row.segments ?? []).map((segment) => ({ id: segment.id, name: segment.name, value: segment.value })),
    latest_history_id: row.id,
    version: Number(row.version),
    source: row.source,
  };
}

/** The answers of these payments (not deleted, of this account), in the order of `ids`: one statement. */
export async function paymentAnswers(db: Kysely<DB>, accountId: string, ids: readonly string[]): Promise<PaymentAnswer[]> {
  if (ids.length === 0) return [];
  const found = await sql<AnswerRow>`
    select ${ANSWER_COLUMNS}
      from payments p
      join customers c on c.account_id = p.account_id and c.id = p.customer_id
     where p.account_id = ${accountId} and p.id = any(${[...new Set(ids)]}::text[]) and p.deleted_at is null`.execute(db);
  const byId = new Map(found.rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [answerOf(row)] : [];
  });
}

/** The account's payment attributes (object attributes of object subscription_history), by name. */
export function paymentAttributes(db: Kysely<DB>, accountId: string): Promise<{ id: string; name: string }[]> {
  return db.selectFrom('object_attributes').select(['id', 'name']).where('account_id', '=', accountId).where('object', '=', 'subscription_history').orderBy('name').orderBy('id').execute();
}

// ---------------------------------------------------------------------------------------
// Sorting and keyset paging

export type Direction = 'asc' | 'desc';
export interface PaymentSort {
  field: PaymentSortField;
  direction: Direction;
}
type Key = string | number | null;
export interface PaymentCursor {
  key: Key;
  id: string;
}

const SORT_PATTERN = new RegExp(`^(${PAYMENT_SORT_FIELDS.join('|')}):(asc|desc)$`);

export function parsePaymentSort(text: string): PaymentSort | null {
  const match = SORT_PATTERN.exec(text);
  return match ? { field: match[1] as PaymentSortField, direction: match[2] as Direction } : null;
}

/** An opaque cursor: base64url JSON of the sort it belongs to and the (key, id) of the last item of a page. */
export function encodePaymentCursor(sort: PaymentSort, key: Key, id: string): string {
  return Buffer.from(JSON.stringify([`${sort.field}:${sort.direction}`, key, id]), 'utf8').toString('base64url');
}

/** Null for anything that is not a cursor of this sort. */
export function decodePaymentCursor(sort: PaymentSort, text: string): PaymentCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [of, key, id] = value as unknown[];
    if (of !== `${sort.field}:${sort.direction}` || typeof id !== 'string' || id.includes('\u0000')) return null;
    const numeric = sort.field === 'total_value' || sort.field === 'monthly_amount' || sort.field === 'duration_in_months';
    if (key === null) return { key, id };
    if (numeric ? typeof key !== 'number' || !Number.isFinite(key) : typeof key !== 'string' || key.includes('\u0000')) return null;
    if (sort.field === 'started_at' && !/^\d{4}-\d{2}-\d{2}$/.test(key as string)) return null;
    return { key: key as Key, id };
  } catch {
    return null;
  }
}

/**
 * The sort key of each field as SQL over `p` (payments) and `c` (customers). The monthly amount
 * is the effective one (a row that keeps none divides its total by its months).
 */
function keyOf(field: PaymentSortField): RawBuilder<unknown> {
  switch (field) {
    case 'started_at':
      return sql`p.started_at`;
    case 'total_value':
      return sql`p.total_value`;
    case 'duration_in_months':
      return sql`p.duration_in_months`;
    case 'monthly_amount':
      return sql`coalesce(p.monthly_amount, p.total_value::double precision / p.duration_in_months)`;
    case 'invoice_number':
      return sql`lower(p.invoice_number)`;
    case 'customer_name':
      return sql`lower(c.name)`;
  }
}

/** A cursor's key as the SQL literal of its column's type. */
function keyValue(field: PaymentSortField, key: string | number): RawBuilder<unknown> {
  switch (field) {
    case 'started_at':
      return sql`${key}::date`;
    case 'total_value':
      return sql`${key}::bigint`;
    case 'duration_in_months':
    case 'monthly_amount':
      return sql`${key}::double precision`;
    default:
      return sql`${key}::text`;
  }
}

export interface PaymentFilters {
  currency?: string;
  itemType?: string;
}


/**
 * One page (`limit` payments and the cursor of the next page) in the sort's order, ties by id in
 * the same direction; rows without a key (open-ended payments by total, payments without an
 * invoice number) come after every row with one, in both directions. One statement: the rows
 * with a key and those without are each an index range in (account_id, key, id) order, limited
 * before the answer columns are read for the page alone.
 */
export async function listPayments(
  db: Kysely<DB>,
  accountId: string,
  sort: PaymentSort,
  filters: PaymentFilters,
  cursor: PaymentCursor | null,
  limit: number,
): Promise<{ items: PaymentAnswer[]; next: string | null }> {
  const key = keyOf(sort.field);
  const desc = sort.direction === 'desc';
  const order = desc ? sql`desc` : sql`asc`;
  const compare = desc ? sql`<` : sql`>`;
  const join = sort.field === 'customer_name' ? sql`join customers c on c.account_id = p.account_id and c.id = p.customer_id` : sql``;
  const filter = [sql`p.account_id = ${accountId}`, sql`p.deleted_at is null`];
  if (filters.currency) filter.push(sql`p.currency = ${filters.currency}`);
  if (filters.itemType) filter.push(sql`exists (select from payment_items i where i.account_id = p.account_id and i.payment_id = p.id and i.position = 0 and i.type = ${filters.itemType})`);
  const where = sql.join(filter, sql` and `);
  const take = limit + 1;
  const parts: RawBuilder<unknown>[] = [];
  if (!cursor || cursor.key !== null) {
    const after = cursor && cursor.key !== null ? sql`and (${key}, p.id) ${compare} (${keyValue(sort.field, cursor.key)}, ${cursor.id})` : sql``;
    parts.push(sql`(select p.id, ${key}::text as key, 0 as part, row_number() over (order by ${key} ${order}, p.id ${order}) as rank
        from payments p ${join} where ${where} and ${key} is not null ${after}
       order by ${key} ${order}, p.id ${order} limit ${take})`);
  }
  const afterNull = cursor && cursor.key === null ? sql`and p.id ${compare} ${cursor.id}` : sql``;
  parts.push(sql`(select p.id, null::text as key, 1 as part, row_number() over (order by p.id ${order}) as rank
      from payments p ${join} where ${where} and ${key} is null ${afterNull}
     order by p.id ${order} limit ${take})`);
  const { rows } = await sql<AnswerRow & { key: string | null }>`
    with page as (select * from (${sql.join(parts, sql` union all `)}) listed order by part, rank limit ${take})
    select page.key, ${ANSWER_COLUMNS}
      from page
      join payments p on p.account_id = ${accountId} and p.id = page.id
      join customers c on c.account_id = p.account_id and c.id = p.customer_id
     order by page.part, page.rank`.execute(db);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const lastKey = (text: string | null): Key => (text === null ? null : sort.field === 'started_at' ? text.slice(0, 10) : sort.field === 'invoice_number' || sort.field === 'customer_name' ? text : Number(text));
  return { items: page.map(answerOf), next: rows.length > limit && last ? encodePaymentCursor(sort, lastKey(last.key), last.id) : null };
}

/**
 * Payments whose invoice number starts with the text (case-insensitive), whose id is the text, or
 * whose customer's name starts with it; invoice and id matches first, then name matches, each
 * newest start first. One statement: every match is an index range (the invoice pattern index,
 * the primary key, the customers' name pattern index and each customer's payments).
 */
export async function searchPayments(db: Kysely<DB>, accountId: string, query: string, limit: number): Promise<PaymentAnswer[]> {
  const text = query.trim();
  if (text === '') return [];
  const prefix = `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await sql<AnswerRow>`
    with direct as (
      -- offset 0 keeps each match an index read of its own: ordered by start date with a limit,
      -- the planner would walk the start-date index backwards and test every payment instead.
      select p.id, p.started_at from payments p
       where p.account_id = ${accountId} and p.deleted_at is null and lower(p.invoice_number) like ${prefix}
      union
      select p.id, p.started_at from payments p where p.account_id = ${accountId} and p.deleted_at is null and p.id = ${text}
      offset 0),
    by_name as (
      select p.id, p.started_at from customers n
        join payments p on p.account_id = n.account_id and p.customer_id = n.id
       where n.account_id = ${accountId} and n.deleted_at is null and lower(n.name) collate "C" like ${prefix} and p.deleted_at is null
       offset 0),
    found as (
      select id, min(part) as part, started_at from (select id, 0 as part, started_at from direct union all select id, 1 as part, started_at from by_name) matched
       group by id, started_at
       order by part, started_at desc, id limit ${limit})
    select ${ANSWER_COLUMNS}
      from found
      join payments p on p.account_id = ${accountId} and p.id = found.id
      join customers c on c.account_id = p.account_id and c.id = p.customer_id
     order by found.part, found.started_at desc, found.id`.execute(db);
  return rows.map(answerOf);
}
