import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { FILTER_APPLY_FAILURE, FILTER_BLOCKED, filterItemLabel } from '../../../../models/reportFilter';
import type { FilterItem } from '../../../../models/reportFilter';
import { reportFilterMachine } from '../../../../machines/reportFilter/reportFilterMachine';
import type { ReportFilterSnapshot } from '../../../../machines/reportFilter/reportFilterMachine';
import type { LiveChannels } from '../../../../src/cable/liveChannels';
import type { ReportSection, ReportServices, ReportUpdate, ReportView } from '../../../../src/reports/page/reportApi';
import { ReportPageLoader } from '../../../../src/reports/page/ReportPageLoader';
import { coverageGaps, coveringPaths, describePath, generatePaths } from '../../../machines/support/modelPaths';
import type { AnyTestPath } from '../../../machines/support/modelPaths';
import { anyReportFilterTestModel, applyRefusal, pathTestParams } from '../../../machines/reportFilter/reportFilterModel';
import type { ReportFilterExecutors, ReportFilterModelEvent } from '../../../machines/reportFilter/reportFilterModel';
import { reportView } from './reportFixtures';
import { inspectorRegistry } from '../../../../src/inspector/registry';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';
import type { FakeApi } from '../../support/fakeApi';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

/**
 * The filter picker lists the account's segment values from the server (its own suite,
 * tests/src/reports/filters); here it is a list of the model's items, so the page's part is
 * what is tested: when the picker opens, what an apply does to what the user sees.
 */
vi.mock('../../../../src/reports/filters/FilterPicker', async () => {
  const { modelItems } = await import('../../../machines/reportFilter/reportFilterModel');
  const { filterItemLabel: labelOf } = await import('../../../../models/reportFilter');
  return {
    FilterPicker: ({ opened, onApply, onClose }: { opened: boolean; onApply(item: FilterItem): void; onClose(): void }) =>
      opened ? (
        <div role="dialog" aria-label="Filter report">
          {Object.values(modelItems).map((item) => (
            <button key={labelOf(item)} type="button" onClick={() => onApply(item)}>
              {labelOf(item)}
            </button>
          ))}
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      ) : null,
  };
});

const now = () => new Date(2026, 2, 2, 9, 0);
const SECRET = 'S'.repeat(32);

/** The titles the user tells the sections apart by: as loaded, after a live update, filtered. */
const TITLES = { original: 'MRR', updated: 'Monthly recurring revenue', filtered: 'MRR (filtered)' } as const;

