import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { ITEM_TYPES } from '../metrics/snapshot/rows';
import {
  findSegmenterType,
  normalizedSegmentationInput,
  segmentationInputProblems,
  type Bucket,
  type Mapping,
  type SegmentationConfiguration,
  type SegmentationDefinition,
  type SegmentationInput,
  type SegmenterTypeInfo,
  type SegmenterTypeName,
  SEGMENTATION_SEGMENT_PREFIX,
} from '../../models/segmentation';
import { afterAttributeChange, forgetSegmenters, pinningShareLink, reportsSplitBy } from './reportEffects';

/**
 * The segmentation definitions service, served both as REST (/segmenter_definitions) and as
 * GraphQL (/graphql). A segmentation groups the raw values of one attribute into named
 * segments: a custom attribute by mappings or buckets, the built-in payment fields by mappings
 * (currency, item type) or a product list (product). Rows live in `segmenter_definitions`,
 * which the metrics engine reads when a section is split by a segmentation's id.
 *
 * Storage: a custom attribute's segmentation keeps the wire type_name and the attribute's id;
 * a built-in's keeps the field ('product', 'currency', 'item_type') as its type_name and no
 * attribute (what server/metrics/service.ts segmentationBase resolves). On the wire the
 * built-ins are type_name 'subscription_segment' with that field as segment_id.
 */

export const SEGMENTATION_NOT_FOUND = 'Segmentation not found';
export const SEGMENTER_TYPE_NOT_FOUND = 'Attribute not found';
export const segmentationPinnedByShareLink = (title: string) => `Segmentation is used by a share link of report '${title}'. Delete the share link first.`;

/** Default and largest number of values `values` answers. */
export const SEGMENTER_VALUES_LIMIT = 100;
export const SEGMENTER_VALUES_MAX_LIMIT = 1000;

const BUILT_IN_FIELDS = ['product', 'currency', 'item_type'] as const;
type BuiltInField = (typeof BUILT_IN_FIELDS)[number];
const isBuiltInField = (value: string): value is BuiltInField => (BUILT_IN_FIELDS as readonly string[]).includes(value);

const BUILT_IN_TYPES: readonly SegmenterTypeInfo[] = [
  { name: 'subscription_segment', label: 'Product', group_label: 'Payment attributes', segment_id: 'product', allowed_configuration: ['products'] },
  { name: 'subscription_segment', label: 'Currency', group_label: 'Payment attributes', segment_id: 'currency', allowed_configuration: ['mappings'] },
  { name: 'subscription_segment', label: 'Item type', group_label: 'Payment attributes', segment_id: 'item_type', allowed_configuration: ['mappings'] },
];

const ATTRIBUTE_TYPES: Record<string, { name: SegmenterTypeName; group_label: string }> = {
  customer: { name: 'customer_segment', group_label: 'Customer attributes' },
  subscription_history: { name: 'subscription_segment', group_label: 'Payment attributes' },
  cost: { name: 'cost_segment', group_label: 'Cost attributes' },
};
const ATTRIBUTE_CONFIGURATION: SegmentationConfiguration[] = ['mappings', 'buckets'];

const newSegmentationId = () => `sgm${randomAlphanumeric(13)}`;
const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** The types a segmentation of this account can group: one per custom attribute, and the payment built-ins. */
export async function segmenterTypes(db: Kysely<DB>, accountId: string): Promise<SegmenterTypeInfo[]> {
  const attributes = await db.selectFrom('object_attributes').select(['id', 'name', 'object']).where('account_id', '=', accountId).execute();
  const rank = (object: string) => Object.keys(ATTRIBUTE_TYPES).indexOf(object);
  const custom = attributes
    .sort((a, b) => rank(a.object) - rank(b.object) || a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || (a.id < b.id ? -1 : 1))
    .map((attribute): SegmenterTypeInfo => {
      const type = ATTRIBUTE_TYPES[attribute.object] as { name: SegmenterTypeName; group_label: string };
      return { name: type.name, label: attribute.name, group_label: type.group_label, segment_id: attribute.id, allowed_configuration: [...ATTRIBUTE_CONFIGURATION] };
    });
  const customers = custom.filter((type) => type.name === 'customer_segment');
  const rest = custom.filter((type) => type.name !== 'customer_segment');
  return [...customers, ...BUILT_IN_TYPES.map((type) => ({ ...type, allowed_configuration: [...type.allowed_configuration] })), ...rest];
}

