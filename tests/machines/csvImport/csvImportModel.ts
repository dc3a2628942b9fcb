import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { csvImportFailure } from '../../../machines/csvImport/csvImportActors';
import type { CsvImportInvokeId } from '../../../machines/csvImport/csvImportActors';
import { csvImportMachine } from '../../../machines/csvImport/csvImportMachine';
import type { CsvImportSnapshot } from '../../../machines/csvImport/csvImportMachine';
import { isPollLimitReached } from '../../../machines/csvImport/pollSchedule';
import type { CsvImportEvent, CsvImportStatus, CsvImportUpload } from '../../../machines/csvImport/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The CSV import machine's test model, shared by the machine suite (stubbed actors, a
 * SimulatedClock for the backoff): the events a user or the server can cause, with fixed
 * payloads so the graph stays finite, the done/error events of every invocation, and the
 * delayed poll.
 */

/**
 * The model gives up after 3 polls instead of 1000, so the polling loop stays a handful of
 * states; the chart is the same (only the `pollLimitReached` guard's number differs). The
 * real limit and the whole schedule are unit-tested on the real machine.
 */
export const MODEL_MAX_POLLS = 3;

export const modelMachine = csvImportMachine.provide({
  guards: { pollLimitReached: ({ context }) => isPollLimitReached(context.polls, MODEL_MAX_POLLS) },
});

export const MODEL_IMPORT_ID = 'imp_model1';
export const MODEL_FILE_NAME = 'payments.csv';

export const modelFiles = {
  csv: new File(['customer_id,started_at,ended_at,monthly_amount\ncus_1,2025-01-01,2025-02-01,99.00\n'], MODEL_FILE_NAME, { type: 'text/csv' }),
  other: new File(['not a table'], 'payments.xlsx', { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }),
} as const;

/** The answers of the status poll the model knows. */
export const modelStatuses = {
  running: status('in_progress', 40, { status: 'in_progress', success_count: 0, failure_count: 0, failures: [] }),
  done: status('done', 100, { status: 'done', success_count: 12, failure_count: 0, failures: [] }),
  doneWithFailures: status('done', 100, {
    status: 'done',
    success_count: 10,
    failure_count: 2,
    failures: [
      { row_number: 4, row: 'cus_4,31/31/2024,2025-02-01,10.00', message: "Started at '31/31/2024' is not a date" },
      { row_number: 9, row: ',2025-01-01,2025-02-01,10.00', message: 'Customer ID is empty' },
    ],
  }),
  failed: status('failed', 60, { status: 'failed', success_count: 0, failure_count: 0, failures: [], error: 'The upload was interrupted' }),
} as const satisfies Record<string, CsvImportStatus>;

function status(state: string, progress: number, result: CsvImportStatus['result']): CsvImportStatus {
  return { id: MODEL_IMPORT_ID, status: state, progress, file_name: MODEL_FILE_NAME, result };
}

/** The failures the upload and the poll can reject with. */
export const modelFailures = {
  validation: csvImportFailure(
    'validation',
    ['2 row(s) of the file cannot be imported'],
    [
      { row_number: 3, row: 'cus_3;2025-01-01', message: 'Row 3 has 2 column(s); 4 are expected (Customer ID, Started at, Ended at, Monthly amount)' },
      { row_number: 7, row: 'cus_7', message: 'Row 7 has 1 column(s); 4 are expected (Customer ID, Started at, Ended at, Monthly amount)' },
    ],
  ),
  tooLarge: csvImportFailure('rejected', ['The file is larger than 200 MB']),
  unavailable: csvImportFailure('unavailable'),
  notFound: csvImportFailure('notFound', ['Import not found']),
} as const;

/** The delayed event of the backoff (`after: { pollInterval }` of inProgress.waiting). */
export const POLL_AFTER_EVENT = 'xstate.after.pollInterval.csvImport.inProgress.waiting' as const;

type Outputs = { readStoredImport: string | null; uploadCsv: CsvImportUpload; fetchImportStatus: CsvImportStatus };
type DoneEvent<Id extends CsvImportInvokeId> = { type: `xstate.done.actor.${Id}`; output: Outputs[Id] };
type ErrorEvent<Id extends CsvImportInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