interface PendingCall<T> {
  item: FilterItem;
  signal: AbortSignal | undefined;
  settled: boolean;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** The page's calls: the filtered call stays pending until the test settles it; `push` is a live update. */
function fakeServices(initial: ReportView, overrides: Partial<Record<keyof ReportServices, unknown>> = {}) {
  let listener: ((update: ReportUpdate) => void) | null = null;
  const filtered: PendingCall<ReportSection[]>[] = [];
  const services = {
    fetchReport: vi.fn(async () => initial),
    fetchDemoReport: vi.fn(async () => initial),
    fetchSharedReport: vi.fn(async () => initial),
    refresh: vi.fn(() => new Promise<void>(() => {})),
    updateReport: vi.fn(async () => {}),
    updateSettings: vi.fn(async (_id: string, change: Partial<ReportView['settings']>) => ({ ...initial.settings, ...change })),
    hasFinanceData: vi.fn(async () => true),
    currencies: vi.fn(async () => ['EUR', 'USD']),
    fetchFiltered: vi.fn(
      (_secret: string, item: FilterItem, _currency: string | null, signal?: AbortSignal) =>
        new Promise<ReportSection[]>((resolve, reject) => filtered.push({ item, signal, settled: false, resolve, reject })),
    ),
    watch: vi.fn((_secret: string, _id: string, handlers: { update(update: ReportUpdate): void }) => {
      listener = handlers.update;
      return () => {
        listener = null;
      };
    }),
    ...overrides,
  };
  async function settleFiltered(outcome: { done: ReportSection[] } | { error: unknown }) {
    const pending = filtered.findLast((call) => !call.settled && !call.signal?.aborted);
    if (!pending) throw new Error('No filtered call is pending');
    pending.settled = true;
    await act(async () => {
      if ('done' in outcome) pending.resolve(outcome.done);
      else pending.reject(outcome.error);
      await Promise.resolve();
    });
  }
  return {
    services: services as unknown as ReportServices,
    spies: services,
    filtered,
    settleFiltered,
    push: (update: ReportUpdate) => act(() => listener?.(update)),
  };
}

const noChannels: LiveChannels = { subscribe: () => () => {}, close: () => {} };

function renderPage(services: ReportServices, options: { variant?: 'normal' | 'shared' | 'demo' } = {}, api: FakeApi = defaultFakeApi()) {
  // The section definitions (Add chart is enabled once they are read).
  api.on('GET /business_report/section_definitions', () => ({ status: 200, body: { items: [] } }));
  return renderWithProviders(<ReportPageLoader secret={SECRET} services={services} channels={noChannels} now={now} {...options} />, { user: fullAccessUser, api });
}

const original = () => reportView().sections[0] as ReportSection;
const filteredSection = (): ReportSection => ({ ...original(), title: TITLES.filtered });
const updatedSection = (): ReportSection => ({ ...original(), title: TITLES.updated });

/** Shift+F, as a user presses it (outside any field). */
async function pressShiftF(user: UserEvent) {
  await user.keyboard('{Shift>}F{/Shift}');
}

/** The section title the user sees (the report has one section). */
async function shownTitle(): Promise<string> {
  const nav = await screen.findByRole('navigation', { name: 'Contents' });
  return within(nav).getAllByRole('link').map((link) => link.textContent ?? '').join(', ');
}

describe('the report page: filtering, walked along the report filter model', () => {
  const cover = coveringPaths(reportFilterMachine, generatePaths(anyReportFilterTestModel()));

  it('walks a cover of the model: every state and transition', () => {
    expect(coverageGaps(reportFilterMachine, cover)).toEqual({ states: [], transitions: [] });
    expect(cover.length).toBeLessThan(12);
  });

  it.each(cover.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    expect(await screen.findByRole('region', { name: TITLES.original })).toBeInTheDocument();

    const executors: ReportFilterExecutors = {
      'filter.apply': async (event) => {
        const item = (event as Extract<ReportFilterModelEvent, { type: 'filter.apply' }>).item;
        if (!screen.queryByRole('dialog', { name: 'Filter report' })) await pressShiftF(user);
        await user.click(within(await screen.findByRole('dialog', { name: 'Filter report' })).getByRole('button', { name: filterItemLabel(item) }));
      },
      'filter.clear': async () => {
        await user.click(within(screen.getByRole('status', { name: 'Active filter' })).getByRole('button', { name: 'Clear filter' }));
      },
      'filter.update': async () => {
        await fake.push({ object: 'business_report_section', report_id: 'rep1', section: updatedSection() });
      },
      'xstate.done.actor.fetchFiltered': () => fake.settleFiltered({ done: [filteredSection()] }),
      'xstate.error.actor.fetchFiltered': () => fake.settleFiltered({ error: applyRefusal }),
    };

    // The original section's title once an update reached it (passed through, or replayed on clear).
    let originalTitle: string = TITLES.original;
    let previous: ReportFilterSnapshot | null = null;
    let stepIndex = 0;
    await path.test(
      pathTestParams(executors, async (expected) => {
        const event = path.steps[stepIndex]?.event as ReportFilterModelEvent | undefined;
        if (previous && event) {
          const released = previous.matches('unfiltered') ? event.type === 'filter.update' : expected.matches('unfiltered') && previous.context.held.length > 0;
          if (released) originalTitle = TITLES.updated;
        }
        const showsFiltered = !expected.matches('unfiltered') && expected.context.filteredSections !== null;
        await waitFor(async () => expect(await shownTitle()).toBe(showsFiltered ? TITLES.filtered : originalTitle));
        const item = expected.context.item;
        if (item) expect(screen.getByRole('status', { name: 'Active filter' })).toHaveTextContent(filterItemLabel(item));
        else expect(screen.queryByRole('status', { name: 'Active filter' })).not.toBeInTheDocument();
        expect(screen.queryByLabelText('Applying filter') !== null, 'applying').toBe(expected.matches('applying'));
        if (previous?.matches('applying') && event?.type === 'xstate.error.actor.fetchFiltered') expect(await screen.findByText(FILTER_APPLY_FAILURE)).toBeInTheDocument();
        previous = expected;
        stepIndex += 1;
      }),
    );
  });
});