interface DefinitionRow {
  id: string;
  name: string;
  type_name: string;
  object_attribute_id: string | null;
  mappings: unknown;
  buckets: unknown;
  products: string[];
  created_at: Date | string;
  updated_at: Date | string;
}

/** The wire type of a stored row: a built-in field's row is a subscription_segment named by the field. */
function wireType(row: Pick<DefinitionRow, 'type_name' | 'object_attribute_id'>): { type_name: SegmenterTypeName; segment_id: string } {
  if (isBuiltInField(row.type_name)) return { type_name: 'subscription_segment', segment_id: row.type_name };
  return { type_name: row.type_name as SegmenterTypeName, segment_id: row.object_attribute_id ?? '' };
}

function storedType(input: Pick<SegmentationInput, 'type_name' | 'segment_id'>): { type_name: string; object_attribute_id: string | null } {
  if (input.type_name === 'subscription_segment' && isBuiltInField(input.segment_id)) return { type_name: input.segment_id, object_attribute_id: null };
  return { type_name: input.type_name, object_attribute_id: input.segment_id };
}

const asArray = (value: unknown): unknown[] => {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed : [];
};

function definitionOf(row: DefinitionRow, types: readonly SegmenterTypeInfo[]): SegmentationDefinition {
  const wire = wireType(row);
  const type = findSegmenterType(types, wire.type_name, wire.segment_id);
  return {
    id: row.id,
    name: row.name,
    ...wire,
    allowed_configuration: type ? [...type.allowed_configuration] : [],
    mappings: asArray(row.mappings) as Mapping[],
    buckets: asArray(row.buckets) as Bucket[],
    products: [...row.products],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function definitionRows(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('segmenter_definitions')
    .select(['id', 'name', 'type_name', 'object_attribute_id', 'mappings', 'buckets', 'products', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId);
}

/** The account's segmentations by name. */
export async function listSegmentations(db: Kysely<DB>, accountId: string): Promise<SegmentationDefinition[]> {
  const [rows, types] = await Promise.all([definitionRows(db, accountId).orderBy(sql`lower(name)`).orderBy('name').orderBy('id').execute(), segmenterTypes(db, accountId)]);
  return rows.map((row) => definitionOf(row, types));
}

/** One segmentation of the account; undefined for an id it does not have. */
export async function findSegmentation(db: Kysely<DB>, accountId: string, id: string): Promise<SegmentationDefinition | undefined> {
  const [row, types] = await Promise.all([definitionRows(db, accountId).where('id', '=', id).executeTakeFirst(), segmenterTypes(db, accountId)]);
  return row ? definitionOf(row, types) : undefined;
}

export async function getSegmentation(db: Kysely<DB>, accountId: string, id: string): Promise<SegmentationDefinition> {
  const found = await findSegmentation(db, accountId, id);
  if (!found) throw ApiError.of(404, SEGMENTATION_NOT_FOUND);
  return found;
}

/**
 * The distinct raw values of a type's attribute or field in the account (what the mappings
 * editor offers), sorted, those containing `query` (case-insensitive) when given. A type the
 * account does not have is 404.
 */
export async function segmenterValues(db: Kysely<DB>, accountId: string, typeName: string, segmentId: string, query = '', limit = SEGMENTER_VALUES_LIMIT): Promise<string[]> {
  const types = await segmenterTypes(db, accountId);
  if (!findSegmenterType(types, typeName, segmentId)) throw ApiError.of(404, SEGMENTER_TYPE_NOT_FOUND);
  const text = query.trim().toLowerCase();
  const max = Math.min(Math.max(1, Math.trunc(limit)), SEGMENTER_VALUES_MAX_LIMIT);
  const matching = (value: string) => text === '' || value.toLowerCase().includes(text);
  const distinct = async (rows: Promise<{ value: string | null }[]>) => (await rows).flatMap((row) => (row.value === null ? [] : [row.value]));
  let values: string[];
  const like = (column: string) => (text === '' ? sql<boolean>`true` : sql<boolean>`strpos(lower(${sql.ref(column)}), ${text}) > 0`);
  if (typeName === 'subscription_segment' && segmentId === 'item_type') {
    values = ITEM_TYPES.filter(matching);
  } else if (typeName === 'subscription_segment' && segmentId === 'currency') {
    values = await distinct(db.selectFrom('payments').select('currency as value').distinct().where('account_id', '=', accountId).where(like('currency')).orderBy('currency').limit(max).execute());
  } else if (typeName === 'subscription_segment' && segmentId === 'product') {
    values = await distinct(db.selectFrom('products').select('key as value').where('account_id', '=', accountId).where(like('key')).orderBy('key').limit(max).execute());
  } else if (typeName === 'customer_segment') {
    values = await distinct(
      db
        .selectFrom('customer_segment_values as v')
        .innerJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'v.account_id').onRef('s.id', '=', 'v.segment_id'))
        .select('v.value')
        .distinct()
        .where('v.account_id', '=', accountId)
        .where('s.object_attribute_id', '=', segmentId)
        .where('v.value', 'is not', null)
        .where(like('v.value'))
        .orderBy('v.value')
        .limit(max)
        .execute(),
    );
  } else {
    const table = typeName === 'cost_segment' ? 'cost_segment_values' : 'payment_segment_values';
    values = await distinct(
      db
        .selectFrom(table)
        .select('value')
        .distinct()
        .where('account_id', '=', accountId)
        .where('attribute_id', '=', segmentId)
        .where('value', 'is not', null)
        .where(like('value'))
        .orderBy('value')
        .limit(max)
        .execute(),
    );
  }
  return values.slice(0, max);
}

/** The input checked against the account's types (422 at each field), as it is stored. */
async function checkedInput(db: Kysely<DB>, accountId: string, input: SegmentationInput): Promise<Required<SegmentationInput>> {
  const types = await segmenterTypes(db, accountId);
  const problems = segmentationInputProblems(input, types);
  if (problems.length > 0) throw new ApiError(422, problems.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })));
  return normalizedSegmentationInput(input, findSegmenterType(types, input.type_name, input.segment_id) as SegmenterTypeInfo);
}

