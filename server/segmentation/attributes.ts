import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { costSegmenterId, customerSegmenterId, paymentAttributeSegmenterId } from '../metrics/definitions/segmenters';
import { ATTRIBUTE_NAME_TAKEN, attributeNameError, sortAttributes, type AttributeObject, type ObjectAttribute } from '../../models/attributes';
import { afterAttributeChange, forgetSegmenters, pinningShareLink, reportsSplitBy } from './reportEffects';

/**
 * Custom attributes (object attributes) of an account: list, create, rename, delete. A customer
 * attribute has a customer segment (one row of customer_segments, named like it), which holds
 * its values; payment and cost attributes hold theirs by attribute id. Every query names the
 * account.
 */

export const ATTRIBUTE_NOT_FOUND = 'Attribute not found';

export const attributeUsedBySegmentation = (name: string) => `Attribute is used by segmentation '${name}'. Delete the segmentation first.`;
export const attributePinnedByShareLink = (title: string) => `Attribute is used by a share link of report '${title}'. Delete the share link first.`;

const newAttributeId = () => `att${randomAlphanumeric(13)}`;
const newSegmentId = () => `seg${randomAlphanumeric(13)}`;

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

interface AttributeRow {
  id: string;
  name: string;
  object: AttributeObject;
  segment_id: string | null;
  created_at: Date | string;
}

function attributeRows(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('object_attributes as a')
    .leftJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'a.account_id').onRef('s.object_attribute_id', '=', 'a.id'))
    .select(['a.id', 'a.name', 'a.object', 's.id as segment_id', 'a.created_at'])
    .where('a.account_id', '=', accountId);
}

const view = (row: AttributeRow): ObjectAttribute => ({ id: row.id, name: row.name, object: row.object, segment_id: row.object === 'customer' ? row.segment_id : null, created_at: iso(row.created_at) });

/** The account's attributes by object (customer, payment, cost), then name. */
export async function listAttributes(db: Kysely<DB>, accountId: string): Promise<ObjectAttribute[]> {
  return sortAttributes((await attributeRows(db, accountId).execute()).map(view));
}

/** One attribute of the account; undefined for an id it does not have. */
export async function findAttribute(db: Kysely<DB>, accountId: string, id: string): Promise<ObjectAttribute | undefined> {
  const row = await attributeRows(db, accountId).where('a.id', '=', id).executeTakeFirst();
  return row ? view(row) : undefined;
}

/** The segmenter ids (sections) and the filter item ids (views, share links) that name an attribute. */
export function attributeSegmenterIds(attribute: ObjectAttribute): { segmenters: string[]; filterItems: string[] } {
  switch (attribute.object) {
    case 'customer': {
      const ids = attribute.segment_id ? [customerSegmenterId(attribute.segment_id)] : [];
      return { segmenters: ids, filterItems: ids };
    }
    case 'subscription_history': {
      const id = paymentAttributeSegmenterId(attribute.id);
      return { segmenters: [id], filterItems: [id] };
    }
    case 'cost':
      return { segmenters: [costSegmenterId(attribute.id)], filterItems: [] };
  }
}

function checkedName(name: string): string {
  const problem = attributeNameError(name);
  if (problem) throw ApiError.of(422, problem, '/name');
  return name.trim();
}

async function mustBeFreeName(db: Kysely<DB>, accountId: string, object: AttributeObject, name: string, exceptId?: string): Promise<void> {
  const taken = await db
    .selectFrom('object_attributes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('object', '=', object)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .$if(exceptId !== undefined, (q) => q.where('id', '<>', exceptId as string))
    .limit(1)
    .executeTakeFirst();
  if (taken) throw ApiError.of(422, ATTRIBUTE_NAME_TAKEN, '/name');
}

const isUniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

/** Two requests racing for one name: the loser gets the same 422 as a name found taken. */
async function nameTakenOnRace<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw ApiError.of(422, ATTRIBUTE_NAME_TAKEN, '/name');
    throw error;
  }
}

/** Inserts an attribute (and a customer attribute's segment, which holds its values). */
async function insertAttribute(trx: Kysely<DB>, accountId: string, id: string, name: string, object: AttributeObject): Promise<void> {
  await trx.insertInto('object_attributes').values({ account_id: accountId, id, name, object }).execute();
  if (object === 'customer') await trx.insertInto('customer_segments').values({ account_id: accountId, id: newSegmentId(), object_attribute_id: id, name }).execute();
}

export async function createAttribute(app: FastifyInstance, accountId: string, input: { name: string; object: AttributeObject }): Promise<ObjectAttribute> {
  const name = checkedName(input.name);
  const db = app.db.kysely;
  await mustBeFreeName(db, accountId, input.object, name);
  const id = newAttributeId();
  await nameTakenOnRace(() => db.transaction().execute((trx) => insertAttribute(trx, accountId, id, name, input.object)));
  await app.metrics.invalidate(accountId);
  return (await findAttribute(db, accountId, id)) as ObjectAttribute;
}

/**
 * The customer segments (value holders) of the account's customer attributes with these names
 * (matched case-insensitively, as names are unique), each attribute and segment made when
 * missing: the integrations' attributes ('HubSpot industry'). Inside the caller's transaction;
 * a name an attribute may not have (blank, too long) is left out. Keyed by the name as asked.
 */
