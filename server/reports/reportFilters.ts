import { Type } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import type { FilterCriterion, ReportFilter } from '../metrics/filters';
import { bucketLabel, OTHER_SEGMENT, type ValueBucket } from '../metrics/segments';
import { SEGMENTATION_SEGMENT_PREFIX } from '../../models/segmentation';
import {
  CUSTOMER_SEGMENT_PREFIX,
  MAX_FILTER_VALUE_LENGTH,
  MAX_VIEW_FILTER_ITEMS,
  PAYMENT_ATTRIBUTE_PREFIX,
  filterItemFromQuery,
  type FilterItem,
  type FilterQuery,
  type ReportViewFilter,
} from '../../models/reportFilter';

/**
 * Report filters between the API and the metrics engine (second spec document, sections 3, 4,
 * 7): a report view's stored filter (`business_reports.filter`) and a picked filter item are
 * checked against the account (a segment or attribute id of another account, or of none, is a
 * 422 naming the field) and turned into the engine's `ReportFilter` (server/metrics/filters.ts).
 *
 * - a segment item `customer_segment:{id}` is a customer attribute value (month by month, as
 *   the segment splits a chart); `subscription_segment:attribute:{id}` a payment attribute value
 * - `segmentation:{id}` a group of one of the account's segmentations (its value is the group's
 *   name, or 'Other'); the metrics service expands it against the segmentation's definition
 *   (server/metrics/segmentationFilters.ts `expandSegmentationCriteria`). Segmentations of cost attributes
 *   cannot filter (a filter restricts customers and payments).
 * - a deal owner item: customers with a deal owned by that name
 * - a product item: payment lines of that product
 */

export const UNKNOWN_FILTER_SEGMENT = 'There is no such segment in this account';
export const UNKNOWN_FILTER_SEGMENT_GROUP = 'There is no such group in this segmentation';
export const TOO_MANY_FILTER_ITEMS = `A view filter holds at most ${MAX_VIEW_FILTER_ITEMS} items`;

export type ParsedSegmentId =
  | { kind: 'customer_segment'; segmentId: string }
  | { kind: 'payment_attribute'; attributeId: string }
  | { kind: 'segmentation'; segmentationId: string };

/** The segment an item's `id` names: a customer segment, a payment attribute or a segmentation; null for another form. */
export function parseSegmentId(id: string): ParsedSegmentId | null {
  if (id.startsWith(SEGMENTATION_SEGMENT_PREFIX) && id.length > SEGMENTATION_SEGMENT_PREFIX.length) return { kind: 'segmentation', segmentationId: id.slice(SEGMENTATION_SEGMENT_PREFIX.length) };
  if (id.startsWith(PAYMENT_ATTRIBUTE_PREFIX) && id.length > PAYMENT_ATTRIBUTE_PREFIX.length) return { kind: 'payment_attribute', attributeId: id.slice(PAYMENT_ATTRIBUTE_PREFIX.length) };
  if (id.startsWith(CUSTOMER_SEGMENT_PREFIX) && id.length > CUSTOMER_SEGMENT_PREFIX.length) return { kind: 'customer_segment', segmentId: id.slice(CUSTOMER_SEGMENT_PREFIX.length) };
  return null;
}

function segmentCriterion(parsed: ParsedSegmentId, value: string, negated: boolean): FilterCriterion {
  switch (parsed.kind) {
    case 'customer_segment':
      return { kind: 'customer_segment', segmentId: parsed.segmentId, values: [value], negated };
    case 'payment_attribute':
      return { kind: 'payment_attribute', attributeId: parsed.attributeId, values: [value], negated };
    case 'segmentation':
      return { kind: 'segmentation', segmentationId: parsed.segmentationId, group: value, negated };
  }
}

/** The engine's criterion of one item (its segment id already checked). */
export function criterionOf(item: FilterItem): FilterCriterion {
  const negated = item.negated;
  switch (item.type) {
    case 'segment': {
      const parsed = parseSegmentId(item.id);
      if (!parsed) throw ApiError.of(422, UNKNOWN_FILTER_SEGMENT);
      return segmentCriterion(parsed, item.value, negated);
    }
    case 'deal_owner':
      return { kind: 'deal_owner', ownerNames: [item.owner_name], negated };
    case 'product':
      return { kind: 'product', productKeys: [item.product_key], negated };
  }
}

/** A view's filter for the engine; null when it has no item. */
export function reportFilterOf(view: ReportViewFilter | null | undefined): ReportFilter | null {
  if (!view || view.arguments.length === 0) return null;
  return { operator: view.operator, criteria: view.arguments.map(criterionOf) };
}

/** The view's filter AND the picked item (the filtered answer of a report that has a view). */
export function viewAndItem(view: ReportViewFilter | null | undefined, item: FilterItem): ReportFilter {
  return withPickedItem(reportFilterOf(view), item);
}

/**
 * Checks items against the account and answers them with each segment's real name (and a
 * product's name when the account has it). A segment id the account does not have is a 422
 * at `pointerOf(k, 'id')`.
 */
