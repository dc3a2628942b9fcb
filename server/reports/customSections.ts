import { sql, type Kysely } from 'kysely';
import {
  FIELDS_WITH_ID,
  FILTER_OPERATORS,
  UNKNOWN_FIELD,
  configProblems,
  findCustomValue,
  groupKey,
  normalizedConfig,
  type ConfigProblem,
  type CustomSectionConfig,
  type FilterObject,
  type FilterOperator,
} from '../../models/customSections';
import type { DB } from '../db/schema';
import { groupsOf, meaningOf, segmenterIdOf } from '../metrics/definitions/custom';
import { CURRENCY_SEGMENTER_ID, ITEM_TYPE_SEGMENTER_ID, PRODUCT_SEGMENTER_ID, type SectionDefinitionItem, type SegmenterItem } from '../metrics/definitions/segmenters';
import { ITEM_TYPES } from '../metrics/snapshot/rows';
import { segmentationGroups } from './reportFilters';

/**
 * Custom sections between the API and the engine (docs/custom-sections.md): the fields a series
 * can group or filter by in this account (`GET /user_filtered_config`), their values
 * (`GET /user_filtered_config/possible_values`), and a config checked against the account (a
 * field the account does not have, or a split the value's metric cannot take, is a problem at its
 * JSON pointer) before it is stored.
 */

export interface CustomField {
  object: FilterObject;
  field: string;
  field_id: string | null;
  name: string;
  operators: FilterOperator[];
  /** It can split a series (a group). */
  groupable: boolean;
  /** It can filter a series. */
  filterable: boolean;
  /** The segmenter a group of it is: what the value's metric must accept. */
  segmenter_id: string;
  segmenter_type: SegmenterItem['type'];
}

export const UNKNOWN_FIELD_ID = 'There is no such field in this account';
export const CANNOT_SPLIT = (label: string, name: string) => `${label} cannot be split by ${name}`;
export const MAX_POSSIBLE_VALUES = 1_000;

const field = (object: FilterObject, name: string, segmenter: SegmenterItem, fieldName: string, fieldId: string | null, options: { groupable?: boolean; filterable?: boolean } = {}): CustomField => ({
  object,
  field: fieldName,
  field_id: fieldId,
  name,
  operators: object === 'customer' && fieldName === 'segment' ? [...FILTER_OPERATORS] : ['eq', 'in'],
  groupable: options.groupable ?? true,
  filterable: options.filterable ?? true,
  segmenter_id: segmenter.id,
  segmenter_type: segmenter.type,
});

/** Every field of the account, from the segmenters its section definitions list (and the deal owner when it has deals). */
export function customFieldsOf(definitions: readonly SectionDefinitionItem[]): CustomField[] {
  const segmenters = new Map<string, SegmenterItem>();
  for (const definition of definitions) for (const segmenter of definition.segmenters) segmenters.set(segmenter.id, segmenter);
  const fields: CustomField[] = [];
  for (const segmenter of segmenters.values()) {
    const [prefix, ...rest] = segmenter.id.split(':');
    const tail = rest.join(':');
    if (segmenter.type === 'total') continue;
    if (segmenter.id === PRODUCT_SEGMENTER_ID) fields.push(field('payment', 'Product', segmenter, 'product', null));
    else if (segmenter.id === ITEM_TYPE_SEGMENTER_ID) fields.push(field('payment', 'Item type', segmenter, 'item_type', null));
    else if (segmenter.id === CURRENCY_SEGMENTER_ID) fields.push(field('payment', 'Currency', segmenter, 'currency', null));
    else if (prefix === 'customer_segment' && tail) fields.push(field('customer', segmenter.name, segmenter, 'segment', tail));
    else if (segmenter.id.startsWith('subscription_segment:attribute:')) fields.push(field('payment', segmenter.name, segmenter, 'attribute', segmenter.id.slice('subscription_segment:attribute:'.length)));
    else if (prefix === 'cost_segment' && tail) fields.push(field('cost', segmenter.name, segmenter, 'attribute', tail));
    else {
      // A segmentation (its own id), of what its type says; a cost segmentation splits costs but does not filter them.
      const object: FilterObject = segmenter.type === 'customer_segment' ? 'customer' : segmenter.type === 'cost_segment' ? 'cost' : 'payment';
      fields.push(field(object, segmenter.name, segmenter, 'segmentation', segmenter.id, { filterable: object !== 'cost' }));
    }
  }
  const deals = definitions.find((d) => d.id === 'deals');
  if (deals?.available) fields.push({ object: 'customer', field: 'deal_owner', field_id: null, name: 'Deal owner', operators: ['eq', 'in'], groupable: false, filterable: true, segmenter_id: '', segmenter_type: 'customer_segment' });
  const order: Record<FilterObject, number> = { customer: 0, payment: 1, cost: 2 };
  return fields.sort((a, b) => order[a.object] - order[b.object]);
}

const fieldKey = (item: { object: string; field: string; field_id?: string | null }) => `${item.object}:${item.field}:${FIELDS_WITH_ID.has(item.field) ? (item.field_id ?? '') : ''}`;

/**
 * Every problem of a config sent for the account: the rules of models/customSections.ts, then
 * each field known to the account and fit for its use, and each split one the value's metric
 * takes. Pointers are under `/config`. Empty: `normalizedConfig` may store it.
 */