export async function ensureCustomerAttributes(trx: Kysely<DB>, accountId: string, names: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(names.filter((name) => attributeNameError(name) === null))];
  const segments = new Map<string, string>();
  if (wanted.length === 0) return segments;
  const lowers = [...new Set(wanted.map((name) => name.trim().toLowerCase()))];
  const find = () =>
    trx
      .selectFrom('object_attributes as a')
      .leftJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'a.account_id').onRef('s.object_attribute_id', '=', 'a.id'))
      .select(['a.id', 'a.name', 's.id as segment_id'])
      .where('a.account_id', '=', accountId)
      .where('a.object', '=', 'customer')
      .where((eb) => eb(eb.fn('lower', ['a.name']), 'in', lowers))
      .execute();
  let found = await find();
  const known = new Set(found.map((row) => row.name.toLowerCase()));
  const missing = new Map<string, string>();
  for (const name of wanted) if (!known.has(name.trim().toLowerCase())) missing.set(name.trim().toLowerCase(), name.trim());
  for (const name of missing.values()) {
    const id = newAttributeId();
    const inserted = await sql<{ id: string }>`insert into object_attributes (account_id, id, name, object) values (${accountId}, ${id}, ${name}, 'customer')
                                               on conflict do nothing returning id`.execute(trx);
    if (inserted.rows.length > 0) await trx.insertInto('customer_segments').values({ account_id: accountId, id: newSegmentId(), object_attribute_id: id, name }).execute();
  }
  // An attribute without its segment (made before segments held values) gets one.
  for (const row of found) {
    if (row.segment_id === null) await trx.insertInto('customer_segments').values({ account_id: accountId, id: newSegmentId(), object_attribute_id: row.id, name: row.name }).execute();
  }
  if (missing.size > 0 || found.some((row) => row.segment_id === null)) found = await find();
  const byLower = new Map(found.flatMap((row) => (row.segment_id ? [[row.name.toLowerCase(), row.segment_id] as const] : [])));
  for (const name of wanted) {
    const segment = byLower.get(name.trim().toLowerCase());
    if (segment) segments.set(name, segment);
  }
  return segments;
}

/** Segmentations grouping the attribute's values. */
function segmentationsOf(db: Kysely<DB>, accountId: string, attributeId: string) {
  return db.selectFrom('segmenter_definitions').select(['id', 'name']).where('account_id', '=', accountId).where('object_attribute_id', '=', attributeId).orderBy('name').orderBy('id').execute();
}

export async function renameAttribute(app: FastifyInstance, accountId: string, id: string, input: { name: string }): Promise<ObjectAttribute> {
  const db = app.db.kysely;
  const attribute = await findAttribute(db, accountId, id);
  if (!attribute) throw ApiError.of(404, ATTRIBUTE_NOT_FOUND);
  const name = checkedName(input.name);
  if (name === attribute.name) return attribute;
  await mustBeFreeName(db, accountId, attribute.object, name, id);
  await nameTakenOnRace(() =>
    db.transaction().execute(async (trx) => {
      await trx.updateTable('object_attributes').set({ name }).where('account_id', '=', accountId).where('id', '=', id).execute();
      await trx.updateTable('customer_segments').set({ name }).where('account_id', '=', accountId).where('object_attribute_id', '=', id).execute();
    }),
  );
  // The segments of charts split by it (or by a segmentation of it) are named after it.
  const segmentations = await segmentationsOf(db, accountId, id);
  const affected = await reportsSplitBy(db, accountId, [...attributeSegmenterIds(attribute).segmenters, ...segmentations.map((s) => s.id)]);
  await afterAttributeChange(app, accountId, affected);
  return (await findAttribute(db, accountId, id)) as ObjectAttribute;
}

/**
 * Deletes an attribute with its values. Refused (422) while a segmentation groups it or a share
 * link pins one of its values; sections split by it lose that segment, view filters their items
 * about it, and those reports are recalculated.
 */
export async function deleteAttribute(app: FastifyInstance, accountId: string, id: string): Promise<void> {
  const db = app.db.kysely;
  const attribute = await findAttribute(db, accountId, id);
  if (!attribute) throw ApiError.of(404, ATTRIBUTE_NOT_FOUND);
  const [segmentation] = await segmentationsOf(db, accountId, id);
  if (segmentation) throw ApiError.of(422, attributeUsedBySegmentation(segmentation.name));
  const { segmenters, filterItems } = attributeSegmenterIds(attribute);
  const link = await pinningShareLink(db, accountId, filterItems);
  if (link) throw ApiError.of(422, attributePinnedByShareLink(link.title));
  const affected = await reportsSplitBy(db, accountId, segmenters);
  await db.transaction().execute(async (trx) => {
    await forgetSegmenters(trx, accountId, affected, segmenters, filterItems);
    // Values, the customer segment (and anything of a segmentation made meanwhile) go with it.
    await trx.deleteFrom('object_attributes').where('account_id', '=', accountId).where('id', '=', id).execute();
  });
  await afterAttributeChange(app, accountId, affected);
}
