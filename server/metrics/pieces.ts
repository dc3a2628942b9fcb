import { bridgeCoverageGaps } from './churnWindow';
import { versionWindow } from './corrections';
import { applyReportFilter, type ReportFilter } from './filters';
import { allocateProportionally } from './money';
import { emptyPieces, growPieces, indexUnits, type MrrPieces } from './pieceColumns';
import type { MetricsSettings } from './settings';
import { ITEM_METERED, ITEM_RECURRING } from './snapshot/rows';
import { type AccountSnapshot } from './snapshot/columns';

/**
 * Builds the MRR pieces of a computation, in this order: versions in force (corrections) ->
 * excluded customers removed -> the unit (customer, or top-most parent with use_hierarchy) ->
 * sorted by (unit, start) -> churn-window bridging over the unit's whole coverage -> the
 * report filter (server/metrics/pieceColumns.ts describes a piece).
 */
export interface PieceOptions {
  settings: MetricsSettings;
  useHierarchy: boolean;
  today: number;
  filter?: ReportFilter | null;
}

function isSortedByUnitAndStart(pieces: MrrPieces): boolean {
  const { unit, start, count } = pieces;
  for (let i = 1; i < count; i++) {
    const du = (unit[i] as number) - (unit[i - 1] as number);
    if (du < 0 || (du === 0 && (start[i] as number) < (start[i - 1] as number))) return false;
  }
  return true;
}

/** Stable counting sort of the pieces by (unit, start). */
function sortByUnitAndStart(pieces: MrrPieces): void {
  const { count } = pieces;
  let minStart = Infinity;
  let maxStart = -Infinity;
  for (let i = 0; i < count; i++) {
    const s = pieces.start[i] as number;
    if (s < minStart) minStart = s;
    if (s > maxStart) maxStart = s;
  }
  const byStart = countingOrder(count, (i) => (pieces.start[i] as number) - minStart, maxStart - minStart + 1, null);
  const order = countingOrder(count, (i) => pieces.unit[i] as number, pieces.unitCount, byStart);
  const gather = <T extends Int32Array | Float64Array>(column: T): T => {
    const out = column.slice(0, count) as T;
    for (let k = 0; k < count; k++) out[k] = column[order[k] as number] as number;
    return out;
  };
  pieces.record = gather(pieces.record);
  pieces.line = gather(pieces.line);
  pieces.unit = gather(pieces.unit);
  pieces.start = gather(pieces.start);
  pieces.end = gather(pieces.end);
  pieces.orig = gather(pieces.orig);
}

function countingOrder(count: number, key: (i: number) => number, keyCount: number, input: Int32Array | null): Int32Array {
  const counts = new Int32Array(keyCount + 1);
  for (let i = 0; i < count; i++) {
    const slot = key(i) + 1;
    counts[slot] = (counts[slot] as number) + 1;
  }
  for (let k = 0; k < keyCount; k++) counts[k + 1] = (counts[k + 1] as number) + (counts[k] as number);
  const out = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    const i = input ? (input[k] as number) : k;
    const slot = key(i);
    out[counts[slot] as number] = i;
    counts[slot] = (counts[slot] as number) + 1;
  }
  return out;
}

export function buildMrrPieces(snapshot: AccountSnapshot, options: PieceOptions): MrrPieces {
  const { records, lines, customers } = snapshot;
  const { settings } = options;
  const handling = settings.correctionsHandling;
  const countsMetered = settings.includeMeteredInMrr;
  const forever = settings.subtractForeverDiscount;
  const finite = settings.subtractFiniteDiscount;
  const { customer: recordCustomer, startDay, endDay, recurringMonthly, meteredMonthly, discountForeverMonthly, discountFiniteMonthly, discountFiniteEndDay, lineStart } = records;
  const { included, topParent } = customers;
  const window = { from: 0, to: 0 };

  let pieces = emptyPieces(lines.count, customers.count);
  let weights = new Float64Array(16);
  let shares = new Float64Array(16);
  let lineOf = new Int32Array(16);
  let n = 0;

  /** Pieces of record r over [from, to) with the record's MRR `mrr` (before the split between its lines). */
  const addSpan = (r: number, unit: number, from: number, to: number, mrr: number) => {
    if (!(mrr > 0) || from >= to) return;
    const firstLine = lineStart[r] as number;
    const lastLine = lineStart[r + 1] as number;
    if (n + lastLine - firstLine > pieces.record.length) {
      pieces.count = n;
      while (n + lastLine - firstLine > pieces.record.length) pieces = growPieces(pieces);
    }
    if (lastLine - firstLine === 1) {
      // The common case: one item, which carries the whole MRR.
      pieces.record[n] = r;
      pieces.line[n] = firstLine;
      pieces.unit[n] = unit;
      pieces.start[n] = from;
      pieces.end[n] = to;
      pieces.orig[n] = mrr;
      n++;
      return;
    }
    if (lastLine - firstLine > weights.length) {
      weights = new Float64Array(lastLine - firstLine);
      shares = new Float64Array(lastLine - firstLine);
      lineOf = new Int32Array(lastLine - firstLine);
    }
    let counted = 0;
    for (let l = firstLine; l < lastLine; l++) {
      const type = lines.type[l] as number;
      if (type === ITEM_RECURRING || (countsMetered && type === ITEM_METERED)) {
        weights[counted] = Math.max(0, lines.monthly[l] as number);
        lineOf[counted] = l;
        counted++;
      }
    }
    allocateProportionally(mrr, weights, shares, counted);
    for (let j = 0; j < counted; j++) {
      const share = shares[j] as number;
      if (!(share > 0)) continue;
      pieces.record[n] = r;
      pieces.line[n] = lineOf[j] as number;
      pieces.unit[n] = unit;
      pieces.start[n] = from;
      pieces.end[n] = to;
      pieces.orig[n] = share;
      n++;
    }
  };

  for (let r = 0; r < records.count; r++) {
    const customer = recordCustomer[r] as number;
    if (included[customer] !== 1) continue;
    versionWindow(records, r, handling, window);
    const from = Math.max(startDay[r] as number, window.from);
    const to = Math.min(endDay[r] as number, window.to);
    if (from >= to) continue;
    const base = (recurringMonthly[r] as number) + (countsMetered ? (meteredMonthly[r] as number) : 0);
    const mrr = base - (forever ? (discountForeverMonthly[r] as number) : 0);
    const unit = options.useHierarchy ? (topParent[customer] as number) : customer;
    const finiteDiscount = finite ? (discountFiniteMonthly[r] as number) : 0;
    // A finite discount with months applies until its end day, the payment's full MRR after it.
    const discountEnd = finiteDiscount !== 0 ? (discountFiniteEndDay[r] as number) : from;
    if (discountEnd >= to) addSpan(r, unit, from, to, mrr - finiteDiscount);
    else if (discountEnd <= from) addSpan(r, unit, from, to, mrr);
    else {
      addSpan(r, unit, from, discountEnd, mrr - finiteDiscount);
      addSpan(r, unit, discountEnd, to, mrr);
    }
  }
  pieces.count = n;
  if (!isSortedByUnitAndStart(pieces)) sortByUnitAndStart(pieces);
  indexUnits(pieces);
  bridgeCoverageGaps(pieces, settings.churnWindowDays, options.today);
  return options.filter && options.filter.criteria.length > 0 ? applyReportFilter(snapshot, pieces, options.filter) : pieces;
}
