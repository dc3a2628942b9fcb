/** A report section's presentation: charts, cohort table, legend, empty states, error boundary. */
export { SectionChart } from './SectionChart';
export type { SectionChartProps } from './SectionChart';
export { CohortTable } from './CohortTable';
export { preloadApexChart } from './LazyApexChart';
export type { CohortTableProps } from './CohortTable';
export { ChartLegend } from './ChartLegend';
export type { ChartLegendProps, LegendItem } from './ChartLegend';
export { SectionEmptyState } from './SectionEmptyState';
export { SectionErrorBoundary, SECTION_RENDER_ERROR_MESSAGE } from './SectionErrorBoundary';
export { EMPTY_STATE_MESSAGES, sectionEmptyState, segmentToShow } from './sectionModel';
export type { EmptyStateKind, ReportSection, SectionPointInfo } from './sectionModel';
export * from './format';
export * from './legendSelection';
