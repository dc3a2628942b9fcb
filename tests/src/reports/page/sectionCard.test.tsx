import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SECTION_MOUNT_MARGIN, SectionCard } from '../../../../src/reports/page/SectionCard';
import type { ReportSection } from '../../../../src/reports/charts/sectionModel';
import { theme } from '../../../../src/theme';
import { months, mrrSection, segment, series } from '../charts/sectionFixtures';

// ApexCharts needs layout jsdom lacks: the stub records its props and fires `mounted` as the chart would once drawn.
const rendered = vi.hoisted(() => ({ props: [] as { series: { name: string }[]; options: { chart?: { events?: { mounted?: () => void } } } }[] }));
vi.mock('react-apexcharts/core', async () => {
  const { useEffect } = await import('react');
  return {
    default: function Chart(props: (typeof rendered.props)[number]) {
      rendered.props.push(props);
      useEffect(() => props.options.chart?.events?.mounted?.(), [props]);
      return <div data-testid="apex-chart">{props.series.map((s) => s.name).join(', ')}</div>;
    },
  };
});
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

/** A stand-in IntersectionObserver the test moves elements into view with. */
class FakeIntersectionObserver {
  static instances: FakeIntersectionObserver[] = [];
  readonly elements: Element[] = [];
  disconnected = false;
  constructor(
    readonly callback: IntersectionObserverCallback,
    readonly options: IntersectionObserverInit = {},
  ) {
    FakeIntersectionObserver.instances.push(this);
  }
  observe(element: Element) {
    this.elements.push(element);
  }
  disconnect() {
    this.disconnected = true;
  }
  unobserve() {}
  takeRecords() {
    return [];
  }
  /** The observed element comes on screen (top 100 px into the window), or only within the margin below it. */
  enter(where: 'onScreen' | 'belowScreen' = 'onScreen') {
    const top = where === 'onScreen' ? 100 : window.innerHeight + 100;
    // rootBounds are the viewport grown by the margin (one viewport height above and below).
    const entries = this.elements.map(
      (target) =>
        ({ target, isIntersecting: true, rootBounds: { top: -window.innerHeight, height: 3 * window.innerHeight }, boundingClientRect: { top, bottom: top + 500 } }) as unknown as IntersectionObserverEntry,
    );
    this.callback(entries, this as unknown as IntersectionObserver);
  }
}

function renderInTheme(ui: ReactNode) {
  return render(
    <MantineProvider theme={theme} env="test">
      {ui}
    </MantineProvider>,
  );
}

function byPlan(): ReportSection {
  const periods = months(3);
  return mrrSection({
    data_type: 'stacked_bar_chart',
    segment_ids: ['total', 'customer_segment:plan'],
    segments: [
      segment('total', 'Total', [series('MRR', periods, [10, 14, 18])]),
      segment('customer_segment:plan', 'Plan', [series('basic', periods, [1, 2, 3], { segment_value: 'basic' }), series('pro', periods, [2, 3, 4], { segment_value: 'pro' })]),
    ],
  });
}

beforeEach(() => {
  rendered.props = [];
  FakeIntersectionObserver.instances = [];
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('SectionCard', () => {
  it('holds a skeleton until the card nears the viewport, then draws its chart and says so', async () => {
    vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
    renderInTheme(<SectionCard section={mrrSection()} displayQuarters={false} recalculating={false} />);
    const card = screen.getByRole('region', { name: 'MRR' });
    expect(card).toHaveAttribute('data-chart-state', 'pending');
    expect(screen.queryByTestId('apex-chart')).toBeNull();
    const observer = FakeIntersectionObserver.instances.at(-1);
    expect(observer?.options.rootMargin).toBe(SECTION_MOUNT_MARGIN);

    act(() => observer?.enter());
    expect(await screen.findByTestId('apex-chart')).toBeVisible();
    await waitFor(() => expect(card).toHaveAttribute('data-chart-state', 'drawn'));
    // Drawn once: the observer is done with the card.
    expect(observer?.disconnected).toBe(true);
  });

  it('draws a section just below the screen only once the browser is idle, so what is on screen draws first', async () => {
    vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (work: () => void) => idle.push(work));
    vi.stubGlobal('cancelIdleCallback', () => {});
    renderInTheme(<SectionCard section={mrrSection()} displayQuarters={false} recalculating={false} />);
    act(() => FakeIntersectionObserver.instances.at(-1)?.enter('belowScreen'));
    expect(screen.queryByTestId('apex-chart')).toBeNull();
    expect(idle).toHaveLength(1);
    act(() => idle[0]?.());
    expect(await screen.findByTestId('apex-chart')).toBeVisible();
  });

  it('is drawn at once where IntersectionObserver does not exist', async () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    renderInTheme(<SectionCard section={mrrSection()} displayQuarters={false} recalculating={false} />);
    expect(await screen.findByTestId('apex-chart')).toBeVisible();
    await waitFor(() => expect(screen.getByRole('region', { name: 'MRR' })).toHaveAttribute('data-chart-state', 'drawn'));
  });

  it('counts an empty state or a failure as drawn (nothing more will come)', async () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    const { unmount } = renderInTheme(<SectionCard section={mrrSection({ segments: [] })} displayQuarters={false} recalculating={false} />);
    expect(screen.getByText('Nothing found. Edit report and add missing segments.')).toBeVisible();
    expect(screen.getByRole('region', { name: 'MRR' })).toHaveAttribute('data-chart-state', 'drawn');
    unmount();
    renderInTheme(<SectionCard section={mrrSection({ recalculation_status: 'failed', error: 'no rates for XYZ' })} displayQuarters={false} recalculating={false} />);
    expect(screen.getByText('This section could not be calculated: no rates for XYZ')).toBeVisible();
    expect(screen.getByRole('region', { name: 'MRR' })).toHaveAttribute('data-chart-state', 'drawn');
  });

  it('switches between the segments of a split section, starting with the split', async () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    renderInTheme(<SectionCard section={byPlan()} displayQuarters={false} recalculating={false} />);
    expect(await screen.findByTestId('apex-chart')).toHaveTextContent('basic, pro');
    const switcher = screen.getByRole('combobox', { name: 'Segment of MRR' });
    expect(switcher).toHaveValue('Plan');

    await userEvent.click(switcher);
    await userEvent.click(await screen.findByRole('option', { name: 'Total' }));
    expect(screen.getByTestId('apex-chart')).toHaveTextContent('MRR');
    expect(switcher).toHaveValue('Total');
  });

  it('has no switcher for a section with one segment, and a spinner while it recalculates', () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    renderInTheme(<SectionCard section={mrrSection()} displayQuarters={false} recalculating />);
    expect(screen.queryByRole('combobox', { name: 'Segment of MRR' })).toBeNull();
    expect(screen.getByLabelText('Recalculating MRR')).toBeInTheDocument();
  });
});
