import { DAY_NEVER_BEFORE } from './days';
import type { CustomerColumns, CustomerSegmentColumns } from './snapshot/columns';

/**
 * The value of a customer attribute that applies to a customer in a month. A row is in force
 * from its month until the customer's next row (before its first row the customer has no
 * value); a segment that is not time-sensitive has one row in force for all time. The
 * segment's `value_source` says whose rows count:
 * - parent_and_children: the customer's own value, else (no own value that month) its
 *   parent's, and so on up the hierarchy;
 * - parent: the top-most parent's value (a customer without a parent is its own top);
 * - children: the customer's own value only.
 */

/** Value index of the customer's own row in force in `month` (absolute month), -1 for none. */
export function ownValueAt(segment: CustomerSegmentColumns, customer: number, month: number): number {
  let lo = segment.rowStart[customer] as number;
  let hi = (segment.rowStart[customer + 1] as number) - 1;
  if (hi < lo || (segment.month[lo] as number) > month) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((segment.month[mid] as number) <= month) lo = mid;
    else hi = mid - 1;
  }
  return segment.value[lo] as number;
}

/** The customers whose rows decide the value of `customer`, nearest first. */
function sources(segment: CustomerSegmentColumns, customers: CustomerColumns, customer: number): number[] {
  switch (segment.valueSource) {
    case 'children':
      return [customer];
    case 'parent':
      return [customers.topParent[customer] as number];
    case 'parent_and_children': {
      const chain = [customer];
      for (let c = customers.parent[customer] as number; c >= 0 && chain.length <= customers.count; c = customers.parent[c] as number) chain.push(c);
      return chain;
    }
  }
}

/** Value index that applies to `customer` in `month`, -1 for none. */
export function valueAt(segment: CustomerSegmentColumns, customers: CustomerColumns, customer: number, month: number): number {
  if (segment.valueSource === 'children') return ownValueAt(segment, customer, month);
  if (segment.valueSource === 'parent') return ownValueAt(segment, customers.topParent[customer] as number, month);
  for (const source of sources(segment, customers, customer)) {
    const value = ownValueAt(segment, source, month);
    if (value >= 0) return value;
  }
  return -1;
}

/**
 * The months (ascending, the first DAY_NEVER_BEFORE) at which the value that applies to the
 * customer may change: the value is constant from each month until the next.
 */
export function valueChangeMonths(segment: CustomerSegmentColumns, customers: CustomerColumns, customer: number): number[] {
  const months = new Set<number>([DAY_NEVER_BEFORE]);
  for (const source of sources(segment, customers, customer)) {
    for (let row = segment.rowStart[source] as number; row < (segment.rowStart[source + 1] as number); row++) months.add(segment.month[row] as number);
  }
  return [...months].sort((a, b) => a - b);
}
