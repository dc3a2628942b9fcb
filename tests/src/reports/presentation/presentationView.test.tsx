import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { useEffect, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { PRESENTATION_TITLE_SLIDE_ID, SLIDE_CHART_HEIGHT_PX } from '../../../../models/constants';
import { presentationMachine } from '../../../../machines/presentation/presentationMachine';
import type { PresentationSnapshot } from '../../../../machines/presentation/presentationMachine';
import type { PresentationEvent } from '../../../../machines/presentation/types';
import { inspectorRegistry } from '../../../../src/inspector/registry';
import { KeyNumbersProvider } from '../../../../src/reports/keyNumbers/KeyNumbersContext';
import type { KeyNumber } from '../../../../src/reports/keyNumbers/keyNumbersApi';
import type { ReportSection } from '../../../../src/reports/page/reportApi';
import { PresentationView } from '../../../../src/reports/presentation/PresentationView';
import { HOT_KEYS_HELP } from '../../../../src/reports/presentation/presentationKeys';
import { SLIDE_CHART_WIDTH_PX } from '../../../../src/reports/presentation/Slides';
import { coverageGaps, coveringPaths } from '../../../machines/support/modelPaths';
import type { AnyTestPath } from '../../../machines/support/modelPaths';
import { changedSlides, describePresentationPath, MODEL_SECTION_IDS, pathTestParams, presentationPaths } from '../../../machines/presentation/presentationModel';
import type { PresentationExecutors } from '../../../machines/presentation/presentationModel';
import { mrrSection } from '../charts/sectionFixtures';
import { reportView } from '../page/reportFixtures';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';

vi.mock('react-apexcharts/core', () => ({ default: (props: { width?: number | string; height?: number }) => <div data-testid="apex-chart" data-width={props.width} data-height={props.height} /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const SECRET = 'S'.repeat(32);

/** The model's sections (and the one a live update adds), as the page would have them. */
const TITLES: Record<string, string> = { sec_mrr: 'MRR', sec_churn: 'Customer churn rate', sec_arr: 'ARR', sec_cash: 'Cash in' };
const sectionOf = (id: string): ReportSection =>
  mrrSection({ id, title: TITLES[id] ?? id, summary: `What ${TITLES[id] ?? id} says.` }) as ReportSection;
const sectionsOf = (slides: readonly string[]): ReportSection[] => slides.filter((id) => id !== PRESENTATION_TITLE_SLIDE_ID).map(sectionOf);
const modelSections = () => MODEL_SECTION_IDS.map(sectionOf);

const report = reportView({
  title: 'Board, December',
  summary: 'A year of growth.',
  period: { start_year: 2026, start_month: 1, end_year: 2026, end_month: 12 },
  sections: modelSections(),
});

const mrrKeyNumber: KeyNumber = { section_id: 'sec_mrr', definition_id: 'mrr', title: 'MRR', value: 212_345, kind: 'currency', unit: 'minor_units', currency: 'USD', time: '2025-03-01' };

/** The page's part: a Present button, the sections it shows (a test changes them), the view inside the key numbers provider. */
function Page({ onClose, expose, scope = null }: { onClose(): void; expose(setSections: (sections: ReportSection[]) => void): void; scope?: string | null }) {
  const [opened, setOpened] = useState(false);
  const [sections, setSections] = useState<ReportSection[]>(modelSections);
  useEffect(() => {
    expose(setSections);
  }, [expose]);
  return (
    <KeyNumbersProvider secret={SECRET} canEdit>
      <button type="button" onClick={() => setOpened(true)}>
        Present
      </button>
      <PresentationView
        report={{ ...report, sections }}
        sections={sections}
        displayQuarters={false}
        scope={scope}
        opened={opened}
        onClose={() => {
          onClose();
          setOpened(false);
        }}
      />
    </KeyNumbersProvider>
  );
}

function renderPresentation(scope: string | null = null) {
  const api = defaultFakeApi();
  api.on('GET /business_reports/by_secret/key_numbers', () => ({ status: 200, body: { items: [mrrKeyNumber] } }));
  const onClose = vi.fn();
  let setSections: ((sections: ReportSection[]) => void) | null = null;
  const view = renderWithProviders(<Page onClose={onClose} scope={scope} expose={(set) => {
        setSections = set;
      }} />, { user: fullAccessUser, api });
  return {
    ...view,
    onClose,
    changeSections: (sections: ReportSection[]) => act(() => setSections?.(sections)),
  };
}

const dialog = () => screen.queryByRole('dialog', { name: 'Presentation' });

/** The slide the reader sees (the only one in the accessibility tree). */
function shownSlide(): HTMLElement {
  const slides = within(screen.getByRole('dialog', { name: 'Presentation' })).getAllByRole('group', { name: /^Slide \d+ of \d+$/ });
  expect(slides).toHaveLength(1);
  return slides[0]!;
}

/** What the reader sees: position, count and the slide's heading. */
function expectShown(position: number, total: number, heading: string) {
  const slide = shownSlide();
  expect(slide).toHaveAccessibleName(`Slide ${position + 1} of ${total}`);
  expect(slide).toHaveAttribute('aria-current', 'true');
  expect(slide).toHaveAttribute('data-slide-index', String(position));
  expect(within(slide).getByRole('heading', { level: position === 0 ? 1 : 2 })).toHaveTextContent(heading);
  expect(screen.getByTestId('slide-counter')).toHaveTextContent(`${position + 1} / ${total}`);
}

const headingOf = (id: string) => (id === PRESENTATION_TITLE_SLIDE_ID ? report.title : (TITLES[id] ?? id));

async function openPresentation(user: UserEvent) {
  await user.click(screen.getByRole('button', { name: 'Present' }));
  expect(await screen.findByRole('dialog', { name: 'Presentation' })).toBeInTheDocument();
}

const chartOf = (position: number) => document.querySelector(`[data-slide-index="${position}"] [data-testid="apex-chart"]`);

describe('presentation mode, walked along the presentation model', () => {
  const paths = presentationPaths();
  const cover = coveringPaths(presentationMachine, paths);
  // The cover reaches the chart's every state and transition; every change of the slides
  // underneath is walked too (a slide list and a position each).
  const walked = [...new Set([...cover, ...paths.filter((path) => path.steps.some((step) => step.event.type === 'presentation.slidesChanged'))])];

  it('walks a cover of the model: every state and transition', () => {
    expect(coverageGaps(presentationMachine, cover)).toEqual({ states: [], transitions: [] });
    expect(cover.length).toBeLessThan(10);
  });

  it.each(walked.map((path): [string, AnyTestPath] => [describePresentationPath(path), path]))('%s', async (_, path) => {
    const user = userEvent.setup({ delay: null });
    const page = renderPresentation();
    const executors: PresentationExecutors = {
      'presentation.open': () => openPresentation(user),
      'presentation.next': () => user.keyboard('{ArrowRight}'),
      'presentation.previous': () => user.keyboard('{ArrowLeft}'),
      'presentation.go': async (event) => user.keyboard((event as Extract<PresentationEvent, { type: 'presentation.go' }>).index === 0 ? '{Home}' : '{End}'),
      'presentation.leave': () => user.keyboard('{Escape}'),
      'presentation.slidesChanged': async (event) => page.changeSections(sectionsOf((event as Extract<PresentationEvent, { type: 'presentation.slidesChanged' }>).slides)),
    };
    let closings = 0;
    let previous: PresentationSnapshot | null = null;
    await path.test(
      pathTestParams(executors, async (expected) => {
        if (previous?.matches('presenting') && expected.matches('closed')) closings += 1;
        if (expected.matches('closed')) {
          await waitFor(() => expect(dialog()).not.toBeInTheDocument());
        } else {
          const { slides, index } = expected.context;
          await waitFor(() => expectShown(index, slides.length, headingOf(slides[index]!)));
        }
        expect(page.onClose).toHaveBeenCalledTimes(closings);
        previous = expected;
      }),
    );
  });
});

describe('presentation mode', () => {
  it('opens on the title slide: title, range, summary and key numbers, with the hot keys toast', async () => {
    const user = userEvent.setup({ delay: null });
    renderPresentation();
    expect(dialog()).not.toBeInTheDocument();
    await openPresentation(user);
    const slide = shownSlide();
    expect(within(slide).getByRole('heading', { level: 1, name: 'Board, December' })).toBeInTheDocument();
    expect(within(slide).getByText('Jan 2026 – Dec 2026')).toBeInTheDocument();
    expect(within(slide).getByText('A year of growth.')).toBeInTheDocument();
    const keyNumbers = await within(slide).findByRole('region', { name: 'Key numbers' });
    expect(within(keyNumbers).getByRole('group', { name: 'MRR' })).toHaveTextContent('$2,123');
    // Read only: no way to remove a key number from a slide.
    expect(within(keyNumbers).queryByRole('button')).not.toBeInTheDocument();
    expectShown(0, 4, 'Board, December');
    for (const line of HOT_KEYS_HELP) expect(await screen.findByText(line)).toBeInTheDocument();
    // Once, though React's development double effects run the view's twice.
    expect(screen.getAllByText('→ or Space: next slide')).toHaveLength(1);
  });

  it('names on the title slide what the numbers are limited to (a filter, a pinned share link), and nothing for the whole report', async () => {
    const user = userEvent.setup({ delay: null });
    const { unmount } = renderPresentation('Plan is Pro');
    await openPresentation(user);
    expect(within(shownSlide()).getByText('Plan is Pro')).toBeInTheDocument();
    unmount();
    renderPresentation();
    await openPresentation(user);
    expect(within(shownSlide()).queryByText('Plan is Pro')).not.toBeInTheDocument();
  });

  it('goes on with the right arrow, Space and the Next button, back with the left arrow and the Previous button', async () => {
    const user = userEvent.setup({ delay: null });
    renderPresentation();
    await openPresentation(user);
    await user.keyboard('{ArrowRight}');
    expectShown(1, 4, 'MRR');
    expect(within(shownSlide()).getByText('What MRR says.')).toBeInTheDocument();
    await user.keyboard(' ');
    expectShown(2, 4, 'Customer churn rate');
    await user.click(screen.getByRole('button', { name: 'Next slide' }));
    expectShown(3, 4, 'ARR');
    // The mouse leaves the focus on the stage: Space goes on, it does not press the button again.
    await user.click(screen.getByRole('button', { name: 'Previous slide' }));
    expectShown(2, 4, 'Customer churn rate');
    await user.keyboard('{ArrowLeft}');
    expectShown(1, 4, 'MRR');
    await user.keyboard(' ');
    expectShown(2, 4, 'Customer churn rate');
  });

  it('stays on the first slide on the left arrow (Previous is disabled there)', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderPresentation();
    await openPresentation(user);
    expect(screen.getByRole('button', { name: 'Previous slide' })).toBeDisabled();
    await user.keyboard('{ArrowLeft}');
    expectShown(0, 4, 'Board, December');
    expect(page.onClose).not.toHaveBeenCalled();
  });

  it('closes on next from the last slide, telling the page', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderPresentation();
    await openPresentation(user);
    await user.keyboard('{End}');
    expectShown(3, 4, 'ARR');
    expect(page.onClose).not.toHaveBeenCalled();
    await user.keyboard('{ArrowRight}');
    expect(dialog()).not.toBeInTheDocument();
    expect(page.onClose).toHaveBeenCalledTimes(1);
    // Present again: the title slide, and the toast again.
    await openPresentation(user);
    expectShown(0, 4, 'Board, December');
  });

  it('leaves with Esc and with the close button, from any slide', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderPresentation();
    await openPresentation(user);
    await user.keyboard('{ArrowRight}{ArrowRight}');
    await user.keyboard('{Escape}');
    expect(dialog()).not.toBeInTheDocument();
    expect(page.onClose).toHaveBeenCalledTimes(1);
    // The keys are the page's again.
    await user.keyboard('{ArrowRight}');
    expect(dialog()).not.toBeInTheDocument();

    await openPresentation(user);
    await user.click(screen.getByRole('button', { name: 'Leave presentation' }));
    expect(dialog()).not.toBeInTheDocument();
    expect(page.onClose).toHaveBeenCalledTimes(2);
  });

  it('draws the chart of the slide shown and of the next one, at the slide height, and keeps a drawn chart', async () => {
    const user = userEvent.setup({ delay: null });
    renderPresentation();
    await openPresentation(user);
    // On the title slide, the first section's chart is ready.
    await waitFor(() => expect(chartOf(1)).not.toBeNull());
    expect(chartOf(2)).toBeNull();
    expect(chartOf(1)).toHaveAttribute('data-height', String(SLIDE_CHART_HEIGHT_PX));
    expect(chartOf(1)).toHaveAttribute('data-width', String(SLIDE_CHART_WIDTH_PX));

    await user.keyboard('{ArrowRight}');
    // While on the first section, the next one's chart is mounted (hidden until shown).
    await waitFor(() => expect(chartOf(2)).not.toBeNull());
    expect(chartOf(3)).toBeNull();
    expect(document.querySelector('[data-slide-index="3"] [data-testid="slide-chart-placeholder"]')).not.toBeNull();

    await user.keyboard('{ArrowRight}{ArrowRight}');
    await waitFor(() => expect(chartOf(3)).not.toBeNull());
    // Back at the start: the charts drawn on the way stay drawn.
    await user.keyboard('{Home}');
    expect(chartOf(1)).not.toBeNull();
    expect(chartOf(2)).not.toBeNull();
    expect(chartOf(3)).not.toBeNull();
  });

  it('follows the report changing underneath: the slide shown stays, or the one in its place', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderPresentation();
    await openPresentation(user);
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expectShown(2, 4, 'Customer churn rate');
    await page.changeSections(sectionsOf(changedSlides.cashAdded));
    expectShown(3, 5, 'Customer churn rate');
    await page.changeSections(sectionsOf(changedSlides.churnRemoved));
    expectShown(2, 3, 'ARR');
    await page.changeSections([]);
    expectShown(0, 1, 'Board, December');
    await user.keyboard(' ');
    expect(dialog()).not.toBeInTheDocument();
    expect(page.onClose).toHaveBeenCalledTimes(1);
  });

  it('leaves when the browser leaves full screen, and asks for it on entry', async () => {
    const user = userEvent.setup({ delay: null });
    const root = document.documentElement;
    let fullscreenElement: Element | null = null;
    Object.defineProperty(document, 'fullscreenElement', { configurable: true, get: () => fullscreenElement });
    const requestFullscreen = vi.fn(async () => {
      fullscreenElement = root;
      document.dispatchEvent(new Event('fullscreenchange'));
    });
    const exitFullscreen = vi.fn(async () => {
      fullscreenElement = null;
      document.dispatchEvent(new Event('fullscreenchange'));
    });
    Object.defineProperty(root, 'requestFullscreen', { configurable: true, value: requestFullscreen });
    Object.defineProperty(document, 'exitFullscreen', { configurable: true, value: exitFullscreen });
    try {
      const page = renderPresentation();
      await openPresentation(user);
      expect(requestFullscreen).toHaveBeenCalledTimes(1);
      // The browser's own way out (its Esc).
      await act(async () => {
        fullscreenElement = null;
        document.dispatchEvent(new Event('fullscreenchange'));
      });
      expect(dialog()).not.toBeInTheDocument();
      expect(page.onClose).toHaveBeenCalledTimes(1);
      expect(exitFullscreen).not.toHaveBeenCalled();

      // Leaving with the close button gives full screen back.
      await openPresentation(user);
      await user.click(screen.getByRole('button', { name: 'Leave presentation' }));
      expect(exitFullscreen).toHaveBeenCalledTimes(1);
      expect(page.onClose).toHaveBeenCalledTimes(2);
    } finally {
      Reflect.deleteProperty(root, 'requestFullscreen');
      Reflect.deleteProperty(document, 'fullscreenElement');
      Reflect.deleteProperty(document, 'exitFullscreen');
    }
  });

  it('ignores a refused full screen request', async () => {
    const user = userEvent.setup({ delay: null });
    const root = document.documentElement;
    Object.defineProperty(root, 'requestFullscreen', { configurable: true, value: vi.fn(() => Promise.reject(new TypeError('Permissions check failed'))) });
    try {
      renderPresentation();
      await openPresentation(user);
      await user.keyboard('{ArrowRight}');
      expectShown(1, 4, 'MRR');
    } finally {
      Reflect.deleteProperty(root, 'requestFullscreen');
    }
  });

  it('registers its machine with the state inspector', async () => {
    const user = userEvent.setup({ delay: null });
    renderPresentation();
    await openPresentation(user);
    await user.keyboard('{ArrowRight}');
    const inspected = inspectorRegistry.list().filter((actor) => actor.name === 'presentation' && actor.live);
    expect(inspected.length).toBeGreaterThan(0);
    expect(inspected.at(-1)?.trace.at(-1)?.value).toBe('presenting');
  });
});
