import { findCustomerSegment, type Segmenter, type SegmentGrouping } from '../segments';
import type { AccountSnapshot } from '../snapshot/columns';
import { CATALOGUE, type SectionDefinition } from './catalogue';
import { SectionRequestError, type SegmenterRef, type SegmenterType } from './types';

/**
 * Segmenter ids (types.ts, SegmenterRef) resolved against an account: into the core's
 * Segmenter for customer and payment attributes, or a cost attribute for costs.
 */

export const TOTAL_SEGMENTER_ID = 'total';
export const TOTAL_NAME = 'Total';

export const PRODUCT_SEGMENTER_ID = 'subscription_segment:product';
export const ITEM_TYPE_SEGMENTER_ID = 'subscription_segment:item_type';
export const CURRENCY_SEGMENTER_ID = 'subscription_segment:currency';

export const customerSegmenterId = (segmentId: string) => `customer_segment:${segmentId}`;
export const paymentAttributeSegmenterId = (attributeId: string) => `subscription_segment:attribute:${attributeId}`;
export const costSegmenterId = (attributeId: string) => `cost_segment:${attributeId}`;

export interface CostSegmenter {
  attributeId: string;
  grouping: SegmentGrouping;
}

export type ResolvedSegmenter =
  | { type: 'total'; id: string; name: string; key: string }
  | { type: 'customer_segment' | 'subscription_segment'; id: string; name: string; key: string; segmenter: Segmenter }
  | { type: 'cost_segment'; id: string; name: string; key: string; cost: CostSegmenter };

export type CustomerLevelSegmenter = Extract<ResolvedSegmenter, { segmenter: Segmenter }>;

function grouping(ref: SegmenterRef): SegmentGrouping {
  return {
    ...(ref.mappings && ref.mappings.length > 0 ? { mappings: ref.mappings } : {}),
    ...(ref.buckets && ref.buckets.length > 0 ? { buckets: ref.buckets } : {}),
  };
}

export function resolveSegmenter(snapshot: AccountSnapshot, input: string | SegmenterRef, pointer: string): ResolvedSegmenter {
  const ref: SegmenterRef = typeof input === 'string' ? { id: input } : input;
  const base = ref.base ?? ref.id;
  const groups = grouping(ref);
  const named = (fallback: string) => ref.name ?? fallback;
  const level = (type: 'customer_segment' | 'subscription_segment', name: string, segmenter: Segmenter): ResolvedSegmenter => ({ type, id: ref.id, name, key: JSON.stringify(segmenter), segmenter });
  if (base === TOTAL_SEGMENTER_ID) return { type: 'total', id: ref.id, name: named(TOTAL_NAME), key: TOTAL_SEGMENTER_ID };
  if (base === PRODUCT_SEGMENTER_ID) {
    const products = ref.products && ref.products.length > 0 ? { products: ref.products } : {};
    return level('subscription_segment', named('Product'), { kind: 'product', ...products, ...groups });
  }
  if (base === ITEM_TYPE_SEGMENTER_ID) return level('subscription_segment', named('Item type'), { kind: 'item_type', ...groups });
  if (base === CURRENCY_SEGMENTER_ID) return level('subscription_segment', named('Currency'), { kind: 'currency', ...groups });
  const [type, ...rest] = base.split(':');
  const target = rest.join(':');
  if (type === 'customer_segment' && target) {
    const segment = snapshot.customerSegments.find((s) => s.id === target);
    if (!segment) throw new SectionRequestError(`unknown customer segment '${target}'`, pointer);
    return level('customer_segment', named(segment.name), { kind: 'customer_segment', segmentId: findCustomerSegment(snapshot, target).id, ...groups });
  }
  if (type === 'subscription_segment' && rest[0] === 'attribute' && rest.length > 1) {
    const attributeId = rest.slice(1).join(':');
    const attribute = snapshot.payments.attributes.find((a) => a.id === attributeId);
    if (!attribute) throw new SectionRequestError(`unknown payment attribute '${attributeId}'`, pointer);
    return level('subscription_segment', named(attribute.name), { kind: 'payment_attribute', attributeId, ...groups });
  }
  if (type === 'cost_segment' && target) {
    const attribute = snapshot.costs.attributes.find((a) => a.id === target);
    if (!attribute) throw new SectionRequestError(`unknown cost attribute '${target}'`, pointer);
    const cost: CostSegmenter = { attributeId: target, grouping: groups };
    return { type: 'cost_segment', id: ref.id, name: named(attribute.name), key: JSON.stringify(cost), cost };
  }
  throw new SectionRequestError(`unknown segmenter '${ref.id}'`, pointer);
}

