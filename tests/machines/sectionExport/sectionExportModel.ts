import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import type { SectionExportInvokeId } from '../../../machines/sectionExport/sectionExportActors';
import { sectionExportMachine } from '../../../machines/sectionExport/sectionExportMachine';
import type { SectionExportSnapshot } from '../../../machines/sectionExport/sectionExportMachine';
import type { SectionExportEvent, SectionExportRequest, SectionExportUpdate } from '../../../machines/sectionExport/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The section export machine's test model: the events the section menu, the start call and
 * SectionDetailsExportChannel can cause, with fixed payloads so the graph stays finite.
 */

export const MODEL_EXPORT_ID = 'sxp_model';
export const OTHER_EXPORT_ID = 'sxp_other';
export const MODEL_URL = `/api/v11/section_exports/${MODEL_EXPORT_ID}/download?key=k`;
export const MODEL_FILE = 'mrr-details-2026-02-01.csv';

export const modelRequest: SectionExportRequest = { sectionId: 'sec_mrr', query: { date: '2026-02-01', variant: 'money' } };

/** The start call's answer and the channel's messages. */
export const updates = {
  started: { id: MODEL_EXPORT_ID, status: 'in_progress', url: null, file_name: null },
  done: { id: MODEL_EXPORT_ID, status: 'done', url: MODEL_URL, file_name: MODEL_FILE },
  failed: { id: MODEL_EXPORT_ID, status: 'failed', url: null, file_name: null },
  stillRunning: { id: MODEL_EXPORT_ID, status: 'in_progress', url: null, file_name: null },
  otherDone: { id: OTHER_EXPORT_ID, status: 'done', url: '/elsewhere', file_name: 'other.csv' },
} as const satisfies Record<string, SectionExportUpdate>;

/** What a refused POST export_details rejects with. */
export const startRefusal = new Error('503 Service Unavailable');

type DoneEvent<Id extends SectionExportInvokeId> = { type: `xstate.done.actor.${Id}`; output: SectionExportUpdate };
type ErrorEvent<Id extends SectionExportInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

export type SectionExportModelEvent = SectionExportEvent | DoneEvent<'start'> | ErrorEvent<'start'>;
export type SectionExportModelEventType = SectionExportModelEvent['type'];

export const modelEvents: readonly SectionExportModelEvent[] = [
  { type: 'sectionExport.start', request: modelRequest },
  { type: 'xstate.done.actor.start', output: updates.started },
  { type: 'xstate.error.actor.start', error: startRefusal },
  { type: 'sectionExportChannel.update', update: updates.done },
  { type: 'sectionExportChannel.update', update: updates.failed },
  { type: 'sectionExportChannel.update', update: updates.stillRunning },
  { type: 'sectionExportChannel.update', update: updates.otherDone },
];

export type SectionExportExecutor = (event: SectionExportModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type SectionExportExecutors = Record<SectionExportModelEventType, SectionExportExecutor>;

export function pathTestParams(executors: SectionExportExecutors, assertState: (expected: SectionExportSnapshot) => Promise<void> | void): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as SectionExportModelEventType[]) {
    events[type] = (step) => executors[type](step.event as SectionExportModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as SectionExportSnapshot) } };
}

const modelLogic = sectionExportMachine as unknown as ActorLogic<SectionExportSnapshot, SectionExportModelEvent, undefined>;

/**
 * Events the machine acts on in a state. The channel's messages that change nothing (another
 * export's, one still in progress) are modelled too, while the export runs, so the tests see
 * that they are ignored; a start is modelled in every state, the ignored one while running.
 */
function isModelled(snapshot: SectionExportSnapshot, event: SectionExportModelEvent): boolean {
  if (event.type === 'sectionExportChannel.update') return snapshot.matches('inProgress');
  if (event.type === 'sectionExport.start') return true;
  return snapshot.can(event as unknown as SectionExportEvent);
}

/** A state's identity: its value, its context, and whether an ignored event just arrived (a leaf: nothing new follows). */
const leaves = new WeakSet<object>();
function serializeState(snapshot: SectionExportSnapshot, event?: EventObject, previous?: SectionExportSnapshot): string {
  const ignored = previous !== undefined && event !== undefined && previous.matches('inProgress') && snapshot.matches('inProgress');
  // Starting again after a finished export is explored from the first start.
  const restarted = previous !== undefined && !previous.matches('idle') && snapshot.matches('starting');
  if (ignored || restarted) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(ignored ? { leaf: 'ignored' } : restarted ? { leaf: 'restarted' } : {}) });
}

export function sectionExportTestModel(events: readonly SectionExportModelEvent[] = modelEvents): TestModel<SectionExportSnapshot, SectionExportModelEvent, undefined> {
  return new TestModel(modelLogic, {
    events,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

export const anySectionExportTestModel = (): AnyTestModel => sectionExportTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const sectionExportModelEntry: MachineModelEntry = { name: 'sectionExport', machine: sectionExportMachine, model: anySectionExportTestModel };
