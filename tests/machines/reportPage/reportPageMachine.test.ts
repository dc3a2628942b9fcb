import { describe, expect, it } from 'vitest';
import { createActor, createMachine, SimulatedClock } from 'xstate';
import type { AnyActorRef, EventObject } from 'xstate';
import { TOAST_AUTO_CLOSE_MS } from '../../../models/constants';
import { FILTER_APPLY_FAILURE, FILTER_BLOCKED } from '../../../models/reportFilter';
import { recalculationActors } from '../../../machines/recalculation/recalculationActors';
import { recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import { reportFilterActors } from '../../../machines/reportFilter/reportFilterActors';
import { reportFilterMachine } from '../../../machines/reportFilter/reportFilterMachine';
import type { ReportFilterSnapshot } from '../../../machines/reportFilter/reportFilterMachine';
import { filteredSections } from '../../../machines/reportFilter/selectors';
import type { FilterSection } from '../../../machines/reportFilter/types';
import { reportPageActors } from '../../../machines/reportPage/reportPageActors';
import { reportPageMachine } from '../../../machines/reportPage/reportPageMachine';
import type { ReportPageSnapshot } from '../../../machines/reportPage/reportPageMachine';
import { filterBlocked, filterOf, pageReport, pickerOpen, savingSettings } from '../../../machines/reportPage/selectors';
import type { PageSettings, ReportEdit, ReportPageInput, ReportPageNotice, SectionUpdate } from '../../../machines/reportPage/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyReportPageTestModel,
  atRest,
  FIRST_SECTION,
  modelInput,
  modelItem,
  modelReport,
  pathTestParams,
  reportPageModelEntry,
  SECOND_SECTION,
  SETTINGS_CHANGES,
  WARNING_OVER_EVENT,
} from './reportPageModel';
import type { ModelSection, ReportPageExecutors, ReportPageModelEvent } from './reportPageModel';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

interface PendingSave {
  reportId: string;
  change: Record<string, unknown>;
  settled: boolean;
  resolve: (settings: PageSettings) => void;
  reject: (error: unknown) => void;
}

/** A child that only records what the page sends it (a machine that stays in its one state: a settled recalculation to the page's mirror). */
const recordingChild = (received: EventObject[]) =>
  createMachine({
    id: 'recording',
    initial: 'fresh',
    states: { fresh: {} },
    on: { '*': { actions: ({ event }) => received.push(event) } },
  });

/**
 * The page machine with its effects recorded and its settings call pending until the test
 * settles it. `children: 'stubs'` runs it alone (children that record what they receive, as
 * the model sees them); `'real'` with the recalculation and filter machines, their calls pending.
 */
