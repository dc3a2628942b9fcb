import { assign } from 'xstate';
import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import type { FilterItem } from '../../../models/reportFilter';
import type { ReportFilterInvokeId } from '../../../machines/reportFilter/reportFilterActors';
import { reportFilterMachine } from '../../../machines/reportFilter/reportFilterMachine';
import type { ReportFilterSnapshot } from '../../../machines/reportFilter/reportFilterMachine';
import type { FilterSection, FilterUpdate, ReportFilterEvent, ReportFilterInput } from '../../../machines/reportFilter/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The report filter's test model, shared by the machine suite (a stubbed filtered call, the
 * machine run under a parent that records what it releases) and the report page's view suite:
 * two filter items, one live update and the call's answers, with fixed payloads so the graph
 * stays finite.
 */

export const MODEL_SECRET = 'F'.repeat(32);
export const MODEL_CURRENCY = 'USD';
export const modelInput: ReportFilterInput = { secret: MODEL_SECRET, currency: MODEL_CURRENCY };

export const modelItems = {
  pro: { type: 'segment', id: 'customer_segment:plan', name: 'Plan', value: 'Pro', negated: false },
  notAnna: { type: 'deal_owner', owner_name: 'Anna', negated: true },
} as const satisfies Record<string, FilterItem>;

export const FILTERED_SECTIONS: FilterSection[] = [{ id: 'sec_mrr' }];
/** A live update of a section (the model holds at most one at a time: more add nothing to the chart). */
export const modelUpdate: FilterUpdate = { section: { id: 'sec_mrr' } };

/** What a failed GET /business_reports/by_secret_filtered rejects with. */
export const applyRefusal = new Error('422 Unprocessable Entity');

type DoneEvent<Id extends ReportFilterInvokeId> = { type: `xstate.done.actor.${Id}`; output: FilterSection[] };
type ErrorEvent<Id extends ReportFilterInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the page's and the filtered call's done/error events. */
export type ReportFilterModelEvent = ReportFilterEvent | { [Id in ReportFilterInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[ReportFilterInvokeId];
export type ReportFilterModelEventType = ReportFilterModelEvent['type'];

export const modelEvents: readonly ReportFilterModelEvent[] = [
  { type: 'filter.apply', item: modelItems.pro },
  { type: 'filter.apply', item: modelItems.notAnna },
  { type: 'filter.clear' },
  { type: 'filter.update', update: modelUpdate },
  { type: 'xstate.done.actor.fetchFiltered', output: FILTERED_SECTIONS },
  { type: 'xstate.error.actor.fetchFiltered', error: applyRefusal },
];

/** Makes a step's event happen in the system under test. */
export type ReportFilterExecutor = (event: ReportFilterModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type ReportFilterExecutors = Record<ReportFilterModelEventType, ReportFilterExecutor>;

export function pathTestParams(
  executors: ReportFilterExecutors,
  assertState: (expected: ReportFilterSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as ReportFilterModelEventType[]) {
    events[type] = (step) => executors[type](step.event as ReportFilterModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as ReportFilterSnapshot) } };
}

export function isPageEvent(event: ReportFilterModelEvent): event is ReportFilterEvent {
  return !event.type.startsWith('xstate.');
}

/**
 * The machine as the model sees it. The graph is explored without a parent, so the two
 * releases (a `sendParent`) do only what they do to the context; the suites run the real
 * machine under a parent and check what it releases.
 */
const modelLogic = reportFilterMachine.provide({
  actions: { release: () => {}, replayHeld: assign({ held: [] }) },
}) as unknown as ActorLogic<ReportFilterSnapshot, ReportFilterModelEvent, ReportFilterInput>;

/**
 * Leaves of the graph: states whose continuation is explored from an equal state elsewhere.
 * - `cleared`: back to unfiltered from anywhere but the start (the start is explored);
 * - `switched`: another item picked while one is applied (explored as the first apply);
 * - `failedBack`: a failed apply that went back to the filter before (explored where that
 *   filter was first on);
 * - `passedThrough`: an update passed on while unfiltered leaves the state as it was: a state
 *   of its own, since a simple path never steps on a state twice.
 */
type LeafReason = 'cleared' | 'switched' | 'failedBack' | 'passedThrough';

function leafReason(snapshot: ReportFilterSnapshot, event: EventObject | undefined, previous: ReportFilterSnapshot | undefined): LeafReason | null {
  if (!event || !previous) return null;
  if (event.type === 'filter.update' && previous.matches('unfiltered')) return 'passedThrough';
  if (snapshot.matches('unfiltered') && !previous.matches('unfiltered')) return 'cleared';
  if (previous.matches('applying') && snapshot.matches('applying')) return 'switched';
  if (event.type === 'xstate.error.actor.fetchFiltered' && snapshot.matches('filtered')) return 'failedBack';
  return null;
}

const leaves = new WeakSet<object>();

function serializeState(snapshot: ReportFilterSnapshot, event?: EventObject, previous?: ReportFilterSnapshot): string {
  const leaf = leafReason(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

/**
 * What the model takes: page events the chart handles (an apply of the item already being
 * applied or on adds nothing), one held update at a time, and the call's answers while it runs.
 */
function isModelled(snapshot: ReportFilterSnapshot, event: ReportFilterModelEvent): boolean {
  switch (event.type) {
    case 'filter.apply':
      return snapshot.context.item?.type !== event.item.type;
    case 'filter.update':
      return snapshot.context.held.length === 0;
    case 'filter.clear':
      return !snapshot.matches('unfiltered');
    default:
      return snapshot.matches('applying');
  }
}

export function reportFilterTestModel(events: readonly ReportFilterModelEvent[] = modelEvents): TestModel<ReportFilterSnapshot, ReportFilterModelEvent, ReportFilterInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** The same model in the registry's untyped form. */
export const anyReportFilterTestModel = (): AnyTestModel => reportFilterTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const reportFilterModelEntry: MachineModelEntry = { name: 'reportFilter', machine: reportFilterMachine, model: anyReportFilterTestModel };
