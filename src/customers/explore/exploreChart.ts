import type { ApexOptions } from 'apexcharts';
import { CHART_ANIMATION_MS, EXPLORE_GROWTH_BUCKETS, EXPLORE_REFERENCE_LINES_MONTHS, type ExploreYAxis } from '../../../models/constants';
import type { ApexChartProps, ChartColors } from '../../reports/charts/chartOptions';
import { formatMoney, formatNumber, formatPercent } from '../../reports/charts/format';
import type { ExploreCustomer, ExploreGrowthBucket } from './exploreApi';
import { prefersReducedMotion } from '../../reports/charts/motion';

/** The y axis options as the page names them (spec: the four explore options). */
export const EXPLORE_Y_AXIS_LABELS: Record<ExploreYAxis, string> = {
  new_mrr_when_occurred: 'New MRR when occurred',
  accrued_total: 'Accrued total',
  growth_since_start: 'Growth since start',
  mrr: 'MRR',
};

/** The x axis reaches past the last reference line, so every line shows, in steps of half a year. */
const X_AXIS_STEP_MONTHS = 6;
const X_AXIS_MIN_MAX = Math.max(...EXPLORE_REFERENCE_LINES_MONTHS) + X_AXIS_STEP_MONTHS;
const MARKER_SIZE = 6;

/** A customer's y value on the axis chosen; growth in percent; null: not plotted (growth from 0). */
export function exploreYValue(item: ExploreCustomer, axis: ExploreYAxis): number | null {
  if (axis === 'growth_since_start') return item.growth_since_start === null ? null : Math.round(item.growth_since_start * 10_000) / 100;
  return item[axis];
}

/** A y value as the axis and tooltip show it. */
export function formatExploreY(value: number, axis: ExploreYAxis, currency: string, compact = false): string {
  return axis === 'growth_since_start' ? formatPercent(value / 100, compact ? 0 : 1, compact) : formatMoney(value, currency, compact ? 0 : 2, compact);
}

export interface ExploreSeries {
  bucket: ExploreGrowthBucket;
  /** The customers plotted, in the order of `points`. */
  customers: ExploreCustomer[];
  points: { x: number; y: number }[];
}

/**
 * One series per growth bucket, in the spec's order (every bucket, so the legend and the
 * colours stay put whichever buckets have customers): x months as a customer, y the axis
 * chosen. Customers without a y value (growth from a starting MRR of 0) are not plotted.
 */
export function exploreSeries(items: readonly ExploreCustomer[], axis: ExploreYAxis): ExploreSeries[] {
  return EXPLORE_GROWTH_BUCKETS.map((bucket) => {
    const customers = items.filter((item) => item.growth_bucket === bucket && exploreYValue(item, axis) !== null);
    return { bucket, customers, points: customers.map((item) => ({ x: item.months_being_customer, y: exploreYValue(item, axis) as number })) };
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface ExploreChartInput {
  series: readonly ExploreSeries[];
  /** The buckets shown (legend selection applied). */
  shown: ReadonlySet<ExploreGrowthBucket>;
  axis: ExploreYAxis;
  currency: string;
  colors: ChartColors;
  bucketColor: (bucket: ExploreGrowthBucket) => string;
  height: number;
  onCustomerClick: (customerId: string) => void;
}

/** The scatter chart's props: reference lines at EXPLORE_REFERENCE_LINES_MONTHS, a click on a point names its customer. */
export function buildExploreChartProps({ series, shown, axis, currency, colors, bucketColor, height, onCustomerClick }: ExploreChartInput): ApexChartProps {
  const drawn = series.filter((entry) => shown.has(entry.bucket));
  const maxMonths = Math.max(0, ...series.flatMap((entry) => entry.points.map((point) => point.x)));
  const xMax = Math.max(X_AXIS_MIN_MAX, Math.ceil((maxMonths + 1) / X_AXIS_STEP_MONTHS) * X_AXIS_STEP_MONTHS);
  const customerAt = (seriesIndex: number, dataPointIndex: number) => drawn[seriesIndex]?.customers[dataPointIndex];
  const options: ApexOptions = {
    chart: {
      background: 'transparent',
      foreColor: colors.text,
      fontFamily: 'inherit',
      toolbar: { show: false },
      zoom: { enabled: false },
      animations: { enabled: !prefersReducedMotion(), speed: CHART_ANIMATION_MS },
      events: {
        dataPointSelection: (_event: unknown, _chart: unknown, options?: { seriesIndex: number; dataPointIndex: number }) => {
          const item = options ? customerAt(options.seriesIndex, options.dataPointIndex) : undefined;
          if (item) onCustomerClick(item.customer.id);
        },
      },
    },
    theme: { mode: colors.dark ? 'dark' : 'light' },
    colors: drawn.map((entry) => bucketColor(entry.bucket)),
    legend: { show: false },
    dataLabels: { enabled: false },
    grid: { borderColor: colors.grid, strokeDashArray: 3, xaxis: { lines: { show: false } } },
    markers: { size: MARKER_SIZE, strokeWidth: 1, strokeColors: colors.dark ? '#1a1b1e' : '#ffffff', hover: { sizeOffset: 2 } },
    states: { active: { filter: { type: 'none' } } },
    xaxis: {
      type: 'numeric',
      min: 0,
      max: xMax,
      tickAmount: xMax / X_AXIS_STEP_MONTHS,
      title: { text: 'Months being customer' },
      labels: { formatter: (value: string) => formatNumber(Number(value), 0) },
    },
    yaxis: {
      // Money starts at 0 (a point on the axis's edge is cut); growth may be negative.
      ...(axis === 'growth_since_start' ? {} : { min: 0 }),
      forceNiceScale: true,
      title: { text: EXPLORE_Y_AXIS_LABELS[axis] },
      labels: { formatter: (value: number) => formatExploreY(value, axis, currency, true) },
    },
    annotations: {
      xaxis: EXPLORE_REFERENCE_LINES_MONTHS.map((months) => ({
        x: months,
        borderColor: colors.text,
        strokeDashArray: 4,
        opacity: 0.5,
        label: { text: `${months} months`, orientation: 'horizontal', borderWidth: 0, style: { background: 'transparent', color: colors.text, fontSize: '11px' } },
      })),
    },
    tooltip: {
      theme: colors.dark ? 'dark' : 'light',
      shared: false,
      intersect: true,
      custom: ({ seriesIndex, dataPointIndex }: { seriesIndex: number; dataPointIndex: number }) => {
        const item = customerAt(seriesIndex, dataPointIndex);
        if (!item) return '';
        const y = exploreYValue(item, axis);
        return [
          '<div style="padding:6px 10px">',
          `<div style="font-weight:600">${escapeHtml(item.customer.name)}</div>`,
          `<div>${formatNumber(item.months_being_customer, 0)} months · ${escapeHtml(EXPLORE_Y_AXIS_LABELS[axis])}: ${y === null ? '–' : escapeHtml(formatExploreY(y, axis, currency))}</div>`,
          `<div style="opacity:.7">${escapeHtml(item.growth_bucket)}</div>`,
          '</div>',
        ].join('');
      },
    },
  };
  return { type: 'scatter', height, width: '100%', series: drawn.map((entry) => ({ name: entry.bucket, data: entry.points })), options };
}
