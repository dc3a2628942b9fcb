import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { CSV_IMPORT_MAX_POLLS } from '../../models/constants';
import type { SubscriptionCsvField } from '../../models/constants';
import { importWizardActors, importWizardFailure, servicesNotProvided, toImportWizardFailure } from './importWizardActors';
import { defaultMapping, emptyMapping, isCsvFileName, isMappingComplete, looksLikeHeader, mapColumn, pollIntervalMs } from './mapping';
import {
  IMPORT_FAILURE_MESSAGE,
  MAPPING_INCOMPLETE_MESSAGE,
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  STATUS_LIMIT_MESSAGE,
  UPLOAD_FAILURE_MESSAGE,
} from './messages';
import type { ImportPreview, ImportStatus, ImportWizardContext, ImportWizardEvent, ImportWizardInput } from './types';

function initialContext(maxPolls: number): ImportWizardContext {
  return {
    maxPolls,
    file: null,
    importId: null,
    preview: null,
    mapping: emptyMapping(),
    skipHeaders: false,
    polls: 0,
    progress: 0,
    statusCheckFailed: false,
    result: null,
    failure: null,
  };
}

/**
 * The import page (/import-subscriptions): upload a CSV of payments, map its columns, import it.
 * The states are the spec's import flow.
 *
 * - `not_started` (initial): a file is chosen (`importWizard.fileChosen`) and uploaded
 *   (`importWizard.upload`). Only a .csv goes up; anything else (or no file) stays here with
 *   the reason. A failed upload comes back here too, with the file kept for another try.
 * - `uploading`: POST /subscriptions/csv_import with the file. The answer's first rows become
 *   the preview, each field takes its default column when the file has it, and 'Skip headers'
 *   starts on when the first row looks like a header. `importWizard.cancelUpload` gives up.
 * - `preview`: the mapping is edited (`importWizard.mapColumn`: a column never holds two
 *   fields), 'Skip headers' toggled, and `importWizard.finalize` sends it, after checking that
 *   every required field is mapped (else the spec's rule is shown and nothing is sent).
 *   `importWizard.reset` starts over with another file.
 * - `finalizing`: `submitting` POSTs the mapping; a refusal goes back to `preview` with the
 *   server's reason and the mapping as it was. Then `waiting` and `polling` alternate: GET the
 *   import after each interval of the spec's backoff schedule (the named delay `pollDelay`),
 *   showing its progress, until it is done or failed, or the poll limit is reached. A failed
 *   status check counts as a poll and polling goes on (the view says so).
 * - `finalized`: `succeeded` (every row imported: 'all N records imported'), `withErrors` (the
 *   counts and the refused rows) or `failed` (the import failed, or its status could not be
 *   had within the poll limit). `importWizard.reset` imports another file.
 */
