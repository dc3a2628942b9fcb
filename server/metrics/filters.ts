import type { ItemType } from '../db/schema';
import { valueAt, valueChangeMonths } from './customerAttributes';
import { DAY_NEVER_BEFORE, firstDayOfMonth } from './days';
import { emptyPieces, indexUnits, type MrrPieces } from './pieceColumns';
import { ITEM_TYPES } from './snapshot/rows';
import { type AccountSnapshot, type CustomerSegmentColumns } from './snapshot/columns';

/**
 * A report filter (METRICS.md section 8) restricts every section to matching customers or
 * payments before anything is computed. Criteria on customer attributes apply month by month
 * (a time-sensitive value applies while it is in force, exactly like a segment), criteria on
 * products and item types apply to payment lines, criteria on currencies and payment attributes
 * to whole payments. Each criterion can be negated; a value missing on the customer or payment
 * matches no list (so a negated criterion matches it). `and` needs every criterion, `or` one.
 */
export type FilterCriterion =
  /**
   * A customer attribute's value in `values`, month by month; with `atMonth` (an absolute month,
   * year * 12 + month0), the value the customer has in that month decides for every day.
   */
  | { kind: 'customer_segment'; segmentId: string; values: readonly string[]; negated?: boolean; atMonth?: number }
  | { kind: 'product'; productKeys: readonly string[]; negated?: boolean }
  | { kind: 'item_type'; itemTypes: readonly ItemType[]; negated?: boolean }
  | { kind: 'currency'; currencies: readonly string[]; negated?: boolean }
  | { kind: 'payment_attribute'; attributeId: string; values: readonly string[]; negated?: boolean }
  /** Customers with at least one deal owned by one of `ownerNames` (not time-sensitive). */
  | { kind: 'deal_owner'; ownerNames: readonly string[]; negated?: boolean }
  /** Costs with a value of the cost attribute in `values` (costs only: customers and payments ignore it). */
  | { kind: 'cost_attribute'; attributeId: string; values: readonly string[]; negated?: boolean }
  /**
   * One group of a user-made segmentation (segmenter_definitions row `segmentationId`): the
   * customers or payments whose value the segmentation puts in `group` ('Other': in no group,
   * or no value). Never applied as such: the metrics service expands it first
   * (`expandSegmentationCriteria`, server/metrics/segmentationFilters.ts) into the criterion of the attribute or field it groups.
   */
  | { kind: 'segmentation'; segmentationId: string; group: string; negated?: boolean }
  /**
   * A whole filter as one criterion (a report view's filter AND a picked item). Only inside an
   * `and` filter and not negated: it is applied first, then the other criteria.
   */
  | { kind: 'group'; filter: ReportFilter; negated?: boolean };

export interface ReportFilter {
  operator: 'and' | 'or';
  criteria: readonly FilterCriterion[];
}

export class FilterError extends Error {
  override name = 'FilterError';
}

function indexSet(dictionary: readonly string[], wanted: readonly string[]): Set<number> {
  const set = new Set<number>();
  const wantedSet = new Set(wanted);
  dictionary.forEach((value, index) => {
    if (wantedSet.has(value)) set.add(index);
  });
  return set;
}

type PieceTest = (pieces: MrrPieces, i: number) => boolean;

interface CustomerTest {
  segment: CustomerSegmentColumns;
  values: Set<number>;
  negated: boolean;
}

