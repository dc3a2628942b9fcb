import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import type { FilterItem } from '../../../models/reportFilter';
import { initialRecalculationContext, recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationSnapshot } from '../../../machines/recalculation/recalculationMachine';
import type { ReportPageInvokeId } from '../../../machines/reportPage/reportPageActors';
import { initialReportPageContext, recalculationInputOf, reportPageMachine } from '../../../machines/reportPage/reportPageMachine';
import type { ReportPageSnapshot } from '../../../machines/reportPage/reportPageMachine';
import type { PageReport, PageSection, PageSettings, ReportPageEvent, ReportPageInput, SectionUpdate } from '../../../machines/reportPage/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The report page machine's test model, shared by the machine suite (stubbed children and
 * settings call) and the page's view suite: what the view, the live channel, the children and
 * the settings call can cause, with fixed payloads so the graph stays finite. The children are
 * not run while the graph is explored: what they report (the recalculation's snapshots, the
 * filter's released updates) are events of the model.
 */

export const MODEL_SECTIONS = ['sec_mrr', 'sec_churn'] as const;
export const [FIRST_SECTION, SECOND_SECTION] = MODEL_SECTIONS;

export interface ModelSection extends PageSection {
  title: string;
  value: number;
}

const section = (id: string, title: string, value: number): ModelSection => ({ id, title, value, recalculation_status: 'recalculated' });

/** An editor's recalculated, fresh report of two sections. */
export const modelReport: PageReport<ModelSection> = {
  id: 'rep_model',
  secret: 'M'.repeat(32),
  currency: 'USD',
  can_edit: true,
  title: 'Board, March',
  summary: 'Growth is back.',
  recalculation_status: 'recalculated',
  freshness_status: 'fresh',
  refreshed_at: '2026-03-02T08:00:00.000Z',
  settings: { display_quarters: true },
  sections: [section(FIRST_SECTION, 'MRR', 100), section(SECOND_SECTION, 'Churn', 5)],
  filter: null,
};

export const modelInput: ReportPageInput = { report: modelReport };

export const modelItem: FilterItem = { type: 'segment', id: 'customer_segment:plan', name: 'Plan', value: 'Pro', negated: false };

/** A section's new numbers (the live channel's whole section). */
export const sectionUpdate: SectionUpdate<ModelSection> = { object: 'business_report_section', section: { ...section(FIRST_SECTION, 'MRR', 120) } };
export const reportUpdates = {
  recalculating: { object: 'business_report', recalculation_status: 'recalculating', freshness_status: 'fresh', refreshed_at: '2026-03-02T08:00:00.000Z' },
  finished: { object: 'business_report', recalculation_status: 'recalculated', freshness_status: 'fresh', refreshed_at: '2026-03-02T09:00:00.000Z' },
} as const;

/** The report as read again. */
export const reloadedReport: PageReport<ModelSection> = { ...modelReport, title: 'Board, March (read again)', refreshed_at: '2026-03-02T09:00:00.000Z' };

/** The recalculation child's snapshots the page mirrors: busy (refreshing or recalculating) and settled. */
export function recalculationSnapshot(value: 'recalculating' | 'fresh'): RecalculationSnapshot {
  return recalculationMachine.resolveState({ value, context: initialRecalculationContext(recalculationInputOf(initialReportPageContext(modelInput))) });
}

export const SETTINGS_CHANGES = {
  currency: { change: { currency: 'EUR' }, failure: 'We could not update your report currency, please try again' },
  quartersOff: { change: { display_quarters: false }, failure: 'Sorry, could not update the setting. Please try again.' },
  repeatable: { change: { repeatable: false }, failure: 'Sorry, could not update the setting. Please try again.' },
} as const;

/** What PUT /business_reports/{id}/settings answers (the settings as saved). */
export const savedSettings: PageSettings = { display_quarters: false };
export const settingsRefusal = new Error('500 Internal Server Error');

/** The delayed event of `warning.shown`: the filter warning is over. */
export const WARNING_OVER_EVENT = 'xstate.after.filterWarning.reportPage.warning.shown' as const;

type DoneEvent<Id extends ReportPageInvokeId> = { type: `xstate.done.actor.${Id}`; output: PageSettings };
type ErrorEvent<Id extends ReportPageInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };
export type RecalculationSnapshotEvent = { type: 'xstate.snapshot.recalculation'; snapshot: RecalculationSnapshot };

