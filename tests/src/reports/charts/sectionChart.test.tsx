import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApexChartProps } from '../../../../src/reports/charts/chartOptions';
import { SectionChart } from '../../../../src/reports/charts/SectionChart';
import { SectionErrorBoundary } from '../../../../src/components/ErrorBoundary';
import type { ReportSection } from '../../../../src/reports/charts/sectionModel';
import { theme } from '../../../../src/theme';
import { months, mrrSection, segment, series } from './sectionFixtures';

// ApexCharts draws SVG with layout jsdom does not have: a light stub records what it is given.
const rendered = vi.hoisted(() => ({ props: [] as unknown[] }));
vi.mock('react-apexcharts/core', () => ({
  default: (props: unknown) => {
    rendered.props.push(props);
    return <div data-testid="apex-chart" />;
  },
}));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

function lastChartProps(): ApexChartProps {
  return rendered.props.at(-1) as ApexChartProps;
}

function renderInTheme(ui: ReactNode, colorScheme: 'light' | 'dark' = 'light') {
  return render(
    <MantineProvider theme={theme} env="test" forceColorScheme={colorScheme}>
      {ui}
    </MantineProvider>,
  );
}

function planSection(overrides: Partial<ReportSection> = {}): ReportSection {
  const periods = months(3);
  const names = ['basic', 'pro', 'enterprise', ''];
  const plan = segment(
    'customer_segment:plan',
    'Plan',
    names.map((name, index) => series(name, periods, [index + 1, index + 2, index + 3], { segment_value: name })),
    { grouped_segment_names: ['trial'] },
  );
  return mrrSection({
    data_type: 'stacked_bar_chart',
    segment_ids: ['customer_segment:plan'],
    segments: [segment('total', 'Total', [series('MRR', periods, [10, 14, 18])]), plan],
    ...overrides,
  });
}

beforeEach(() => {
  rendered.props = [];
});

