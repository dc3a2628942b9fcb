import type { Converter } from '../currency';
import type { FilterCriterion, ReportFilter } from '../filters';
import { roundHalfEven } from '../money';
import type { Timeline } from '../periods';
import { groupOf, groupValues } from '../segments';
import type { AccountSnapshot } from '../snapshot/columns';
import { positionOfDay } from './plan';
import type { CostSegmenter } from './segmenters';

/**
 * Costs and CRM deals: flows by their day, each converted on its own at the rate of its day
 * (rounded half to even). Costs are not customers' data, so a report filter does not restrict
 * them (a custom series' cost criteria do); a cost segmenter splits them by a cost attribute ('Other' for costs without a value).
 * A deal counts in the period it entered its current stage, under that stage.
 */

export interface FlowContext {
  timeline: Timeline;
  converter: Converter;
  /** Its cost criteria (`cost_attribute`, top level, all of them) restrict costs; the rest is for customers and payments. */
  filter?: ReportFilter | null;
}

/** The cost criteria of a filter: what visitCosts tests (a custom section's series filter). */
export function costCriteria(filter: ReportFilter | null | undefined): Extract<FilterCriterion, { kind: 'cost_attribute' }>[] {
  return (filter?.criteria ?? []).filter((c): c is Extract<FilterCriterion, { kind: 'cost_attribute' }> => c.kind === 'cost_attribute');
}

/** A test of cost c for every cost criterion of the filter; null when there are none. */
function costTest(snapshot: AccountSnapshot, filter: ReportFilter | null | undefined): ((cost: number) => boolean) | null {
  const criteria = costCriteria(filter);
  if (criteria.length === 0) return null;
  const tests = criteria.map((criterion) => {
    const attribute = snapshot.costs.attributes.find((a) => a.id === criterion.attributeId);
    const wanted = new Set(criterion.values);
    const values = new Set<number>();
    attribute?.values.forEach((value, index) => {
      if (wanted.has(value)) values.add(index);
    });
    return (cost: number) => (attribute ? values.has(attribute.valueOf[cost] as number) : false) !== (criterion.negated === true);
  });
  return (cost) => tests.every((test) => test(cost));
}

export type FlowVisitor = (item: number, group: number, position: number, amount: number) => void;

function onTimeline(timeline: Timeline, day: number): number {
  return day > timeline.today ? -1 : positionOfDay(timeline, day);
}

export function visitCosts(snapshot: AccountSnapshot, context: FlowContext, segmenter: CostSegmenter | null, visit: FlowVisitor): readonly string[] {
  const { costs } = snapshot;
  let names: readonly string[] = ['Total'];
  let groupOfCost = (_cost: number) => 0;
  if (segmenter) {
    const attribute = costs.attributes.find((a) => a.id === segmenter.attributeId);
    const groups = groupValues(attribute ? attribute.values : [], segmenter.grouping);
    names = groups.names;
    groupOfCost = (cost) => groupOf(groups, attribute ? (attribute.valueOf[cost] as number) : -1);
  }
  const { converter, timeline } = context;
  const kept = costTest(snapshot, context.filter);
  for (let c = 0; c < costs.count; c++) {
    if (kept && !kept(c)) continue;
    const day = costs.day[c] as number;
    const t = onTimeline(timeline, day);
    if (t < 0) continue;
    const amount = roundHalfEven((costs.value[c] as number) * converter.factor(costs.currency[c] as number, converter.rateDay(day, day)));
    visit(c, groupOfCost(c), t, amount);
  }
  return names;
}

/** Deal stages in the order shown: alphabetical. */
export function dealStageOrder(snapshot: AccountSnapshot): number[] {
  const { stages } = snapshot.deals;
  return stages.map((_, k) => k).sort((a, b) => ((stages[a] as string) < (stages[b] as string) ? -1 : (stages[a] as string) > (stages[b] as string) ? 1 : 0));
}

/** Visits deals with their stage's position in `dealStageOrder` as the group. */
export function visitDeals(snapshot: AccountSnapshot, context: FlowContext, visit: FlowVisitor): readonly string[] {
  const { deals } = snapshot;
  const order = dealStageOrder(snapshot);
  const rank = new Int32Array(deals.stages.length);
  order.forEach((stage, k) => (rank[stage] = k));
  const { converter, timeline } = context;
  for (let d = 0; d < deals.count; d++) {
    const day = deals.day[d] as number;
    const t = onTimeline(timeline, day);
    if (t < 0) continue;
    const amount = roundHalfEven((deals.value[d] as number) * converter.factor(deals.currency[d] as number, converter.rateDay(day, day)));
    visit(d, rank[deals.stage[d] as number] as number, t, amount);
  }
  return order.map((stage) => deals.stages[stage] as string);
}

/** Per group g and position t (index g * P + t): the flow and the number of items. */
export interface FlowSums {
  names: readonly string[];
  value: Float64Array;
  count: Float64Array;
}

export function flowSums(P: number, run: (visit: FlowVisitor) => readonly string[]): FlowSums {
  const cells: [number, number, number][] = [];
  const names = run((_item, group, t, amount) => cells.push([group * P + t, amount, 1]));
  const out: FlowSums = { names, value: new Float64Array(names.length * P), count: new Float64Array(names.length * P) };
  for (const [cell, amount] of cells) {
    out.value[cell] = (out.value[cell] as number) + amount;
    out.count[cell] = (out.count[cell] as number) + 1;
  }
  return out;
}
