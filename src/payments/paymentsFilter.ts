import { ITEM_TYPES } from '../../models/constants';
import type { ItemType } from '../../models/constants';
import { PAYMENT_SORT_FIELDS } from '../../models/payments';
import { DEFAULT_PAYMENTS_SORT } from './paymentsApi';
import type { PaymentSortField } from '../../models/payments';
import type { PaymentsFilter } from './paymentsApi';

/**
 * The table's filters and order as the page's URL holds them (`?currency=EUR&item_type=recurring
 * &sort_by=total_value:asc`), so a filtered list can be bookmarked and shared.
 */

const isItemType = (value: string | null): value is ItemType => value !== null && (ITEM_TYPES as readonly string[]).includes(value);
const isSortField = (value: string | undefined): value is PaymentSortField => value !== undefined && (PAYMENT_SORT_FIELDS as readonly string[]).includes(value);
const CURRENCY = /^[A-Za-z]{3}$/;

/** The filter of a URL's search parameters; anything unknown is left out. */
export function filterFromSearch(params: URLSearchParams): PaymentsFilter {
  const currency = params.get('currency');
  const itemType = params.get('item_type');
  const [field, direction] = (params.get('sort_by') ?? '').split(':');
  return {
    currency: currency && CURRENCY.test(currency) ? currency.toUpperCase() : null,
    itemType: isItemType(itemType) ? itemType : null,
    sort: isSortField(field) && (direction === 'asc' || direction === 'desc') ? { field, direction } : DEFAULT_PAYMENTS_SORT,
  };
}

/** The search parameters of a filter (the defaults are left out). */
export function searchOfFilter(filter: PaymentsFilter): Record<string, string> {
  const params: Record<string, string> = {};
  if (filter.currency) params.currency = filter.currency;
  if (filter.itemType) params.item_type = filter.itemType;
  if (filter.sort.field !== DEFAULT_PAYMENTS_SORT.field || filter.sort.direction !== DEFAULT_PAYMENTS_SORT.direction) params.sort_by = `${filter.sort.field}:${filter.sort.direction}`;
  return params;
}

export const ITEM_TYPE_LABELS: Record<ItemType, string> = {
  recurring: 'Recurring',
  metered: 'Metered',
  one_time: 'One-time',
  freemium: 'Freemium',
};
