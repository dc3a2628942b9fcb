import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { computeCustomerMetrics } from '../metrics/customerMetrics';
import { dayFromInstant, isoFromDay } from '../metrics/days';
import type { AccountSnapshot } from '../metrics/snapshot/columns';
import { sql } from 'kysely';
import { cachedCustomerIndex, customerIndex, type CustomerIndex } from './customerIndex';

/**
 * CustomerRow: one row of the customers table, of the search, and what a customer change
 * answers (docs/customers.md). Metrics are the engine's: MRR today and total to date, the
 * customer with its descendants, in minor units of the account currency, then one entry per
 * calculated column of the account (null: not computed, or no value for this customer).
 */
export const SegmentValueSchema = Type.Object({
  segment: Type.Object({ id: Type.String(), name: Type.String(), time_sensitive: Type.Boolean() }),
  value: Type.Union([Type.String(), Type.Null()], { description: 'The value now (a time-sensitive segment: of the current month)' }),
});

export const CustomerRowSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  public_id: Type.Union([Type.String(), Type.Null()], { description: 'Its id in the source system' }),
  parent_id: Type.Union([Type.String(), Type.Null()]),
  children_count: Type.Integer({ description: 'Children that are not deleted' }),
  include_in_calculations_by_default: Type.Boolean(),
  added_at: Type.String({ format: 'date-time' }),
  segments: Type.Array(SegmentValueSchema),
  metrics: Type.Array(
    Type.Union([
      Type.Object({
        kind: Type.Union([Type.Literal('mrr'), Type.Literal('total')]),
        value: Type.Number({ description: 'Minor units of `currency`: mrr today, total = recurring and one-time revenue to date; the customer with its descendants' }),
      }),
      Type.Object({
        definition_id: Type.String({ description: 'A calculated column of the account' }),
        value: Type.Union([Type.Number(), Type.Null()], { description: 'Null: not computed yet, or the formula has no value for this customer' }),
      }),
    ]),
  ),
  currency: Type.String({ description: 'The currency of the money metrics (the account’s)' }),
});
export type CustomerRow = Static<typeof CustomerRowSchema>;

/** Ids a row is built for without the whole list's index (a change's answer): computed one by one. */
const ONE_BY_ONE = 10;

export function todayOf(app: FastifyInstance): { day: number; iso: string } {
  const day = dayFromInstant(app.now());
  return { day, iso: isoFromDay(day) };
}

/** The list's index of the account now (built on first use after each write). */
export async function accountIndex(app: FastifyInstance, accountId: string): Promise<CustomerIndex> {
  const snapshot = await app.metrics.getSnapshot(accountId);
  const today = todayOf(app);
  return customerIndex(snapshot, today.day, today.iso);
}

/**
 * The rows of these customers of the account that are not deleted, in the order asked (unknown
 * and deleted ids left out). `index`: the list's, when the caller has it.
 */