/** Every event the model takes: the machine's own, the invocations' done/error events and the poll delay. */
export type CsvImportModelEvent =
  | CsvImportEvent
  | { [Id in CsvImportInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[CsvImportInvokeId]
  | { type: typeof POLL_AFTER_EVENT };
export type CsvImportModelEventType = CsvImportModelEvent['type'];

export const modelEvents: readonly CsvImportModelEvent[] = [
  { type: 'csvImport.fileSelected', file: modelFiles.csv },
  { type: 'csvImport.fileSelected', file: modelFiles.other },
  { type: 'csvImport.fileSelected', file: null },
  { type: 'csvImport.upload' },
  { type: 'csvImport.tryAgain' },
  { type: 'csvImport.dismiss' },

  { type: 'xstate.done.actor.readStoredImport', output: null },
  { type: 'xstate.done.actor.readStoredImport', output: MODEL_IMPORT_ID },
  { type: 'xstate.error.actor.readStoredImport', error: new Error('localStorage is not available') },
  { type: 'xstate.done.actor.uploadCsv', output: { importId: MODEL_IMPORT_ID } },
  { type: 'xstate.error.actor.uploadCsv', error: modelFailures.validation },
  { type: 'xstate.error.actor.uploadCsv', error: modelFailures.tooLarge },
  { type: 'xstate.error.actor.uploadCsv', error: modelFailures.unavailable },
  { type: 'xstate.done.actor.fetchImportStatus', output: modelStatuses.running },
  { type: 'xstate.done.actor.fetchImportStatus', output: modelStatuses.done },
  { type: 'xstate.done.actor.fetchImportStatus', output: modelStatuses.doneWithFailures },
  { type: 'xstate.done.actor.fetchImportStatus', output: modelStatuses.failed },
  { type: 'xstate.error.actor.fetchImportStatus', error: modelFailures.notFound },
  { type: 'xstate.error.actor.fetchImportStatus', error: modelFailures.unavailable },
  { type: POLL_AFTER_EVENT },
];

/** Makes a step's event happen in the system under test. */
export type CsvImportExecutor = (event: CsvImportModelEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type CsvImportExecutors = Record<CsvImportModelEventType, CsvImportExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects.
 */
export function pathTestParams(
  executors: CsvImportExecutors,
  assertState: (expected: CsvImportSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as CsvImportModelEventType[]) {
    events[type] = (step) => executors[type](step.event as CsvImportModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as CsvImportSnapshot) } };
}

export function isDialogEvent(event: CsvImportModelEvent): event is CsvImportEvent {
  return event.type.startsWith('csvImport.');
}

/**
 * The machine as the model sees it: setup()'s event types list only the dialog's events; the
 * done/error events of invocations and the delayed poll are real events of the same machine.
 */
const modelLogic = modelMachine as unknown as ActorLogic<CsvImportSnapshot, CsvImportModelEvent, undefined>;

/** Files by name in serializations (JSON.stringify turns every File into `{}`). */
const fileByName = (_key: string, value: unknown) => (value instanceof File ? { file: value.name } : value);

/**
 * Leaves of the graph: states equal to one explored elsewhere, reached by another route.
 * Without them every route into the file picker would walk the whole upload tree again.
 * - `returned`: 'Try again' or 'Dismiss' comes back to the picker of a fresh page load (the
 *   context is reset), which every upload path already went through: only as a state of its
 *   own can a simple path take those transitions at all.
 * - `storageUnavailable`: the picker of a page whose storage cannot be read is the picker of a
 *   page without a stored import.
 * - `rechosen`: choosing another file (or clearing the choice) after a first choice: the
 *   picker with that file is explored from the first choice.
 */
type LeafReason = 'returned' | 'storageUnavailable' | 'rechosen';

function leafReason(event: CsvImportModelEvent | undefined, previous: CsvImportSnapshot | undefined): LeafReason | null {
  switch (event?.type) {
    case 'csvImport.tryAgain':
    case 'csvImport.dismiss':
      return 'returned';
    case 'xstate.error.actor.readStoredImport':
      return 'storageUnavailable';
    case 'csvImport.fileSelected':
      return previous?.context.file ? 'rechosen' : null;
    default:
      return null;
  }
}

/** The snapshots that are leaves (recorded while serializing, read by `stopWhen`). */
const leaves = new WeakSet<object>();

/** The state's identity in the graph: its value and its context (bounded by the fixed payloads); a leaf is a state of its own. */
function serializeState(snapshot: CsvImportSnapshot, event: CsvImportModelEvent | undefined, previous?: CsvImportSnapshot): string {
  const leaf = leafReason(event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) }, fileByName);
}

/** An event's identity: the csv and the other file are different choices. */
function serializeEvent(event: CsvImportModelEvent): string {
  return JSON.stringify(event, fileByName);
}

export function csvImportTestModel(
  events: readonly CsvImportModelEvent[] = modelEvents,
): TestModel<CsvImportSnapshot, CsvImportModelEvent, undefined> {
  return new TestModel(modelLogic, {
    events,
    filterEvents: (snapshot, event) => snapshot.can(event as CsvImportEvent),
    serializeState,
    serializeEvent,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** The same model in the registry's untyped form. */
export const anyCsvImportTestModel = (): AnyTestModel => csvImportTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const csvImportModelEntry: MachineModelEntry = { name: 'csvImport', machine: csvImportMachine, model: anyCsvImportTestModel };
