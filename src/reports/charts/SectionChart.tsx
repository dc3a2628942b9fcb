import { memo, useEffect, useState } from 'react';
import { Stack } from '@mantine/core';
import { buildChartProps, chartHeight } from './chartOptions';
import { useChartColors } from './chartColors';
import { ChartLegend } from './ChartLegend';
import type { LegendItem } from './ChartLegend';
import { CohortTable } from './CohortTable';
import { isSeriesShown } from './legendSelection';
import type { LegendSelection } from './legendSelection';
import { LazyApexChart } from './LazyApexChart';
import { SectionEmptyState } from './SectionEmptyState';
import { chartModelOf, referenceValueOf, sectionEmptyState, segmentToShow, valueFormatOf } from './sectionModel';
import type { ReportSection, SectionPointInfo } from './sectionModel';

export interface SectionChartProps {
  section: ReportSection;
  /** The report setting display_quarters: Q1..Q4 axis labels. */
  displayQuarters?: boolean;
  /** The segment to draw; default: the first segmenter of the section, else the total. */
  segmentId?: string;
  /** Size the chart by width (height = width / 1.9), as slides do; default height 400 px. */
  width?: number;
  onPointClick?: (point: SectionPointInfo) => void;
  /** Called once what the section shows is on screen: the chart drawn, or the table or empty state rendered. */
  onDrawn?: () => void;
  /** At most this many x-axis labels, for a chart narrower than the report's (the section editor's preview). */
  maxXLabels?: number;
}

/**
 * A report section's chart: a line, bar or stacked bar chart of one segment's series with
 * its legend, a cohort table for cohort sections, or one of the spec's empty states
 * (`sectionEmptyState` says which). Purely presentational: the section comes as the server
 * answered it. Wrap it in `SectionErrorBoundary`. Memoised: ApexCharts redraws the whole chart
 * for new props, so a parent's re-render with the same section must not reach it.
 */
export const SectionChart = memo(function SectionChart({ section, displayQuarters = false, segmentId, width, onPointClick, onDrawn, maxXLabels }: SectionChartProps) {
  const colors = useChartColors();
  const [legend, setLegend] = useState<{ segmentId: string | null; selection: LegendSelection }>({ segmentId: null, selection: [] });

  const height = chartHeight(width);
  const empty = sectionEmptyState(section, { displayQuarters, segmentId });
  const { segment } = segmentToShow(section, segmentId);
  // ApexCharts says when it has drawn; a table or an empty state is there once rendered.
  const drawnByApex = !empty && segment !== null && section.data_type !== 'cohort';
  useEffect(() => {
    if (!drawnByApex) onDrawn?.();
  }, [drawnByApex, onDrawn]);
  if (empty || !segment) return <SectionEmptyState kind={empty ?? 'nothingFound'} height={height} />;

  if (section.data_type === 'cohort') return <CohortTable section={section} segment={segment} onPointClick={onPointClick} />;

  const model = chartModelOf(section, segment, displayQuarters);
  // A legend selection belongs to the segment it was made on.
  const selection = legend.segmentId === segment.id ? legend.selection : [];
  const shown = model.series.filter((series) => isSeriesShown(selection, series.key));
  const handleSelectionChange = (next: LegendSelection) => setLegend({ segmentId: segment.id, selection: next });

  const legendItems: LegendItem[] = model.series.map((series, index) => ({
    key: series.key,
    name: series.name,
    color: colors.palette[index % colors.palette.length] as string,
    ...(series.groupedNames.length > 0 ? { title: series.groupedNames.join(', ') } : {}),
  }));

  const chartProps = buildChartProps({
    sectionId: section.id,
    model,
    shown,
    format: valueFormatOf(section),
    referenceValue: referenceValueOf(section, model),
    colors,
    width,
    onPointClick,
    onDrawn,
    ...(maxXLabels === undefined ? {} : { maxXLabels }),
  });

  return (
    <Stack gap="xs">
      {legendItems.length > 1 && <ChartLegend items={legendItems} selection={selection} onSelectionChange={handleSelectionChange} />}
      <LazyApexChart {...chartProps} />
    </Stack>
  );
});
