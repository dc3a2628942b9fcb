import type { Converter } from './currency';
import { roundHalfEven } from './money';
import { dayPositions, periodLastDay, periodOfDay, positionAtOrAfter, type DayPositions, type Timeline } from './periods';
import type { MrrPieces } from './pieceColumns';
import type { RecordColumns } from './snapshot/columns';

/**
 * MRR at every period's measure day (METRICS.md sections 2 and 3) of one row: a counted unit
 * (customer, or top-most parent with use_hierarchy), or a unit's share in one segment of a
 * payment attribute. Rows are filled one at a time into buffers of one timeline's length, so
 * a whole report streams through the units without customers x periods intermediates.
 *
 * A piece covering [start, end) holds MRR at the positions t with start <= measureDay[t] < end,
 * a contiguous run [atOrAfter(start), atOrAfter(end)). Each piece is converted into the report
 * currency and rounded to whole minor units on its own (half to even), so every sum of pieces
 * (a unit, a segment, the total) is exact:
 * - subscription_started_at: one rate per piece, so a difference array over the positions
 *   (+a at the first, -a after the last) and one prefix sum: O(pieces + periods) per row;
 * - beginning_of_month and account: the rate depends on the measure day, so each covered
 *   position gets its own converted amount: O(covered positions) per row.
 */

export const NO_CURRENCY = -1;
export const MIXED_CURRENCIES = -2;

export interface MrrRow {
  /** Positions outside [lo, hi) hold 0 (so a unit that paid for a year costs a year, not the range). */
  lo: number;
  hi: number;
  /** MRR in whole minor units of the report currency, per position. */
  readonly value: Float64Array;
  /** MRR in whole minor units of the original currency, per position (when the builder keeps it). */
  readonly orig: Float64Array;
  /** The pieces' currency when they share one, NO_CURRENCY without pieces, else MIXED_CURRENCIES. */
  currency: number;
  /** With MIXED_CURRENCIES: the currency per position (NO_CURRENCY, or MIXED_CURRENCIES when several at once). */
  readonly cellCurrency: Int32Array;
  /** The row held MRR at some period end before the timeline. */
  paidBeforeTimeline: boolean;
}

export function createMrrRow(periods: number): MrrRow {
  return {
    lo: 0,
    hi: periods,
    value: new Float64Array(periods),
    orig: new Float64Array(periods),
    currency: NO_CURRENCY,
    cellCurrency: new Int32Array(periods),
    paidBeforeTimeline: false,
  };
}

/** The original currency of a row at a position: a currency index, NO_CURRENCY or MIXED_CURRENCIES. */
export function currencyAt(row: MrrRow, position: number): number {
  return row.currency === MIXED_CURRENCIES ? (row.cellCurrency[position] as number) : row.orig[position] !== 0 || row.value[position] !== 0 ? row.currency : NO_CURRENCY;
}

export class MrrRowBuilder {
  readonly periods: number;
  private readonly positions: DayPositions;
  private readonly firstMeasure: number;
  private readonly factorTables: Map<number, Float64Array> | null;

  constructor(
    private readonly pieces: MrrPieces,
    private readonly records: RecordColumns,
    private readonly timeline: Timeline,
    private readonly converter: Converter,
    /** Also fill `orig` (match_movements_by_currency needs it). */
    private readonly withOrig: boolean,
  ) {
    this.periods = timeline.length;
    this.positions = dayPositions(timeline);
    this.firstMeasure = timeline.length > 0 ? (timeline.measureDay[0] as number) : 0;
    this.factorTables = converter.mode === 'subscription_started_at' ? null : new Map();
  }

  /** Conversion factors per position for one currency (rates that depend on the measure day). */
  private factorTable(currency: number): Float64Array {
    const tables = this.factorTables as Map<number, Float64Array>;
    let table = tables.get(currency);
    if (!table) {
      table = new Float64Array(this.periods);
      for (let t = 0; t < this.periods; t++) {
        const day = this.timeline.measureDay[t] as number;
        table[t] = this.converter.factor(currency, this.converter.rateDay(day, day));
      }
      tables.set(currency, table);
    }
    return table;
  }

