import type { ApexOptions } from 'apexcharts';
import { CHART_ANIMATION_MS, CHART_ASPECT_RATIO, CHART_HEIGHT_PX } from '../../../models/constants';
import { formatValue } from './format';
import { prefersReducedMotion } from './motion';
import type { ValueFormat } from './format';
import type { ChartModel, ChartSeriesModel, SectionPointInfo } from './sectionModel';

/** What the lazily loaded chart receives: exactly the props of react-apexcharts. */
export interface ApexChartProps {
  type: 'line' | 'bar' | 'scatter';
  /**
   * `type` per series only in a mixed chart (a stacked bar chart with its net drawn as a line);
   * a scatter chart's points are `{x, y}` (explore's customers).
   */
  series: { name: string; data: (number | null)[] | { x: number; y: number }[]; type?: 'line' | 'bar' }[];
  options: ApexOptions;
  height: number;
  width: string | number;
}

export interface ChartColors {
  dark: boolean;
  /** One colour per series of the segment (by position), kept when series are hidden. */
  palette: readonly string[];
  text: string;
  grid: string;
  reference: string;
}

/** A line's points are drawn as markers up to this many periods (two years of months). */
const MARKERS_MAX_POINTS = 24;
const MARKER_SIZE = 3;

/** At most this many x-axis labels; a 72-month chart labels every sixth month. */
const X_LABELS_MAX = 12;

/** Chart height: 400 px, or width / 1.9 when the chart is sized by a known width (slides). */
export function chartHeight(width?: number): number {
  return width && width > 0 ? Math.round(width / CHART_ASPECT_RATIO) : CHART_HEIGHT_PX;
}

interface BuildInput {
  sectionId: string;
  model: ChartModel;
  /** The series shown (legend selection applied), in the segment's order. */
  shown: readonly ChartSeriesModel[];
  format: ValueFormat;
  referenceValue: number | null;
  colors: ChartColors;
  width?: number;
  onPointClick?: (point: SectionPointInfo) => void;
  /** Called once ApexCharts has drawn the chart (its `mounted` event). */
  onDrawn?: () => void;
  /** At most this many x-axis labels (a narrow chart's); default X_LABELS_MAX. */
  maxXLabels?: number;
}

/** The series that sum the others (an MRR movement's net): drawn as a line over stacked bars, never stacked with them. */
export const isTotalOfOthers = (series: ChartSeriesModel) => series.source.component === 'net';

export function buildChartProps({ sectionId, model, shown, format, referenceValue, colors, width, onPointClick, onDrawn, maxXLabels = X_LABELS_MAX }: BuildInput): ApexChartProps {
  const height = chartHeight(width);
  const mixed = model.kind === 'stacked_bar_chart' && shown.some(isTotalOfOthers);
  const lineOf = (series: ChartSeriesModel) => model.kind === 'line_chart' || (mixed && isTotalOfOthers(series));
  const axisFormat: ValueFormat = { ...format, compact: true };
  const colourOf = (series: ChartSeriesModel) => colors.palette[model.series.indexOf(series) % colors.palette.length] as string;

  const pointAt = (seriesIndex: number, dataPointIndex: number): SectionPointInfo | null => {
    const series = shown[seriesIndex];
    const time = model.periodDays[dataPointIndex];
    if (!series || time === undefined) return null;
    return {
      sectionId,
      segmentId: model.segment.id,
      seriesName: series.source.name,
      ...(series.source.segment_value !== undefined ? { segmentValue: series.source.segment_value } : {}),
      ...(series.source.component !== undefined ? { component: series.source.component } : {}),
      time,
      value: series.data[dataPointIndex] ?? null,
    };
  };
  const handlePoint = (_event: MouseEvent, _chart?: unknown, options?: { seriesIndex: number; dataPointIndex: number }) => {
    if (!onPointClick || !options) return;
    const point = pointAt(options.seriesIndex, options.dataPointIndex);
    if (point) onPointClick(point);
  };

  const markerSize = model.categories.length > MARKERS_MAX_POINTS ? 0 : MARKER_SIZE;
  const options: ApexOptions = {
    chart: {
      background: 'transparent',
      foreColor: colors.text,
      fontFamily: 'inherit',
      stacked: model.kind === 'stacked_bar_chart',
      toolbar: { show: false },
      zoom: { enabled: false },
      animations: { enabled: !prefersReducedMotion(), speed: CHART_ANIMATION_MS },
      // A line's points are its markers; a marker click would also fire dataPointSelection,
      // so each kind listens to one event and a click reports once.
      events: {
        ...(!onPointClick ? {} : model.kind === 'line_chart' ? { markerClick: handlePoint } : { dataPointSelection: handlePoint, ...(mixed ? { markerClick: handlePoint } : {}) }),
        ...(onDrawn ? { mounted: () => onDrawn() } : {}),
      },
    },
    theme: { mode: colors.dark ? 'dark' : 'light' },
    colors: shown.map(colourOf),
    legend: { show: false },
    dataLabels: { enabled: false },
    stroke: model.kind === 'line_chart' ? { width: 2, curve: 'straight' } : mixed ? { width: shown.map((series) => (lineOf(series) ? 2 : 0)), curve: 'straight' } : { width: 0 },
    // Each point's marker is SVG ApexCharts builds and measures: past MARKERS_MAX_POINTS a line
    // shows its point on hover only.
    markers:
      model.kind === 'line_chart'
        ? { size: markerSize, hover: { size: MARKER_SIZE + 2 } }
        : mixed
          ? { size: shown.map((series) => (lineOf(series) ? markerSize : 0)), hover: { size: MARKER_SIZE + 2 } }
          : { size: 0 },
    plotOptions: { bar: { columnWidth: '60%' } },
    grid: { borderColor: colors.grid, strokeDashArray: 3 },
    xaxis: {
      categories: model.categories,
      tickPlacement: 'on',
      // Level labels, thinned to what fits (12 across for 72 months) instead of slanted ones
      // that leave a band of blank card under every chart.
      tickAmount: Math.min(model.categories.length - 1, Math.max(1, maxXLabels)),
      labels: { rotate: 0, hideOverlappingLabels: true, trim: false },
      axisBorder: { color: colors.grid },
      axisTicks: { color: colors.grid },
      tooltip: { enabled: false },
    },
    yaxis: {
      forceNiceScale: true,
      labels: { formatter: (value: number) => formatValue(value, axisFormat) },
    },
    tooltip: {
      theme: colors.dark ? 'dark' : 'light',
      shared: model.kind !== 'bar_chart',
      intersect: model.kind === 'bar_chart',
      x: { formatter: (_value: number, opts?: { dataPointIndex: number }) => model.periodLabels[opts?.dataPointIndex ?? -1] ?? '' },
      y: { formatter: (value: number) => formatValue(value, format) },
    },
    states: { active: { filter: { type: 'none' } } },
    annotations:
      referenceValue === null
        ? {}
        : {
            yaxis: [
              {
                y: referenceValue,
                borderColor: colors.reference,
                strokeDashArray: 6,
                label: {
                  text: formatValue(referenceValue, format),
                  borderColor: colors.reference,
                  style: { color: '#fff', background: colors.reference },
                },
              },
            ],
          },
  };

  return {
    // A mixed chart is typed 'line' with a type per series (ApexCharts' mixed charts).
    type: model.kind === 'line_chart' || mixed ? 'line' : 'bar',
    series: shown.map((series) => ({ name: series.name, data: series.data, ...(mixed ? { type: lineOf(series) ? ('line' as const) : ('bar' as const) } : {}) })),
    options,
    height,
    width: width ?? '100%',
  };
}
