import { assign, setup } from 'xstate';
import type { SnapshotFrom } from 'xstate';
import { csvImportActors, servicesNotProvided, toCsvImportFailure } from './csvImportActors';
import { CSV_IMPORT_FAILURE_TOAST, CSV_IMPORT_STARTED_NOTICE, csvImportCompletedNotice } from './messages';
import { isCsvFileName, pollIntervalMs } from '../../models/imports';
import { isPollLimitReached } from './pollSchedule';
import type { CsvImportContext, CsvImportEvent, CsvImportNotice, CsvImportResult, CsvImportStatus } from './types';

export function initialCsvImportContext(): CsvImportContext {
  return {
    file: null,
    importId: null,
    polls: 0,
    progress: 0,
    fileName: null,
    result: null,
    validationFailures: [],
    errorDetails: [],
  };
}

/** The toast of a finished import: the import notice, or the failure toast when rows failed. */
export function completionNotice(result: CsvImportResult): CsvImportNotice {
  return result.failure_count > 0
    ? { kind: 'failure', message: CSV_IMPORT_FAILURE_TOAST }
    : { kind: 'importNotice', message: csvImportCompletedNotice(result.success_count) };
}

const FAILURE_TOAST: CsvImportNotice = { kind: 'failure', message: CSV_IMPORT_FAILURE_TOAST };
const STARTED_NOTICE: CsvImportNotice = { kind: 'importNotice', message: CSV_IMPORT_STARTED_NOTICE };

function chosenFile(context: CsvImportContext): File {
  if (!context.file) throw new Error('csvImport.upload needs a chosen file');
  return context.file;
}

function polledImportId(context: CsvImportContext): string {
  if (!context.importId) throw new Error('Polling needs an import id');
  return context.importId;
}

/**
 * The CSV import dialog (first spec document, section 4): upload a .csv of payments, poll the
 * import until it is done, show the result.
 *
 * - `checkingStored` (initial): reads the id of an import this browser started and did not
 *   dismiss (localStorage). One → `inProgress` (a reload resumes polling at once); none, or
 *   storage unavailable → `notStarted`.
 * - `notStarted`: the file picker. `csvImport.fileSelected` keeps the chosen file;
 *   `csvImport.upload` → `uploading`, only with a file named *.csv.
 * - `uploading`: POST /subscriptions/csv_import. Accepted → `inProgress.waiting`, the id kept
 *   in context and stored locally, the import notice toasted (30 s). A 400 → `validationFailure`
 *   with the listed rows; any other failure → `error`; both toast the failure toast.
 * - `inProgress`: `fetching` (GET /subscriptions/csv_import/{id}, counted as a poll) and
 *   `waiting` (the backoff: 3 s before each of the first 20 polls, 10 s up to 70, 20 s up to 170,
 *   then 60 s). `result.status` 'done' → `completed`; status 'failed' → `error` (with the
 *   server's reason); still running → `waiting`, with its progress. A poll that got no answer
 *   (network, 5xx) is retried on the same schedule; a 404 or another refusal → `error`.
 *   After the last allowed poll (1000) without an outcome → `pollingLimitReached`.
 * - `completed`: the counts and the failed rows. Toasts the import notice, or the failure toast
 *   when rows failed. `csvImport.dismiss` → `notStarted` and clears the stored id.
 * - `validationFailure`, `error`, `pollingLimitReached`: `csvImport.tryAgain` → `notStarted`
 *   (the stored id is cleared too, so a reload does not bring the failure back).
 *
 * Storage and toasts are effects provided by src/ (`storeImportId`, `forgetStoredImport`,
 * `notify`); the calls are actors provided the same way (`csvImportActors(services)`).
 */