function createHarness(options: { input?: ReportPageInput; children?: 'stubs' | 'real' } = {}) {
  const clock = new SimulatedClock();
  const notices: ReportPageNotice[] = [];
  const demoEdits: { reportId: string; change: ReportEdit }[] = [];
  let reloads = 0;
  const saves: PendingSave[] = [];
  const toRecalculation: EventObject[] = [];
  const toFilter: EventObject[] = [];
  const refreshes: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  const filtered: { resolve: (sections: FilterSection[]) => void; reject: (error: unknown) => void; signal: AbortSignal }[] = [];
  const filterNotices: unknown[] = [];

  const realChildren = {
    recalculation: recalculationMachine.provide({
      actors: recalculationActors({ refresh: () => new Promise<void>((resolve, reject) => refreshes.push({ resolve, reject })) }),
    }),
    reportFilter: reportFilterMachine.provide({
      actors: reportFilterActors({ fetchFiltered: (_secret, _item, _currency, signal) => new Promise((resolve, reject) => filtered.push({ resolve, reject, signal })) }),
      actions: { notify: (_, notice) => filterNotices.push(notice) },
    }),
  };
  const stubChildren = { recalculation: recordingChild(toRecalculation), reportFilter: recordingChild(toFilter) };

  const machine = reportPageMachine.provide({
    actors: {
      ...((options.children ?? 'stubs') === 'stubs' ? (stubChildren as unknown as typeof realChildren) : realChildren),
      ...reportPageActors({
        saveSettings: (reportId, change) => new Promise<PageSettings>((resolve, reject) => saves.push({ reportId, change, settled: false, resolve, reject })),
      }),
    },
    actions: {
      notify: (_, notice) => notices.push(notice),
      reload: () => (reloads += 1),
      storeDemoEdit: (_, edit) => demoEdits.push(edit),
    },
  });
  const actor = createActor(machine, { input: options.input ?? modelInput, clock }).start();

  async function settleSave(outcome: { done: PageSettings } | { error: unknown }) {
    const pending = saves.find((call) => !call.settled);
    if (!pending) throw new Error('No settings save is pending');
    pending.settled = true;
    if ('done' in outcome) pending.resolve(outcome.done);
    else pending.reject(outcome.error);
    await flush();
  }

  const filterSnapshot = () => (filterOf(actor.getSnapshot()) as AnyActorRef).getSnapshot() as ReportFilterSnapshot;

  return {
    actor,
    clock,
    notices,
    demoEdits,
    reloads: () => reloads,
    saves,
    settleSave,
    toRecalculation,
    toFilter,
    refreshes,
    filtered,
    filterNotices,
    filterSnapshot,
    snapshot: (): ReportPageSnapshot => actor.getSnapshot(),
    sections: () => pageReport<typeof modelReport>(actor.getSnapshot()).sections,
  };
}

type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): ReportPageExecutors {
  const send = async (event: ReportPageModelEvent) => {
    // The children's reports are sent as they would arrive (the stubs make none of their own).
    harness.actor.send(event as never);
    await flush();
  };
  return {
    'live.update': send,
    'filter.released': send,
    'report.reloaded': send,
    'report.changed': send,
    'report.edited': send,
    'report.refresh': send,
    'report.periodSaved': send,
    'report.recalculationStarted': send,
    'report.viewSaved': send,
    'chart.add': send,
    'filter.clear': send,
    'settings.change': send,
    'edit.started': send,
    'edit.ended': send,
    'filter.request': send,
    'picker.close': send,
    'filter.apply': send,
    'xstate.snapshot.recalculation': send,
    'xstate.done.actor.saveSettings': (event) => harness.settleSave({ done: 'output' in event ? event.output : { display_quarters: false } }),
    'xstate.error.actor.saveSettings': (event) => harness.settleSave({ error: 'error' in event ? event.error : undefined }),
    [WARNING_OVER_EVENT]: async () => {
      harness.clock.increment(TOAST_AUTO_CLOSE_MS.filterWarning);
      await flush();
    },
  };
}

const CLEAR = { type: 'filter.clear' };
const SETTINGS_CHANGED = { type: 'recalculation.settingsChanged' };

/** What a step sends the filter child. */
function toFilterBetween(before: ReportPageSnapshot, event: ReportPageModelEvent): object[] {
  switch (event.type) {
    // A recalculation the user starts clears the filter; the server's own does not (its updates are held).
    case 'report.refresh':
    case 'report.periodSaved':
    case 'report.recalculationStarted':
    case 'report.viewSaved':
    case 'chart.add':
    case 'filter.clear':
      return [CLEAR];
    case 'edit.started':
      return before.matches({ edit: 'viewing' }) ? [CLEAR] : [];
    case 'xstate.done.actor.saveSettings': {
      const change = before.context.settingsQueue[0]?.change ?? {};
      return change.display_quarters === false || 'currency' in change || 'subtract_finite_discount_from_mrr' in change || 'subtract_forever_discount_from_mrr' in change ? [CLEAR] : [];
    }
    case 'filter.apply':
      return filterBlocked(before) ? [] : [{ type: 'filter.apply', item: event.item, currency: before.context.report.currency }];
    case 'live.update':
      return event.update.object === 'business_report_section' ? [{ type: 'filter.update', update: event.update }] : [];
    default:
      return [];
  }
}

