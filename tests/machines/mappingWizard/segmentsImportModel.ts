import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { isMappingComplete, roleOfColumn } from '../../../machines/mappingWizard/mapping';
import { mappingWizardFailure } from '../../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardInvokeId } from '../../../machines/mappingWizard/mappingWizardActors';
import { segmentsImport, segmentsImportMachine } from '../../../machines/mappingWizard/segmentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import type {
  LiveChannelEvent,
  MappingWizardEvent,
  MappingWizardInput,
  ImportPreview,
  ImportStatus,
  ImportUpdate,
} from '../../../machines/mappingWizard/types';
import { nextPollDelayMs } from '../../../models/imports';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The attribute values import's test model, shared by the machine suite (stubbed calls,
 * simulated clock) and the view suite (the real component over a fake API): the events a user
 * or the server can cause, with fixed payloads so the graph stays finite, the done/error events
 * of every invocation, and the delayed poll.
 */

/** The poll limit of the model: small enough for the graph to reach it. */
export const MODEL_MAX_POLLS = 3;
/** The custom attribute (customer segment) of the model. */
export const MODEL_SEGMENT_ID = 'seg_plan';
export const modelInput: MappingWizardInput = { maxPolls: MODEL_MAX_POLLS };

/**
 * A file of the model. It serializes as its name: a File alone stringifies as `{}`, and the graph
 * (and xstate's path deduplication) would take two files for the same event.
 */
function modelFile(content: string, name: string, type: string): File {
  const file = new File([content], name, { type });
  Object.defineProperty(file, 'toJSON', { value: () => `file:${name}` });
  return file;
}

export const csvFile = modelFile('Customer ID,Plan\ncus_001,Enterprise\n', 'plans.csv', 'text/csv');
export const pdfFile = modelFile('%PDF-1.7', 'plans.pdf', 'application/pdf');

/**
 * The upload's answer: a header and two customers over three columns, so the file starts with
 * Customer ID on column 1, no value column, and 'Skip headers' on.
 */
export const modelPreview: ImportPreview = {
  importId: 'simp_model',
  totalRows: 3,
  rows: [
    ['Customer ID', 'Company', 'Plan'],
    ['cus_001', 'Acme', 'Enterprise'],
    ['cus_002', 'Globex', 'Pro'],
  ],
  columns: 3,
  delimiter: ',',
  encoding: 'UTF-8',
};

/** The mapping the model imports with: Customer ID on column 1, Value on column 3. */
export const MODEL_COMPLETE_MAPPING = { customerId: 0, value: 2 } as const;

const runningStatus = (progress: number): ImportStatus => ({
  status: 'in_progress',
  progress,
  successCount: 0,
  failureCount: 0,
  failures: [],
  error: null,
});

export const modelStatuses = {
  /** The finalize answer: the import is queued. */
  queued: runningStatus(0),
  running: runningStatus(50),
  succeeded: { status: 'done', progress: 100, successCount: 2, failureCount: 0, failures: [], error: null },
  withErrors: {
    status: 'done',
    progress: 100,
    successCount: 1,
    failureCount: 1,
    failures: [{ rowNumber: 3, row: 'cus_404,Pro', message: "Customer 'cus_404' not found" }],
    error: null,
  },
  failed: { status: 'failed', progress: 50, successCount: 0, failureCount: 0, failures: [], error: 'The import was interrupted; nothing was imported' },
} as const satisfies Record<string, ImportStatus>;

/** What the live channel reports (SegmentsImportChannel): the import's state without its refused rows. */
export const liveUpdates = {
  running: { status: 'finalizing', progress: 50, successCount: 0, failureCount: 0, error: null },
  succeeded: { status: 'done', progress: 100, successCount: 2, failureCount: 0, error: null },
  /** Done with a refused row: the rows come with a poll. */
  withErrors: { status: 'done', progress: 100, successCount: 1, failureCount: 1, error: null },
} as const satisfies Record<string, ImportUpdate>;

export const uploadRefusal = mappingWizardFailure('upload', ['The file is larger than 200 MB']);
export const finalizeRefusal = mappingWizardFailure('finalize', ['Customer segment not found']);
export const statusCheckError = new TypeError('Failed to fetch');

/** The delayed event of `finalizing.waiting`: the next status poll is due. */
export const POLL_DUE_EVENT = 'xstate.after.pollDelay.segmentsImport.finalizing.waiting';

type DoneEvent<Id extends MappingWizardInvokeId> = {
  type: `xstate.done.actor.${Id}`;
  output: Id extends 'upload' ? ImportPreview : ImportStatus;
};
type ErrorEvent<Id extends MappingWizardInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/**
 * Every event the model takes: the machine's own, the calls' done/error events, the poll delay
 * and what the live channel reports.
 */
