import type { EXPLORE_GROWTH_BUCKETS } from '../../models/constants';
import { createConverter } from './currency';
import { accruedTotals } from './customerMetrics';
import { dayFromIso, wholeMonthsBetween } from './days';
import { planSection } from './definitions/plan';
import { firstPaidMeasureDay, mrrOnDay, runStartAt } from './definitions/unitFigures';
import { computeDetails, type DetailsRequest } from './details';
import type { PeriodResult } from './definitions/types';
import { buildMrrPieces } from './pieces';
import { resolveMetricsSettings } from './settings';
import type { AccountSnapshot } from './snapshot/columns';

/**
 * Explore (the scatter chart of customers behind a data point, METRICS.md section 10): for
 * every customer the point's drill-down lists, its months as a customer, its new MRR when it
 * occurred, its MRR, its recognized recurring revenue to date and its growth since start,
 * bucketed as the spec's explore buckets. "Now" is the point's measure day.
 */
export type ExploreGrowthBucket = (typeof EXPLORE_GROWTH_BUCKETS)[number];

export interface ExplorePoint {
  customer: { id: string; name: string; deleted: boolean };
  /** Whole months from the first day of the paid run that made it a customer to the measure day. */
  months_being_customer: number;
  /** MRR on that first day, minor units of the report currency. */
  new_mrr_when_occurred: number;
  /** MRR at the point's measure day. */
  mrr: number;
  /** Recognized recurring revenue up to the measure day. */
  accrued_total: number;
  /** mrr / new_mrr_when_occurred - 1; null when the starting MRR is 0. */
  growth_since_start: number | null;
  growth_bucket: ExploreGrowthBucket;
}

export interface ExploreResult {
  definition_id: string;
  period: PeriodResult;
  currency: string;
  points: ExplorePoint[];
}

/** The spec's buckets; growth is compared in whole percent (0.4 % is '0 %'). */
export function growthBucket(mrr: number, newMrr: number): ExploreGrowthBucket {
  if (mrr === 0) return 'Churned customers';
  if (newMrr === 0) return 'Starting MRR is 0';
  const percent = Math.round((mrr / newMrr - 1) * 100);
  if (percent === 0) return '0 %';
  if (percent < 0) return 'Negative growth';
  return percent <= 100 ? '1% - 100%' : '> 100%';
}

export type ExploreRequest = Omit<DetailsRequest, 'limit'>;

export function computeExplore(snapshot: AccountSnapshot, request: ExploreRequest): ExploreResult {
  const details = computeDetails(snapshot, { ...request, limit: Number.MAX_SAFE_INTEGER });
  const plan = planSection(snapshot, request);
  const settings = resolveMetricsSettings(snapshot.account, plan.settings);
  const converter = createConverter(snapshot, settings);
  const pieces = buildMrrPieces(snapshot, { settings, useHierarchy: plan.useHierarchy, today: plan.today, filter: plan.filter });
  const measure = dayFromIso(details.period.measure_day);
  const ids = new Set(details.items.flatMap((item) => item.details.top_customers.map((row) => row.id)));
  const { customers } = snapshot;
  const points: ExplorePoint[] = [];
  for (const id of ids) {
    const unit = customers.index.get(id);
    if (unit === undefined) continue;
    const paidDay = firstPaidMeasureDay(pieces, unit, plan.resolution, plan.today);
    const start = paidDay < 0 ? -1 : runStartAt(pieces, unit, paidDay);
    const newMrr = start < 0 ? 0 : mrrOnDay(snapshot, pieces, converter, unit, start);
    const mrr = mrrOnDay(snapshot, pieces, converter, unit, measure);
    const members = plan.useHierarchy ? unitMembers(snapshot, unit) : [unit];
    const accrued = accruedTotals(snapshot, converter, settings, members, measure).accrued;
    points.push({
      customer: { id, name: customers.names[unit] as string, deleted: customers.deleted[unit] === 1 },
      months_being_customer: start < 0 ? 0 : wholeMonthsBetween(start, measure),
      new_mrr_when_occurred: newMrr,
      mrr,
      accrued_total: accrued,
      growth_since_start: newMrr === 0 ? null : mrr / newMrr - 1,
      growth_bucket: growthBucket(mrr, newMrr),
    });
  }
  return { definition_id: details.definition_id, period: details.period, currency: details.currency, points };
}

/** The customers rolled up into a unit with use_hierarchy: those whose top-most parent it is. */
function unitMembers(snapshot: AccountSnapshot, unit: number): number[] {
  const out: number[] = [];
  for (let c = 0; c < snapshot.customers.count; c++) if (snapshot.customers.topParent[c] === unit) out.push(c);
  return out;
}
