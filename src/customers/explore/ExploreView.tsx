import { Anchor, Card, Group, SegmentedControl, Skeleton, Stack, Text, ThemeIcon, useMantineTheme } from '@mantine/core';
import { IconArrowLeft, IconChartDots3 } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useId, useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CHART_HEIGHT_PX, EXPLORE_DEFAULT_Y_AXIS, EXPLORE_GROWTH_BUCKETS, EXPLORE_Y_AXIS_OPTIONS, type ExploreYAxis } from '../../../models/constants';
import { useApi } from '../../api/ApiContext';
import { queryState } from '../../api/queries';
import { PageHeader } from '../../components/PageHeader';
import { ChartLegend } from '../../reports/charts/ChartLegend';
import { useChartColors } from '../../reports/charts/chartColors';
import { formatNumber } from '../../reports/charts/format';
import { LazyApexChart } from '../../reports/charts/LazyApexChart';
import type { LegendSelection } from '../../reports/charts/legendSelection';
import { isSeriesShown } from '../../reports/charts/legendSelection';
import { CustomerDrawer } from '../CustomerDrawer';
import { EXPLORE_FETCH_FAILURE, exploreKey, fetchExplore, type ExploreGrowthBucket, type ExplorePoint, type ExploreRouteState } from './exploreApi';
import { buildExploreChartProps, EXPLORE_Y_AXIS_LABELS, exploreSeries } from './exploreChart';
import { RetryAlert } from '../../components/RetryAlert';

/** The colour of each growth bucket (theme colour names): growth green, decline warm, churn red. */
const BUCKET_COLORS: Record<ExploreGrowthBucket, string> = {
  '0 %': 'gray',
  '1% - 100%': 'teal',
  '> 100%': 'green',
  'Negative growth': 'orange',
  'Starting MRR is 0': 'blue',
  'Churned customers': 'red',
};

const isYAxis = (value: string | null): value is ExploreYAxis => EXPLORE_Y_AXIS_OPTIONS.includes(value as ExploreYAxis);

/** The y axis of the URL's `y` (so a shared link shows the same chart), else the default. */
function useYAxis(): [ExploreYAxis, (axis: ExploreYAxis) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const asked = params.get('y');
  const axis = isYAxis(asked) ? asked : EXPLORE_DEFAULT_Y_AXIS;
  const setAxis = (next: ExploreYAxis) => {
    if (next === EXPLORE_DEFAULT_Y_AXIS) params.delete('y');
    else params.set('y', next);
    const query = params.toString();
    navigate(query ? `${location}?${query}` : location, { replace: true, state: window.history.state as unknown });
  };
  return [axis, setAxis];
}

export interface ExploreViewProps {
  point: ExplorePoint;
  /** The route state the details dialog passed: its title and the report's path. */
  routeState: ExploreRouteState | null;
}

/**
 * Explore: the customers behind one data point of a report section as a scatter chart
 * (`GET /customer_metrics`): x months being a customer, y one of the spec's four figures
 * (default new MRR when occurred), reference lines at 12, 24 and 36 months, a series (and a
 * legend entry) per growth bucket. A click on a customer's point opens the customer drawer.
 */
export function ExploreView({ point, routeState }: ExploreViewProps) {
  const client = useApi();
  const theme = useMantineTheme();
  const colors = useChartColors();
  const [axis, setAxis] = useYAxis();
  const [selection, setSelection] = useState<LegendSelection>([]);
  const [customerId, setCustomerId] = useState<string | null>(null);
  const query = useQuery({ queryKey: exploreKey(point), queryFn: ({ signal }) => fetchExplore(client, point, signal) });
  const explore = queryState(query);

  const axisLabelId = useId();

  const data = query.data;
  const title = routeState?.title ?? data?.title ?? 'Explore customers';
  const count = data?.items.length ?? 0;
  const series = useMemo(() => (data ? exploreSeries(data.items, axis) : []), [data, axis]);
  const bucketColor = useCallback((bucket: ExploreGrowthBucket) => theme.colors[BUCKET_COLORS[bucket]]?.[colors.dark ? 5 : 6] ?? colors.text, [theme, colors.dark, colors.text]);
  // ApexCharts draws the whole chart again for new props: built again only when what it shows changes.
  const chartProps = useMemo(() => {
    if (!data) return null;
    const shown = new Set(EXPLORE_GROWTH_BUCKETS.filter((bucket) => isSeriesShown(selection, bucket)));
    return buildExploreChartProps({ series, shown, axis, currency: data.currency, colors, bucketColor, height: CHART_HEIGHT_PX, onCustomerClick: setCustomerId });
  }, [data, series, selection, axis, colors, bucketColor]);

  return (
    <Stack gap="lg">
      <Anchor component={Link} href={routeState?.returnTo ?? '/'} size="sm" style={{ alignSelf: 'flex-start' }}>
        <Group gap={4}>
          <IconArrowLeft size={16} />
          {routeState?.returnTo ? 'Back to report' : 'Back to reports'}
        </Group>
      </Anchor>
      <PageHeader
        title={title}
        description={count > 0 ? `${formatNumber(count, 0)} customers by months as a customer; colours show their MRR growth since they started.` : 'The customers behind this data point.'}
      />
      <Card withBorder padding="lg" radius="md">
        <Stack gap="md">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Text fw={600} id={axisLabelId}>
              Y axis
            </Text>
            <SegmentedControl
              aria-labelledby={axisLabelId}
              value={axis}
              onChange={(value) => isYAxis(value) && setAxis(value)}
              data={EXPLORE_Y_AXIS_OPTIONS.map((option) => ({ value: option, label: EXPLORE_Y_AXIS_LABELS[option] }))}
            />
          </Group>
          {explore.status === 'loading' && <Skeleton height={CHART_HEIGHT_PX} radius="md" data-testid="explore-skeleton" />}
          {explore.status === 'failed' && (
            <RetryAlert message={EXPLORE_FETCH_FAILURE} onRetry={() => void query.refetch()} />
          )}
          {explore.status === 'loaded' && count === 0 && (
            <Stack align="center" gap="xs" py="xl">
              <ThemeIcon variant="light" size={48} radius="xl" color="gray">
                <IconChartDots3 size={26} />
              </ThemeIcon>
              <Text fw={600}>No customers behind this data point</Text>
              <Text size="sm" c="dimmed">
                Pick another point of the chart to explore its customers.
              </Text>
            </Stack>
          )}
          {explore.status === 'loaded' && count > 0 && chartProps && (
            <Stack gap="xs" role="figure" aria-label="Customers by months as a customer">
              <ChartLegend
                items={series.map((entry) => ({ key: entry.bucket, name: `${entry.bucket} (${formatNumber(entry.customers.length, 0)})`, color: bucketColor(entry.bucket) }))}
                selection={selection}
                onSelectionChange={setSelection}
              />
              <LazyApexChart {...chartProps} />
              <Text size="xs" c="dimmed">
                Click a point to open the customer.
              </Text>
            </Stack>
          )}
        </Stack>
      </Card>
      <CustomerDrawer customerId={customerId} onClose={() => setCustomerId(null)} {...(data ? { currency: data.currency } : {})} />
    </Stack>
  );
}