export async function resolveFilterItems(db: Kysely<DB>, accountId: string, items: readonly FilterItem[], pointerOf: (k: number, field: string) => string): Promise<FilterItem[]> {
  const segmentIds = new Set<string>();
  const attributeIds = new Set<string>();
  const segmentationIds = new Set<string>();
  const productKeys = new Set<string>();
  for (const item of items) {
    if (item.type === 'segment') {
      const parsed = parseSegmentId(item.id);
      if (parsed?.kind === 'customer_segment') segmentIds.add(parsed.segmentId);
      if (parsed?.kind === 'payment_attribute') attributeIds.add(parsed.attributeId);
      if (parsed?.kind === 'segmentation') segmentationIds.add(parsed.segmentationId);
    }
    if (item.type === 'product') productKeys.add(item.product_key);
  }
  const [segments, attributes, products, segmentations] = await Promise.all([
    segmentIds.size === 0 ? [] : db.selectFrom('customer_segments').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', [...segmentIds]).execute(),
    attributeIds.size === 0
      ? []
      : db.selectFrom('object_attributes').select(['id', 'name']).where('account_id', '=', accountId).where('object', '=', 'subscription_history').where('id', 'in', [...attributeIds]).execute(),
    productKeys.size === 0 ? [] : db.selectFrom('products').select(['key', 'name']).where('account_id', '=', accountId).where('key', 'in', [...productKeys]).execute(),
    segmentationIds.size === 0 ? [] : filterSegmentations(db, accountId, [...segmentationIds]),
  ]);
  const segmentationsById = new Map(segmentations.map((s) => [s.id, s]));
  const segmentNames = new Map(segments.map((s) => [s.id, s.name]));
  const attributeNames = new Map(attributes.map((a) => [a.id, a.name]));
  const productNames = new Map(products.map((p) => [p.key, p.name]));
  const problems: ApiError['entries'] = [];
  const resolved = items.map((item, k): FilterItem => {
    switch (item.type) {
      case 'segment': {
        const parsed = parseSegmentId(item.id);
        if (parsed?.kind === 'segmentation') {
          const segmentation = segmentationsById.get(parsed.segmentationId);
          if (!segmentation) {
            problems.push({ detail: UNKNOWN_FILTER_SEGMENT, source: { pointer: pointerOf(k, 'id') } });
            return item;
          }
          if (segmentation.groups !== null && !segmentation.groups.includes(item.value)) {
            problems.push({ detail: UNKNOWN_FILTER_SEGMENT_GROUP, source: { pointer: pointerOf(k, 'value') } });
            return item;
          }
          return { ...item, name: segmentation.name };
        }
        const name = !parsed ? undefined : parsed.kind === 'customer_segment' ? segmentNames.get(parsed.segmentId) : attributeNames.get(parsed.attributeId);
        if (name === undefined) {
          problems.push({ detail: UNKNOWN_FILTER_SEGMENT, source: { pointer: pointerOf(k, 'id') } });
          return item;
        }
        return { ...item, name };
      }
      case 'product': {
        const name = productNames.get(item.product_key) ?? item.name;
        return { type: 'product', product_key: item.product_key, ...(name === undefined ? {} : { name }), negated: item.negated };
      }
      case 'deal_owner':
        return item;
    }
  });
  if (problems.length > 0) throw new ApiError(422, problems);
  return resolved;
}

/** A segmentation a filter item can name: its id, name and group names ('Other' last); groups null when they depend on the data (no grouping stored). */
export interface FilterSegmentation {
  id: string;
  name: string;
  groups: string[] | null;
}

const asArray = (value: unknown): unknown[] => {
  const parsed = typeof value === 'string' ? (safeParse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed : [];
};

/** The group names of a stored segmentation: its mapping names, bucket labels or products, then 'Other'; null without any grouping. */
export function segmentationGroups(row: { mappings: unknown; buckets: unknown; products: readonly string[] }): string[] | null {
  const mappings = asArray(row.mappings) as { name?: unknown }[];
  const buckets = asArray(row.buckets) as ValueBucket[];
  let names: string[];
  if (mappings.length > 0) names = mappings.map((m) => String(m.name ?? ''));
  else if (buckets.length > 0) names = buckets.map(bucketLabel);
  else if (row.products.length > 0) names = [...row.products];
  else return null;
  return [...new Set([...names.filter((n) => n !== OTHER_SEGMENT), OTHER_SEGMENT])];
}

/**
 * The account's segmentations a filter can name (by name; those of cost attributes left out:
 * a filter restricts customers and payments), all of them or those of `ids`.
 */
export async function filterSegmentations(db: Kysely<DB>, accountId: string, ids?: readonly string[]): Promise<FilterSegmentation[]> {
  if (ids !== undefined && ids.length === 0) return [];
  const rows = await db
    .selectFrom('segmenter_definitions')
    .select(['id', 'name', 'mappings', 'buckets', 'products'])
    .where('account_id', '=', accountId)
    .where('type_name', '<>', 'cost_segment')
    .$if(ids !== undefined, (q) => q.where('id', 'in', [...(ids as readonly string[])]))
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, groups: segmentationGroups(row) }));
}