  /**
   * Fills `row` with the MRR of the pieces `list[k]` for k in [from, to), or of the pieces
   * [from, to) themselves when `list` is null.
   */
  fill(row: MrrRow, list: Int32Array | null, from: number, to: number): void {
    const P = this.periods;
    const { value, orig } = row;
    const { start, end, record } = this.pieces;
    const amounts = this.pieces.orig;
    const { currency: recordCurrency, startDay: recordStart } = this.records;
    const { firstMeasure, withOrig, converter } = this;
    const { base: dayBase, table: dayTable, length: positionCount } = this.positions;
    const lastOffset = dayTable.length;
    const perPosition = this.factorTables !== null;
    // Clear what the previous fill used: [lo, hi] (a difference array also writes at hi).
    const clearTo = Math.min(row.hi + 1, P);
    value.fill(0, row.lo, clearTo);
    orig.fill(0, row.lo, clearTo);
    let lo = P;
    let hi = 0;
    let rowCurrency = NO_CURRENCY;
    let paidBefore = false;

    for (let k = from; k < to; k++) {
      const i = list ? (list[k] as number) : k;
      const s = start[i] as number;
      const e = end[i] as number;
      if (s < firstMeasure && !paidBefore) paidBefore = paidAtEarlierPeriodEnd(this.pieces, this.records, this.converter, this.timeline, i);
      // positionAtOrAfter, inlined: this loop runs once per piece.
      const o0 = s - dayBase;
      const t0 = o0 <= 0 ? 0 : o0 >= lastOffset ? positionCount : (dayTable[o0] as number);
      const o1 = e - dayBase;
      const t1 = o1 <= 0 ? 0 : o1 >= lastOffset ? positionCount : (dayTable[o1] as number);
      if (t0 >= t1) continue;
      if (t0 < lo) lo = t0;
      if (t1 > hi) hi = t1;
      const r = record[i] as number;
      const currency = recordCurrency[r] as number;
      const amount = amounts[i] as number;
      if (perPosition) {
        const table = this.factorTable(currency);
        for (let t = t0; t < t1; t++) value[t] = (value[t] as number) + roundHalfEven(amount * (table[t] as number));
      } else {
        const converted = roundHalfEven(amount * converter.factor(currency, recordStart[r] as number));
        value[t0] = (value[t0] as number) + converted;
        if (t1 < P) value[t1] = (value[t1] as number) - converted;
      }
      if (withOrig) {
        orig[t0] = (orig[t0] as number) + amount;
        if (t1 < P) orig[t1] = (orig[t1] as number) - amount;
      }
      rowCurrency = rowCurrency === NO_CURRENCY || rowCurrency === currency ? currency : MIXED_CURRENCIES;
    }

    if (lo >= hi) {
      lo = 0;
      hi = 0;
    } else {
      if (!perPosition) prefixSum(value, lo, hi);
      if (withOrig) prefixSum(orig, lo, hi);
      if (hi < P) {
        value[hi] = 0;
        orig[hi] = 0;
      }
    }
    row.lo = lo;
    row.hi = hi;
    row.currency = rowCurrency;
    row.paidBeforeTimeline = paidBefore;
    if (rowCurrency === MIXED_CURRENCIES) this.fillCellCurrency(row, list, from, to);
  }

  private fillCellCurrency(row: MrrRow, list: Int32Array | null, from: number, to: number): void {
    const cells = row.cellCurrency;
    cells.fill(NO_CURRENCY);
    const { start, end, record } = this.pieces;
    for (let k = from; k < to; k++) {
      const i = list ? (list[k] as number) : k;
      const currency = this.records.currency[record[i] as number] as number;
      const t1 = positionAtOrAfter(this.positions, end[i] as number);
      for (let t = positionAtOrAfter(this.positions, start[i] as number); t < t1; t++) {
        const known = cells[t] as number;
        cells[t] = known === NO_CURRENCY || known === currency ? currency : MIXED_CURRENCIES;
      }
    }
  }
}

function prefixSum(values: Float64Array, from: number, to: number): void {
  let running = 0;
  for (let t = from; t < to; t++) {
    running += values[t] as number;
    values[t] = running;
  }
}

/** Every unit's MRR at every position: units x periods, row-major, whole minor units of the report currency. */
export interface MrrMatrix {
  readonly timeline: Timeline;
  /** Rows: customer indices (a unit's row holds its MRR; the rows of rolled-up children stay 0). */
  readonly units: number;
  readonly periods: number;
  readonly value: Float64Array;
}

/** The MRR matrix of all units (for callers that need MRR only; series stream through MrrRowBuilder). */
export function computeMrrMatrix(pieces: MrrPieces, records: RecordColumns, timeline: Timeline, converter: Converter): MrrMatrix {
  const builder = new MrrRowBuilder(pieces, records, timeline, converter, false);
  const P = timeline.length;
  const value = new Float64Array(pieces.unitCount * P);
  const row = createMrrRow(P);
  for (let unit = 0; unit < pieces.unitCount; unit++) {
    const first = pieces.unitStart[unit] as number;
    const last = pieces.unitStart[unit + 1] as number;
    if (first === last) continue;
    builder.fill(row, null, first, last);
    value.set(row.value.subarray(row.lo, row.hi), unit * P + row.lo);
  }
  return { timeline, units: pieces.unitCount, periods: P, value };
}

/** A unit's MRR at a position of the matrix. */
export function mrrAt(matrix: MrrMatrix, unit: number, position: number): number {
  return matrix.value[unit * matrix.periods + position] as number;
}

/**
 * The MRR piece `i` holds on `measure` in minor units of the report currency (rounded), or
 * its own amount when no rate goes back that far.
 */
export function pieceValueOn(pieces: MrrPieces, records: RecordColumns, converter: Converter, i: number, measure: number): number {
  const amount = pieces.orig[i] as number;
  const record = pieces.record[i] as number;
  const currency = records.currency[record] as number;
  if (currency === converter.reportCurrency) return amount;
  try {
    return roundHalfEven(amount * converter.factor(currency, converter.rateDay(records.startDay[record] as number, measure)));
  } catch {
    return amount;
  }
}

/**
 * Whether piece `i` holds MRR (a positive amount in the report currency, after rounding) at the
 * last day of some period before the timeline: what makes a later arrival a reactivation.
 */
export function paidAtEarlierPeriodEnd(pieces: MrrPieces, records: RecordColumns, converter: Converter, timeline: Timeline, i: number): boolean {
  const { resolution, firstIndex } = timeline;
  const end = pieces.end[i] as number;
  if (!((pieces.orig[i] as number) > 0)) return false;
  for (let period = periodOfDay(resolution, pieces.start[i] as number); period < firstIndex; period++) {
    const measure = periodLastDay(resolution, period);
    if (measure >= end) return false;
    if (pieceValueOn(pieces, records, converter, i, measure) > 0) return true;
  }
  return false;
}
