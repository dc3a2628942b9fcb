import { createConverter, type Converter } from '../currency';
import type { ReportFilter } from '../filters';
import { createMrrRow, MrrRowBuilder, type MrrRow } from '../mrr';
import { MovementAccumulator, type MovementBuffers } from '../movements';
import type { Timeline } from '../periods';
import type { MrrPieces } from '../pieceColumns';
import { buildMrrPieces } from '../pieces';
import { CustomerGroupResolver, customerGroupsPaidBefore, pieceGroups, type Segmenter } from '../segments';
import { resolveMetricsSettings, type MetricsSettings, type ReportSettingsInput } from '../settings';
import type { AccountSnapshot } from '../snapshot/columns';

/**
 * The MRR engine's pass again, for drill-down: the same pieces, rows and movement
 * classification (MovementAccumulator, the very code the series come from), but after adding
 * each unit it reads what that unit added to the cells asked for. So the customers listed
 * behind a number add up to it by construction, and the accumulated buffers are the
 * section's series, from which the formulas' other inputs (denominators) are read.
 */

export interface UnitCellContext {
  snapshot: AccountSnapshot;
  settings: MetricsSettings;
  timeline: Timeline;
  converter: Converter;
  pieces: MrrPieces;
}

export function unitCellContext(
  snapshot: AccountSnapshot,
  options: { timeline: Timeline; reportSettings: ReportSettingsInput; useHierarchy: boolean; filter: ReportFilter | null },
): UnitCellContext {
  const settings = resolveMetricsSettings(snapshot.account, options.reportSettings);
  const { timeline } = options;
  return {
    snapshot,
    settings,
    timeline,
    converter: createConverter(snapshot, settings),
    pieces: buildMrrPieces(snapshot, { settings, useHierarchy: options.useHierarchy, today: timeline.today, filter: options.filter }),
  };
}

/** What one unit added to one cell (group, position) of every series. */
export interface CellContribution {
  group: number;
  position: number;
  mrr: number;
  customers: number;
  newBusiness: number;
  expansion: number;
  reactivation: number;
  contraction: number;
  churn: number;
  fx: number;
  newCount: number;
  expansionCount: number;
  reactivationCount: number;
  contractionCount: number;
  churnCount: number;
}

export interface UnitVisit {
  unit: number;
  /** The unit's MRR row (inside the segment for a payment attribute); reused for the next unit. */
  row: MrrRow;
  /** Group of the row at each position (customer attributes), or null when the row has one group. */
  groupAt: Int32Array | null;
  group: number;
  /** The pieces of the row, for a payment-attribute segment. */
  inSegment: ((piece: number) => boolean) | null;
  cells: CellContribution[];
}

const FIELDS = [
  ['mrr', 'mrr'],
  ['customers', 'customers'],
  ['newBusiness', 'newBusiness'],
  ['expansion', 'expansion'],
  ['reactivation', 'reactivation'],
  ['contraction', 'contraction'],
  ['churn', 'churn'],
  ['fx', 'fxAdjustment'],
  ['newCount', 'newCount'],
  ['expansionCount', 'expansionCount'],
  ['reactivationCount', 'reactivationCount'],
  ['contractionCount', 'contractionCount'],
  ['churnCount', 'churnCount'],
] as const satisfies readonly (readonly [Exclude<keyof CellContribution, 'group' | 'position'>, keyof MovementBuffers])[];

class CellWatcher {
  private before = new Float64Array(FIELDS.length * 4);
  private readonly watched: { group: number; position: number }[] = [];
  private readonly columns: readonly Float64Array[];

  constructor(private readonly buffers: MovementBuffers) {
    this.columns = FIELDS.map(([, buffer]) => buffers[buffer] as Float64Array);
  }

  watch(cells: { group: number; position: number }[]): void {
    this.watched.length = 0;
    for (const cell of cells) {
      if (cell.position < 0 || cell.position >= this.buffers.periods) continue;
      if (!this.watched.some((w) => w.group === cell.group && w.position === cell.position)) this.watched.push(cell);
    }
    const width = FIELDS.length;
    if (this.before.length < this.watched.length * width) this.before = new Float64Array(this.watched.length * width * 2);
    for (let k = 0; k < this.watched.length; k++) {
      const cell = this.watched[k] as { group: number; position: number };
      const index = cell.group * this.buffers.periods + cell.position;
      for (let f = 0; f < width; f++) this.before[k * width + f] = (this.columns[f] as Float64Array)[index] as number;
    }
  }

  /** What the row just added to each watched cell it touched. */
  contributions(): CellContribution[] {
    const out: CellContribution[] = [];
    const width = FIELDS.length;
    for (let k = 0; k < this.watched.length; k++) {
      const cell = this.watched[k] as { group: number; position: number };
      const index = cell.group * this.buffers.periods + cell.position;
      const delta = (f: number) => ((this.columns[f] as Float64Array)[index] as number) - (this.before[k * width + f] as number);
      const contribution: CellContribution = {
        group: cell.group,
        position: cell.position,
        mrr: delta(0),
        customers: delta(1),
        newBusiness: delta(2),
        expansion: delta(3),
        reactivation: delta(4),
        contraction: delta(5),
        churn: delta(6),
        fx: delta(7),
        newCount: delta(8),
        expansionCount: delta(9),
        reactivationCount: delta(10),
        contractionCount: delta(11),
        churnCount: delta(12),
      };
      let touched = false;
      for (let f = 0; f < width && !touched; f++) touched = delta(f) !== 0;
      if (touched) out.push(contribution);
    }
    return out;
  }
}