export async function customerRows(app: FastifyInstance, accountId: string, ids: readonly string[], index?: CustomerIndex): Promise<CustomerRow[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const now = app.now();
  const month = now.getUTCFullYear() * 12 + now.getUTCMonth();
  // One statement: the rows, each with its children count, attribute values (newest first)
  // and calculated values, and the account's calculated columns (evaluated once).
  const { rows } = await sql<PageRow>`
    select c.id, c.name, c.public_id, c.parent_id, c.include_in_calculations_by_default, c.added_at,
      (select count(*)::int from customers k where k.account_id = c.account_id and k.parent_id = c.id and k.deleted_at is null) as children_count,
      (select coalesce(jsonb_agg(jsonb_build_array(v.segment_id, s.name, s.time_sensitive, v.year * 12 + v.month - 1, v.value) order by v.year desc, v.month desc), '[]'::jsonb)
         from customer_segment_values v join customer_segments s on s.account_id = v.account_id and s.id = v.segment_id
        where v.account_id = c.account_id and v.customer_id = c.id) as segment_values,
      (select coalesce(jsonb_agg(jsonb_build_array(x.definition_id, x.value::text)), '[]'::jsonb)
         from customer_column_values x where x.account_id = c.account_id and x.customer_id = c.id) as column_values,
      (select coalesce(jsonb_agg(d.id order by d.created_at, d.id), '[]'::jsonb) from customer_column_definitions d where d.account_id = ${accountId}) as definitions
    from customers c
    where c.account_id = ${accountId} and c.id in (${sql.join(wanted)}) and c.deleted_at is null`.execute(app.db.kysely);
  if (rows.length === 0) return [];
  const snapshot = index?.snapshot ?? (await app.metrics.getSnapshot(accountId));
  const figures = figuresOf(app, snapshot, rows.map((row) => row.id), index);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const out: CustomerRow[] = [];
  for (const id of wanted) {
    const row = byId.get(id);
    if (!row) continue;
    const figure = figures.get(id);
    const values = new Map((parsed<Array<[string, string | null]>>(row.column_values) ?? []).map(([definition, value]) => [definition, value === null ? null : Number(value)]));
    out.push({
      id: row.id,
      name: row.name,
      public_id: row.public_id,
      parent_id: row.parent_id,
      children_count: Number(row.children_count),
      include_in_calculations_by_default: row.include_in_calculations_by_default,
      added_at: new Date(row.added_at).toISOString(),
      segments: segmentsNow(parsed<SegmentValueCell[]>(row.segment_values) ?? [], month),
      metrics: [
        { kind: 'mrr', value: figure?.mrr ?? 0 },
        { kind: 'total', value: figure?.total ?? 0 },
        ...(parsed<string[]>(row.definitions) ?? []).map((definition) => {
          const value = values.get(definition);
          return { definition_id: definition, value: value === undefined || value === null || !Number.isFinite(value) ? null : value };
        }),
      ],
      currency: snapshot.account.currency,
    });
  }
  return out;
}

interface PageRow {
  id: string;
  name: string;
  public_id: string | null;
  parent_id: string | null;
  include_in_calculations_by_default: boolean;
  added_at: Date | string;
  children_count: number;
  segment_values: unknown;
  column_values: unknown;
  definitions: unknown;
}

/** [segment id, name, time sensitive, absolute month, value], newest first. */
type SegmentValueCell = [string, string, boolean, number, string | null];

/** jsonb as both drivers give it (parsed; a string when a driver leaves it as text). */
function parsed<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/**
 * The value of each attribute now, by attribute name then id: the newest entry not after this
 * month; an attribute that is not time-sensitive takes a value set only for later months too
 * (as GET /customers/{id}).
 */
function segmentsNow(cells: readonly SegmentValueCell[], month: number): CustomerRow['segments'] {
  const bySegment = new Map<string, CustomerRow['segments'][number]>();
  const later = new Map<string, CustomerRow['segments'][number]>();
  for (const [id, name, timeSensitive, at, value] of cells) {
    const entry = { segment: { id, name, time_sensitive: timeSensitive }, value };
    if (at <= month) {
      if (!bySegment.has(id)) bySegment.set(id, entry);
    } else if (!timeSensitive && !later.has(id)) later.set(id, entry);
  }
  for (const [id, entry] of later) if (!bySegment.has(id)) bySegment.set(id, entry);
  return [...bySegment.values()].sort((a, b) => (a.segment.name < b.segment.name ? -1 : a.segment.name > b.segment.name ? 1 : a.segment.id < b.segment.id ? -1 : a.segment.id > b.segment.id ? 1 : 0));
}

/** MRR and total of each customer: from the list's index when there is one, else (a few rows) one by one. */
function figuresOf(app: FastifyInstance, snapshot: AccountSnapshot, ids: readonly string[], given?: CustomerIndex): Map<string, { mrr: number; total: number }> {
  const today = todayOf(app);
  const index = given ?? cachedCustomerIndex(snapshot, today.iso) ?? (ids.length > ONE_BY_ONE ? customerIndex(snapshot, today.day, today.iso) : undefined);
  const out = new Map<string, { mrr: number; total: number }>();
  for (const id of ids) {
    const c = snapshot.customers.index.get(id);
    if (c === undefined) continue;
    if (index) {
      out.set(id, { mrr: index.mrr[c] as number, total: index.total[c] as number });
      continue;
    }
    const metrics = computeCustomerMetrics(snapshot, id, { today: today.iso });
    if (metrics) out.set(id, { mrr: metrics.mrr, total: metrics.accrued_total + metrics.one_time_accrued_total });
  }
  return out;
}