/** Every event the model takes. */
export type ReportPageModelEvent =
  | ReportPageEvent
  | RecalculationSnapshotEvent
  | { type: typeof WARNING_OVER_EVENT }
  | { [Id in ReportPageInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[ReportPageInvokeId];
export type ReportPageModelEventType = ReportPageModelEvent['type'];

/** Events that change only the context, in any state: explored from the page as opened. */
const CONTEXT_EVENTS: ReadonlySet<ReportPageModelEventType> = new Set([
  'live.update',
  'filter.released',
  'report.reloaded',
  'report.changed',
  'report.edited',
  'report.refresh',
  'report.periodSaved',
  'report.recalculationStarted',
  'report.viewSaved',
  'chart.add',
  'filter.clear',
]);

export const modelEvents: readonly ReportPageModelEvent[] = [
  { type: 'live.update', update: reportUpdates.recalculating },
  { type: 'live.update', update: reportUpdates.finished },
  { type: 'live.update', update: sectionUpdate },
  { type: 'filter.released', update: sectionUpdate },
  { type: 'report.reloaded', report: reloadedReport },
  { type: 'report.changed', report: { ...modelReport, sections: [...modelReport.sections].reverse() } },
  { type: 'report.edited', change: { title: 'Board, April' } },
  { type: 'report.refresh' },
  { type: 'report.periodSaved', period: { start_year: 2025, start_month: 4, end_year: 2025, end_month: 12 } },
  { type: 'report.recalculationStarted' },
  { type: 'report.viewSaved', filter: { operator: 'and', arguments: [modelItem] } },
  { type: 'chart.add' },
  { type: 'filter.clear' },
  { type: 'settings.change', ...SETTINGS_CHANGES.currency },
  { type: 'settings.change', ...SETTINGS_CHANGES.quartersOff },
  { type: 'settings.change', ...SETTINGS_CHANGES.repeatable },
  { type: 'edit.started', sectionId: FIRST_SECTION },
  { type: 'edit.started', sectionId: SECOND_SECTION },
  { type: 'edit.ended', sectionId: FIRST_SECTION },
  { type: 'edit.ended', sectionId: SECOND_SECTION },
  { type: 'filter.request' },
  { type: 'picker.close' },
  { type: 'filter.apply', item: modelItem },
  { type: 'xstate.snapshot.recalculation', snapshot: recalculationSnapshot('recalculating') },
  { type: 'xstate.snapshot.recalculation', snapshot: recalculationSnapshot('fresh') },
  { type: 'xstate.done.actor.saveSettings', output: savedSettings },
  { type: 'xstate.error.actor.saveSettings', error: settingsRefusal },
  { type: WARNING_OVER_EVENT },
];

/** Makes a step's event happen in the system under test. */
export type ReportPageExecutor = (event: ReportPageModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type ReportPageExecutors = Record<ReportPageModelEventType, ReportPageExecutor>;

export function pathTestParams(
  executors: ReportPageExecutors,
  assertState: (expected: ReportPageSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as ReportPageModelEventType[]) {
    events[type] = (step) => executors[type](step.event as ReportPageModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as ReportPageSnapshot) } };
}

/** Events the view (or the live channel) sends the page machine. */
export function isPageEvent(event: ReportPageModelEvent): event is ReportPageEvent {
  return !event.type.startsWith('xstate.') && event.type !== 'filter.released';
}

const modelLogic = reportPageMachine as unknown as ActorLogic<ReportPageSnapshot, ReportPageModelEvent, ReportPageInput>;

/** The page as opened: picker closed, no warning, nothing edited or saved, no recalculation. */
export function atRest(snapshot: ReportPageSnapshot): boolean {
  return (
    snapshot.matches({ picker: 'closed', warning: 'hidden', edit: 'viewing', settings: 'idle' }) &&
    !snapshot.context.recalculating &&
    snapshot.context.settingsQueue.length === 0
  );
}

const isBusy = (event: ReportPageModelEvent) => event.type === 'xstate.snapshot.recalculation' && event.snapshot.matches('recalculating');

/**
 * Which events the model takes where, so the regions are explored one at a time from the page
 * as opened (their combinations add paths, not transitions):
 * - the context events and a settings change from the page at rest only;
 * - a recalculation starting from rest or with the picker open, ending where it started;
 * - edits from rest (two at most), with no recalculation;
 * - the picker's request from rest, while recalculating or while editing; its close and apply
 *   while open; the warning's end while shown;
 * - the settings call's answers while saving.
 */
function isModelled(snapshot: ReportPageSnapshot, event: ReportPageModelEvent): boolean {
  const { context } = snapshot;
  if (CONTEXT_EVENTS.has(event.type) || event.type === 'settings.change') return atRest(snapshot);
  switch (event.type) {
    case 'xstate.snapshot.recalculation':
      if (isBusy(event)) return !context.recalculating && context.editing.length === 0 && snapshot.matches({ warning: 'hidden', settings: 'idle' });
      return context.recalculating && snapshot.matches({ warning: 'hidden' });
    case 'edit.started':
      return !context.recalculating && context.editing.length < 2 && !context.editing.includes(event.sectionId) && snapshot.matches({ picker: 'closed', warning: 'hidden', settings: 'idle' });
    case 'edit.ended':
      return context.editing.includes(event.sectionId) && snapshot.matches({ warning: 'hidden' });
    case 'filter.request':
      return snapshot.matches({ picker: 'closed', warning: 'hidden', settings: 'idle' });
    case 'picker.close':
    case 'filter.apply':
      return snapshot.matches({ picker: 'open' });
    case WARNING_OVER_EVENT:
      return snapshot.matches({ warning: 'shown' });
    default:
      return snapshot.matches({ settings: 'saving' });
  }
}

/**
 * Leaves of the graph: a state reached by a step whose continuation is explored elsewhere
 * (a context event, a saved or refused setting, the picker closed, the warning over, the last
 * edit ended, a recalculation over: each back where the page was, with a changed context).
 */
function isLeafStep(snapshot: ReportPageSnapshot, event: ReportPageModelEvent, previous: ReportPageSnapshot): boolean {
  if (CONTEXT_EVENTS.has(event.type)) return true;
  if (event.type === 'xstate.done.actor.saveSettings' || event.type === 'xstate.error.actor.saveSettings') return true;
  if (event.type === WARNING_OVER_EVENT) return true;
  if (previous.matches({ picker: 'open' }) && snapshot.matches({ picker: 'closed' })) return true;
  if (event.type === 'edit.ended' && snapshot.matches({ edit: 'viewing' })) return true;
  return event.type === 'xstate.snapshot.recalculation' && !isBusy(event);
}

const leaves = new WeakSet<object>();

function serializeState(snapshot: ReportPageSnapshot, event?: EventObject, previous?: ReportPageSnapshot): string {
  const leaf = event && previous ? isLeafStep(snapshot, event as ReportPageModelEvent, previous) : false;
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf: JSON.stringify(event) } : {}) });
}

export function reportPageTestModel(events: readonly ReportPageModelEvent[] = modelEvents): TestModel<ReportPageSnapshot, ReportPageModelEvent, ReportPageInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** The same model in the registry's untyped form. */
export const anyReportPageTestModel = (): AnyTestModel => reportPageTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const reportPageModelEntry: MachineModelEntry = { name: 'reportPage', machine: reportPageMachine, model: anyReportPageTestModel };