// ------------------------------------------------------------------ the catalogue of an account

/** What an account's catalogue depends on (read from a few small tables, not the snapshot). */
export interface AccountCatalogueInput {
  customerSegments: readonly { id: string; name: string }[];
  paymentAttributes: readonly { id: string; name: string }[];
  costAttributes: readonly { id: string; name: string }[];
  /** The account's own segmentations, each naming the built-in segmenter it groups. */
  segmentations: readonly { id: string; name: string; base: string }[];
  hasDeals: boolean;
}

/** A segmenter a section of this account can use (the spec's Segmenter, with its type). */
export interface SegmenterItem {
  id: string;
  name: string;
  is_total: boolean;
  type: SegmenterType;
  group_label: string;
}

export interface SectionDefinitionItem {
  id: string;
  name: string;
  description: string;
  formula: string;
  available: boolean;
  segmenters: SegmenterItem[];
  supported_grouping_periods: string[];
  supported_data_types: string[];
  default_data_type: string;
  data_categories: string[];
  underlying_data: string;
  decimals: number;
  key_number_kind: string | null;
  default_call_to_action: string;
  segmenter_call_to_action: string;
}

const GROUP_LABELS: Record<SegmenterType, string> = {
  total: 'Total',
  customer_segment: 'Customer attributes',
  subscription_segment: 'Payment attributes',
  cost_segment: 'Cost attributes',
};

/** Every segmenter of the account: the total, one per attribute, the payment built-ins, and the account's segmentations. */
export function accountSegmenters(input: AccountCatalogueInput): SegmenterItem[] {
  const item = (id: string, name: string, type: SegmenterType): SegmenterItem => ({ id, name, is_total: type === 'total', type, group_label: GROUP_LABELS[type] });
  const builtIn: SegmenterItem[] = [
    item(TOTAL_SEGMENTER_ID, TOTAL_NAME, 'total'),
    ...input.customerSegments.map((s) => item(customerSegmenterId(s.id), s.name, 'customer_segment')),
    item(PRODUCT_SEGMENTER_ID, 'Product', 'subscription_segment'),
    item(ITEM_TYPE_SEGMENTER_ID, 'Item type', 'subscription_segment'),
    item(CURRENCY_SEGMENTER_ID, 'Currency', 'subscription_segment'),
    ...input.paymentAttributes.map((a) => item(paymentAttributeSegmenterId(a.id), a.name, 'subscription_segment')),
    ...input.costAttributes.map((a) => item(costSegmenterId(a.id), a.name, 'cost_segment')),
  ];
  const typeOf = new Map(builtIn.map((s) => [s.id, s.type]));
  const own = input.segmentations.flatMap((s) => {
    const type = typeOf.get(s.base);
    return type && type !== 'total' ? [item(s.id, s.name, type)] : [];
  });
  return [...builtIn, ...own];
}

/** The catalogue for one account: each definition with the account's segmenters it accepts, and whether it is available. */
export function sectionDefinitionsFor(input: AccountCatalogueInput): SectionDefinitionItem[] {
  const segmenters = accountSegmenters(input);
  return CATALOGUE.map((definition: SectionDefinition) => ({
    id: definition.id,
    name: definition.name,
    description: definition.description,
    formula: definition.formula,
    available: !definition.requires_deals || input.hasDeals,
    segmenters: segmenters.filter((s) => definition.segmenter_types.includes(s.type)),
    supported_grouping_periods: [...definition.supported_grouping_periods],
    supported_data_types: [...definition.supported_data_types],
    default_data_type: definition.default_data_type,
    data_categories: [...definition.data_categories],
    underlying_data: definition.underlying_data,
    decimals: definition.decimals,
    key_number_kind: definition.key_number_kind,
    default_call_to_action: definition.default_call_to_action,
    segmenter_call_to_action: definition.segmenter_call_to_action,
  }));
}
