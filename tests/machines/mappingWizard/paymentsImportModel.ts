import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { mappingWizardFailure } from '../../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardInvokeId } from '../../../machines/mappingWizard/mappingWizardActors';
import { paymentsImportMachine } from '../../../machines/mappingWizard/paymentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import type { ImportPreview, ImportStatus, MappingWizardEvent, MappingWizardInput } from '../../../machines/mappingWizard/types';
import { pollIntervalMs } from '../../../models/imports';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The payments import's test model (the mapping wizard with the payments config), shared by the machine suite (stubbed calls, simulated clock)
 * and the view suite (the real page over a fake API): the events a user or the server can
 * cause, with fixed payloads so the graph stays finite, the done/error events of every
 * invocation, and the delayed poll.
 */

/** The poll limit of the model: small enough for the graph to reach it. */
export const MODEL_MAX_POLLS = 3;
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

export const uploadRefusal = mappingWizardFailure('upload', ['The file is larger than 200 MB']);
export const finalizeRefusal = mappingWizardFailure('finalize', ['This import is not waiting for its mapping']);
export const statusCheckError = new TypeError('Failed to fetch');

/** The delayed event of `finalizing.waiting`: the next status poll is due. */
export const POLL_DUE_EVENT = 'xstate.after.pollDelay.paymentsImport.finalizing.waiting';

type DoneEvent<Id extends MappingWizardInvokeId> = {
  type: `xstate.done.actor.${Id}`;
  output: Id extends 'upload' ? ImportPreview : ImportStatus;
};
type ErrorEvent<Id extends MappingWizardInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the machine's own, the invocations' done/error events and the poll delay. */
export type PaymentsImportModelEvent =
  | MappingWizardEvent
  | { [Id in MappingWizardInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[MappingWizardInvokeId]
  | { type: typeof POLL_DUE_EVENT };
export type PaymentsImportModelEventType = PaymentsImportModelEvent['type'];

export const modelEvents: readonly PaymentsImportModelEvent[] = [
  { type: 'mappingWizard.fileChosen', file: csvFile },
  { type: 'mappingWizard.fileChosen', file: pdfFile },
  { type: 'mappingWizard.upload' },
  { type: 'mappingWizard.cancelUpload' },
  // Unmapping a required field, and mapping an optional one to the column without a default.
  { type: 'mappingWizard.mapColumn', column: 6, role: null },
  { type: 'mappingWizard.mapColumn', column: 4, role: 'product' },
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
];

/** Makes a step's event happen in the system under test (the machine, or the page in jsdom). */
export type PaymentsImportExecutor = (event: PaymentsImportModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type PaymentsImportExecutors = Record<PaymentsImportModelEventType, PaymentsImportExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects. The executor of the poll delay gets the state
 * before it, to know how long the wait is.
 */
export function pathTestParams(
  executors: PaymentsImportExecutors,
  assertState: (expected: MappingWizardSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as PaymentsImportModelEventType[]) {
    events[type] = (step) => executors[type](step.event as PaymentsImportModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as MappingWizardSnapshot) } };
}

/** How long the poll due in `waiting` waits: the schedule's interval of the next poll. */
export function pollWaitMs(waiting: MappingWizardSnapshot): number {
  return pollIntervalMs(waiting.context.polls + 1);
}

export function isViewEvent(event: PaymentsImportModelEvent): event is MappingWizardEvent {
  return event.type.startsWith('mappingWizard.');
}

/** The machine as the model sees it: its event type widened to the done/error and delayed events. */
const modelLogic = paymentsImportMachine as unknown as ActorLogic<MappingWizardSnapshot, PaymentsImportModelEvent, MappingWizardInput>;

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
 * Outcomes are leaves of the graph: a failure, a mapping or choice that differs from the
 * default only in what the server will receive, a failed status check, a started-over upload
 * step with a file. The chart never branches on which failure happened or which optional
 * field is mapped, so what follows them is what follows the default state they equal up to
 * context, explored there. A required field left unmapped is explored (finalizing refuses it).
 */
function isExploredElsewhere(snapshot: MappingWizardSnapshot): boolean {
  const { failure, mapping, skipHeaders, statusCheckFailed } = snapshot.context;
  if (failure !== null && !snapshot.matches('finalized')) return true;
  if (snapshot.matches('preview')) return mapping.product !== null || !skipHeaders;
  if (snapshot.matches('finalizing')) return statusCheckFailed;
  return false;
}

/** A user picks a file once, then uploads it: choosing again is the same transition, explored from the empty step. */
function isModelled(snapshot: MappingWizardSnapshot, event: PaymentsImportModelEvent): boolean {
  if (event.type === 'mappingWizard.fileChosen' && snapshot.context.file !== null) return false;
  return isViewEvent(event) ? snapshot.can(event) : true;
}

export function paymentsImportTestModel(
  events: readonly PaymentsImportModelEvent[] = modelEvents,
): TestModel<MappingWizardSnapshot, PaymentsImportModelEvent, MappingWizardInput> {
  return new TestModel(modelLogic, {
    input: modelInput,
    events,
    filterEvents: (snapshot, event) => isModelled(snapshot, event) && snapshot.can(event as MappingWizardEvent),
    serializeState,
    stopWhen: isExploredElsewhere,
  });
}

/** The same model in the registry's untyped form. */
export const anyPaymentsImportTestModel = (): AnyTestModel => paymentsImportTestModel() as unknown as AnyTestModel;

/** The registry entry of this machine (QA's path list and the coverage guard). */
export const paymentsImportModelEntry: MachineModelEntry = {
  name: 'paymentsImport',
  machine: paymentsImportMachine,
  model: anyPaymentsImportTestModel,
};