export function applyReportFilter(snapshot: AccountSnapshot, pieces: MrrPieces, filter: ReportFilter): MrrPieces {
  if (filter.criteria.some((c) => c.kind === 'group')) return applyGroups(snapshot, pieces, filter);
  const { records, lines, payments } = snapshot;
  const pieceTests: PieceTest[] = [];
  const customerTests: CustomerTest[] = [];
  for (const criterion of filter.criteria) {
    const negated = criterion.negated === true;
    const test = (result: boolean) => result !== negated;
    switch (criterion.kind) {
      case 'customer_segment': {
        const segment = snapshot.customerSegments.find((s) => s.id === criterion.segmentId);
        if (!segment) throw new FilterError(`unknown customer segment '${criterion.segmentId}'`);
        const values = indexSet(segment.values, criterion.values);
        if (criterion.atMonth !== undefined) {
          // One month's value decides for every day: a test of the piece's customer, like a deal owner's.
          const month = criterion.atMonth;
          const known = new Map<number, boolean>();
          const matches = (customer: number) => {
            let found = known.get(customer);
            if (found === undefined) {
              found = values.has(valueAt(segment, snapshot.customers, customer, month));
              known.set(customer, found);
            }
            return found;
          };
          pieceTests.push((p, i) => test(matches(records.customer[p.record[i] as number] as number)));
          break;
        }
        customerTests.push({ segment, values, negated });
        break;
      }
      case 'product': {
        const set = indexSet(snapshot.products.values, criterion.productKeys);
        pieceTests.push((p, i) => test(set.has(lines.product[p.line[i] as number] as number)));
        break;
      }
      case 'item_type': {
        const set = indexSet(ITEM_TYPES, criterion.itemTypes);
        pieceTests.push((p, i) => test(set.has(lines.type[p.line[i] as number] as number)));
        break;
      }
      case 'currency': {
        const set = indexSet(snapshot.currencies.values, criterion.currencies);
        pieceTests.push((p, i) => test(set.has(records.currency[p.record[i] as number] as number)));
        break;
      }
      case 'payment_attribute': {
        const attribute = payments.attributes.find((a) => a.id === criterion.attributeId);
        if (!attribute) throw new FilterError(`unknown payment attribute '${criterion.attributeId}'`);
        const set = indexSet(attribute.values, criterion.values);
        pieceTests.push((p, i) => test(set.has(attribute.valueOf[records.payment[p.record[i] as number] as number] as number)));
        break;
      }
      case 'deal_owner': {
        const owners = new Set(criterion.ownerNames);
        const matching = new Set<number>();
        const { deals } = snapshot;
        for (let d = 0; d < deals.ownerNames.length; d++) {
          const owner = deals.ownerNames[d];
          const customer = deals.customer[d];
          if (owner !== null && owner !== undefined && owners.has(owner) && customer !== undefined && customer >= 0) matching.add(customer);
        }
        pieceTests.push((p, i) => test(matching.has(records.customer[p.record[i] as number] as number)));
        break;
      }
      case 'segmentation':
        throw new FilterError(`segmentation '${criterion.segmentationId}' was not expanded`);
      case 'cost_attribute':
      case 'group':
        break;
    }
  }
  const all = filter.operator === 'and';
  // A piece's own result: null without criteria on lines or payments.
  const pieceResultOf = (i: number): boolean | null => {
    if (pieceTests.length === 0) return null;
    if (all) {
      for (const t of pieceTests) if (!t(pieces, i)) return false;
      return true;
    }
    for (const t of pieceTests) if (t(pieces, i)) return true;
    return false;
  };
  // With customer criteria, a piece whose own result does not decide is cut to its customer's matching days.
  const intervals = customerTests.length === 0 ? null : customerIntervals(snapshot, filter, customerTests, all);

  const { record: inRecord, line: inLine, unit: inUnit, start: inStart, end: inEnd, orig: inOrig } = pieces;
  // First pass: what becomes of each piece (DROP, WHOLE, or CUT to its customer's intervals), and how many pieces come out.
  const fate = new Uint8Array(pieces.count);
  let total = 0;
  for (let i = 0; i < pieces.count; i++) {
    const pieceResult = pieceResultOf(i);
    if (intervals === null) {
      // and: every criterion (none fails); or: one criterion.
      if (all ? pieceResult !== false : pieceResult === true) {
        fate[i] = WHOLE;
        total++;
      }
      continue;
    }
    if (all ? pieceResult === false : pieceResult === true) {
      if (!all) {
        fate[i] = WHOLE;
        total++;
      }
      continue;
    }
    // The customer's criteria decide, day by day: the piece's days inside its customer's matching intervals.
    const customer = records.customer[inRecord[i] as number] as number;
    if ((intervals.first[customer] as number) < 0) intervals.ensure(customer);
    const start = inStart[i] as number;
    const end = inEnd[i] as number;
    const { from, to } = intervals;
    for (let k = intervals.first[customer] as number, last = k + (intervals.count[customer] as number); k < last; k++) {
      if (Math.max(start, from[k] as number) < Math.min(end, to[k] as number)) {
        fate[i] = CUT;
        total++;
      }
    }
  }

  // Second pass: the pieces that come out, in arrays of their exact size.
  const out = emptyPieces(Math.max(16, total), pieces.unitCount);
  const { record: outRecord, line: outLine, unit: outUnit, start: outStart, end: outEnd, orig: outOrig } = out;
  let n = 0;
  const push = (i: number, start: number, end: number) => {
    outRecord[n] = inRecord[i] as number;
    outLine[n] = inLine[i] as number;
    outUnit[n] = inUnit[i] as number;
    outStart[n] = start;
    outEnd[n] = end;
    outOrig[n] = inOrig[i] as number;
    n++;
  };
  for (let i = 0; i < pieces.count; i++) {
    const what = fate[i] as number;
    if (what === DROP) continue;
    const start = inStart[i] as number;
    const end = inEnd[i] as number;
    if (what === WHOLE || intervals === null) {
      push(i, start, end);
      continue;
    }
    const customer = records.customer[inRecord[i] as number] as number;
    const { from, to } = intervals;
    for (let k = intervals.first[customer] as number, last = k + (intervals.count[customer] as number); k < last; k++) {
      const a = Math.max(start, from[k] as number);
      const b = Math.min(end, to[k] as number);
      if (a < b) push(i, a, b);
    }
  }
  out.count = n;
  indexUnits(out);
  return out;
}

const DROP = 0;
const WHOLE = 1;
const CUT = 2;

/**
 * Per customer, the days on which its customer criteria match (all of them for `and`, one for
 * `or`) as merged intervals [from, to), worked out on first use and kept with the filter (a
 * report's sections share one filter, so its MRR, revenue and freemium pieces share them).
 */
