import { roundHalfEven } from './money';
import { currencyAt, type MrrRow } from './mrr';

/**
 * MRR movements (METRICS.md section 4). For each row and period p: before = MRR at the end of
 * p-1, after = MRR at the end of p.
 *
 * | before | after                      | class        | amount         |
 * | 0      | > 0, never paid before p   | new business | after          |
 * | 0      | > 0, paid before p         | reactivation | after          |
 * | > 0    | 0                          | churn        | before         |
 * | > 0    | > before                   | expansion    | after - before |
 * | > 0    | 0 < after < before         | contraction  | before - after |
 *
 * "Paid before p" means the row held MRR at an earlier period end (of this resolution, in this
 * segment), including period ends before the timeline. A unit that starts and leaves inside
 * one period never holds MRR at a period end, so it shows nothing, and when it comes back
 * later that is its new business.
 *
 * With match_movements_by_currency, when a row's original currency is one and the same at both
 * ends, its change is (orig_after - orig_before) x rate_after, rounded half to even, where
 * rate_after = after / orig_after (the rate its MRR converts at, at the end of p); what is left
 * of after - before is fx_adjustment. Otherwise converted values are compared and there is no
 * fx series. For every period and group:
 *   MRR(p) - MRR(p-1) = new + expansion + reactivation - contraction - churn + fx_adjustment.
 */
export interface MovementBuffers {
  readonly groupCount: number;
  readonly periods: number;
  /** groupCount x periods, group-major. Movements at position 0 stay 0 (it has no before). */
  readonly mrr: Float64Array;
  /** Rows with MRR > 0. */
  readonly customers: Float64Array;
  readonly newBusiness: Float64Array;
  readonly expansion: Float64Array;
  readonly reactivation: Float64Array;
  readonly contraction: Float64Array;
  readonly churn: Float64Array;
  readonly fxAdjustment: Float64Array;
  readonly newCount: Float64Array;
  readonly expansionCount: Float64Array;
  readonly reactivationCount: Float64Array;
  readonly contractionCount: Float64Array;
  readonly churnCount: Float64Array;
}

export interface MovementOptions {
  matchMovementsByCurrency: boolean;
  /** Index of the report currency in the snapshot's currencies. */
  reportCurrency: number;
}

export function emptyMovementBuffers(groupCount: number, periods: number): MovementBuffers {
  const make = () => new Float64Array(groupCount * periods);
  return {
    groupCount,
    periods,
    mrr: make(),
    customers: make(),
    newBusiness: make(),
    expansion: make(),
    reactivation: make(),
    contraction: make(),
    churn: make(),
    fxAdjustment: make(),
    newCount: make(),
    expansionCount: make(),
    reactivationCount: make(),
    contractionCount: make(),
    churnCount: make(),
  };
}

/** Classifies rows one at a time into the series of their groups. */
export class MovementAccumulator {
  readonly buffers: MovementBuffers;
  private readonly P: number;
  private readonly matching: boolean;
  private readonly reportCurrency: number;
  private readonly paidIn: Uint8Array;
  private readonly touched: number[] = [];
  /** The change of a row that pays at both ends: movement, then fx. */
  private movement = 0;
  private fx = 0;

  constructor(groupCount: number, periods: number, options: MovementOptions) {
    this.buffers = emptyMovementBuffers(groupCount, periods);
    this.P = periods;
    this.matching = options.matchMovementsByCurrency;
    this.reportCurrency = options.reportCurrency;
    this.paidIn = new Uint8Array(groupCount);
  }

  /** Adds a row that belongs to one group at every position. */
  addRow(row: MrrRow, group: number): void {
    const { P } = this;
    const { value, orig, lo, hi } = row;
    if (lo >= hi) return;
    const { mrr, customers } = this.buffers;
    const matching = this.matching;
    const base = group * P;
    let paid = row.paidBeforeTimeline;
    let before = lo === 0 ? 0 : (value[lo - 1] as number);
    const last = Math.min(hi, P - 1);
    for (let t = lo; t <= last; t++) {
      const after = value[t] as number;
      const cell = base + t;
      if (after > 0) {
        mrr[cell] = (mrr[cell] as number) + after;
        customers[cell] = (customers[cell] as number) + 1;
      }
      // Position 0 has no "before": it only counts as a stock (and as having paid).
      if (t > 0 && (after !== 0 || before !== 0)) {
        if (before === 0) this.arrive(cell, after, paid);
        else if (after === 0) this.leave(cell, before);
        else if (after !== before || (matching && orig[t] !== orig[t - 1])) this.stay(row, t, cell, before, after);
      }
      if (after > 0) paid = true;
      before = after;
    }
  }