describe('SectionChart', () => {
  it('loads the chart lazily, with a skeleton of the chart height meanwhile', async () => {
    renderInTheme(<SectionChart section={mrrSection()} />);
    expect(screen.getByTestId('chart-skeleton').getAttribute('style')).toContain('height: calc(25rem');
    expect(await screen.findByTestId('apex-chart')).toBeInTheDocument();
    expect(screen.queryByTestId('chart-skeleton')).not.toBeInTheDocument();
  });

  it('gives ApexCharts the series, values, height 400 and a 1000 ms animation', async () => {
    renderInTheme(<SectionChart section={mrrSection()} />);
    await screen.findByTestId('apex-chart');

    const props = lastChartProps();
    expect(props.type).toBe('line');
    expect(props.height).toBe(400);
    expect(props.series).toEqual([{ name: 'MRR', data: [100_000, 150_000, 212_345] }]);
    expect(props.options.chart?.animations).toMatchObject({ enabled: true, speed: 1000 });
    expect(props.options.xaxis?.categories).toEqual(['2025-01', '2025-02', '2025-03']);
    expect(props.options.theme?.mode).toBe('light');
  });

  it('draws at once, without animation, for a visitor who asked their system for less motion', async () => {
    const matchMedia = window.matchMedia;
    window.matchMedia = ((query: string) => ({ ...matchMedia(query), matches: query === '(prefers-reduced-motion: reduce)' })) as typeof window.matchMedia;
    try {
      renderInTheme(<SectionChart section={mrrSection()} />);
      await screen.findByTestId('apex-chart');
      expect(lastChartProps().options.chart?.animations?.enabled).toBe(false);
    } finally {
      window.matchMedia = matchMedia;
    }
  });

  it('formats money from minor units: compact on the axis, full in the tooltip', async () => {
    renderInTheme(<SectionChart section={mrrSection()} />);
    await screen.findByTestId('apex-chart');

    const { options } = lastChartProps();
    const axis = Array.isArray(options.yaxis) ? options.yaxis[0] : options.yaxis;
    expect(axis?.labels?.formatter?.(250_000)).toBe('$2.5K');
    const tooltipY = options.tooltip?.y;
    const formatter = Array.isArray(tooltipY) ? tooltipY[0]?.formatter : tooltipY?.formatter;
    expect(formatter?.(212_345, {} as never)).toBe('$2,123');
  });

  it('shows fractions as percentages, with 2 decimals when the section sets decimal', async () => {
    const periods = months(2);
    const churn = mrrSection({ unit: 'fraction', decimal: true, periods, segments: [segment('total', 'Total', [series('Churn', periods, [0.05, 0.0425])])] });
    renderInTheme(<SectionChart section={churn} />);
    await screen.findByTestId('apex-chart');
    const axis = lastChartProps().options.yaxis;
    const labels = Array.isArray(axis) ? axis[0]?.labels : axis?.labels;
    expect(labels?.formatter?.(0.0425)).toBe('4.25%');
  });

  it('draws the reference value as a y-axis line', async () => {
    renderInTheme(<SectionChart section={mrrSection({ reference_value: 200_000 })} />);
    await screen.findByTestId('apex-chart');
    const line = lastChartProps().options.annotations?.yaxis?.[0];
    expect(line?.y).toBe(200_000);
    expect(line?.label?.text).toBe('$2,000');
  });

  it('stacks the bars of a stacked bar chart, and not those of a bar chart', async () => {
    const { unmount } = renderInTheme(<SectionChart section={planSection()} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().type).toBe('bar');
    expect(lastChartProps().options.chart?.stacked).toBe(true);
    unmount();

    renderInTheme(<SectionChart section={planSection({ data_type: 'bar_chart' })} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().options.chart?.stacked).toBe(false);
  });

  it('draws the net of MRR movements as a line over the stacked bars, not stacked with them', async () => {
    const periods = months(3);
    const movements = mrrSection({
      definition_id: 'mrr_movements',
      data_type: 'stacked_bar_chart',
      segments: [
        segment('total', 'Total', [
          series('New business', periods, [5, 6, 7], { component: 'new_business' }),
          series('Churn', periods, [-1, -2, -3], { component: 'churn' }),
          series('Net', periods, [4, 4, 4], { component: 'net' }),
        ]),
      ],
    });
    const { unmount } = renderInTheme(<SectionChart section={movements} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().type).toBe('line');
    expect(lastChartProps().series.map((s) => [s.name, s.type])).toEqual([
      ['New business', 'bar'],
      ['Churn', 'bar'],
      ['Net', 'line'],
    ]);
    expect(lastChartProps().options.chart?.stacked).toBe(true);
    expect(lastChartProps().options.stroke?.width).toEqual([0, 0, 2]);
    unmount();

    // Without a net series it stays a plain stacked bar chart.
    renderInTheme(<SectionChart section={planSection()} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().type).toBe('bar');
    expect(lastChartProps().series.every((s) => s.type === undefined)).toBe(true);
  });

  it('labels quarters Q1..Q4 when the report displays quarters', async () => {
    renderInTheme(<SectionChart section={mrrSection({ periods: months(4), segments: [segment('total', 'Total', [series('MRR', months(4), [1, 2, 3, 4])])] })} displayQuarters />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().options.xaxis?.categories).toEqual(['Q1 2025', '', '', 'Q2 2025']);
  });

  it('labels at most 12 periods on the x axis, or fewer when a narrow chart asks', async () => {
    const year = months(24);
    const section = mrrSection({ periods: year, segments: [segment('total', 'Total', [series('MRR', year, year.map((_, k) => k))])] });
    const { rerender } = renderInTheme(<SectionChart section={section} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().options.xaxis?.tickAmount).toBe(12);
    rerender(
      <MantineProvider theme={theme} env="test">
        <SectionChart section={section} maxXLabels={5} />
      </MantineProvider>,
    );
    expect(lastChartProps().options.xaxis?.tickAmount).toBe(5);
  });

  it('follows the dark colour scheme', async () => {
    renderInTheme(<SectionChart section={mrrSection()} />, 'dark');
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().options.theme?.mode).toBe('dark');
    expect(lastChartProps().options.tooltip?.theme).toBe('dark');
  });

  it('sizes the chart by width with the 1.9 aspect when given a width', async () => {
    renderInTheme(<SectionChart section={mrrSection()} width={950} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().height).toBe(500);
  });

  it('draws a custom section without its hidden series, with the first drawn series’ reference line', async () => {
    const periods = months(3);
    const custom = mrrSection({
      definition_id: 'user_filtered',
      reference_value: null,
      segments: [
        segment('total', 'Total', [
          series('Hidden MRR', periods, [1, 2, 3], { component: 'series:0', hidden: true, y_reference_line: 50_000 }),
          series('MRR', periods, [10, 20, 30], { component: 'series:1', y_reference_line: null }),
          series('Pro MRR', periods, [5, 6, 7], { component: 'series:2', y_reference_line: 100_000 }),
        ]),
      ],
    });
    renderInTheme(<SectionChart section={custom} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().series.map((s) => s.name)).toEqual(['MRR', 'Pro MRR']);
    expect(screen.getByRole('group', { name: 'Legend' })).toHaveTextContent('MRRPro MRR');
    const line = lastChartProps().options.annotations?.yaxis?.[0];
    expect(line?.y).toBe(100_000);
    expect(line?.label?.text).toBe('$1,000');
  });

  it("draws the section's segment with a legend, naming ungrouped values 'Other'", async () => {
    renderInTheme(<SectionChart section={planSection()} />);
    await screen.findByTestId('apex-chart');
    expect(lastChartProps().series.map((s) => s.name)).toEqual(['basic', 'pro', 'enterprise', 'Other']);
    const legend = screen.getByRole('group', { name: 'Legend' });
    expect(legend).toHaveTextContent('basicproenterpriseOther');
    expect(screen.getByRole('button', { name: 'Other' })).toHaveAttribute('title', 'trial');
  });

  it('a legend click shows one series, a second click all; ctrl or shift click adds one', async () => {
    const user = userEvent.setup({ delay: null });
    renderInTheme(<SectionChart section={planSection()} />);
    await screen.findByTestId('apex-chart');
    const shownNames = () => lastChartProps().series.map((s) => s.name);

    await user.click(screen.getByRole('button', { name: 'pro' }));
    expect(shownNames()).toEqual(['pro']);
    expect(screen.getByRole('button', { name: 'pro' })).toHaveAttribute('aria-pressed', 'true');

    await user.keyboard('{Control>}');
    await user.click(screen.getByRole('button', { name: 'basic' }));
    await user.keyboard('{/Control}');
    expect(shownNames()).toEqual(['basic', 'pro']);

    await user.keyboard('{Shift>}');
    await user.click(screen.getByRole('button', { name: 'pro' }));
    await user.keyboard('{/Shift}');
    expect(shownNames()).toEqual(['basic']);

    await user.click(screen.getByRole('button', { name: 'basic' }));
    expect(shownNames()).toEqual(['basic', 'pro', 'enterprise', 'Other']);
  });

  it("folds legend entries past the visible ones into 'N segment(s) more'", async () => {
    const user = userEvent.setup({ delay: null });
    const periods = months(2);
    const many = segment(
      'customer_segment:country',
      'Country',
      Array.from({ length: 13 }, (_, index) => series(`country ${index + 1}`, periods, [index, index], { segment_value: `country ${index + 1}` })),
    );
    renderInTheme(<SectionChart section={mrrSection({ periods, segment_ids: ['customer_segment:country'], segments: [many] })} />);
    await screen.findByTestId('apex-chart');

    expect(screen.getByRole('button', { name: '3 segments more' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'country 11' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '3 segments more' }));
    expect(screen.getByRole('button', { name: 'country 13' })).toBeInTheDocument();
  });

  it('reports a clicked data point with its series and period', async () => {
    const onPointClick = vi.fn();
    renderInTheme(<SectionChart section={planSection()} onPointClick={onPointClick} />);
    await screen.findByTestId('apex-chart');

    lastChartProps().options.chart?.events?.dataPointSelection?.(new MouseEvent('click'), undefined, { seriesIndex: 1, dataPointIndex: 2, w: {} as never });
    expect(onPointClick).toHaveBeenCalledWith({
      sectionId: 'sec_mrr',
      segmentId: 'customer_segment:plan',
      seriesName: 'pro',
      segmentValue: 'pro',
      time: '2025-03-01',
      value: 4,
    });
  });
});

