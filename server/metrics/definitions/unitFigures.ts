import type { Converter } from '../currency';
import { roundHalfEven } from '../money';
import { periodLastDay, periodOfDay, type Resolution } from '../periods';
import type { MrrPieces } from '../pieceColumns';
import type { AccountSnapshot } from '../snapshot/columns';

/**
 * Figures of one counted unit read from its MRR pieces: the paid run (days of uninterrupted
 * coverage) that holds a day, and the unit's MRR on any day, converted exactly like the MRR
 * rows convert it (each piece on its own, rounded half to even).
 */

/** First day of the run of uninterrupted paid coverage that holds `day`; -1 when the unit does not pay on `day`. */
export function runStartAt(pieces: MrrPieces, unit: number, day: number): number {
  const first = pieces.unitStart[unit] as number;
  const last = pieces.unitStart[unit + 1] as number;
  let sorted = true;
  for (let i = first + 1; i < last && sorted; i++) sorted = (pieces.start[i] as number) >= (pieces.start[i - 1] as number);
  let order: number[] | null = null;
  if (!sorted) {
    order = [];
    for (let i = first; i < last; i++) order.push(i);
    order.sort((a, b) => (pieces.start[a] as number) - (pieces.start[b] as number));
  }
  let runStart = -1;
  let runEnd = -1;
  for (let k = 0; k < last - first; k++) {
    const i = order ? (order[k] as number) : first + k;
    const start = pieces.start[i] as number;
    if (start > day) break;
    const end = pieces.end[i] as number;
    if (start > runEnd) {
      runStart = start;
      runEnd = end;
    } else if (end > runEnd) {
      runEnd = end;
    }
  }
  return runStart >= 0 && day < runEnd ? runStart : -1;
}

/** The unit's MRR on `day` in minor units of the report currency. */
export function mrrOnDay(snapshot: AccountSnapshot, pieces: MrrPieces, converter: Converter, unit: number, day: number): number {
  const { records } = snapshot;
  let total = 0;
  for (let i = pieces.unitStart[unit] as number; i < (pieces.unitStart[unit + 1] as number); i++) {
    if ((pieces.start[i] as number) > day || day >= (pieces.end[i] as number)) continue;
    const r = pieces.record[i] as number;
    total += roundHalfEven((pieces.orig[i] as number) * converter.factor(records.currency[r] as number, converter.rateDay(records.startDay[r] as number, day)));
  }
  return total;
}

/**
 * New MRR when it occurred: the unit's MRR on the first day of the paid run that holds
 * `paidDay` (the measure day of the period in which it became a customer). Differs from its
 * MRR at that period's end when it changed plan within the period.
 */
export function newMrrWhenOccurred(snapshot: AccountSnapshot, pieces: MrrPieces, converter: Converter, unit: number, paidDay: number): { day: number; mrr: number } {
  const day = runStartAt(pieces, unit, paidDay);
  return day < 0 ? { day: -1, mrr: 0 } : { day, mrr: mrrOnDay(snapshot, pieces, converter, unit, day) };
}

/** Distinct product keys of the unit's pieces paying on `day` (optionally only the pieces of one segment). */
export function productsOnDay(snapshot: AccountSnapshot, pieces: MrrPieces, unit: number, day: number, inSegment?: (piece: number) => boolean): string[] {
  const keys = new Set<string>();
  for (let i = pieces.unitStart[unit] as number; i < (pieces.unitStart[unit + 1] as number); i++) {
    if ((pieces.start[i] as number) > day || day >= (pieces.end[i] as number) || (inSegment && !inSegment(i))) continue;
    const product = snapshot.lines.product[pieces.line[i] as number] as number;
    if (product >= 0) keys.add(snapshot.products.values[product] as string);
  }
  return [...keys].sort();
}

/** The payment paying most of the unit's MRR on `day` (its id), or null. */
export function mainPaymentOnDay(snapshot: AccountSnapshot, pieces: MrrPieces, unit: number, day: number, inSegment?: (piece: number) => boolean): string | null {
  let best = -1;
  let bestAmount = -1;
  for (let i = pieces.unitStart[unit] as number; i < (pieces.unitStart[unit + 1] as number); i++) {
    if ((pieces.start[i] as number) > day || day >= (pieces.end[i] as number) || (inSegment && !inSegment(i))) continue;
    if ((pieces.orig[i] as number) > bestAmount) {
      bestAmount = pieces.orig[i] as number;
      best = i;
    }
  }
  return best < 0 ? null : snapshot.payments.ids.get(snapshot.records.payment[pieces.record[best] as number] as number);
}

/**
 * The first period end (its measure day: the last day, today for the current period) at which
 * the unit paid: the day its cohort is measured on. -1 when it never held MRR at a period end.
 */
export function firstPaidMeasureDay(pieces: MrrPieces, unit: number, resolution: Resolution, today: number): number {
  let best = -1;
  for (let i = pieces.unitStart[unit] as number; i < (pieces.unitStart[unit + 1] as number); i++) {
    const start = pieces.start[i] as number;
    if (start > today) continue;
    const measure = Math.min(periodLastDay(resolution, periodOfDay(resolution, start)), today);
    if (measure < (pieces.end[i] as number) && (best < 0 || measure < best)) best = measure;
  }
  return best;
}