  /**
   * Adds a row whose group can change from one position to the next (a time-sensitive
   * customer attribute): leaving a group is churn there, entering one is new business or
   * reactivation there. `paidBeforeTimeline` holds keyBase + g for every group g the row paid
   * in at a period end before the timeline.
   */
  addRowByPosition(row: MrrRow, groupAt: Int32Array, paidBeforeTimeline: ReadonlySet<number>, keyBase: number): void {
    const { P, paidIn, touched } = this;
    const { value, lo, hi } = row;
    if (lo >= hi) return;
    for (let t = lo; t < hi; t++) this.stock((groupAt[t] as number) * P + t, value[t] as number);
    if (lo === 0 && (value[0] as number) > 0) this.markPaid(groupAt[0] as number);
    const last = Math.min(hi, P - 1);
    for (let t = lo === 0 ? 1 : lo; t <= last; t++) {
      const before = value[t - 1] as number;
      const after = value[t] as number;
      if (after === 0 && before === 0) continue;
      const group = groupAt[t] as number;
      const groupBefore = groupAt[t - 1] as number;
      if (group === groupBefore) {
        const cell = group * P + t;
        if (before === 0) this.arrive(cell, after, paidIn[group] === 1 || paidBeforeTimeline.has(keyBase + group));
        else if (after === 0) this.leave(cell, before);
        else if (after !== before || (this.matching && row.orig[t] !== row.orig[t - 1])) this.stay(row, t, cell, before, after);
      } else {
        if (before > 0) this.leave(groupBefore * P + t, before);
        if (after > 0) this.arrive(group * P + t, after, paidIn[group] === 1 || paidBeforeTimeline.has(keyBase + group));
      }
      if (after > 0) this.markPaid(group);
    }
    for (const g of touched) paidIn[g] = 0;
    touched.length = 0;
  }

  private markPaid(group: number): void {
    if (this.paidIn[group] === 0) {
      this.paidIn[group] = 1;
      this.touched.push(group);
    }
  }

  private stock(cell: number, mrr: number): void {
    if (mrr === 0) return;
    const out = this.buffers;
    out.mrr[cell] = (out.mrr[cell] as number) + mrr;
    if (mrr > 0) out.customers[cell] = (out.customers[cell] as number) + 1;
  }

  private arrive(cell: number, after: number, paidBefore: boolean): void {
    const out = this.buffers;
    if (paidBefore) {
      out.reactivation[cell] = (out.reactivation[cell] as number) + after;
      out.reactivationCount[cell] = (out.reactivationCount[cell] as number) + 1;
    } else {
      out.newBusiness[cell] = (out.newBusiness[cell] as number) + after;
      out.newCount[cell] = (out.newCount[cell] as number) + 1;
    }
  }

  private leave(cell: number, before: number): void {
    const out = this.buffers;
    out.churn[cell] = (out.churn[cell] as number) + before;
    out.churnCount[cell] = (out.churnCount[cell] as number) + 1;
  }

  private stay(row: MrrRow, t: number, cell: number, before: number, after: number): void {
    const out = this.buffers;
    this.split(row, t, before, after);
    const movement = this.movement;
    if (movement > 0) {
      out.expansion[cell] = (out.expansion[cell] as number) + movement;
      out.expansionCount[cell] = (out.expansionCount[cell] as number) + 1;
    } else if (movement < 0) {
      out.contraction[cell] = (out.contraction[cell] as number) - movement;
      out.contractionCount[cell] = (out.contractionCount[cell] as number) + 1;
    }
    if (this.fx !== 0) out.fxAdjustment[cell] = (out.fxAdjustment[cell] as number) + this.fx;
  }

  private split(row: MrrRow, t: number, before: number, after: number): void {
    if (this.matching) {
      const currency = currencyAt(row, t);
      if (currency >= 0 && currency !== this.reportCurrency && currencyAt(row, t - 1) === currency) {
        const origAfter = row.orig[t] as number;
        const origBefore = row.orig[t - 1] as number;
        const movement = roundHalfEven((origAfter - origBefore) * (after / origAfter));
        this.movement = movement;
        this.fx = after - before - movement;
        return;
      }
    }
    this.movement = after - before;
    this.fx = 0;
  }
}
