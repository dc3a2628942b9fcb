import type { CorrectionsHandling } from '../../db/schema';
import { versionWindow } from '../corrections';
import { applyReportFilter, type ReportFilter } from '../filters';
import { emptyPieces, growPieces, indexUnits, type MrrPieces } from '../pieceColumns';
import type { AccountSnapshot } from '../snapshot/columns';

/**
 * Payment lines as pieces (pieceColumns.ts) for the figures that are not MRR: revenue on a
 * payment's start day or over its coverage, and freemium coverage. They pass the same report
 * filter as MRR pieces (so a filtered revenue section matches its segment of the unfiltered
 * one), grouped by counted unit. `orig` is unused (0): the amounts come from the lines.
 */
export interface LinePieceOptions {
  useHierarchy: boolean;
  filter: ReportFilter | null;
  handling: CorrectionsHandling;
  /** Which lines (by item type code) become pieces. */
  keep: (itemType: number) => boolean;
  /** 'start': the start day only; 'coverage': the days the version covers and is in force. */
  span: 'start' | 'coverage';
}

export function buildLinePieces(snapshot: AccountSnapshot, options: LinePieceOptions): MrrPieces {
  const { records, lines, customers } = snapshot;
  const window = { from: 0, to: 0 };
  let pieces = emptyPieces(16, customers.count);
  for (let r = 0; r < records.count; r++) {
    const customer = records.customer[r] as number;
    if (customers.included[customer] !== 1) continue;
    versionWindow(records, r, options.handling, window);
    let from: number;
    let to: number;
    if (options.span === 'start') {
      from = records.startDay[r] as number;
      to = from + 1;
      if (!(window.from <= from && from < window.to)) continue;
    } else {
      from = Math.max(records.startDay[r] as number, window.from);
      to = Math.min(records.endDay[r] as number, window.to);
      if (from >= to) continue;
    }
    const unit = options.useHierarchy ? (customers.topParent[customer] as number) : customer;
    for (let l = records.lineStart[r] as number; l < (records.lineStart[r + 1] as number); l++) {
      if (!options.keep(lines.type[l] as number)) continue;
      if (pieces.count === pieces.record.length) pieces = growPieces(pieces);
      const n = pieces.count++;
      pieces.record[n] = r;
      pieces.line[n] = l;
      pieces.unit[n] = unit;
      pieces.start[n] = from;
      pieces.end[n] = to;
      pieces.orig[n] = 0;
    }
  }
  sortByUnit(pieces);
  indexUnits(pieces);
  return options.filter && options.filter.criteria.length > 0 ? applyReportFilter(snapshot, pieces, options.filter) : pieces;
}

/** Stable counting sort of the pieces by unit (records are sorted by customer, units differ with use_hierarchy). */
function sortByUnit(pieces: MrrPieces): void {
  const { count, unitCount } = pieces;
  let sorted = true;
  for (let i = 1; i < count && sorted; i++) sorted = (pieces.unit[i] as number) >= (pieces.unit[i - 1] as number);
  if (sorted) return;
  const slots = new Int32Array(unitCount + 1);
  for (let i = 0; i < count; i++) slots[(pieces.unit[i] as number) + 1] = (slots[(pieces.unit[i] as number) + 1] as number) + 1;
  for (let u = 0; u < unitCount; u++) slots[u + 1] = (slots[u + 1] as number) + (slots[u] as number);
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const u = pieces.unit[i] as number;
    order[slots[u] as number] = i;
    slots[u] = (slots[u] as number) + 1;
  }
  const gather = <T extends Int32Array | Float64Array>(column: T): T => {
    const out = column.slice() as T;
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
