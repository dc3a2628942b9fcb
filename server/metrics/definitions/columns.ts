import { isoFromDay } from '../days';
import type { Timeline } from '../periods';
import type { DataCategory } from '../../db/schema';
import type { DataPoint, SeriesResult } from './types';

/**
 * A series before its data category is applied: functions of the timeline position giving
 * the money (`value`), the count and the quantity at that period, plus the retention ratio
 * where the definition has one. A data category then picks or transforms them (METRICS.md
 * section 7):
 * - values / counts / units: the money, the count, the quantity;
 * - month_over_month_growth: x(p) / x(p-1) - 1 of the definition's primary measure;
 * - month_over_month_retention: the definition's retention ratio;
 * - moving_average3: the mean of x(p-2), x(p-1), x(p).
 * Undefined numbers (a ratio over 0, a point before any data) are null.
 */
export type Measure = (position: number) => number | null;

export interface Columns {
  value?: Measure;
  count?: Measure;
  quantity?: Measure;
  retention?: Measure;
}

export type Primary = 'value' | 'count' | 'quantity';

export function primaryOf(firstCategory: DataCategory): Primary {
  return firstCategory === 'counts' ? 'count' : firstCategory === 'units' ? 'quantity' : 'value';
}

export function ratio(numerator: number | null, denominator: number | null): number | null {
  return numerator === null || denominator === null || denominator === 0 ? null : numerator / denominator;
}

/** The number a data category shows at a position. */
export function categoryValue(columns: Columns, category: DataCategory, primary: Primary, t: number): number | null {
  const measure = (key: Primary) => columns[key]?.(t) ?? null;
  const x = columns[primary];
  switch (category) {
    case 'values':
      return measure('value');
    case 'counts':
      return measure('count');
    case 'units':
      return measure('quantity');
    case 'month_over_month_retention':
      return columns.retention ? columns.retention(t) : null;
    case 'month_over_month_growth': {
      if (!x || t < 1) return null;
      const before = x(t - 1);
      const now = x(t);
      return now === null || before === null || before === 0 ? null : now / before - 1;
    }
    case 'moving_average3': {
      if (!x || t < 2) return null;
      const values = [x(t - 2), x(t - 1), x(t)];
      return values.some((v) => v === null) ? null : (values as number[]).reduce((sum, v) => sum + v, 0) / 3;
    }
  }
}

export function dataPoint(columns: Columns, category: DataCategory, primary: Primary, timeline: Timeline, t: number): DataPoint {
  const point: DataPoint = { time: isoFromDay(timeline.firstDay[t] as number), value: categoryValue(columns, category, primary, t) };
  if (category === 'values' || category === 'counts' || category === 'units') {
    const count = columns.count?.(t);
    if (count !== undefined && count !== null) point.count = count;
  }
  if (category === 'units') {
    const quantity = columns.quantity?.(t);
    if (quantity !== undefined && quantity !== null) point.quantity = quantity;
  }
  return point;
}

/** A series over the positions [from, timeline.length). */
export function seriesOf(name: string, columns: Columns, category: DataCategory, primary: Primary, timeline: Timeline, from: number, extra: Partial<SeriesResult> = {}): SeriesResult {
  const data_points: DataPoint[] = [];
  for (let t = from; t < timeline.length; t++) data_points.push(dataPoint(columns, category, primary, timeline, t));
  return { name, ...extra, data_points };
}