/** A view filter from a request body: at most MAX_VIEW_FILTER_ITEMS items, each known to the account. */
export async function resolveViewFilter(db: Kysely<DB>, accountId: string, filter: ReportViewFilter): Promise<ReportViewFilter> {
  if (filter.arguments.length > MAX_VIEW_FILTER_ITEMS) throw ApiError.of(422, TOO_MANY_FILTER_ITEMS, '/filter/arguments');
  const items = await resolveFilterItems(db, accountId, filter.arguments, (k, field) => `/filter/arguments/${k}/${field}`);
  return { operator: filter.operator, arguments: items };
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_FILTER_VALUE_LENGTH;

/** One stored item, or null when it is not one (an older or foreign shape is left out, never fatal). */
function storedItem(value: unknown): FilterItem | null {
  if (typeof value !== 'object' || value === null) return null;
  const raw = value as Record<string, unknown>;
  const negated = raw.negated === true;
  switch (raw.type) {
    case 'segment':
      return isString(raw.id) && isString(raw.value) ? { type: 'segment', id: raw.id, name: isString(raw.name) ? raw.name : '', value: raw.value, negated } : null;
    case 'deal_owner':
      return isString(raw.owner_name) ? { type: 'deal_owner', owner_name: raw.owner_name, negated } : null;
    case 'product':
      return isString(raw.product_key) ? { type: 'product', product_key: raw.product_key, ...(isString(raw.name) ? { name: raw.name } : {}), negated } : null;
    default:
      return null;
  }
}

/** The view filter stored in `business_reports.filter` (JSON), or null. */
export function storedViewFilter(json: unknown): ReportViewFilter | null {
  const value = typeof json === 'string' ? safeParse(json) : json;
  if (typeof value !== 'object' || value === null) return null;
  const raw = value as Record<string, unknown>;
  if ((raw.operator !== 'and' && raw.operator !== 'or') || !Array.isArray(raw.arguments)) return null;
  const items = raw.arguments.map(storedItem).filter((item): item is FilterItem => item !== null);
  return items.length === 0 ? null : { operator: raw.operator, arguments: items };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The report fields a view adds: its filter, and the name and value of its first segment item. */
export function viewFields(filter: ReportViewFilter | null): { filter: ReportViewFilter | null; filtered_segmenter_name: string | null; filtered_segment_value: string | null } {
  const segment = filter?.arguments.find((item): item is Extract<FilterItem, { type: 'segment' }> => item.type === 'segment');
  return { filter, filtered_segmenter_name: segment?.name ?? null, filtered_segment_value: segment?.value ?? null };
}

/**
 * The query parameters that carry one picked filter item (`filterQuery` of models/reportFilter.ts):
 * `GET /business_reports/by_secret_filtered` needs them, the details of a filtered chart take them.
 */
export const FilterQuerySchema = Type.Object({
  filter_type: Type.Optional(Type.Union([Type.Literal('segment'), Type.Literal('deal_owner'), Type.Literal('product')], { description: 'Default segment' })),
  filter_segmenter_id: Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'segment: customer_segment:{segmentId}, subscription_segment:attribute:{attributeId} or segmentation:{segmentationId}' })),
  filter_segment_value: Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'segment: the value (for a segmentation: a group name, or Other)' })),
  filter_owner_name: Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'deal_owner: the owner’s name' })),
  filter_product_key: Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'product: the product key' })),
  filter_negated: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: everything but the item (default false)' })),
});

const FILTER_PARAMETERS = ['filter_type', 'filter_segmenter_id', 'filter_segment_value', 'filter_owner_name', 'filter_product_key', 'filter_negated'] as const;

/**
 * The item a request's filter parameters name, checked against the account (422 naming the
 * parameter), or null when the request names none and `required` is false.
 */
export async function pickedFilterItem(db: Kysely<DB>, accountId: string, query: FilterQuery, required = false): Promise<FilterItem | null> {
  if (!required && FILTER_PARAMETERS.every((name) => query[name] === undefined)) return null;
  const parsed = filterItemFromQuery(query);
  if ('error' in parsed) throw ApiError.of(422, parsed.error, `/querystring/${parsed.field}`);
  const [item] = await resolveFilterItems(db, accountId, [parsed.item], (_k, field) => `/querystring/${field === 'id' ? 'filter_segmenter_id' : field === 'value' ? 'filter_segment_value' : field}`);
  return item as FilterItem;
}

/** A request's filter (the report view's) AND a picked item. */
export function withPickedItem(filter: ReportFilter | null | undefined, item: FilterItem): ReportFilter {
  const picked = criterionOf(item);
  return { operator: 'and', criteria: filter && filter.criteria.length > 0 ? [{ kind: 'group', filter }, picked] : [picked] };
}