export type SegmentsImportModelEvent =
  | MappingWizardEvent
  | { [Id in MappingWizardInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[MappingWizardInvokeId]
  | { type: typeof POLL_DUE_EVENT }
  | LiveChannelEvent;
export type SegmentsImportModelEventType = SegmentsImportModelEvent['type'];

export const modelEvents: readonly SegmentsImportModelEvent[] = [
  { type: 'mappingWizard.fileChosen', file: csvFile },
  { type: 'mappingWizard.fileChosen', file: pdfFile },
  { type: 'mappingWizard.upload' },
  { type: 'mappingWizard.cancelUpload' },
  // Value on column 3 completes the mapping; Value on column 1 takes it from Customer ID.
  { type: 'mappingWizard.mapColumn', column: 2, role: 'value' },
  { type: 'mappingWizard.mapColumn', column: 0, role: 'value' },
  { type: 'mappingWizard.skipHeadersChanged', skipHeaders: false },
  { type: 'mappingWizard.finalize' },
  { type: 'mappingWizard.reset' },

  { type: 'xstate.done.actor.upload', output: modelPreview },
  { type: 'xstate.error.actor.upload', error: uploadRefusal },
  { type: 'xstate.done.actor.finalize', output: modelStatuses.queued },
  { type: 'xstate.error.actor.finalize', error: finalizeRefusal },
  { type: POLL_DUE_EVENT },
  { type: 'xstate.done.actor.fetchStatus', output: modelStatuses.running },
  { type: 'xstate.done.actor.fetchStatus', output: modelStatuses.succeeded },
  { type: 'xstate.done.actor.fetchStatus', output: modelStatuses.withErrors },
  { type: 'xstate.done.actor.fetchStatus', output: modelStatuses.failed },
  { type: 'xstate.error.actor.fetchStatus', error: statusCheckError },

  { type: 'liveChannel.connected' },
  { type: 'liveChannel.lost' },
  { type: 'liveChannel.update', update: liveUpdates.running },
  { type: 'liveChannel.update', update: liveUpdates.succeeded },
  { type: 'liveChannel.update', update: liveUpdates.withErrors },
];

/** Makes a step's event happen in the system under test (the machine, or the page in jsdom). */
export type SegmentsImportExecutor = (event: SegmentsImportModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type SegmentsImportExecutors = Record<SegmentsImportModelEventType, SegmentsImportExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects.
 */
export function pathTestParams(
  executors: SegmentsImportExecutors,
  assertState: (expected: MappingWizardSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as SegmentsImportModelEventType[]) {
    events[type] = (step) => executors[type](step.event as SegmentsImportModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as MappingWizardSnapshot) } };
}

/** How long the poll due in `waiting` waits: the schedule's interval of the next poll, or the safety interval while live. */
export function pollWaitMs(waiting: MappingWizardSnapshot): number {
  return nextPollDelayMs(waiting.context);
}

export function isViewEvent(event: SegmentsImportModelEvent): event is MappingWizardEvent {
  return event.type.startsWith('mappingWizard.');
}

export function isChannelEvent(event: SegmentsImportModelEvent): event is LiveChannelEvent {
  return event.type.startsWith('liveChannel.');
}

/** The machine as the model sees it: its event type widened to the done/error and delayed events. */
const modelLogic = segmentsImportMachine as unknown as ActorLogic<MappingWizardSnapshot, SegmentsImportModelEvent, MappingWizardInput>;

/** Events that start over: the state they reach equals the start (or the chosen file), but is a vertex of its own. */
const RESTART_EVENTS: readonly string[] = ['mappingWizard.reset', 'mappingWizard.cancelUpload'];

/**
 * The state's identity in the graph: its value and the whole context (a file by its name).
 * Starting over reaches a state already on every path (the empty upload step, or the chosen
 * file): simple paths never step back onto a state, so it is told apart by the event that
 * reached it, and the paths take the transitions back to the start.
 */
function serializeState(snapshot: MappingWizardSnapshot, event?: EventObject): string {
  const context = JSON.stringify(snapshot.context);
  const restart = event !== undefined && RESTART_EVENTS.includes(event.type);
  return `${JSON.stringify(snapshot.value)} ${context}${restart ? ` after ${event.type}` : ''}`;
}

/**
 * Outcomes are leaves of the graph: a failure, a complete mapping other than the model's or
 * headers kept (both differ from the model's state only in what the server will receive), a
 * failed status check. The chart never branches on which failure happened or which columns a
 * complete mapping uses, so what follows them is what follows the state they equal up to
 * context, explored there. An incomplete mapping is explored (finalizing refuses it). An outcome
 * reached after polling a while, or with the live channel, is a leaf too: what follows an
 * outcome (starting over) is explored from the outcome of the first poll.
 */
function isExploredElsewhere(snapshot: MappingWizardSnapshot): boolean {
  const { failure, mapping, skipHeaders, statusCheckFailed, live } = snapshot.context;
  if (failure !== null && !snapshot.matches('finalized')) return true;
  if (snapshot.matches('finalized')) return live || snapshot.context.polls >= 1;
  if (snapshot.matches('preview')) {
    const otherComplete =
      isMappingComplete(segmentsImport, mapping) && (mapping.customerId !== MODEL_COMPLETE_MAPPING.customerId || mapping.value !== MODEL_COMPLETE_MAPPING.value);
    return otherComplete || !skipHeaders;
  }
  if (snapshot.matches('finalizing')) return statusCheckFailed;
  return false;
}

/**
 * A user picks a file once, then uploads it: choosing again is the same transition, explored
 * from the empty step. Giving a column the role it already plays changes nothing.
 */
function isModelled(snapshot: MappingWizardSnapshot, event: SegmentsImportModelEvent): boolean {
  if (event.type === 'mappingWizard.fileChosen' && snapshot.context.file !== null) return false;
  if (event.type === 'mappingWizard.mapColumn' && roleOfColumn(segmentsImport, snapshot.context.mapping, event.column) === event.role) return false;
  if (!isLiveModelled(snapshot, event)) return false;
  return isViewEvent(event) ? snapshot.can(event) : true;
}

/**
 * The live channel in the model. Its transitions are the same in every child of `finalizing`
 * and at every poll count, so the model tells two stories that take each of them once, each
 * state on them reached one way (else the paths multiply past what QA can read):
 * 1. It connects while the mapping is sent; reports progress before the first poll (which
 *    still comes on the schedule); the polls answer 'still running' and come on the slow safety
 *    interval after the first; it reports the end while waiting for the second poll (done: the
 *    import ends; done with refused rows: a poll fetches them at once); or it is lost while
 *    waiting for the third poll, or during it, and polling goes on on the schedule.
 * 2. It connects while waiting for the first poll: a poll catches up at once.
 */
function isLiveModelled(snapshot: MappingWizardSnapshot, event: SegmentsImportModelEvent): boolean {
  const { live, polls, progress } = snapshot.context;
  const waiting = snapshot.matches({ finalizing: 'waiting' });
  const polling = snapshot.matches({ finalizing: 'polling' });
  const submitting = snapshot.matches({ finalizing: 'submitting' });
  switch (event.type) {
    case 'liveChannel.connected':
      return !live && polls === 0 && (submitting || waiting);
    case 'liveChannel.lost':
      return live && polls === 2 && progress < 100 && (waiting || polling);
    case 'liveChannel.update':
      if (!live) return false;
      if (event.update.status === 'done') return waiting && polls === 1 && progress < 100;
      return waiting && polls === 0 && progress < event.update.progress;
    case POLL_DUE_EVENT:
      // Story 1 reports progress before the first poll.
      return !live || polls > 0 || progress > 0;
    case 'xstate.done.actor.fetchStatus':
    case 'xstate.error.actor.fetchStatus':
      if (!live) return true;
      // After the channel said the import finished, the poll fetches the outcome.
      if (progress === 100) return event.type === 'xstate.error.actor.fetchStatus' || event.output.status !== 'in_progress';
      // Story 2 ends with the catch-up poll asked for.
      if (polls === 0 && progress === 0) return false;
      return event.type === 'xstate.done.actor.fetchStatus' && event.output.status === 'in_progress';
    default:
      return true;
  }
}

export function segmentsImportTestModel(
  events: readonly SegmentsImportModelEvent[] = modelEvents,
): TestModel<MappingWizardSnapshot, SegmentsImportModelEvent, MappingWizardInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: (snapshot, event) => isModelled(snapshot, event) && snapshot.can(event as MappingWizardEvent),
    serializeState,
    stopWhen: isExploredElsewhere,
  });
}

/** The same model in the registry's untyped form. */
export const anySegmentsImportTestModel = (): AnyTestModel => segmentsImportTestModel() as unknown as AnyTestModel;

/** The registry entry of this machine (QA's path list and the coverage guard). */
export const segmentsImportModelEntry: MachineModelEntry = {
  name: 'segmentsImport',
  machine: segmentsImportMachine,
  model: anySegmentsImportTestModel,
};