function storedColumns(input: Required<SegmentationInput>) {
  return {
    name: input.name,
    ...storedType(input),
    mappings: JSON.stringify(input.mappings),
    buckets: JSON.stringify(input.buckets),
    products: input.products,
  };
}

/**
 * A segmentation is no snapshot input, yet saved report views, share links and cached filtered
 * answers name its groups: a change or delete raises the account's data version, so every report
 * turns stale and every cached answer (keyed by it) is computed again with the new groups.
 */
async function raiseDataVersion(trx: Kysely<DB>, accountId: string): Promise<void> {
  await trx.updateTable('accounts').set((eb) => ({ data_version: eb('data_version', '+', 1) })).where('id', '=', accountId).execute();
}

/** A segment id the filter picker and share links use for a segmentation's groups. */
export const segmentationFilterId = (id: string) => `${SEGMENTATION_SEGMENT_PREFIX}${id}`;

export async function createSegmentation(app: FastifyInstance, accountId: string, input: SegmentationInput): Promise<SegmentationDefinition> {
  const db = app.db.kysely;
  const stored = await checkedInput(db, accountId, input);
  const id = newSegmentationId();
  await db
    .insertInto('segmenter_definitions')
    .values({ account_id: accountId, id, ...storedColumns(stored) })
    .execute();
  return getSegmentation(db, accountId, id);
}

/** Changes a segmentation: every report turns stale, the newest and those split by it are recalculated. */
export async function updateSegmentation(app: FastifyInstance, accountId: string, id: string, input: SegmentationInput): Promise<SegmentationDefinition> {
  const db = app.db.kysely;
  await getSegmentation(db, accountId, id);
  const stored = await checkedInput(db, accountId, input);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('segmenter_definitions')
      .set({ ...storedColumns(stored), updated_at: new Date() })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
    await raiseDataVersion(trx, accountId);
  });
  await afterAttributeChange(app, accountId, await reportsSplitBy(db, accountId, [id]));
  return getSegmentation(db, accountId, id);
}

/**
 * Deletes a segmentation. Refused (422) while a share link pins one of its segments; sections
 * split by it lose that segment, view filters their items about it, and those reports are
 * recalculated.
 */
export async function deleteSegmentation(app: FastifyInstance, accountId: string, id: string): Promise<void> {
  const db = app.db.kysely;
  await getSegmentation(db, accountId, id);
  const filterId = segmentationFilterId(id);
  const link = await pinningShareLink(db, accountId, [filterId, id]);
  if (link) throw ApiError.of(422, segmentationPinnedByShareLink(link.title));
  const affected = await reportsSplitBy(db, accountId, [id]);
  await db.transaction().execute(async (trx) => {
    await forgetSegmenters(trx, accountId, affected, [id], [filterId]);
    await trx.deleteFrom('segmenter_definitions').where('account_id', '=', accountId).where('id', '=', id).execute();
    await raiseDataVersion(trx, accountId);
  });
  await afterAttributeChange(app, accountId, affected);
}
