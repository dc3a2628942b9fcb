import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import type { RecalculationInvokeId } from '../../../machines/recalculation/recalculationActors';
import { recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationSnapshot } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationEvent, RecalculationInput } from '../../../machines/recalculation/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The recalculation machine's test model, shared by the machine suite (a stubbed refresh
 * call): the events the report page, the live channel and the refresh call can cause, with
 * fixed payloads so the graph stays finite.
 */

export const MODEL_REPORT_ID = 'rep_model';
/** Two sections: the model sees one section's update arrive before the report's. */
export const MODEL_SECTION_IDS = ['sec_mrr', 'sec_churn'] as const;
export const [FIRST_SECTION, SECOND_SECTION] = MODEL_SECTION_IDS;

/** The model starts on a recalculated, fresh report opened by an editor. */
export const modelInput: RecalculationInput = {
  reportId: MODEL_REPORT_ID,
  canEdit: true,
  recalculationStatus: 'recalculated',
  freshnessStatus: 'fresh',
  sectionIds: [...MODEL_SECTION_IDS],
};

/** The business_report objects the live channel (or a reload) brings. */
export const reportUpdates = {
  recalculating: { type: 'recalculation.reportUpdated', recalculationStatus: 'recalculating', freshnessStatus: 'fresh' },
  fresh: { type: 'recalculation.reportUpdated', recalculationStatus: 'recalculated', freshnessStatus: 'fresh' },
  stale: { type: 'recalculation.reportUpdated', recalculationStatus: 'recalculated', freshnessStatus: 'stale' },
  failed: { type: 'recalculation.reportUpdated', recalculationStatus: 'failed', freshnessStatus: 'fresh' },
} as const satisfies Record<string, RecalculationEvent>;

/** What a refused POST /business_reports/{id}/refresh rejects with. */
export const refreshRefusal = new Error('503 Service Unavailable');

type DoneEvent<Id extends RecalculationInvokeId> = { type: `xstate.done.actor.${Id}`; output: undefined };
type ErrorEvent<Id extends RecalculationInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the machine's own and the refresh call's done/error events. */
export type RecalculationModelEvent =
  | RecalculationEvent
  | { [Id in RecalculationInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[RecalculationInvokeId];
export type RecalculationModelEventType = RecalculationModelEvent['type'];

export const modelEvents: readonly RecalculationModelEvent[] = [
  { type: 'recalculation.refresh' },
  { type: 'recalculation.dataChanged' },
  { type: 'recalculation.settingsChanged' },
  reportUpdates.recalculating,
  reportUpdates.fresh,
  reportUpdates.stale,
  reportUpdates.failed,
  { type: 'recalculation.sectionUpdated', sectionId: FIRST_SECTION, recalculationStatus: 'recalculated' },

  { type: 'xstate.done.actor.refresh', output: undefined },
  { type: 'xstate.error.actor.refresh', error: refreshRefusal },
];

/** Makes a step's event happen in the system under test. */
export type RecalculationExecutor = (event: RecalculationModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type RecalculationExecutors = Record<RecalculationModelEventType, RecalculationExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects.
 */
export function pathTestParams(
  executors: RecalculationExecutors,
  assertState: (expected: RecalculationSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as RecalculationModelEventType[]) {
    events[type] = (step) => executors[type](step.event as RecalculationModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as RecalculationSnapshot) } };
}

export function isPageEvent(event: RecalculationModelEvent): event is RecalculationEvent {
  return !event.type.startsWith('xstate.');
}

/** The machine as the model sees it: its event type widened to the refresh call's done/error events. */
const modelLogic = recalculationMachine as unknown as ActorLogic<RecalculationSnapshot, RecalculationModelEvent, RecalculationInput>;

const isSettled = (snapshot: RecalculationSnapshot) => snapshot.matches('fresh') || snapshot.matches('stale') || snapshot.matches('failed');

/**
 * Leaves of the graph: states whose continuation is explored from an equal state elsewhere.
 * The report's states form one web (any state follows the server's update to any other), so
 * each state is explored from one route and the others stop where they arrive:
 * - `refreshFailed`: a refused refresh goes back to the state it came from (with the
 *   error), which is explored at the start;
 * - `settledAgain`: fresh, stale or failed reached from anywhere but the report as loaded:
 *   those states are explored right after the start;
 * - `updatedWhileRefreshing`: an update recorded while the refresh is pending leaves the
 *   refresh pending, explored as it started;
 * - `recalculationStarted`: a recalculation started anywhere but from the report as loaded,
 *   explored from there;
 * - `restarted`: a recalculation started again, or told it still runs, explored as first
 *   started. Section updates go on being explored (the spinners stop one by one).
 */
type LeafReason = 'refreshFailed' | 'settledAgain' | 'updatedWhileRefreshing' | 'recalculationStarted' | 'restarted';

function leafReason(snapshot: RecalculationSnapshot, event: EventObject | undefined, previous: RecalculationSnapshot | undefined): LeafReason | null {
  if (!event || !previous) return null;
  if (event.type === 'xstate.error.actor.refresh') return 'refreshFailed';
  if (isSettled(snapshot)) return previous.matches('fresh') ? null : 'settledAgain';
  if (snapshot.matches('refreshing')) return previous.matches('refreshing') ? 'updatedWhileRefreshing' : null;
  if (previous.matches('recalculating')) return event.type === 'recalculation.sectionUpdated' ? null : 'restarted';
  return previous.matches('fresh') ? null : 'recalculationStarted';
}

/** The snapshots that are leaves (recorded while serializing, read by `stopWhen`). */
const leaves = new WeakSet<object>();

/** The state's identity in the graph: its value and its context (bounded by the fixed payloads); a leaf is a state of its own. */
function serializeState(snapshot: RecalculationSnapshot, event?: EventObject, previous?: RecalculationSnapshot): string {
  const leaf = leafReason(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

/** Section updates are modelled while their section still shows a spinner. */
function isModelled(snapshot: RecalculationSnapshot, event: RecalculationModelEvent): boolean {
  if (event.type === 'recalculation.sectionUpdated') return snapshot.context.pendingSections.includes(event.sectionId);
  return isPageEvent(event) ? snapshot.can(event) : snapshot.can(event as unknown as RecalculationEvent);
}

export function recalculationTestModel(
  events: readonly RecalculationModelEvent[] = modelEvents,
): TestModel<RecalculationSnapshot, RecalculationModelEvent, RecalculationInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** The same model in the registry's untyped form. */
export const anyRecalculationTestModel = (): AnyTestModel => recalculationTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const recalculationModelEntry: MachineModelEntry = { name: 'recalculation', machine: recalculationMachine, model: anyRecalculationTestModel };