describe('the report page: the filter’s rules', () => {
  it('opens the picker with Shift+F and the Filter button, not while typing in a field', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    await screen.findByRole('region', { name: TITLES.original });
    await pressShiftF(user);
    expect(await screen.findByRole('dialog', { name: 'Filter report' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog', { name: 'Filter report' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Edit title' }));
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'F');
    await pressShiftF(user);
    expect(screen.queryByRole('dialog', { name: 'Filter report' })).not.toBeInTheDocument();
    await user.keyboard('{Escape}');

    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByRole('dialog', { name: 'Filter report' })).toBeInTheDocument();
  });

  it('refuses to filter while the report is recalculated, with the spec’s warning, and shows the filtered numbers otherwise', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    await screen.findByRole('region', { name: TITLES.original });

    // Filtered first: the cards show the filtered copies, the original stays in the machine.
    await pressShiftF(user);
    await user.click(await screen.findByRole('button', { name: 'Plan is Pro' }));
    expect(fake.spies.fetchFiltered).toHaveBeenCalledWith(SECRET, expect.objectContaining({ type: 'segment', value: 'Pro' }), 'USD', expect.any(AbortSignal));
    await fake.settleFiltered({ done: [filteredSection()] });
    expect(await screen.findByRole('region', { name: TITLES.filtered })).toBeInTheDocument();

    // Recalculate: the filter is cleared, and asking again shows the warning instead of the picker.
    await user.click(screen.getByRole('button', { name: 'Recalculate' }));
    expect(await screen.findByRole('region', { name: TITLES.original })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Active filter' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText(FILTER_BLOCKED)).toBeInTheDocument();
    await pressShiftF(user);
    expect(screen.queryByRole('dialog', { name: 'Filter report' })).not.toBeInTheDocument();
  });

  it('holds a live section update while filtered (what is shown does not change) and shows it once the filter is cleared', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    await screen.findByRole('region', { name: TITLES.original });
    await pressShiftF(user);
    await user.click(await screen.findByRole('button', { name: 'Plan is Pro' }));
    await fake.settleFiltered({ done: [filteredSection()] });
    expect(await screen.findByRole('region', { name: TITLES.filtered })).toBeInTheDocument();

    await fake.push({ object: 'business_report_section', report_id: 'rep1', section: updatedSection() });
    expect(screen.getByRole('region', { name: TITLES.filtered })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: TITLES.updated })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(await screen.findByRole('region', { name: TITLES.updated })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: TITLES.filtered })).not.toBeInTheDocument();
  });

  it('clears the filter on Add chart', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    await screen.findByRole('region', { name: TITLES.original });
    await pressShiftF(user);
    await user.click(await screen.findByRole('button', { name: 'Plan is Pro' }));
    await fake.settleFiltered({ done: [filteredSection()] });
    await screen.findByRole('region', { name: TITLES.filtered });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add chart' })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'Add chart' }));
    // The Add chart dialog is open over the page (which is hidden from the accessibility tree meanwhile).
    expect(await screen.findByRole('region', { name: TITLES.original, hidden: true })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: TITLES.filtered, hidden: true })).not.toBeInTheDocument();
  });

  it('offers no filter on a shared report: no Filter button, Shift+F does nothing', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    renderPage(fake.services, { variant: 'shared' });
    await screen.findByRole('region', { name: TITLES.original });
    expect(screen.queryByRole('button', { name: 'Filter' })).not.toBeInTheDocument();
    await pressShiftF(user);
    expect(screen.queryByRole('dialog', { name: 'Filter report' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Recalculate' })).not.toBeInTheDocument();
  });

  it('lets a demo visitor filter', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView({ can_edit: false }));
    renderWithProviders(<ReportPageLoader secret={SECRET} variant="demo" services={fake.services} channels={noChannels} now={now} />);
    await screen.findByRole('region', { name: TITLES.original });
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    await user.click(await screen.findByRole('button', { name: 'Plan is Pro' }));
    await fake.settleFiltered({ done: [filteredSection()] });
    expect(await screen.findByRole('region', { name: TITLES.filtered })).toBeInTheDocument();
  });

  it('names the view: Create view, or Edit view when the report has one (editors only)', async () => {
    const fake = fakeServices(reportView({ filter: { operator: 'and', arguments: [{ type: 'deal_owner', owner_name: 'Anna', negated: false }] } }));
    renderPage(fake.services);
    expect(await screen.findByRole('button', { name: 'Edit view' })).toBeEnabled();
    expect(screen.getByRole('status', { name: 'Active filter' })).toHaveTextContent('View: Deal owner is Anna');
  });

  it('refuses to filter while a section is being edited (edit mode), with the warning', async () => {
    const user = userEvent.setup({ delay: null });
    const fake = fakeServices(reportView());
    const api = defaultFakeApi();
    api.hold('PUT /business_report/sections/:id');
    renderPage(fake.services, {}, api);
    await screen.findByRole('region', { name: TITLES.original });
    await user.click(screen.getByRole('button', { name: 'Edit section title' }));
    await user.clear(screen.getByRole('textbox', { name: 'Section title' }));
    await user.type(screen.getByRole('textbox', { name: 'Section title' }), 'Revenue{Enter}');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Filter' })).toHaveAttribute('data-refused', 'true'));
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText(FILTER_BLOCKED)).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Filter report' })).not.toBeInTheDocument();

    // Saved: edit mode is over, the picker opens again.
    api.release('PUT /business_report/sections/:id', { status: 200, body: {} });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Filter' })).not.toHaveAttribute('data-refused'));
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByRole('dialog', { name: 'Filter report' })).toBeInTheDocument();
  });

  it('registers the page machine and its children with the state inspector', async () => {
    const fake = fakeServices(reportView());
    renderPage(fake.services);
    await screen.findByRole('region', { name: TITLES.original });
    const live = inspectorRegistry.list().filter((actor) => actor.live);
    for (const name of ['reportPage', 'recalculation', 'reportFilter']) {
      expect(live.find((actor) => actor.name === name)?.trace.length ?? 0, name).toBeGreaterThan(0);
    }
    expect(live.find((actor) => actor.name === 'reportFilter')?.trace.at(-1)?.value).toBe('unfiltered');
  });
});