export function accountConfigProblems(config: unknown, fields: readonly CustomField[], definitions: readonly SectionDefinitionItem[]): ConfigProblem[] {
  const problems = configProblems(config);
  if (problems.length === 0) {
    const known = new Map(fields.map((f) => [fieldKey(f), f]));
    const normalized = normalizedConfig(config);
    const check = (item: { object: string; field: string; field_id: string | null }, pointer: string, use: 'groupable' | 'filterable') => {
      const found = known.get(fieldKey(item));
      if (!found) problems.push({ pointer: `${pointer}/field`, detail: FIELDS_WITH_ID.has(item.field) ? UNKNOWN_FIELD_ID : UNKNOWN_FIELD });
      else if (!found[use]) problems.push({ pointer: `${pointer}/field`, detail: UNKNOWN_FIELD });
      return found;
    };
    normalized.groups.forEach((group, k) => check(group, `/groups/${k}`, 'groupable'));
    normalized.series.forEach((series, k) => {
      series.groups.forEach((group, j) => check(group, `/series/${k}/groups/${j}`, 'groupable'));
      series.filters.forEach((filter, j) => check(filter, `/series/${k}/filters/${j}`, 'filterable'));
      const meaning = meaningOf(series);
      const definition = definitions.find((d) => d.id === meaning.definition);
      const accepted = new Set(definition?.segmenters.map((s) => s.id) ?? []);
      const label = findCustomValue(series.value.object, series.value.attribute)?.label ?? series.value.label;
      for (const group of groupsOf(normalized, series)) {
        const found = known.get(fieldKey(group));
        if (!found) continue;
        if (!accepted.has(segmenterIdOf(group))) {
          const own = series.groups.findIndex((g) => groupKey(g) === groupKey(group));
          const pointer = own >= 0 ? `/series/${k}/groups/${own}/field` : `/groups/${normalized.groups.findIndex((g) => groupKey(g) === groupKey(group))}/field`;
          problems.push({ pointer, detail: CANNOT_SPLIT(label, found.name) });
        }
      }
    });
  }
  const seen = new Set<string>();
  return problems
    .map((problem) => ({ pointer: `/config${problem.pointer}`, detail: problem.detail }))
    .filter((problem) => {
      const key = `${problem.pointer}\u0000${problem.detail}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** The segment ids a custom section shows (its splits): what report_section_segments holds for it. */
export function customSegmentIds(config: CustomSectionConfig): string[] {
  return [...new Set(config.series.flatMap((series) => groupsOf(config, series).map(segmenterIdOf)))];
}

/** Whether the stored config of a custom section can be read: the config, or null. */
export function readableConfig(stored: unknown): CustomSectionConfig | null {
  const parsed = typeof stored === 'string' ? safeParse(stored) : stored;
  return parsed !== null && configProblems(parsed).length === 0 ? normalizedConfig(parsed) : null;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The values a field takes in the account, sorted, at most MAX_POSSIBLE_VALUES; undefined: the account has no such field. */
export async function possibleValues(db: Kysely<DB>, accountId: string, fields: readonly CustomField[], query: { object: string; field: string; field_id?: string | null }): Promise<string[] | undefined> {
  const found = fields.find((f) => fieldKey(f) === fieldKey({ ...query, field_id: query.field_id ?? null }));
  if (!found) return undefined;
  const id = found.field_id ?? '';
  const texts = (rows: { value: string | null }[]) => rows.flatMap((row) => (row.value === null || row.value === '' ? [] : [row.value]));
  switch (`${found.object}.${found.field}`) {
    case 'customer.segment':
      return texts(
        await db.selectFrom('customer_segment_values').select('value').distinct().where('account_id', '=', accountId).where('segment_id', '=', id).where('value', 'is not', null).orderBy('value').limit(MAX_POSSIBLE_VALUES).execute(),
      );
    case 'customer.deal_owner':
      return texts(
        await db.selectFrom('deals').select('owner_name as value').distinct().where('account_id', '=', accountId).where('owner_name', 'is not', null).orderBy('owner_name').limit(MAX_POSSIBLE_VALUES).execute(),
      );
    case 'payment.product':
      return (await db.selectFrom('products').select('key').where('account_id', '=', accountId).orderBy('key').limit(MAX_POSSIBLE_VALUES).execute()).map((row) => row.key);
    case 'payment.item_type':
      return [...ITEM_TYPES];
    case 'payment.currency':
      return (
        await sql<{ value: string }>`select distinct currency as value from payments where account_id = ${accountId} and deleted_at is null order by currency limit ${MAX_POSSIBLE_VALUES}`.execute(db)
      ).rows.map((row) => row.value);
    case 'payment.attribute':
      return texts(
        await db.selectFrom('payment_segment_values').select('value').distinct().where('account_id', '=', accountId).where('attribute_id', '=', id).where('value', 'is not', null).orderBy('value').limit(MAX_POSSIBLE_VALUES).execute(),
      );
    case 'cost.attribute':
      return texts(
        await db.selectFrom('cost_segment_values').select('value').distinct().where('account_id', '=', accountId).where('attribute_id', '=', id).where('value', 'is not', null).orderBy('value').limit(MAX_POSSIBLE_VALUES).execute(),
      );
    default: {
      // A segmentation: its groups ('Other' last).
      const row = await db.selectFrom('segmenter_definitions').select(['mappings', 'buckets', 'products']).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      return row ? (segmentationGroups(row) ?? []) : undefined;
    }
  }
}

/** The definition a custom section stands on for what it shows as underlying data: costs when every series counts costs. */
export function customUnderlyingData(config: CustomSectionConfig | null): 'subscriptions' | 'costs' {
  return config && config.series.length > 0 && config.series.every((series) => series.value.object === 'costs') ? 'costs' : 'subscriptions';
}
