import ReactApexChart from 'react-apexcharts/core';
import 'apexcharts/line';
import 'apexcharts/bar';
import 'apexcharts/features/annotations';
import type { ApexChartProps } from './chartOptions';

/**
 * The only module that imports ApexCharts: `SectionChart` loads it with `React.lazy`, so pages
 * without charts (the report list, sign-in) never download the library. Per-type imports keep
 * the chunk to line and bar charts plus y-axis annotations (the reference line).
 */
export default function ApexChartView(props: ApexChartProps) {
  return <ReactApexChart {...props} />;
}
