import { createConverter, type Converter } from './currency';
import { civilFromDay, dayFromIso, isoFromDay } from './days';
import { mrrOnDay } from './definitions/unitFigures';
import { LineRevenue } from './definitions/revenue';
import { buildTimeline, type Timeline } from './periods';
import type { MrrPieces } from './pieceColumns';
import { buildMrrPieces } from './pieces';
import { resolveMetricsSettings, type MetricsSettings, type ReportSettingsInput } from './settings';
import { ITEM_METERED, ITEM_ONE_TIME, ITEM_RECURRING } from './snapshot/rows';
import { type AccountSnapshot } from './snapshot/columns';

/**
 * Customer-level figures (METRICS.md section 10) for the customer drawer: MRR now, recognized
 * recurring revenue to date, one-time revenue to date, and a month-by-month timeline. A
 * customer's figures include its descendants (a parent shows its group), follow the same
 * rules as reports (an excluded customer, or one under an excluded parent, shows 0 with
 * `included: false`), and use the same revenue arithmetic as the recognized and one-time
 * revenue sections at monthly resolution: each month's portion of a payment converted on its
 * own, so the timeline's months add up to the totals.
 */
export interface CustomerMetricsOptions {
  /** 'YYYY-MM-DD'. */
  today: string;
  /** Default: the account currency. */
  currency?: string | null;
  reportSettings?: ReportSettingsInput;
}

export interface CustomerTimelinePoint {
  /** First day of the month. */
  date: string;
  metrics: {
    /** MRR at the month's last day (today in the current month). */
    mrr: number;
    /** Recurring revenue recognized in the month (metered too when the account counts it in MRR). */
    recognized_revenue: number;
    one_time_revenue: number;
    accrued_total: number;
    one_time_accrued_total: number;
  };
}

export interface CustomerMetrics {
  customer_id: string;
  currency: string;
  included: boolean;
  mrr: number;
  accrued_total: number;
  one_time_accrued_total: number;
  timeline: CustomerTimelinePoint[];
}

const piecesBySnapshot = new WeakMap<AccountSnapshot, Map<string, MrrPieces>>();

/** MRR pieces per customer (no hierarchy, no filter), remembered per snapshot and settings. */
export function customerPieces(snapshot: AccountSnapshot, settings: MetricsSettings, today: number): MrrPieces {
  let bySettings = piecesBySnapshot.get(snapshot);
  if (!bySettings) {
    bySettings = new Map();
    piecesBySnapshot.set(snapshot, bySettings);
  }
  const key = JSON.stringify([settings.subtractForeverDiscount, settings.subtractFiniteDiscount, today]);
  let pieces = bySettings.get(key);
  if (!pieces) {
    pieces = buildMrrPieces(snapshot, { settings, useHierarchy: false, today, filter: null });
    bySettings.set(key, pieces);
  }
  return pieces;
}

/** The customer and every descendant. */
export function subtreeOf(snapshot: AccountSnapshot, customer: number): number[] {
  const { parent, count } = snapshot.customers;
  const out: number[] = [];
  for (let c = 0; c < count; c++) {
    for (let at = c, steps = 0; at >= 0 && steps <= count; at = parent[at] as number, steps++) {
      if (at === customer) {
        out.push(c);
        break;
      }
    }
  }
  return out;
}

/** Records (payment rows) of a customer: records are sorted by customer. */
function recordsOf(snapshot: AccountSnapshot, customer: number): [number, number] {
  const { customer: of, count } = snapshot.records;
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((of[mid] as number) < customer) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < count && of[end] === customer) end++;
  return [lo, end];
}

/**
 * Recognized recurring and one-time revenue of some customers per month of a timeline:
 * current, not deleted payment rows, like the revenue sections.
 */
