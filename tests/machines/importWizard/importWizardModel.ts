import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { importWizardFailure } from '../../../machines/importWizard/importWizardActors';
import type { ImportWizardInvokeId } from '../../../machines/importWizard/importWizardActors';
import { importWizardMachine } from '../../../machines/importWizard/importWizardMachine';
import type { ImportWizardSnapshot } from '../../../machines/importWizard/importWizardMachine';
import { pollIntervalMs } from '../../../machines/importWizard/mapping';
import type { ImportPreview, ImportStatus, ImportWizardEvent, ImportWizardInput } from '../../../machines/importWizard/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The import wizard's test model, shared by the machine suite (stubbed calls, simulated clock)
 * and the view suite (the real page over a fake API): the events a user or the server can
 * cause, with fixed payloads so the graph stays finite, the done/error events of every
 * invocation, and the delayed poll.
 */

/** The poll limit of the model: small enough for the graph to reach it. */
export const MODEL_MAX_POLLS = 3;
export const modelInput: ImportWizardInput = { maxPolls: MODEL_MAX_POLLS };

/**
 * A file of the model. It serializes as its name: a File alone stringifies as `{}`, and the graph
 * (and xstate's path deduplication) would take two files for the same event.
 */
function modelFile(content: string, name: string, type: string): File {
  const file = new File([content], name, { type });
  Object.defineProperty(file, 'toJSON', { value: () => `file:${name}` });
  return file;
}

export const csvFile = modelFile('Customer ID,Invoice,Started at\n', 'payments.csv', 'text/csv');
export const pdfFile = modelFile('%PDF-1.7', 'payments.pdf', 'application/pdf');

/** The upload's answer: a header and two payments over 7 columns (column 4, 'Plan', has no default field). */
export const modelPreview: ImportPreview = {
  importId: 'imp_model',
  totalRows: 3,
  rows: [
    ['Customer ID', 'Invoice', 'Started at', 'Ended at', 'Plan', 'Months', 'Monthly amount'],
    ['cus_001', 'INV-001', '2024-01-01', '2024-12-31', 'Pro', '12', '49.00'],
    ['cus_002', 'INV-002', '2024-02-01', '', 'Basic', '1', '19.00'],
  ],
  columns: 7,
  delimiter: ',',
  encoding: 'UTF-8',
};

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
  running: runningStatus(40),
  succeeded: { status: 'done', progress: 100, successCount: 2, failureCount: 0, failures: [], error: null },
  withErrors: {
    status: 'done',
    progress: 100,
    successCount: 1,
    failureCount: 1,
    failures: [{ rowNumber: 3, row: 'cus_002,INV-002,2024-02-01,,Basic,1,nineteen', message: "Monthly amount 'nineteen' is not a number" }],
    error: null,
  },
  failed: { status: 'failed', progress: 50, successCount: 0, failureCount: 0, failures: [], error: 'The import was interrupted; nothing was imported' },
} as const satisfies Record<string, ImportStatus>;

export const uploadRefusal = importWizardFailure('upload', ['The file is larger than 200 MB']);
export const finalizeRefusal = importWizardFailure('finalize', ['This import is not waiting for its mapping']);
export const statusCheckError = new TypeError('Failed to fetch');

/** The delayed event of `finalizing.waiting`: the next status poll is due. */
export const POLL_DUE_EVENT = 'xstate.after.pollDelay.importWizard.finalizing.waiting';