class CustomerIntervals {
  readonly first: Int32Array;
  readonly count: Int32Array;
  from: number[] = [];
  to: number[] = [];
  private open = false;

  constructor(
    readonly snapshot: AccountSnapshot,
    private readonly tests: readonly CustomerTest[],
    private readonly all: boolean,
  ) {
    this.first = new Int32Array(snapshot.customers.count).fill(-1);
    this.count = new Int32Array(snapshot.customers.count);
    if (tests.length === 1) this.fillSingle(tests[0] as CustomerTest);
  }

  /**
   * One criterion: every customer whose value comes from one customer's rows (no ancestor to
   * fall back on) at once, reading those rows in order; the others are left to `ensure`.
   */
  private fillSingle(test: CustomerTest): void {
    const { customers } = this.snapshot;
    const { rowStart, month, value, values } = test.segment;
    // Whether value index v matches, at v + 1 (0: no value).
    const matchOf = new Uint8Array(values.length + 1);
    for (let v = -1; v < values.length; v++) matchOf[v + 1] = test.values.has(v) !== test.negated ? 1 : 0;
    for (let customer = 0; customer < customers.count; customer++) {
      const source = singleSource(test.segment, customers, customer);
      if (source < 0) continue;
      this.first[customer] = this.from.length;
      this.open = false;
      // Before the first row: no value.
      this.step(DAY_NEVER_BEFORE, matchOf[0] === 1);
      for (let row = rowStart[source] as number; row < (rowStart[source + 1] as number); row++) {
        const m = month[row] as number;
        this.step(m === DAY_NEVER_BEFORE ? DAY_NEVER_BEFORE : firstDayOfMonth(m), matchOf[(value[row] as number) + 1] === 1);
      }
      this.count[customer] = this.from.length - (this.first[customer] as number);
    }
  }

  ensure(customer: number): void {
    if ((this.first[customer] as number) >= 0) return;
    const { customers } = this.snapshot;
    this.first[customer] = this.from.length;
    this.open = false;
    const months = new Set<number>();
    for (const t of this.tests) for (const month of valueChangeMonths(t.segment, customers, customer)) months.add(month);
    const sorted = [...months].sort((a, b) => a - b);
    for (const month of sorted) {
      let result = this.all;
      for (const t of this.tests) {
        if ((t.values.has(valueAt(t.segment, customers, customer, month)) !== t.negated) !== this.all) {
          result = !this.all;
          break;
        }
      }
      this.step(month === DAY_NEVER_BEFORE ? DAY_NEVER_BEFORE : firstDayOfMonth(month), result);
    }
    this.count[customer] = this.from.length - (this.first[customer] as number);
  }

  /** The criteria's result from `day` on (days ascending): opens or closes the customer's last interval. */
  private step(day: number, result: boolean): void {
    if (result && !this.open) {
      this.from.push(day);
      this.to.push(OPEN_END);
      this.open = true;
    } else if (!result && this.open) {
      this.to[this.to.length - 1] = day;
      this.open = false;
    }
  }
}

/** The one customer whose rows give `customer` its value (customerAttributes.ts `valueAt`), or -1 when ancestors may fill in. */
function singleSource(segment: CustomerSegmentColumns, customers: AccountSnapshot['customers'], customer: number): number {
  switch (segment.valueSource) {
    case 'children':
      return customer;
    case 'parent':
      return customers.topParent[customer] as number;
    case 'parent_and_children':
      return (customers.parent[customer] as number) < 0 ? customer : -1;
  }
}

/** Beyond every day: an interval that stays open. */
const OPEN_END = 2 ** 31 - 1;

const intervalsByFilter = new WeakMap<ReportFilter, CustomerIntervals>();

function customerIntervals(snapshot: AccountSnapshot, filter: ReportFilter, tests: readonly CustomerTest[], all: boolean): CustomerIntervals {
  let intervals = intervalsByFilter.get(filter);
  if (!intervals || intervals.snapshot !== snapshot) {
    intervals = new CustomerIntervals(snapshot, tests, all);
    intervalsByFilter.set(filter, intervals);
  }
  return intervals;
}

/** A filter with group criteria (`and` only): each group applied in turn, then the other criteria. */
function applyGroups(snapshot: AccountSnapshot, pieces: MrrPieces, filter: ReportFilter): MrrPieces {
  if (filter.operator !== 'and') throw new FilterError('a filter group can only be combined with and');
  let out = pieces;
  const rest: FilterCriterion[] = [];
  for (const criterion of filter.criteria) {
    if (criterion.kind !== 'group') {
      rest.push(criterion);
      continue;
    }
    if (criterion.negated === true) throw new FilterError('a filter group cannot be negated');
    if (criterion.filter.criteria.length > 0) out = applyReportFilter(snapshot, out, criterion.filter);
  }
  return rest.length > 0 ? applyReportFilter(snapshot, out, { operator: 'and', criteria: rest }) : out;
}