/** What a step sends the recalculation child. */
function toRecalculationBetween(before: ReportPageSnapshot, event: ReportPageModelEvent): object[] {
  switch (event.type) {
    case 'live.update':
      return event.update.object === 'business_report'
        ? [{ type: 'recalculation.reportUpdated', recalculationStatus: event.update.recalculation_status, freshnessStatus: event.update.freshness_status }]
        : [{ type: 'recalculation.sectionUpdated', sectionId: event.update.section.id, recalculationStatus: event.update.section.recalculation_status }];
    case 'report.reloaded':
      return [{ type: 'recalculation.reportUpdated', recalculationStatus: event.report.recalculation_status, freshnessStatus: event.report.freshness_status }];
    case 'report.refresh':
      return [{ type: 'recalculation.refresh' }];
    case 'report.periodSaved':
    case 'report.recalculationStarted':
    case 'report.viewSaved':
      return [SETTINGS_CHANGED];
    case 'xstate.done.actor.saveSettings':
      return before.context.settingsQueue[0]?.change.currency ? [SETTINGS_CHANGED] : [];
    default:
      return [];
  }
}

/** The toasts a step shows: the filter warning when it appears, a refused setting's failure. */
function noticesBetween(before: ReportPageSnapshot, after: ReportPageSnapshot, event: ReportPageModelEvent): ReportPageNotice[] {
  if (event.type === 'xstate.error.actor.saveSettings') return [{ kind: 'error', message: before.context.settingsQueue[0]?.failure ?? '' }];
  return before.matches({ warning: 'hidden' }) && after.matches({ warning: 'shown' }) ? [{ kind: 'filterWarning', message: FILTER_BLOCKED }] : [];
}

