/**
 * The atoms of MRR. A piece is one payment line (an item that counts toward MRR) of one payment
 * version, over the days it counts: [start, end). Its `orig` is the line's share of the
 * payment's MRR in the payment's currency, whole minor units per month:
 *
 *   payment MRR = max(0, recurring (+ metered when the account includes it)
 *                       - forever discounts (when subtracted) - finite discounts (when subtracted))
 *
 * split between its lines in proportion to their monthly amounts (largest remainder). A
 * discount belongs to its payment, so it can cancel that payment's MRR but never another's;
 * the customer's MRR (the sum) is therefore never below zero, and any split of a customer's
 * MRR into segments adds up. Pieces with no MRR (0 after discounts, freemium, one-time) are
 * left out: they are not paid coverage.
 */
export interface MrrPieces {
  count: number;
  /** Customer index of the counted unit: the customer, or its top-most parent. */
  readonly unitCount: number;
  /** The payment version (its customer, currency and start day, whose rates convert it under subscription_started_at). */
  record: Int32Array;
  line: Int32Array;
  unit: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** Monthly MRR in minor units of the record's currency. */
  orig: Float64Array;
  /** Pieces of unit u are [unitStart[u], unitStart[u + 1]). */
  unitStart: Int32Array;
}

export function emptyPieces(capacity: number, unitCount: number): MrrPieces {
  return {
    count: 0,
    unitCount,
    record: new Int32Array(capacity),
    line: new Int32Array(capacity),
    unit: new Int32Array(capacity),
    start: new Int32Array(capacity),
    end: new Int32Array(capacity),
    orig: new Float64Array(capacity),
    unitStart: new Int32Array(unitCount + 1),
  };
}

/** Recomputes `unitStart` from `unit` (pieces must be grouped by unit in ascending unit order). */
export function indexUnits(pieces: MrrPieces): void {
  const { unitStart, unit, count } = pieces;
  unitStart.fill(0);
  for (let i = 0; i < count; i++) {
    const slot = (unit[i] as number) + 1;
    unitStart[slot] = (unitStart[slot] as number) + 1;
  }
  for (let u = 0; u < pieces.unitCount; u++) unitStart[u + 1] = (unitStart[u + 1] as number) + (unitStart[u] as number);
}

/** The same pieces in arrays twice as large (for filters that split pieces). */
export function growPieces(pieces: MrrPieces): MrrPieces {
  const bigger = emptyPieces(Math.max(16, pieces.record.length * 2), pieces.unitCount);
  bigger.count = pieces.count;
  bigger.record.set(pieces.record);
  bigger.line.set(pieces.line);
  bigger.unit.set(pieces.unit);
  bigger.start.set(pieces.start);
  bigger.end.set(pieces.end);
  bigger.orig.set(pieces.orig);
  return bigger;
}
