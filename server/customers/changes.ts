import type { FastifyInstance } from 'fastify';
import { sql, type Kysely, type Transaction } from 'kysely';
import { CUSTOMER_NAME_REQUIRED_MESSAGE } from '../../models/customers';
import { newCustomerId } from './ids';
import type { CustomerLink, DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { publishReportStates } from '../reports/recalculations';
import { latestReports } from '../reports/reports';
import { CUSTOMER_NOT_FOUND } from '../routes/customerMetrics';

/**
 * Changes to customers (docs/customers.md "Changes"): create, rename, parent, exclusion,
 * attribute values, delete and merge. Each runs in one transaction that locks the customers it
 * reads (by id order, so two changes never wait on each other in a cycle); every write raises
 * the account's data_version through the snapshot triggers (migration 0004), which marks its
 * reports stale. After a change (a create excepted) `afterChange` drops the metrics snapshot,
 * tells open report pages their state, and recalculates the latest reports.
 */

export const PARENT_NOT_FOUND = 'Parent customer not found';
export const SOURCE_NOT_FOUND = 'Customer to merge not found';
export const OWN_PARENT = 'A customer cannot be its own parent';
export const DESCENDANT_PARENT = 'A customer cannot have one of its descendants as its parent';
export const PARENT_WITH_CHILDREN = 'A customer with children cannot have a parent';
export const MERGE_ITSELF = 'A customer cannot be merged into itself';
export const PUBLIC_ID_TAKEN = 'Another customer has this public id';
export const UNKNOWN_SEGMENT = 'Unknown attribute';
export const SEGMENT_NOT_FOUND = 'Attribute not found';
export const CONFLICT = 'The customer changed meanwhile: please try again';
/** Reports recalculated after a change: the account's newest (the rest are stale and refresh when opened). */
export const RECALCULATED_REPORTS = 20;

/** The metrics snapshot dropped, open report pages told, the latest reports recalculated. */
export async function afterChange(app: FastifyInstance, accountId: string): Promise<void> {
  await app.metrics.invalidate(accountId);
  await publishReportStates(app.db.kysely, accountId).catch((error: unknown) => app.log.error(`reports of ${accountId}: could not publish their state: ${String(error)}`));
  const reports = await latestReports(app.db.kysely, accountId);
  for (const report of reports.slice(0, RECALCULATED_REPORTS)) await app.reports.start(accountId, report.id);
}

const code = (error: unknown) => (typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined);

/** A change's database errors as answers: a row gone meanwhile (a concurrent delete) 409, a deadlock or serialization failure 409. */
export async function asChange<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const sqlState = code(error);
    if (sqlState === '23503' || sqlState === '40P01' || sqlState === '40001' || sqlState === '23514') throw ApiError.of(409, CONFLICT);
    if (sqlState === '23505') throw ApiError.of(409, CONFLICT);
    throw error;
  }
}

interface Locked {
  id: string;
  parent_id: string | null;
  links: CustomerLink[];
}

/** Locks the customers of these ids that are not deleted (id order); answers them by id. */
async function lock(trx: Transaction<DB>, accountId: string, ids: readonly string[]): Promise<Map<string, Locked>> {
  const rows = await trx
    .selectFrom('customers')
    .select(['id', 'parent_id', 'links'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [row.id, { id: row.id, parent_id: row.parent_id, links: (row.links as CustomerLink[] | null) ?? [] }]));
}

