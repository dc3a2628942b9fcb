import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { liveConnectionMachine } from '../../../machines/liveConnection/liveConnectionMachine';
import type { LiveConnectionSnapshot } from '../../../machines/liveConnection/liveConnectionMachine';
import type { LiveConnectionEvent } from '../../../machines/liveConnection/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The live connection machine's test model, shared by the machine suite (a SimulatedClock for
 * the 'Connection re-established' notice): what the consumer reports, and the notice's delay.
 */

/** The delayed event of `reconnected` (`after: { reestablishedNotice }`): the notice is over. */
export const NOTICE_OVER_EVENT = 'xstate.after.reestablishedNotice.liveConnection.reconnected' as const;

/** Every event the model takes: the consumer's and the notice's delay. */
export type LiveConnectionModelEvent = LiveConnectionEvent | { type: typeof NOTICE_OVER_EVENT };
export type LiveConnectionModelEventType = LiveConnectionModelEvent['type'];

export const modelEvents: readonly LiveConnectionModelEvent[] = [{ type: 'liveConnection.connected' }, { type: 'liveConnection.disconnected' }, { type: 'liveConnection.closed' }, { type: NOTICE_OVER_EVENT }];

/** Makes a step's event happen in the system under test. */
export type LiveConnectionExecutor = (event: LiveConnectionModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type LiveConnectionExecutors = Record<LiveConnectionModelEventType, LiveConnectionExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects.
 */
export function pathTestParams(
  executors: LiveConnectionExecutors,
  assertState: (expected: LiveConnectionSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as LiveConnectionModelEventType[]) {
    events[type] = (step) => executors[type](step.event as LiveConnectionModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as LiveConnectionSnapshot) } };
}

export function isConsumerEvent(event: LiveConnectionModelEvent): event is LiveConnectionEvent {
  return !event.type.startsWith('xstate.');
}

/** The machine as the model sees it: its event type widened to the delayed event. */
const modelLogic = liveConnectionMachine as unknown as ActorLogic<LiveConnectionSnapshot, LiveConnectionModelEvent, undefined>;

/** The snapshots that are leaves (recorded while serializing, read by `stopWhen`). */
const leaves = new WeakSet<object>();

/**
 * The state's identity in the graph: its value (the chart has no context). A connection lost
 * again while 'Connection re-established' shows is a leaf of its own: the lost connection is
 * explored where it was first lost, and a simple path (which never steps on a state twice)
 * can only take that transition into a state of its own.
 */
function serializeState(snapshot: LiveConnectionSnapshot, event?: EventObject, previous?: LiveConnectionSnapshot): string {
  const lostAgain = event?.type === 'liveConnection.disconnected' && previous?.matches('reconnected') === true;
  if (lostAgain) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, ...(lostAgain ? { leaf: 'lostAgain' } : {}) });
}

/** A closed connection takes nothing more. */
export function liveConnectionTestModel(
  events: readonly LiveConnectionModelEvent[] = modelEvents,
): TestModel<LiveConnectionSnapshot, LiveConnectionModelEvent, undefined> {
  return new TestModel(modelLogic, {
    events,
    filterEvents: (snapshot, event) => snapshot.status === 'active' && snapshot.can(event as LiveConnectionEvent),
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** The same model in the registry's untyped form. */
export const anyLiveConnectionTestModel = (): AnyTestModel => liveConnectionTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const liveConnectionModelEntry: MachineModelEntry = { name: 'liveConnection', machine: liveConnectionMachine, model: anyLiveConnectionTestModel };
