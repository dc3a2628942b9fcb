// The shared view-test project (isolate: false) keeps one module graph for all its files. A page
// is loaded lazily (src/routes.tsx) when a test first renders it; if the file that started that
// load ends before it finishes, vitest tears the environment down under it, the load fails, and
// React.lazy keeps the failure: every later file that shows the page then renders nothing (seen
// in CI as a whole file of empty pages). Loading every page before the first test of each file
// means a lazy page only ever resolves from modules already evaluated. The chart library, loaded
// lazily by every chart (src/reports/charts/LazyApexChart.tsx), likewise.
const lazyModules = import.meta.glob(['../../src/pages/*.tsx', '../../src/reports/charts/ApexChartView.tsx']);
await Promise.all(Object.values(lazyModules).map((load) => load()));