export interface UnitCellPass {
  /** Segment names: ['Total'] without a segmenter. */
  names: readonly string[];
  /** The accumulated series of every group (the section's numbers). */
  buffers: MovementBuffers;
}

/**
 * Runs the pass for the total (segmenter null) or one segmenter, calling `visit` after each
 * unit (and, for a payment attribute, each of its segment rows) with what it added at the
 * positions asked for (and the position before each, where a movement's "before" stands).
 */
export function visitUnitCells(context: UnitCellContext, segmenter: Segmenter | null, positions: readonly number[], visit: (v: UnitVisit) => void): UnitCellPass {
  const { snapshot, settings, timeline, converter, pieces } = context;
  const P = timeline.length;
  const withOrig = settings.matchMovementsByCurrency;
  const options = { matchMovementsByCurrency: withOrig, reportCurrency: converter.reportCurrency };
  const builder = new MrrRowBuilder(pieces, snapshot.records, timeline, converter, withOrig);
  const row = createMrrRow(P);
  /** A row adds to a cell at t only with MRR at t or t-1 (stock at t-1, t, or a movement at t). */
  const touches = (r: MrrRow) => positions.some((t) => (r.value[t] ?? 0) !== 0 || (t > 0 && (r.value[t - 1] ?? 0) !== 0));
  const none: CellContribution[] = [];
  const cellsAt = (group: (t: number) => number) => positions.flatMap((t) => [{ group: group(t), position: t }, { group: group(t - 1), position: t }, { group: group(t - 1), position: t - 1 }]);

  if (segmenter && segmenter.kind === 'customer_segment') {
    const resolver = new CustomerGroupResolver(snapshot, segmenter, timeline);
    const G = resolver.groups.names.length;
    const accumulator = new MovementAccumulator(G, P, options);
    const watcher = new CellWatcher(accumulator.buffers);
    const paidBefore = customerGroupsPaidBefore(snapshot, resolver.segment, resolver.groups, pieces, timeline, converter);
    const groupAt = new Int32Array(P);
    for (let unit = 0; unit < pieces.unitCount; unit++) {
      const first = pieces.unitStart[unit] as number;
      const last = pieces.unitStart[unit + 1] as number;
      if (first === last) continue;
      builder.fill(row, null, first, last);
      resolver.fill(unit, groupAt, 0, P);
      const watched = touches(row);
      if (watched) watcher.watch(cellsAt((t) => (t >= 0 ? (groupAt[t] as number) : 0)));
      accumulator.addRowByPosition(row, groupAt, paidBefore, unit * G);
      visit({ unit, row, groupAt, group: -1, inSegment: null, cells: watched ? watcher.contributions() : none });
    }
    return { names: resolver.groups.names, buffers: accumulator.buffers };
  }

  if (segmenter) {
    const { groups, groupOfPiece } = pieceGroups(snapshot, segmenter, pieces);
    const accumulator = new MovementAccumulator(groups.names.length, P, options);
    const watcher = new CellWatcher(accumulator.buffers);
    let list = new Int32Array(64);
    for (let unit = 0; unit < pieces.unitCount; unit++) {
      const first = pieces.unitStart[unit] as number;
      const last = pieces.unitStart[unit + 1] as number;
      if (first === last) continue;
      const seen: number[] = [];
      for (let i = first; i < last; i++) if (!seen.includes(groupOfPiece[i] as number)) seen.push(groupOfPiece[i] as number);
      for (const g of seen) {
        if (seen.length === 1) {
          builder.fill(row, null, first, last);
        } else {
          if (list.length < last - first) list = new Int32Array(last - first);
          let n = 0;
          for (let i = first; i < last; i++) if (groupOfPiece[i] === g) list[n++] = i;
          builder.fill(row, list, 0, n);
        }
        const watched = touches(row);
        if (watched) watcher.watch(cellsAt(() => g));
        accumulator.addRow(row, g);
        visit({ unit, row, groupAt: null, group: g, inSegment: (piece) => groupOfPiece[piece] === g, cells: watched ? watcher.contributions() : none });
      }
    }
    return { names: groups.names, buffers: accumulator.buffers };
  }

  const accumulator = new MovementAccumulator(1, P, options);
  const watcher = new CellWatcher(accumulator.buffers);
  for (let unit = 0; unit < pieces.unitCount; unit++) {
    const first = pieces.unitStart[unit] as number;
    const last = pieces.unitStart[unit + 1] as number;
    if (first === last) continue;
    builder.fill(row, null, first, last);
    const watched = touches(row);
    if (watched) watcher.watch(cellsAt(() => 0));
    accumulator.addRow(row, 0);
    visit({ unit, row, groupAt: null, group: 0, inSegment: null, cells: watched ? watcher.contributions() : none });
  }
  return { names: ['Total'], buffers: accumulator.buffers };
}
