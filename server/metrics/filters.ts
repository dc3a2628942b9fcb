import type { ItemType } from '../db/schema';
import { valueAt, valueChangeMonths } from './customerAttributes';
import { DAY_NEVER_BEFORE, firstDayOfMonth } from './days';
import { emptyPieces, growPieces, indexUnits, type MrrPieces } from './pieceColumns';
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
  | { kind: 'customer_segment'; segmentId: string; values: readonly string[]; negated?: boolean }
  | { kind: 'product'; productKeys: readonly string[]; negated?: boolean }
  | { kind: 'item_type'; itemTypes: readonly ItemType[]; negated?: boolean }
  | { kind: 'currency'; currencies: readonly string[]; negated?: boolean }
  | { kind: 'payment_attribute'; attributeId: string; values: readonly string[]; negated?: boolean };

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
  const { records, lines, payments, customers } = snapshot;
  const pieceTests: PieceTest[] = [];
  const customerTests: CustomerTest[] = [];
  for (const criterion of filter.criteria) {
    const negated = criterion.negated === true;
    const test = (result: boolean) => result !== negated;
    switch (criterion.kind) {
      case 'customer_segment': {
        const segment = snapshot.customerSegments.find((s) => s.id === criterion.segmentId);
        if (!segment) throw new FilterError(`unknown customer segment '${criterion.segmentId}'`);
        customerTests.push({ segment, values: indexSet(segment.values, criterion.values), negated });
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
    }
  }
  const all = filter.operator === 'and';
  const combine = (pieceResult: boolean | null, customerResults: boolean[]): boolean => {
    const results = pieceResult === null ? customerResults : [pieceResult, ...customerResults];
    return all ? results.every(Boolean) : results.some(Boolean);
  };

  let out = emptyPieces(Math.max(16, pieces.count), pieces.unitCount);
  const push = (i: number, start: number, end: number) => {
    if (out.count === out.record.length) out = growPieces(out);
    const n = out.count++;
    out.record[n] = pieces.record[i] as number;
    out.line[n] = pieces.line[i] as number;
    out.unit[n] = pieces.unit[i] as number;
    out.start[n] = start;
    out.end[n] = end;
    out.orig[n] = pieces.orig[i] as number;
  };

  // Customer criteria as constant stretches: [fromDay[k], fromDay[k + 1]) with results[k].
  let cachedCustomer = -1;
  let stretchDays: number[] = [];
  let stretchResults: boolean[][] = [];
  const stretchesOf = (customer: number) => {
    if (customer === cachedCustomer) return;
    cachedCustomer = customer;
    const months = new Set<number>();
    for (const t of customerTests) for (const month of valueChangeMonths(t.segment, customers, customer)) months.add(month);
    const sorted = [...months].sort((a, b) => a - b);
    stretchDays = sorted.map((month) => (month === DAY_NEVER_BEFORE ? DAY_NEVER_BEFORE : firstDayOfMonth(month)));
    stretchResults = sorted.map((month) => customerTests.map((t) => t.values.has(valueAt(t.segment, customers, customer, month)) !== t.negated));
  };

  for (let i = 0; i < pieces.count; i++) {
    const pieceResult = pieceTests.length === 0 ? null : all ? pieceTests.every((t) => t(pieces, i)) : pieceTests.some((t) => t(pieces, i));
    const start = pieces.start[i] as number;
    const end = pieces.end[i] as number;
    if (customerTests.length === 0) {
      if (combine(pieceResult, [])) push(i, start, end);
      continue;
    }
    stretchesOf(records.customer[pieces.record[i] as number] as number);
    let open = false;
    let openFrom = 0;
    let openTo = 0;
    for (let k = 0; k < stretchDays.length; k++) {
      const from = Math.max(start, stretchDays[k] as number);
      const to = Math.min(end, k + 1 < stretchDays.length ? (stretchDays[k + 1] as number) : end);
      if (from >= to || !combine(pieceResult, stretchResults[k] as boolean[])) continue;
      if (open && openTo === from) {
        openTo = to;
      } else {
        if (open) push(i, openFrom, openTo);
        open = true;
        openFrom = from;
        openTo = to;
      }
    }
    if (open) push(i, openFrom, openTo);
  }
  indexUnits(out);
  return out;
}