/** Every distinct path of the model (payloads included: describePath names events by type only). */
function distinctPaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = JSON.stringify(path.steps.map((step) => step.event));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function label(event: ReportPageModelEvent): string {
  switch (event.type) {
    case 'live.update':
      return event.update.object === 'business_report' ? `live.update(report ${event.update.recalculation_status})` : `live.update(section ${event.update.section.id})`;
    case 'settings.change':
      return `settings.change(${Object.keys(event.change).join(', ')})`;
    case 'edit.started':
    case 'edit.ended':
      return `${event.type}(${event.sectionId})`;
    case 'xstate.snapshot.recalculation':
      return `recalculation ${event.snapshot.matches('recalculating') ? 'started' : 'over'}`;
    case 'xstate.done.actor.saveSettings':
      return 'settings saved';
    case 'xstate.error.actor.saveSettings':
      return 'settings refused';
    case WARNING_OVER_EVENT:
      return 'warning over';
    default:
      return event.type;
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as ReportPageModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${describePath(path).split(' ⇒ ')[1]}`;
}

const paths = generatePaths(anyReportPageTestModel());
const walked = distinctPaths(anyReportPageTestModel());

describe('report page machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(reportPageMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(reportPageModelEntry.name).toBe('reportPage');
    expect(reportPageModelEntry.machine).toBe(reportPageMachine);
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(15);
    expect(paths.length).toBeLessThan(80);
    expect(walked.length).toBeLessThan(120);
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: ReportPageSnapshot | null = null;
    let seen = { notices: 0, reloads: 0, toFilter: 0, toRecalculation: 0 };
    let stepIndex = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          const event = path.steps[stepIndex]?.event as ReportPageModelEvent;
          expect(harness.notices.slice(seen.notices), 'toasts').toEqual(noticesBetween(previous, expected, event));
          expect(harness.toFilter.slice(seen.toFilter), 'sent to the filter').toEqual(toFilterBetween(previous, event));
          expect(harness.toRecalculation.slice(seen.toRecalculation), 'sent to the recalculation').toEqual(toRecalculationBetween(previous, event));
          const finished = event.type === 'live.update' && event.update.object === 'business_report' && event.update.recalculation_status !== 'recalculating';
          expect(harness.reloads() - seen.reloads, 'reads of the report').toBe(finished ? 1 : 0);
        }
        previous = expected;
        seen = { notices: harness.notices.length, reloads: harness.reloads(), toFilter: harness.toFilter.length, toRecalculation: harness.toRecalculation.length };
        stepIndex += 1;
      }),
    );
    harness.actor.stop();
  });
});

/** A section update of the tests. */
const sectionWith = (id: string, value: number): SectionUpdate<ModelSection> => ({
  object: 'business_report_section',
  section: { id, title: id === FIRST_SECTION ? 'MRR' : 'Churn', value, recalculation_status: 'recalculated' },
});
const valuesOf = (harness: Harness) => harness.sections().map((section) => `${section.id}=${section.value}`);

async function applyFilter(harness: Harness, sections: FilterSection[] = [{ id: FIRST_SECTION }]) {
  harness.actor.send({ type: 'filter.request' });
  harness.actor.send({ type: 'filter.apply', item: modelItem });
  await flush();
  harness.filtered.at(-1)?.resolve(sections);
  await flush();
}

describe('report page machine with its children: hold and replay', () => {
  it('applies a section update at once while unfiltered', async () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'live.update', update: sectionWith(FIRST_SECTION, 120) });
    await flush();
    expect(valuesOf(harness)).toEqual(['sec_mrr=120', 'sec_churn=5']);
  });

  it('holds three updates while filtered (the originals unchanged), then applies them in arrival order when cleared', async () => {
    const harness = createHarness({ children: 'real' });
    await applyFilter(harness);
    expect(filteredSections(harness.filterSnapshot())).toEqual([{ id: FIRST_SECTION }]);

    harness.actor.send({ type: 'live.update', update: sectionWith(FIRST_SECTION, 120) });
    harness.actor.send({ type: 'live.update', update: sectionWith(SECOND_SECTION, 7) });
    harness.actor.send({ type: 'live.update', update: sectionWith(FIRST_SECTION, 130) });
    await flush();
    expect(valuesOf(harness)).toEqual(['sec_mrr=100', 'sec_churn=5']);
    expect(harness.filterSnapshot().context.held).toHaveLength(3);

    harness.actor.send({ type: 'filter.clear' });
    await flush();
    // In arrival order: the later update of the MRR section wins.
    expect(valuesOf(harness)).toEqual(['sec_mrr=130', 'sec_churn=7']);
    expect(harness.filterSnapshot().value).toBe('unfiltered');
    expect(harness.filterSnapshot().context.held).toEqual([]);
  });

  it('holds updates that arrive while the filter is being applied too', async () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'filter.request' });
    harness.actor.send({ type: 'filter.apply', item: modelItem });
    harness.actor.send({ type: 'live.update', update: sectionWith(SECOND_SECTION, 9) });
    await flush();
    expect(harness.filterSnapshot().value).toBe('applying');
    expect(valuesOf(harness)).toEqual(['sec_mrr=100', 'sec_churn=5']);
    harness.filtered[0]?.resolve([{ id: FIRST_SECTION }]);
    await flush();
    harness.actor.send({ type: 'filter.clear' });
    await flush();
    expect(valuesOf(harness)).toEqual(['sec_mrr=100', 'sec_churn=9']);
  });

  it('ignores an update of a section the report does not have, and a partial one (its status only)', async () => {
    const harness = createHarness({ children: 'real' });
    await applyFilter(harness);
    harness.actor.send({ type: 'live.update', update: { object: 'business_report_section', section: { id: 'sec_gone', recalculation_status: 'recalculated', title: 'Gone', value: 1 } as ModelSection } });
    harness.actor.send({ type: 'live.update', update: { object: 'business_report_section', section: { id: FIRST_SECTION, recalculation_status: 'recalculated' }, partial: true } });
    harness.actor.send({ type: 'filter.clear' });
    await flush();
    expect(harness.sections()).toEqual(modelReport.sections);
  });

  it('never replays a held update older than the report read again meanwhile (a reconnection)', async () => {
    const harness = createHarness({ children: 'real' });
    await applyFilter(harness);
    const at = (minute: number) => `2026-11-26T10:0${minute}:00.000Z`;
    const old = sectionWith(FIRST_SECTION, 110);
    harness.actor.send({ type: 'live.update', update: { ...old, section: { ...old.section, computed_at: at(1) } } });
    // Read again after the connection came back: the MRR section is newer than the held update.
    const fresh = { ...modelReport, sections: modelReport.sections.map((section) => (section.id === FIRST_SECTION ? { ...section, value: 150, computed_at: at(2) } : section)) };
    harness.actor.send({ type: 'report.reloaded', report: fresh });
    harness.actor.send({ type: 'filter.clear' });
    await flush();
    expect(valuesOf(harness)).toEqual(['sec_mrr=150', 'sec_churn=5']);
  });

  it('shows the apply failure and keeps the report as it was', async () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'filter.request' });
    harness.actor.send({ type: 'filter.apply', item: modelItem });
    await flush();
    harness.filtered[0]?.reject(new Error('500'));
    await flush();
    expect(harness.filterNotices).toEqual([{ kind: 'error', message: FILTER_APPLY_FAILURE }]);
    expect(harness.filterSnapshot().value).toBe('unfiltered');
  });
});

describe('report page machine with its children: the filter rules', () => {
  it('refuses the picker while a refresh runs, with the warning toast once while it shows', async () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'report.refresh' });
    await flush();
    expect(filterBlocked(harness.snapshot())).toBe(true);
    harness.actor.send({ type: 'filter.request' });
    harness.actor.send({ type: 'filter.request' });
    expect(pickerOpen(harness.snapshot())).toBe(false);
    expect(harness.notices).toEqual([{ kind: 'filterWarning', message: FILTER_BLOCKED }]);
    harness.clock.increment(TOAST_AUTO_CLOSE_MS.filterWarning);
    harness.actor.send({ type: 'filter.request' });
    expect(harness.notices).toHaveLength(2);
  });

  it('keeps the filter through a recalculation the server runs on its own, holding its section updates', async () => {
    const harness = createHarness({ children: 'real' });
    await applyFilter(harness);
    harness.actor.send({ type: 'live.update', update: { object: 'business_report', recalculation_status: 'recalculating', freshness_status: 'fresh', refreshed_at: null } });
    await flush();
    expect(harness.snapshot().context.recalculating).toBe(true);
    expect(harness.filterSnapshot().value).toBe('filtered');
  });

  it('clears the filter when the user starts a recalculation: refresh, a saved range, a saved view', async () => {
    for (const start of [{ type: 'report.refresh' }, { type: 'report.periodSaved', period: {} }, { type: 'report.viewSaved', filter: null }] as const) {
      const harness = createHarness({ children: 'real' });
      await applyFilter(harness);
      expect(harness.filterSnapshot().value).toBe('filtered');
      harness.actor.send(start);
      await flush();
      expect(harness.filterSnapshot().value, start.type).toBe('unfiltered');
    }
  });

  it('clears the filter on Add chart, on an edit, and when quarters display is turned off; a currency saves then recalculates', async () => {
    const harness = createHarness({ children: 'real' });
    await applyFilter(harness);
    harness.actor.send({ type: 'chart.add' });
    await flush();
    expect(harness.filterSnapshot().value).toBe('unfiltered');

    await applyFilter(harness);
    harness.actor.send({ type: 'edit.started', sectionId: FIRST_SECTION });
    await flush();
    expect(harness.filterSnapshot().value).toBe('unfiltered');
    harness.actor.send({ type: 'filter.request' });
    expect(pickerOpen(harness.snapshot())).toBe(false);
    harness.actor.send({ type: 'edit.ended', sectionId: FIRST_SECTION });

    await applyFilter(harness);
    harness.actor.send({ type: 'settings.change', ...SETTINGS_CHANGES.quartersOff });
    await harness.settleSave({ done: { display_quarters: false } });
    expect(harness.filterSnapshot().value).toBe('unfiltered');
    expect(harness.snapshot().context.report.settings.display_quarters).toBe(false);

    harness.actor.send({ type: 'settings.change', ...SETTINGS_CHANGES.currency });
    expect(savingSettings(harness.snapshot())).toBe(true);
    await harness.settleSave({ done: { display_quarters: false } });
    expect(harness.snapshot().context.report.currency).toBe('EUR');
    expect(harness.snapshot().context.recalculating).toBe(true);
  });

  it('never opens the picker of a shared report, and shows no warning there', async () => {
    const harness = createHarness({ input: { ...modelInput, shared: true }, children: 'real' });
    harness.actor.send({ type: 'filter.request' });
    expect(pickerOpen(harness.snapshot())).toBe(false);
    harness.actor.send({ type: 'report.refresh' });
    harness.actor.send({ type: 'filter.request' });
    expect(harness.notices).toEqual([]);
    // Nor is it refreshed from the page.
    expect(harness.refreshes).toHaveLength(0);
  });

  it('refuses an item picked after a recalculation started while the picker was open', async () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'filter.request' });
    harness.actor.send({ type: 'report.refresh' });
    harness.actor.send({ type: 'filter.apply', item: modelItem });
    await flush();
    expect(pickerOpen(harness.snapshot())).toBe(false);
    expect(harness.filtered).toHaveLength(0);
    expect(harness.notices).toEqual([{ kind: 'filterWarning', message: FILTER_BLOCKED }]);
  });
});

describe('report page machine: edits and settings', () => {
  it('keeps a demo report’s title in this browser; a real report’s edit is only patched', () => {
    const demo = createHarness({ input: { ...modelInput, demo: true } });
    demo.actor.send({ type: 'report.edited', change: { title: 'My demo' } });
    expect(demo.demoEdits).toEqual([{ reportId: modelReport.id, change: { title: 'My demo' } }]);
    expect(demo.snapshot().context.report.title).toBe('My demo');

    const real = createHarness();
    real.actor.send({ type: 'report.edited', change: { title: 'Board, April' } });
    expect(real.demoEdits).toEqual([]);
    expect(real.snapshot().context.report.title).toBe('Board, April');
  });

  it('saves settings changes one at a time in order; a refused one toasts its failure and the next is saved', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'settings.change', ...SETTINGS_CHANGES.repeatable });
    harness.actor.send({ type: 'settings.change', ...SETTINGS_CHANGES.quartersOff });
    expect(harness.saves.map((call) => call.change)).toEqual([{ repeatable: false }]);
    await harness.settleSave({ error: new Error('500') });
    expect(harness.notices).toEqual([{ kind: 'error', message: SETTINGS_CHANGES.repeatable.failure }]);
    expect(harness.saves.map((call) => call.change)).toEqual([{ repeatable: false }, { display_quarters: false }]);
    await harness.settleSave({ done: { display_quarters: false } });
    expect(savingSettings(harness.snapshot())).toBe(false);
    expect(atRest(harness.snapshot())).toBe(true);
  });

  it('stays in edit mode until every started edit ended', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'edit.started', sectionId: FIRST_SECTION });
    harness.actor.send({ type: 'edit.started', sectionId: FIRST_SECTION });
    harness.actor.send({ type: 'edit.ended', sectionId: FIRST_SECTION });
    expect(harness.snapshot().matches({ edit: 'editing' })).toBe(true);
    harness.actor.send({ type: 'edit.ended', sectionId: FIRST_SECTION });
    expect(harness.snapshot().matches({ edit: 'viewing' })).toBe(true);
  });

  it('reads the report again when the server says the recalculation is over', () => {
    const harness = createHarness({ children: 'real' });
    harness.actor.send({ type: 'live.update', update: { object: 'business_report', recalculation_status: 'recalculating', freshness_status: 'fresh', refreshed_at: null } });
    expect(harness.reloads()).toBe(0);
    harness.actor.send({ type: 'live.update', update: { object: 'business_report', recalculation_status: 'recalculated', freshness_status: 'fresh', refreshed_at: '2026-03-02T09:00:00.000Z' } });
    expect(harness.reloads()).toBe(1);
    expect(harness.snapshot().context.report.refreshed_at).toBe('2026-03-02T09:00:00.000Z');
    expect(harness.snapshot().context.recalculating).toBe(false);
  });
});
