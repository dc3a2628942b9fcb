import { lazy, Suspense } from 'react';
import { Skeleton } from '@mantine/core';
import type { ApexChartProps } from './chartOptions';

const ApexChartView = lazy(() => import('./ApexChartView'));

/** The chart, loaded on first use; a skeleton of the chart's height while its code downloads. */
export function LazyApexChart(props: ApexChartProps) {
  return (
    <Suspense fallback={<Skeleton height={props.height} radius="md" data-testid="chart-skeleton" />}>
      <ApexChartView {...props} />
    </Suspense>
  );
}