describe('data point clicks on a line chart', () => {
  it('reports a clicked marker once, with the period it stands for', async () => {
    const onPointClick = vi.fn();
    renderInTheme(<SectionChart section={mrrSection()} onPointClick={onPointClick} />);
    await screen.findByTestId('apex-chart');

    const events = lastChartProps().options.chart?.events;
    expect(events?.dataPointSelection).toBeUndefined();
    events?.markerClick?.(new MouseEvent('click'), undefined, { seriesIndex: 0, dataPointIndex: 0, w: {} as never });
    expect(onPointClick).toHaveBeenCalledExactlyOnceWith({ sectionId: 'sec_mrr', segmentId: 'total', seriesName: 'MRR', time: '2025-01-01', value: 100_000 });
  });
});

describe('empty states', () => {
  it.each([
    ['no segments', mrrSection({ segments: [] }), {}, 'Nothing found. Edit report and add missing segments.'],
    ['a segment without series', mrrSection({ segments: [segment('total', 'Total', [])] }), {}, 'Nothing found. Edit report and add missing segments.'],
    ['a segmenter missing from the answer', mrrSection({ segment_ids: ['customer_segment:deleted'] }), {}, 'This chart is missing selected segment. Edit report to add missing segmentation.'],
    ['a weekly chart shown by quarters', mrrSection({ resolution: 'week' }), { displayQuarters: true }, 'This chart is not supported in quarterly resolution.'],
  ])('%s: shows the spec text and no chart', async (_case, section, props, text) => {
    renderInTheme(<SectionChart section={section} {...props} />);
    expect(screen.getByRole('status')).toHaveTextContent(text);
    expect(screen.queryByTestId('chart-skeleton')).not.toBeInTheDocument();
    expect(rendered.props).toHaveLength(0);
  });
});

describe('SectionErrorBoundary', () => {
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('shows the spec message when a section cannot be rendered, and the next section still renders', async () => {
    const broken = { ...mrrSection(), segments: null } as unknown as ReportSection;
    renderInTheme(
      <>
        <SectionErrorBoundary>
          <SectionChart section={broken} />
        </SectionErrorBoundary>
        <SectionErrorBoundary>
          <SectionChart section={mrrSection()} />
        </SectionErrorBoundary>
      </>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(/^Something went wrong and we could not render this section$/);
    expect(await screen.findByTestId('apex-chart')).toBeInTheDocument();
  });
});
