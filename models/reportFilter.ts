/**
 * Report filters (second spec document, sections 3, 4, 7, 8): what the filter picker lists,
 * how an applied filter travels to `GET /business_reports/by_secret_filtered`, and a report
 * view's stored filter (`PUT /business_reports/{id}` body `filter`). Client and server both
 * read these rules from here.
 *
 * A filter item is one of three kinds, each of which can be negated:
 * - `segment`: a value of a customer segment (`id` = `customer_segment:{segmentId}`) or of a
 *   payment attribute (`id` = `subscription_segment:attribute:{attributeId}`); `name` is the
 *   segment's name as the picker shows it.
 * - `deal_owner`: customers with a deal owned by `owner_name`.
 * - `product`: payment lines of the product `product_key` (`name`: its name, when known).
 */

export const FILTER_ITEM_TYPES = ['segment', 'deal_owner', 'product'] as const;
export type FilterItemType = (typeof FILTER_ITEM_TYPES)[number];

export type FilterItem =
  | { type: 'segment'; id: string; name: string; value: string; negated: boolean }
  | { type: 'deal_owner'; owner_name: string; negated: boolean }
  | { type: 'product'; product_key: string; name?: string; negated: boolean };

/** A report view's filter: items combined with `and` (every one) or `or` (any one). */
export interface ReportViewFilter {
  operator: 'and' | 'or';
  arguments: FilterItem[];
}

/** A view holds at most this many items. */
export const MAX_VIEW_FILTER_ITEMS = 20;
/** Longest segment value, owner name or product key a filter carries. */
export const MAX_FILTER_VALUE_LENGTH = 255;

export const FILTER_FETCH_FAILURE = 'We could not fetch possible filters';
export const FILTER_BLOCKED = 'Report cannot be filtered when in Edit mode or it is being refreshed';
export const FILTER_NO_RESULTS = 'No results';
export const VIEW_SAVE_FAILURE = 'We could not save this view, please try again or contact us';
/** Applying a filter failed (the server could not compute the filtered report). */
export const FILTER_APPLY_FAILURE = 'We could not filter this report, please try again';

/** The segment name prefixes a segment item's `id` may have. */
export const CUSTOMER_SEGMENT_PREFIX = 'customer_segment:';
export const PAYMENT_ATTRIBUTE_PREFIX = 'subscription_segment:attribute:';

/** What the item's own text is: the segment value, the owner's name, the product's name or key. */
export function filterItemValue(item: FilterItem): string {
  switch (item.type) {
    case 'segment':
      return item.value;
    case 'deal_owner':
      return item.owner_name;
    case 'product':
      return item.name ?? item.product_key;
  }
}

/** What the item's group is called: the segment's name, 'Deal owner' or 'Product'. */
export function filterItemGroup(item: FilterItem): string {
  switch (item.type) {
    case 'segment':
      return item.name;
    case 'deal_owner':
      return 'Deal owner';
    case 'product':
      return 'Product';
  }
}

/** 'Plan is Pro', 'Plan is not Pro', 'Deal owner is Anna', 'Product is not Basic'. */
export function filterItemLabel(item: FilterItem): string {
  return `${filterItemGroup(item)} ${item.negated ? 'is not' : 'is'} ${filterItemValue(item)}`;
}

/** A stable identity of an item, negation left out (the picker's option value). */
export function filterItemKey(item: FilterItem): string {
  switch (item.type) {
    case 'segment':
      return `segment\u0000${item.id}\u0000${item.value}`;
    case 'deal_owner':
      return `deal_owner\u0000${item.owner_name}`;
    case 'product':
      return `product\u0000${item.product_key}`;
  }
}

/** The picker's text filter: the value or its segment's (group's) name, case-insensitively. */
export function matchesFilterText(item: FilterItem, text: string): boolean {
  const wanted = text.trim().toLowerCase();
  if (wanted === '') return true;
  return filterItemValue(item).toLowerCase().includes(wanted) || filterItemGroup(item).toLowerCase().includes(wanted);
}

/** The query of `GET /business_reports/by_secret_filtered` for one item (besides secret and currency). */
export interface FilterQuery {
  filter_type?: FilterItemType;
  filter_segmenter_id?: string;
  filter_segment_value?: string;
  filter_owner_name?: string;
  filter_product_key?: string;
  filter_negated?: 'true' | 'false';
}

export function filterQuery(item: FilterItem): FilterQuery {
  const negated = item.negated ? ({ filter_negated: 'true' } as const) : {};
  switch (item.type) {
    case 'segment':
      return { filter_type: 'segment', filter_segmenter_id: item.id, filter_segment_value: item.value, ...negated };
    case 'deal_owner':
      return { filter_type: 'deal_owner', filter_owner_name: item.owner_name, ...negated };
    case 'product':
      return { filter_type: 'product', filter_product_key: item.product_key, ...negated };
  }
}

/**
 * The item a by_secret_filtered query names, or the reason it names none. `filter_type`
 * defaults to `segment` (the spec's two parameters alone are a segment filter). The segment's
 * `name` is not in the query: the server fills it in.
 */
export function filterItemFromQuery(query: FilterQuery): { item: FilterItem } | { error: string; field: string } {
  const type = query.filter_type ?? 'segment';
  const negated = query.filter_negated === 'true';
  const present = (value: string | undefined): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_FILTER_VALUE_LENGTH;
  switch (type) {
    case 'segment':
      if (!present(query.filter_segmenter_id)) return { error: 'filter_segmenter_id is required', field: 'filter_segmenter_id' };
      if (typeof query.filter_segment_value !== 'string' || query.filter_segment_value.length > MAX_FILTER_VALUE_LENGTH) {
        return { error: 'filter_segment_value is required', field: 'filter_segment_value' };
      }
      return { item: { type, id: query.filter_segmenter_id, name: '', value: query.filter_segment_value, negated } };
    case 'deal_owner':
      if (!present(query.filter_owner_name)) return { error: 'filter_owner_name is required', field: 'filter_owner_name' };
      return { item: { type, owner_name: query.filter_owner_name, negated } };
    case 'product':
      if (!present(query.filter_product_key)) return { error: 'filter_product_key is required', field: 'filter_product_key' };
      return { item: { type, product_key: query.filter_product_key, negated } };
    default:
      return { error: 'filter_type must be segment, deal_owner or product', field: 'filter_type' };
  }
}