/** The ancestors of a customer, nearest first (a parent cycle stops the walk). */
async function ancestors(db: Kysely<DB>, accountId: string, id: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from customers where account_id = ${accountId} and id = ${id}
      union all
      select c.id, c.parent_id, up.depth + 1 from customers c join up on c.account_id = ${accountId} and c.id = up.parent_id where up.depth < 1000
    )
    select id from up where depth > 0 order by depth`.execute(db);
  return rows.map((row) => row.id);
}

export function requiredName(name: string, pointer = '/body/name'): string {
  const trimmed = name.trim();
  if (trimmed === '') throw ApiError.of(422, CUSTOMER_NAME_REQUIRED_MESSAGE, pointer);
  return trimmed;
}

const blankToNull = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

export async function createCustomer(app: FastifyInstance, accountId: string, input: { name: string; public_id?: string | null }): Promise<string> {
  const name = requiredName(input.name);
  const publicId = blankToNull(input.public_id);
  const db = app.db.kysely;
  const id = newCustomerId();
  try {
    await db.insertInto('customers').values({ account_id: accountId, id, name, public_id: publicId, source: 'manual', added_at: app.now() }).execute();
  } catch (error) {
    if (code(error) === '23505') throw ApiError.of(422, PUBLIC_ID_TAKEN, '/body/public_id');
    throw error;
  }
  return id;
}

export interface CustomerUpdate {
  name?: string;
  parent_id?: string | null;
  include_in_calculations_by_default?: boolean;
  segments?: Array<{ name: string; value: string | null }>;
}

export async function updateCustomer(app: FastifyInstance, accountId: string, id: string, input: CustomerUpdate): Promise<void> {
  const name = input.name === undefined ? undefined : requiredName(input.name);
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const parentId = input.parent_id;
      const locked = await lock(trx, accountId, parentId ? [id, parentId] : [id]);
      if (!locked.has(id)) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
      const set: { name?: string; parent_id?: string | null; include_in_calculations_by_default?: boolean } = {};
      if (name !== undefined) set.name = name;
      if (input.include_in_calculations_by_default !== undefined) set.include_in_calculations_by_default = input.include_in_calculations_by_default;
      if (parentId === null) set.parent_id = null;
      else if (parentId !== undefined) {
        if (parentId === id) throw ApiError.of(422, OWN_PARENT, '/body/parent_id');
        if (!locked.has(parentId)) throw ApiError.of(404, PARENT_NOT_FOUND, '/body/parent_id');
        if ((await ancestors(trx, accountId, parentId)).includes(id)) throw ApiError.of(422, DESCENDANT_PARENT, '/body/parent_id');
        const child = await trx.selectFrom('customers').select('id').where('account_id', '=', accountId).where('parent_id', '=', id).where('deleted_at', 'is', null).limit(1).executeTakeFirst();
        if (child) throw ApiError.of(422, PARENT_WITH_CHILDREN, '/body/parent_id');
        set.parent_id = parentId;
      }
      if (input.segments && input.segments.length > 0) {
        const segments = await trx.selectFrom('customer_segments').select(['id', 'name', 'time_sensitive']).where('account_id', '=', accountId).execute();
        for (const [k, entry] of input.segments.entries()) {
          const segment = segments.find((s) => s.name === entry.name) ?? segments.find((s) => s.name.toLowerCase() === entry.name.trim().toLowerCase());
          if (!segment) throw ApiError.of(422, UNKNOWN_SEGMENT, `/body/segments/${k}/name`);
          await setSegmentValue(trx, accountId, id, segment, now.getUTCFullYear(), now.getUTCMonth() + 1, entry.value);
        }
      }
      if (Object.keys(set).length > 0) await trx.updateTable('customers').set({ ...set, updated_at: now }).where('account_id', '=', accountId).where('id', '=', id).execute();
    }),
  );
  await afterChange(app, accountId);
}

/**
 * Sets a customer's value of an attribute: a time-sensitive one from (year, month) on (the
 * rows of later months go: the value holds from then on), one that is not replaces the
 * customer's value. An empty value is no value (null).
 */
export async function setSegmentValue(trx: Kysely<DB>, accountId: string, customerId: string, segment: { id: string; time_sensitive: boolean }, year: number, month: number, value: string | null): Promise<void> {
  const stored = blankToNull(value);
  const own = trx.deleteFrom('customer_segment_values').where('account_id', '=', accountId).where('customer_id', '=', customerId).where('segment_id', '=', segment.id);
  if (segment.time_sensitive) await own.where(sql<boolean>`year * 12 + month >= ${year * 12 + month}`).execute();
  else await own.execute();
  await trx.insertInto('customer_segment_values').values({ account_id: accountId, customer_id: customerId, segment_id: segment.id, year, month, value: stored }).execute();
}

/** Soft-deletes the customer; its payments (and their versions, items, discounts, attribute values) are deleted, its children lose their parent. */
export async function deleteCustomer(app: FastifyInstance, accountId: string, id: string): Promise<void> {
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const locked = await lock(trx, accountId, [id]);
      if (!locked.has(id)) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
      await trx.deleteFrom('payments').where('account_id', '=', accountId).where('customer_id', '=', id).execute();
      await trx.updateTable('customers').set({ parent_id: null, updated_at: now }).where('account_id', '=', accountId).where('parent_id', '=', id).execute();
      await trx.deleteFrom('customer_column_values').where('account_id', '=', accountId).where('customer_id', '=', id).execute();
      await trx.updateTable('customers').set({ deleted_at: now, updated_at: now }).where('account_id', '=', accountId).where('id', '=', id).execute();
    }),
  );
  await afterChange(app, accountId);
}

/**
 * Merges `sourceId` into `targetId`: the source's payments (every version), attribute values
 * (where the target has none for that attribute and month), children, links and deals move to
 * the target, and the source is deleted. When the target was under the source, it takes the
 * source's place (its parent), so no parent cycle forms.
 */
export async function mergeCustomers(app: FastifyInstance, accountId: string, targetId: string, sourceId: string): Promise<void> {
  const now = app.now();
  await asChange(() =>
    app.db.kysely.transaction().execute(async (trx) => {
      const locked = await lock(trx, accountId, [targetId, sourceId]);
      const target = locked.get(targetId);
      const source = locked.get(sourceId);
      if (!target) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
      if (sourceId === targetId) throw ApiError.of(422, MERGE_ITSELF, '/body/source_id');
      if (!source) throw ApiError.of(404, SOURCE_NOT_FOUND, '/body/source_id');
      await trx.updateTable('payments').set({ customer_id: targetId, updated_at: now }).where('account_id', '=', accountId).where('customer_id', '=', sourceId).execute();
      await trx.updateTable('payment_versions').set({ customer_id: targetId }).where('account_id', '=', accountId).where('customer_id', '=', sourceId).execute();
      await sql`insert into customer_segment_values (account_id, customer_id, segment_id, year, month, value, updated_at)
                select account_id, ${targetId}, segment_id, year, month, value, ${now} from customer_segment_values
                 where account_id = ${accountId} and customer_id = ${sourceId}
                on conflict do nothing`.execute(trx);
      const targetAncestors = await ancestors(trx, accountId, targetId);
      const targetSet: { parent_id?: string | null; links?: string; updated_at: Date } = { updated_at: now };
      if (targetAncestors.includes(sourceId)) targetSet.parent_id = source.parent_id === targetId ? null : source.parent_id;
      const known = new Set(target.links.map((link) => `${link.external_system}\u0000${link.url}`));
      const links = [...target.links, ...source.links.filter((link) => !known.has(`${link.external_system}\u0000${link.url}`))];
      if (links.length !== target.links.length) targetSet.links = JSON.stringify(links);
      await trx.updateTable('customers').set(targetSet).where('account_id', '=', accountId).where('id', '=', targetId).execute();
      await trx.updateTable('customers').set({ parent_id: targetId, updated_at: now }).where('account_id', '=', accountId).where('parent_id', '=', sourceId).where('id', '<>', targetId).execute();
      await trx.updateTable('deals').set({ customer_id: targetId, updated_at: now }).where('account_id', '=', accountId).where('customer_id', '=', sourceId).execute();
      await trx.deleteFrom('customer_column_values').where('account_id', '=', accountId).where('customer_id', '=', sourceId).execute();
      await trx.updateTable('customers').set({ deleted_at: now, parent_id: null, updated_at: now }).where('account_id', '=', accountId).where('id', '=', sourceId).execute();
    }),
  );
  await afterChange(app, accountId);
}

/** The attribute of the account and its customer (not deleted), or 404. */
export async function segmentOfCustomer(db: Kysely<DB>, accountId: string, customerId: string, segmentId: string): Promise<{ id: string; time_sensitive: boolean }> {
  const [customer, segment] = await Promise.all([
    db.selectFrom('customers').select('id').where('account_id', '=', accountId).where('id', '=', customerId).where('deleted_at', 'is', null).executeTakeFirst(),
    db.selectFrom('customer_segments').select(['id', 'time_sensitive']).where('account_id', '=', accountId).where('id', '=', segmentId).executeTakeFirst(),
  ]);
  if (!customer) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
  if (!segment) throw ApiError.of(404, SEGMENT_NOT_FOUND);
  return segment;
}