export const importWizardMachine = setup({
  types: {
    context: {} as ImportWizardContext,
    events: {} as ImportWizardEvent,
    input: {} as ImportWizardInput,
  },
  actors: importWizardActors(servicesNotProvided),
  actions: {
    assignFile: assign({ file: (_, params: { file: File | null }) => params.file }),
    rejectFile: assign({
      failure: ({ context }) => importWizardFailure('file', [context.file ? ONLY_CSV_MESSAGE : NO_FILE_MESSAGE]),
    }),
    clearFailure: assign({ failure: null }),
    assignUploadFailure: assign({
      failure: (_, params: { error: unknown }) => toImportWizardFailure(params.error, 'upload', UPLOAD_FAILURE_MESSAGE),
    }),
    assignPreview: assign((_, params: { preview: ImportPreview }) => {
      const mapping = defaultMapping(params.preview.columns);
      return {
        importId: params.preview.importId,
        preview: params.preview,
        mapping,
        skipHeaders: looksLikeHeader(params.preview.rows[0], mapping),
      };
    }),
    assignMapping: assign({
      mapping: ({ context }, params: { column: number; field: SubscriptionCsvField | null }) =>
        mapColumn(context.mapping, params.column, params.field),
    }),
    assignSkipHeaders: assign({ skipHeaders: (_, params: { skipHeaders: boolean }) => params.skipHeaders }),
    assignMappingIncomplete: assign({ failure: importWizardFailure('mapping', [MAPPING_INCOMPLETE_MESSAGE]) }),
    assignFinalizeFailure: assign({
      failure: (_, params: { error: unknown }) => toImportWizardFailure(params.error, 'finalize', IMPORT_FAILURE_MESSAGE),
    }),
    startPolling: assign({ polls: 0, progress: 0, statusCheckFailed: false, result: null, failure: null }),
    assignProgress: assign({ progress: (_, params: { status: ImportStatus }) => params.status.progress }),
    countPoll: assign({
      polls: ({ context }) => context.polls + 1,
      statusCheckFailed: (_, params: { failed: boolean }) => params.failed,
    }),
    assignResult: assign((_, params: { status: ImportStatus }) => ({
      progress: 100,
      statusCheckFailed: false,
      result: {
        successCount: params.status.successCount,
        failureCount: params.status.failureCount,
        failures: params.status.failures,
      },
    })),
    assignImportFailure: assign({
      statusCheckFailed: false,
      failure: (_, params: { status: ImportStatus }) =>
        importWizardFailure('import', [params.status.error && params.status.error.length > 0 ? params.status.error : IMPORT_FAILURE_MESSAGE]),
    }),
    assignStatusUnknown: assign({ statusCheckFailed: false, failure: importWizardFailure('statusUnknown', [STATUS_LIMIT_MESSAGE]) }),
    startOver: assign(({ context }) => initialContext(context.maxPolls)),
  },
  guards: {
    hasCsvFile: ({ context }) => context.file !== null && isCsvFileName(context.file.name),
    isMappingComplete: ({ context }) => isMappingComplete(context.mapping),
    isImportedWithoutErrors: (_, params: { status: ImportStatus }) => params.status.status === 'done' && params.status.failureCount === 0,
    isImported: (_, params: { status: ImportStatus }) => params.status.status === 'done',
    isImportFailed: (_, params: { status: ImportStatus }) => params.status.status === 'failed',
    /** The poll that just answered was the last one allowed. */
    isPollLimitReached: ({ context }) => context.polls + 1 >= context.maxPolls,
  },
  delays: {
    /** The wait before the next status poll, from the spec's backoff schedule. */
    pollDelay: ({ context }) => pollIntervalMs(context.polls + 1),
  },
}).createMachine({
  id: 'importWizard',
  context: ({ input }) => initialContext(input.maxPolls ?? CSV_IMPORT_MAX_POLLS),
  initial: 'not_started',
  states: {
    not_started: {
      on: {
        'importWizard.fileChosen': {
          actions: [{ type: 'assignFile', params: ({ event }) => ({ file: event.file }) }, 'clearFailure'],
        },
        'importWizard.upload': [{ guard: 'hasCsvFile', target: 'uploading' }, { actions: 'rejectFile' }],
      },
    },

    uploading: {
      entry: 'clearFailure',
      invoke: {
        id: 'upload',
        src: 'upload',
        input: ({ context }) => {
          if (!context.file) throw new Error('uploading without a file');
          return { file: context.file };
        },
        onDone: {
          target: 'preview',
          actions: { type: 'assignPreview', params: ({ event }) => ({ preview: event.output }) },
        },
        onError: {
          target: 'not_started',
          actions: { type: 'assignUploadFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: {
        'importWizard.cancelUpload': 'not_started',
      },
    },

    preview: {
      on: {
        'importWizard.mapColumn': {
          actions: [{ type: 'assignMapping', params: ({ event }) => ({ column: event.column, field: event.field }) }, 'clearFailure'],
        },
        'importWizard.skipHeadersChanged': {
          actions: { type: 'assignSkipHeaders', params: ({ event }) => ({ skipHeaders: event.skipHeaders }) },
        },
        'importWizard.finalize': [{ guard: 'isMappingComplete', target: 'finalizing' }, { actions: 'assignMappingIncomplete' }],
        'importWizard.reset': { target: 'not_started', actions: 'startOver' },
      },
    },

    finalizing: {
      entry: 'startPolling',
      initial: 'submitting',
      states: {
        submitting: {
          invoke: {
            id: 'finalize',
            src: 'finalize',
            input: ({ context }) => {
              if (!context.importId) throw new Error('finalizing without an import');
              return { importId: context.importId, mapping: context.mapping, skipHeaders: context.skipHeaders };
            },
            onDone: {
              target: 'waiting',
              actions: { type: 'assignProgress', params: ({ event }) => ({ status: event.output }) },
            },
            onError: {
              target: '#importWizard.preview',
              actions: { type: 'assignFinalizeFailure', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },

        waiting: {
          after: {
            pollDelay: 'polling',
          },
        },

        polling: {
          invoke: {
            id: 'fetchStatus',
            src: 'fetchStatus',
            input: ({ context }) => {
              if (!context.importId) throw new Error('polling without an import');
              return { importId: context.importId };
            },
            onDone: [
              {
                guard: { type: 'isImportedWithoutErrors', params: ({ event }) => ({ status: event.output }) },
                target: '#importWizard.finalized.succeeded',
                actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: { type: 'isImported', params: ({ event }) => ({ status: event.output }) },
                target: '#importWizard.finalized.withErrors',
                actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: { type: 'isImportFailed', params: ({ event }) => ({ status: event.output }) },
                target: '#importWizard.finalized.failed',
                actions: { type: 'assignImportFailure', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: 'isPollLimitReached',
                target: '#importWizard.finalized.failed',
                actions: 'assignStatusUnknown',
              },
              {
                target: 'waiting',
                actions: [
                  { type: 'assignProgress', params: ({ event }) => ({ status: event.output }) },
                  { type: 'countPoll', params: { failed: false } },
                ],
              },
            ],
            onError: [
              { guard: 'isPollLimitReached', target: '#importWizard.finalized.failed', actions: 'assignStatusUnknown' },
              { target: 'waiting', actions: { type: 'countPoll', params: { failed: true } } },
            ],
          },
        },
      },
    },

    finalized: {
      // Every transition here names its outcome; the chart only requires an initial child.
      initial: 'succeeded',
      states: {
        succeeded: {},
        withErrors: {},
        failed: {},
      },
      on: {
        'importWizard.reset': { target: 'not_started', actions: 'startOver' },
      },
    },
  },
});

export type ImportWizardMachine = typeof importWizardMachine;
export type ImportWizardSnapshot = SnapshotFrom<ImportWizardMachine>;
/** A running import wizard, as its views hold it. */
export type ImportWizardActorRef = ActorRefFrom<ImportWizardMachine>;
