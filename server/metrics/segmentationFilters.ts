import type { ItemType } from '../db/schema';
import { resolveSegmenter } from './definitions/segmenters';
import type { SegmenterRef } from './definitions/types';
import { FilterError, type FilterCriterion, type ReportFilter } from './filters';
import { groupValues, OTHER_SEGMENT } from './segments';
import { ITEM_TYPES } from './snapshot/rows';
import type { AccountSnapshot, CustomerSegmentColumns } from './snapshot/columns';

/**
 * Report filters by a group of a user-made segmentation: the 'segmentation' criterion of
 * filters.ts, expanded before computing into the criterion of the attribute or field the
 * segmentation groups (kept apart from filters.ts, which the definitions' types import).
 */
/** The segmentation ids a filter's criteria name (inside groups too). */
export function segmentationIdsOf(filter: ReportFilter | null | undefined, into = new Set<string>()): Set<string> {
  for (const criterion of filter?.criteria ?? []) {
    if (criterion.kind === 'segmentation') into.add(criterion.segmentationId);
    if (criterion.kind === 'group') segmentationIdsOf(criterion.filter, into);
  }
  return into;
}

/**
 * The filter with every segmentation criterion replaced by the criterion of what the
 * segmentation groups, worked out on the snapshot's values: a group G is the list of raw
 * values (customer attribute values, payment attribute values, product keys, currencies, item
 * types) the segmentation puts in G, so a customer or payment matches G when its value maps to
 * G, falls in G's bucket or is G's product. 'Other' is everything outside the named groups,
 * i.e. the negation of the list of every grouped value (so a missing value is Other too).
 * A group the segmentation does not have matches nothing. An id without a ref (a segmentation
 * the account does not have, or one over costs) is a FilterError. The filter itself is
 * returned when it names no segmentation.
 */
export function expandSegmentationCriteria(snapshot: AccountSnapshot, filter: ReportFilter, refs: ReadonlyMap<string, SegmenterRef>): ReportFilter {
  if (!filter.criteria.some((c) => c.kind === 'segmentation' || c.kind === 'group')) return filter;
  let changed = false;
  const criteria = filter.criteria.map((criterion): FilterCriterion => {
    if (criterion.kind === 'group') {
      const inner = expandSegmentationCriteria(snapshot, criterion.filter, refs);
      if (inner === criterion.filter) return criterion;
      changed = true;
      return { ...criterion, filter: inner };
    }
    if (criterion.kind !== 'segmentation') return criterion;
    changed = true;
    const ref = refs.get(criterion.segmentationId);
    if (!ref) throw new FilterError(`unknown segmentation '${criterion.segmentationId}'`);
    return segmentationCriterion(snapshot, ref, criterion.group, criterion.negated === true);
  });
  return changed ? { operator: filter.operator, criteria } : filter;
}

function segmentationCriterion(snapshot: AccountSnapshot, ref: SegmenterRef, group: string, negated: boolean): FilterCriterion {
  let resolved;
  try {
    resolved = resolveSegmenter(snapshot, ref, '/filter');
  } catch (error) {
    throw new FilterError(error instanceof Error ? error.message : String(error));
  }
  if (resolved.type !== 'customer_segment' && resolved.type !== 'subscription_segment') throw new FilterError(`segmentation '${ref.id}' cannot filter customers or payments`);
  const segmenter = resolved.segmenter;
  let dictionary: readonly string[];
  switch (segmenter.kind) {
    case 'customer_segment':
      dictionary = (snapshot.customerSegments.find((s) => s.id === segmenter.segmentId) as CustomerSegmentColumns).values;
      break;
    case 'product':
      dictionary = snapshot.products.values;
      break;
    case 'item_type':
      dictionary = ITEM_TYPES;
      break;
    case 'currency':
      dictionary = snapshot.currencies.values;
      break;
    case 'payment_attribute': {
      const attribute = snapshot.payments.attributes.find((a) => a.id === segmenter.attributeId);
      if (!attribute) throw new FilterError(`unknown payment attribute '${segmenter.attributeId}'`);
      dictionary = attribute.values;
      break;
    }
  }
  const groups = groupValues(dictionary, segmenter);
  const other = group === OTHER_SEGMENT;
  const wanted = other ? -1 : groups.names.indexOf(group);
  const values = dictionary.filter((_value, index) => {
    const g = groups.groupOfValue[index] as number;
    return other ? g !== groups.otherGroup : wanted >= 0 && g === wanted;
  });
  // 'Other': not in any named group.
  const listNegated = other ? !negated : negated;
  switch (segmenter.kind) {
    case 'customer_segment':
      return { kind: 'customer_segment', segmentId: segmenter.segmentId, values, negated: listNegated };
    case 'product':
      return { kind: 'product', productKeys: values, negated: listNegated };
    case 'item_type':
      return { kind: 'item_type', itemTypes: values as ItemType[], negated: listNegated };
    case 'currency':
      return { kind: 'currency', currencies: values, negated: listNegated };
    case 'payment_attribute':
      return { kind: 'payment_attribute', attributeId: segmenter.attributeId, values, negated: listNegated };
  }
}
