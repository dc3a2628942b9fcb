import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import type { ColumnDefinitionInput } from '../../../models/customerColumns';
import type { ColumnRecalculationInvokeId } from '../../../machines/columnRecalculation/columnRecalculationActors';
import { columnRecalculationMachine } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnRecalculationSnapshot } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnDefinition, ColumnRecalculationEvent, ColumnRecalculationInput } from '../../../machines/columnRecalculation/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The column recalculation machine's test model: a new column from the 'Create column'
 * drawer, with the events the drawers, the calls, CustomerColumnsChannel and the fallback poll
 * can cause, fixed payloads so the graph stays finite.
 */

export const MODEL_COLUMN_ID = 'crmd_model';
export const OTHER_COLUMN_ID = 'crmd_other';

export const modelInput: ColumnDefinitionInput = {
  name: 'Bookings per MRR',
  formula: 'tcv / mrr',
  variables: [
    { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: 2025, end_month: 12, end_year: 2025 },
    { fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: 12, end_year: 2025 },
  ],
};

export function modelDefinition(status: ColumnDefinition['recalculation_status'], id = MODEL_COLUMN_ID): ColumnDefinition {
  return {
    id,
    name: modelInput.name,
    formula: modelInput.formula,
    variables: modelInput.variables.map((variable) => ({ ...variable, fetcher: variable.fetcher ?? 'Mrr', start_month: variable.start_month ?? 1, start_year: variable.start_year ?? 2025, end_month: variable.end_month ?? 1, end_year: variable.end_year ?? 2025 })),
    recalculation_status: status,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
  };
}

export const saved = modelDefinition('in_progress');

/** What the calls reject with. */
export const modelFailures = {
  invalid: { kind: 'invalid', messages: ['Column name is required', 'Unknown variable: arr'] },
  unavailable: new TypeError('Failed to fetch'),
} as const;

/** The delayed event of the fallback poll (`after: { pollDelay }` of calculating.waiting). */
export const POLL_AFTER_EVENT = 'xstate.after.pollDelay.columnRecalculation.calculating.waiting' as const;

type Outputs = { save: ColumnDefinition; poll: ColumnDefinition[]; remove: undefined };
type DoneEvent<Id extends ColumnRecalculationInvokeId> = { type: `xstate.done.actor.${Id}`; output: Outputs[Id] };
type ErrorEvent<Id extends ColumnRecalculationInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

export type ColumnModelEvent =
  | ColumnRecalculationEvent
  | { [Id in ColumnRecalculationInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[ColumnRecalculationInvokeId]
  | { type: typeof POLL_AFTER_EVENT };
export type ColumnModelEventType = ColumnModelEvent['type'];

export const modelEvents: readonly ColumnModelEvent[] = [
  { type: 'column.save', input: modelInput },
  { type: 'column.dismiss' },
  { type: 'column.deleteAsked' },
  { type: 'column.deleteConfirmed' },
  { type: 'column.deleteCancelled' },
  { type: 'columnsChannel.update', update: { id: MODEL_COLUMN_ID, recalculation_status: 'finished' } },
  { type: 'columnsChannel.update', update: { id: MODEL_COLUMN_ID, recalculation_status: 'in_progress' } },
  { type: 'columnsChannel.update', update: { id: OTHER_COLUMN_ID, recalculation_status: 'finished' } },
  { type: 'xstate.done.actor.save', output: saved },
  { type: 'xstate.error.actor.save', error: modelFailures.invalid },
  { type: 'xstate.error.actor.save', error: modelFailures.unavailable },
  { type: POLL_AFTER_EVENT },
  { type: 'xstate.done.actor.poll', output: [modelDefinition('finished')] },
  { type: 'xstate.done.actor.poll', output: [saved, modelDefinition('finished', OTHER_COLUMN_ID)] },
  { type: 'xstate.done.actor.poll', output: [] },
  { type: 'xstate.error.actor.poll', error: modelFailures.unavailable },
  { type: 'xstate.done.actor.remove', output: undefined },
  { type: 'xstate.error.actor.remove', error: modelFailures.unavailable },
];

export type ColumnExecutor = (event: ColumnModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type ColumnExecutors = Record<ColumnModelEventType, ColumnExecutor>;

export function pathTestParams(executors: ColumnExecutors, assertState: (expected: ColumnRecalculationSnapshot) => Promise<void> | void): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as ColumnModelEventType[]) {
    events[type] = (step) => executors[type](step.event as ColumnModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as ColumnRecalculationSnapshot) } };
}

const modelLogic = columnRecalculationMachine as unknown as ActorLogic<ColumnRecalculationSnapshot, ColumnModelEvent, ColumnRecalculationInput>;

/** Channel messages are modelled while a column is saved (ignored ones included, to see them ignored); the rest where the machine acts on them. */
function isModelled(snapshot: ColumnRecalculationSnapshot, event: ColumnModelEvent): boolean {
  if (event.type === 'columnsChannel.update') return snapshot.matches('calculating') || snapshot.matches('finished');
  return snapshot.can(event as unknown as ColumnRecalculationEvent);
}

/**
 * Leaves of the graph (a state of their own, explored no further), so the paths stay a
 * readable plan and every transition still shows up on one:
 * - `ignored`: a channel message that changed nothing;
 * - `retried`: a save tried again after a failure (explored from the first save);
 * - `returned`: back where the column was before (the drawer dismissed, the delete cancelled
 *   or refused, a recalculation started elsewhere): a state every path has been through;
 * - `pollAgain`: waiting for the next poll after one that said nothing new (the schedule's
 *   later steps are unit-tested).
 */
type LeafReason = 'ignored' | 'retried' | 'returned' | 'pollAgain';

function leafReason(snapshot: ColumnRecalculationSnapshot, event: ColumnModelEvent | undefined, previous: ColumnRecalculationSnapshot | undefined): LeafReason | null {
  if (!previous || !event) return null;
  if (event.type === 'columnsChannel.update') {
    if (JSON.stringify(previous.value) === JSON.stringify(snapshot.value)) return 'ignored';
    return previous.matches('finished') ? 'returned' : null;
  }
  if (event.type === 'column.save' && previous.matches('saveFailed')) return 'retried';
  if (event.type === 'column.dismiss' || event.type === 'column.deleteCancelled' || event.type === 'xstate.error.actor.remove') return 'returned';
  if ((event.type === 'xstate.done.actor.poll' || event.type === 'xstate.error.actor.poll') && snapshot.matches({ calculating: 'waiting' })) return 'pollAgain';
  return null;
}

const leaves = new WeakSet<object>();
function serializeState(snapshot: ColumnRecalculationSnapshot, event?: ColumnModelEvent, previous?: ColumnRecalculationSnapshot): string {
  const leaf = leafReason(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

export function columnRecalculationTestModel(events: readonly ColumnModelEvent[] = modelEvents): TestModel<ColumnRecalculationSnapshot, ColumnModelEvent, ColumnRecalculationInput> {
  return new TestModel<ColumnRecalculationSnapshot, ColumnModelEvent, ColumnRecalculationInput>(modelLogic, {
    events,
    input: { definition: null },
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

export const anyColumnRecalculationTestModel = (): AnyTestModel => columnRecalculationTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const columnRecalculationModelEntry: MachineModelEntry = { name: 'columnRecalculation', machine: columnRecalculationMachine, model: anyColumnRecalculationTestModel };