type DoneEvent<Id extends ImportWizardInvokeId> = {
  type: `xstate.done.actor.${Id}`;
  output: Id extends 'upload' ? ImportPreview : ImportStatus;
};
type ErrorEvent<Id extends ImportWizardInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the machine's own, the invocations' done/error events and the poll delay. */
export type ImportWizardModelEvent =
  | ImportWizardEvent
  | { [Id in ImportWizardInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[ImportWizardInvokeId]
  | { type: typeof POLL_DUE_EVENT };
export type ImportWizardModelEventType = ImportWizardModelEvent['type'];

export const modelEvents: readonly ImportWizardModelEvent[] = [
  { type: 'importWizard.fileChosen', file: csvFile },
  { type: 'importWizard.fileChosen', file: pdfFile },
  { type: 'importWizard.upload' },
  { type: 'importWizard.cancelUpload' },
  // Unmapping a required field, and mapping an optional one to the column without a default.
  { type: 'importWizard.mapColumn', column: 6, field: null },
  { type: 'importWizard.mapColumn', column: 4, field: 'product' },
  { type: 'importWizard.skipHeadersChanged', skipHeaders: false },
  { type: 'importWizard.finalize' },
  { type: 'importWizard.reset' },

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
];

/** Makes a step's event happen in the system under test (the machine, or the page in jsdom). */
export type ImportWizardExecutor = (event: ImportWizardModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type ImportWizardExecutors = Record<ImportWizardModelEventType, ImportWizardExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects. The executor of the poll delay gets the state
 * before it, to know how long the wait is.
 */
export function pathTestParams(
  executors: ImportWizardExecutors,
  assertState: (expected: ImportWizardSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as ImportWizardModelEventType[]) {
    events[type] = (step) => executors[type](step.event as ImportWizardModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as ImportWizardSnapshot) } };
}

/** How long the poll due in `waiting` waits: the schedule's interval of the next poll. */
export function pollWaitMs(waiting: ImportWizardSnapshot): number {
  return pollIntervalMs(waiting.context.polls + 1);
}

export function isViewEvent(event: ImportWizardModelEvent): event is ImportWizardEvent {
  return event.type.startsWith('importWizard.');
}

/** The machine as the model sees it: its event type widened to the done/error and delayed events. */
const modelLogic = importWizardMachine as unknown as ActorLogic<ImportWizardSnapshot, ImportWizardModelEvent, ImportWizardInput>;

/** Events that start over: the state they reach equals the start (or the chosen file), but is a vertex of its own. */
const RESTART_EVENTS: readonly string[] = ['importWizard.reset', 'importWizard.cancelUpload'];

/**
 * The state's identity in the graph: its value and the whole context (a file by its name).
 * Starting over reaches a state already on every path (the empty upload step, or the chosen
 * file): simple paths never step back onto a state, so it is told apart by the event that
 * reached it, and the paths take the transitions back to the start.
 */
function serializeState(snapshot: ImportWizardSnapshot, event?: EventObject): string {
  const context = JSON.stringify(snapshot.context);
  const restart = event !== undefined && RESTART_EVENTS.includes(event.type);
  return `${JSON.stringify(snapshot.value)} ${context}${restart ? ` after ${event.type}` : ''}`;
}

/**
 * Outcomes are leaves of the graph: a failure, a mapping or choice that differs from the
 * default only in what the server will receive, a failed status check, a started-over upload
 * step with a file. The chart never branches on which failure happened or which optional
 * field is mapped, so what follows them is what follows the default state they equal up to
 * context, explored there. A required field left unmapped is explored (finalizing refuses it).
 */
function isExploredElsewhere(snapshot: ImportWizardSnapshot): boolean {
  const { failure, mapping, skipHeaders, statusCheckFailed } = snapshot.context;
  if (failure !== null && !snapshot.matches('finalized')) return true;
  if (snapshot.matches('preview')) return mapping.product !== null || !skipHeaders;
  if (snapshot.matches('finalizing')) return statusCheckFailed;
  return false;
}

/** A user picks a file once, then uploads it: choosing again is the same transition, explored from the empty step. */
function isModelled(snapshot: ImportWizardSnapshot, event: ImportWizardModelEvent): boolean {
  if (event.type === 'importWizard.fileChosen' && snapshot.context.file !== null) return false;
  return isViewEvent(event) ? snapshot.can(event) : true;
}

export function importWizardTestModel(
  events: readonly ImportWizardModelEvent[] = modelEvents,
): TestModel<ImportWizardSnapshot, ImportWizardModelEvent, ImportWizardInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: (snapshot, event) => isModelled(snapshot, event) && snapshot.can(event as ImportWizardEvent),
    serializeState,
    stopWhen: isExploredElsewhere,
  });
}

/** The same model in the registry's untyped form. */
export const anyImportWizardTestModel = (): AnyTestModel => importWizardTestModel() as unknown as AnyTestModel;

/** The registry entry of this machine (QA's path list and the coverage guard). */
export const importWizardModelEntry: MachineModelEntry = {
  name: 'importWizard',
  machine: importWizardMachine,
  model: anyImportWizardTestModel,
};
