import { lazy, Suspense } from 'react';
import type { ComponentType } from 'react';
import { Skeleton } from '@mantine/core';
import type { ApexChartProps } from './chartOptions';

/** What './ApexChartView' exports. */
interface ApexChartModule {
  default: ComponentType<ApexChartProps>;
}

let loading: Promise<ApexChartModule> | null = null;

/**
 * Starts downloading the chart library (once). The report page calls it as it starts loading
 * the report, so the library arrives alongside the data instead of after the first section
 * asks for it.
 */
export function preloadApexChart(): Promise<ApexChartModule> {
  loading ??= import('./ApexChartView').catch((error: unknown) => {
    // A failed download may be tried again (the next section that asks).
    loading = null;
    throw error;
  });
  return loading;
}

const ApexChartView = lazy(preloadApexChart);

/**
 * The chart's box: its height fixed and its layout contained (`contain: size layout style`), so
 * the text ApexCharts measures while drawing (getBoundingClientRect/getBBox of every label)
 * lays out this box only, not the whole report around it: drawing a chart on a 20-section page
 * costs what it costs on an empty one.
 */
const containedBox = (height: number) => ({ height, contain: 'size layout style' }) as const;

/** The chart, loaded on first use; a skeleton of the chart's height while its code downloads. */
export function LazyApexChart(props: ApexChartProps) {
  return (
    <div style={containedBox(props.height)}>
      <Suspense fallback={<Skeleton height={props.height} radius="md" data-testid="chart-skeleton" />}>
        <ApexChartView {...props} />
      </Suspense>
    </div>
  );
}