export const csvImportMachine = setup({
  types: {
    context: {} as CsvImportContext,
    events: {} as CsvImportEvent,
  },
  actors: csvImportActors(servicesNotProvided),
  actions: {
    selectFile: assign({ file: (_, params: { file: File | null }) => params.file }),
    startImport: assign({
      importId: (_, params: { importId: string }) => params.importId,
      file: null,
      polls: 0,
      progress: 0,
    }),
    resumeImport: assign({ importId: (_, params: { importId: string }) => params.importId }),
    countPoll: assign({ polls: ({ context }) => context.polls + 1 }),
    assignStatus: assign({
      progress: (_, params: { status: CsvImportStatus }) => params.status.progress,
      fileName: (_, params: { status: CsvImportStatus }) => params.status.file_name,
    }),
    assignResult: assign({ result: (_, params: { status: CsvImportStatus }) => params.status.result }),
    assignFailure: assign({
      errorDetails: (_, params: { error: unknown }) => toCsvImportFailure(params.error).messages,
      validationFailures: (_, params: { error: unknown }) => toCsvImportFailure(params.error).validationFailures,
    }),
    assignImportError: assign({
      errorDetails: (_, params: { status: CsvImportStatus }) => (params.status.result.error ? [params.status.result.error] : []),
    }),
    reset: assign(() => initialCsvImportContext()),
    /** Keeps the id of the started import across reloads (provided: localStorage). */
    storeImportId: (_, _params: { importId: string }) => {},
    /** Forgets the stored import id (provided: localStorage). */
    forgetStoredImport: () => {},
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: CsvImportNotice) => {},
  },
  guards: {
    hasCsvFile: ({ context }) => isCsvFileName(context.file?.name),
    isStored: (_, params: { importId: string | null }) => params.importId !== null,
    isValidationFailure: (_, params: { error: unknown }) => toCsvImportFailure(params.error).kind === 'validation',
    /** The server refused the poll (404, 403, …); a poll that got no answer (network, 5xx) is not refused. */
    isRefused: (_, params: { error: unknown }) => toCsvImportFailure(params.error).kind !== 'unavailable',
    isImportFailed: (_, params: { status: CsvImportStatus }) => params.status.status === 'failed' || params.status.result.status === 'failed',
    isImportDone: (_, params: { status: CsvImportStatus }) => params.status.result.status === 'done',
    /** The poll just answered was the last one allowed (CSV_IMPORT_MAX_POLLS). */
    pollLimitReached: ({ context }) => isPollLimitReached(context.polls),
  },
  delays: {
    /** The wait before the next poll, from the spec's schedule (models/constants.ts). */
    pollInterval: ({ context }) => pollIntervalMs(context.polls + 1),
  },
}).createMachine({
  id: 'csvImport',
  context: initialCsvImportContext,
  initial: 'checkingStored',
  states: {
    checkingStored: {
      invoke: {
        id: 'readStoredImport',
        src: 'readStoredImport',
        onDone: [
          {
            guard: { type: 'isStored', params: ({ event }) => ({ importId: event.output }) },
            target: 'inProgress',
            actions: { type: 'resumeImport', params: ({ event }) => ({ importId: event.output ?? '' }) },
          },
          { target: 'notStarted' },
        ],
        onError: { target: 'notStarted' },
      },
    },

    notStarted: {
      on: {
        'csvImport.fileSelected': {
          actions: { type: 'selectFile', params: ({ event }) => ({ file: event.file }) },
        },
        'csvImport.upload': { guard: 'hasCsvFile', target: 'uploading' },
      },
    },

    uploading: {
      invoke: {
        id: 'uploadCsv',
        src: 'uploadCsv',
        input: ({ context }) => ({ file: chosenFile(context) }),
        onDone: {
          target: 'inProgress.waiting',
          actions: [
            { type: 'startImport', params: ({ event }) => ({ importId: event.output.importId }) },
            { type: 'storeImportId', params: ({ event }) => ({ importId: event.output.importId }) },
            { type: 'notify', params: STARTED_NOTICE },
          ],
        },
        onError: [
          {
            guard: { type: 'isValidationFailure', params: ({ event }) => ({ error: event.error }) },
            target: 'validationFailure',
            actions: [{ type: 'assignFailure', params: ({ event }) => ({ error: event.error }) }, { type: 'notify', params: FAILURE_TOAST }],
          },
          {
            target: 'error',
            actions: [{ type: 'assignFailure', params: ({ event }) => ({ error: event.error }) }, { type: 'notify', params: FAILURE_TOAST }],
          },
        ],
      },
    },

    inProgress: {
      initial: 'fetching',
      states: {
        fetching: {
          entry: 'countPoll',
          invoke: {
            id: 'fetchImportStatus',
            src: 'fetchImportStatus',
            input: ({ context }) => ({ importId: polledImportId(context) }),
            onDone: [
              {
                guard: { type: 'isImportFailed', params: ({ event }) => ({ status: event.output }) },
                target: '#csvImport.error',
                actions: [
                  { type: 'assignStatus', params: ({ event }) => ({ status: event.output }) },
                  { type: 'assignImportError', params: ({ event }) => ({ status: event.output }) },
                  { type: 'notify', params: FAILURE_TOAST },
                ],
              },
              {
                guard: { type: 'isImportDone', params: ({ event }) => ({ status: event.output }) },
                target: '#csvImport.completed',
                actions: [
                  { type: 'assignStatus', params: ({ event }) => ({ status: event.output }) },
                  { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
                  { type: 'notify', params: ({ event }) => completionNotice(event.output.result) },
                ],
              },
              {
                guard: 'pollLimitReached',
                target: '#csvImport.pollingLimitReached',
                actions: [{ type: 'assignStatus', params: ({ event }) => ({ status: event.output }) }, { type: 'notify', params: FAILURE_TOAST }],
              },
              {
                target: 'waiting',
                actions: { type: 'assignStatus', params: ({ event }) => ({ status: event.output }) },
              },
            ],
            onError: [
              {
                guard: { type: 'isRefused', params: ({ event }) => ({ error: event.error }) },
                target: '#csvImport.error',
                actions: [{ type: 'assignFailure', params: ({ event }) => ({ error: event.error }) }, { type: 'notify', params: FAILURE_TOAST }],
              },
              {
                guard: 'pollLimitReached',
                target: '#csvImport.pollingLimitReached',
                actions: { type: 'notify', params: FAILURE_TOAST },
              },
              { target: 'waiting' },
            ],
          },
        },
        waiting: {
          after: {
            pollInterval: 'fetching',
          },
        },
      },
    },

    completed: {
      on: {
        'csvImport.dismiss': { target: 'notStarted', actions: ['forgetStoredImport', 'reset'] },
      },
    },

    validationFailure: {
      on: {
        'csvImport.tryAgain': { target: 'notStarted', actions: ['forgetStoredImport', 'reset'] },
      },
    },

    error: {
      on: {
        'csvImport.tryAgain': { target: 'notStarted', actions: ['forgetStoredImport', 'reset'] },
      },
    },

    pollingLimitReached: {
      on: {
        'csvImport.tryAgain': { target: 'notStarted', actions: ['forgetStoredImport', 'reset'] },
      },
    },
  },
});

export type CsvImportMachine = typeof csvImportMachine;
export type CsvImportSnapshot = SnapshotFrom<CsvImportMachine>;