export function customerRevenue(snapshot: AccountSnapshot, converter: Converter, settings: MetricsSettings, timeline: Timeline, customers: readonly number[]): { recurring: Float64Array; oneTime: Float64Array } {
  const { records, lines } = snapshot;
  const recurring = new Float64Array(timeline.length);
  const oneTime = new Float64Array(timeline.length);
  const walker = new LineRevenue(snapshot, converter, timeline);
  const addRecurring = (t: number, amount: number) => (recurring[t] = (recurring[t] as number) + amount);
  const addOneTime = (t: number, amount: number) => (oneTime[t] = (oneTime[t] as number) + amount);
  for (const customer of customers) {
    if (snapshot.customers.included[customer] !== 1) continue;
    const [first, last] = recordsOf(snapshot, customer);
    for (let r = first; r < last; r++) {
      if (records.current[r] !== 1 || records.deleted[r] === 1) continue;
      for (let l = records.lineStart[r] as number; l < (records.lineStart[r + 1] as number); l++) {
        const type = lines.type[l] as number;
        if (type === ITEM_ONE_TIME) walker.onStartDay(r, l, addOneTime);
        else if (type === ITEM_RECURRING || (settings.includeMeteredInMrr && type === ITEM_METERED)) walker.spread(r, l, records.startDay[r] as number, records.endDay[r] as number, addRecurring);
      }
    }
  }
  return { recurring, oneTime };
}

/** A monthly timeline from the month of `fromDay` to today's month. */
export function monthlyTimeline(fromDay: number, today: number): Timeline {
  const from = civilFromDay(Math.min(fromDay, today));
  const to = civilFromDay(today);
  return buildTimeline({ resolution: 'month', range: { startYear: from.year, startMonth: from.month, endYear: to.year, endMonth: to.month }, today, lookback: 0 });
}

/** The first day any of the customers' payment rows starts (`fallback` when they have none). */
export function firstPaymentDay(snapshot: AccountSnapshot, customers: readonly number[], fallback: number): number {
  let first = fallback;
  for (const customer of customers) {
    const [from, to] = recordsOf(snapshot, customer);
    for (let r = from; r < to; r++) if ((snapshot.records.startDay[r] as number) < first) first = snapshot.records.startDay[r] as number;
  }
  return first;
}

/** Recognized recurring and one-time revenue of the customers up to `day` (inclusive). */
export function accruedTotals(snapshot: AccountSnapshot, converter: Converter, settings: MetricsSettings, customers: readonly number[], day: number): { accrued: number; oneTime: number } {
  const revenue = customerRevenue(snapshot, converter, settings, monthlyTimeline(firstPaymentDay(snapshot, customers, day), day), customers);
  return { accrued: revenue.recurring.reduce((sum, v) => sum + v, 0), oneTime: revenue.oneTime.reduce((sum, v) => sum + v, 0) };
}

/** Null when the customer is not in the snapshot (another account's id). */
export function computeCustomerMetrics(snapshot: AccountSnapshot, customerId: string, options: CustomerMetricsOptions): CustomerMetrics | null {
  const customer = snapshot.customers.index.get(customerId);
  if (customer === undefined) return null;
  const today = dayFromIso(options.today);
  const settings = resolveMetricsSettings(snapshot.account, { ...options.reportSettings, currency: options.currency ?? options.reportSettings?.currency ?? null });
  const converter = createConverter(snapshot, settings);
  const members = subtreeOf(snapshot, customer);
  const included = snapshot.customers.included[customer] === 1;
  const pieces = customerPieces(snapshot, settings, today);
  const timeline = monthlyTimeline(firstPaymentDay(snapshot, members, today), today);
  const revenue = customerRevenue(snapshot, converter, settings, timeline, members);
  const points: CustomerTimelinePoint[] = [];
  let accrued = 0;
  let oneTimeAccrued = 0;
  for (let t = 0; t < timeline.length; t++) {
    const measure = timeline.measureDay[t] as number;
    accrued += revenue.recurring[t] as number;
    oneTimeAccrued += revenue.oneTime[t] as number;
    points.push({
      date: isoFromDay(timeline.firstDay[t] as number),
      metrics: {
        mrr: members.reduce((sum, member) => sum + mrrOnDay(snapshot, pieces, converter, member, measure), 0),
        recognized_revenue: revenue.recurring[t] as number,
        one_time_revenue: revenue.oneTime[t] as number,
        accrued_total: accrued,
        one_time_accrued_total: oneTimeAccrued,
      },
    });
  }
  return {
    customer_id: customerId,
    currency: settings.reportCurrency,
    included,
    mrr: members.reduce((sum, member) => sum + mrrOnDay(snapshot, pieces, converter, member, today), 0),
    accrued_total: accrued,
    one_time_accrued_total: oneTimeAccrued,
    timeline: points,
  };
}
