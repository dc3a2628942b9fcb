import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { CSV_IMPORT_MAX_POLLS } from '../../models/constants';
import { segmentsImportActors, segmentsImportFailure, servicesNotProvided, toSegmentsImportFailure } from './segmentsImportActors';
import {
  defaultMapping,
  emptyMapping,
  isCsvFileName,
  isCustomerColumnMapped,
  isMappingComplete,
  looksLikeHeader,
  mapColumn,
  nextPollDelayMs,
} from './mapping';
import {
  CUSTOMER_COLUMN_REQUIRED_MESSAGE,
  IMPORT_FAILURE_MESSAGE,
  MAPPING_INCOMPLETE_MESSAGE,
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  STATUS_LIMIT_MESSAGE,
  UPLOAD_FAILURE_MESSAGE,
} from './messages';
import type {
  SegmentsColumnRole,
  SegmentsImportChannelEvent,
  SegmentsImportContext,
  SegmentsImportEvent,
  SegmentsImportInput,
  SegmentsImportPreview,
  SegmentsImportStatus,
  SegmentsImportUpdate,
} from './types';

function initialContext(segmentId: string, maxPolls: number): SegmentsImportContext {
  return {
    segmentId,
    maxPolls,
    file: null,
    importId: null,
    preview: null,
    mapping: emptyMapping(),
    skipHeaders: false,
    polls: 0,
    progress: 0,
    statusCheckFailed: false,
    live: false,
    result: null,
    failure: null,
  };
}

/**
 * The attribute values import (/import-segments): upload a CSV of customer IDs and values of one
 * custom attribute (the customer segment of the input), map its columns, import the values.
 *
 * - `not_started` (initial): a file is chosen (`segmentsImport.fileChosen`) and uploaded
 *   (`segmentsImport.upload`). Only a .csv goes up; anything else (or no file) stays here with
 *   the reason. A failed upload comes back here too, with the file kept for another try.
 * - `uploading`: POST /segments_importer/draft with the file. The answer's first rows become the
 *   preview; Customer ID starts on the first column (Value on the second of a two-column file),
 *   and 'Skip headers' starts on when the first row looks like a header.
 *   `segmentsImport.cancelUpload` gives up.
 * - `preview`: a column is given a role (`segmentsImport.mapColumn`: one Customer ID column and
 *   one value column at a time, a column never both), 'Skip headers' toggled, and
 *   `segmentsImport.finalize` sends it after the spec's rule: without a Customer ID column,
 *   'One of the columns must be mapped to Customer ID'; without a value column, 'Looks like
 *   import mapping is incomplete - …'; nothing is sent then. `segmentsImport.reset` starts over.
 * - `finalizing`: `submitting` POSTs the mapping; a refusal (the same rule on the server, an
 *   unknown attribute) goes back to `preview` with the server's reason and the mapping as it
 *   was. Then `waiting` and `polling` alternate: GET the import after each interval (the named
 *   delay `pollDelay`) until it is done or failed, or CSV_IMPORT_MAX_POLLS is reached. A failed
 *   status check counts as a poll and polling goes on (the view says so).
 *   Throughout `finalizing` the import's live channel (SegmentsImportChannel, the invoked
 *   `watch`) reports: its progress as it changes; `done` without refused rows ends the import
 *   at once; `done` with refused rows, or `failed`, polls at once (the GET carries the rows and
 *   the reason). While the channel is live the status is polled only every LIVE_SAFETY_POLL_MS
 *   (after a first poll on the CSV import schedule, which catches a change made before the
 *   subscription was in place); when it is lost (a disconnect, a rejection) polling returns to
 *   the CSV import schedule (CSV_IMPORT_POLL_SCHEDULE) at once, and when it comes back a poll
 *   catches up on what it missed. So a missed event never leaves the page stuck.
 * - `finalized`: `succeeded` (every value imported), `withErrors` (the counts and the refused
 *   rows) or `failed` (the import failed, or its status could not be had within the poll
 *   limit). `segmentsImport.reset` imports another file.
 */
export const segmentsImportMachine = setup({
  types: {
    context: {} as SegmentsImportContext,
    events: {} as SegmentsImportEvent | SegmentsImportChannelEvent,
    input: {} as SegmentsImportInput,
  },
  actors: segmentsImportActors(servicesNotProvided),
  actions: {
    assignFile: assign({ file: (_, params: { file: File | null }) => params.file }),
    rejectFile: assign({
      failure: ({ context }) => segmentsImportFailure('file', [context.file ? ONLY_CSV_MESSAGE : NO_FILE_MESSAGE]),
    }),
    clearFailure: assign({ failure: null }),
    assignUploadFailure: assign({
      failure: (_, params: { error: unknown }) => toSegmentsImportFailure(params.error, 'upload', UPLOAD_FAILURE_MESSAGE),
    }),
    assignPreview: assign((_, params: { preview: SegmentsImportPreview }) => ({
      importId: params.preview.importId,
      preview: params.preview,
      mapping: defaultMapping(params.preview.columns),
      skipHeaders: looksLikeHeader(params.preview.rows),
    })),
    assignMapping: assign({
      mapping: ({ context }, params: { column: number; role: SegmentsColumnRole | null }) =>
        mapColumn(context.mapping, params.column, params.role),
    }),
    assignSkipHeaders: assign({ skipHeaders: (_, params: { skipHeaders: boolean }) => params.skipHeaders }),
    assignCustomerColumnRequired: assign({ failure: segmentsImportFailure('mapping', [CUSTOMER_COLUMN_REQUIRED_MESSAGE]) }),
    assignMappingIncomplete: assign({ failure: segmentsImportFailure('mapping', [MAPPING_INCOMPLETE_MESSAGE]) }),
    assignFinalizeFailure: assign({
      failure: (_, params: { error: unknown }) => toSegmentsImportFailure(params.error, 'finalize', IMPORT_FAILURE_MESSAGE),
    }),
    startPolling: assign({ polls: 0, progress: 0, statusCheckFailed: false, live: false, result: null, failure: null }),
    /** Progress only grows: a poll's answer may be older than the channel's last report. */
    assignProgress: assign({
      progress: ({ context }, params: { status: SegmentsImportStatus | SegmentsImportUpdate }) => Math.max(context.progress, params.status.progress),
    }),
    assignLive: assign({ live: (_, params: { live: boolean }) => params.live }),
    /** The channel reported the import done without refused rows: the counts are all there is. */
    assignLiveResult: assign((_, params: { update: SegmentsImportUpdate }) => ({
      progress: 100,
      statusCheckFailed: false,
      result: { successCount: params.update.successCount, failureCount: 0, failures: [] },
    })),
    countPoll: assign({
      polls: ({ context }) => context.polls + 1,
      statusCheckFailed: (_, params: { failed: boolean }) => params.failed,
    }),
    assignResult: assign((_, params: { status: SegmentsImportStatus }) => ({
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
      failure: (_, params: { status: SegmentsImportStatus }) =>
        segmentsImportFailure('import', [
          params.status.error && params.status.error.length > 0 ? params.status.error : IMPORT_FAILURE_MESSAGE,
        ]),
    }),
    assignStatusUnknown: assign({ statusCheckFailed: false, failure: segmentsImportFailure('statusUnknown', [STATUS_LIMIT_MESSAGE]) }),
    startOver: assign(({ context }) => initialContext(context.segmentId, context.maxPolls)),
  },
  guards: {
    hasCsvFile: ({ context }) => context.file !== null && isCsvFileName(context.file.name),
    isMappingComplete: ({ context }) => isMappingComplete(context.mapping),
    isCustomerColumnMissing: ({ context }) => !isCustomerColumnMapped(context.mapping),
    isImportedWithoutErrors: (_, params: { status: SegmentsImportStatus }) =>
      params.status.status === 'done' && params.status.failureCount === 0,
    isImported: (_, params: { status: SegmentsImportStatus }) => params.status.status === 'done',
    isImportFailed: (_, params: { status: SegmentsImportStatus }) => params.status.status === 'failed',
    /** The channel reports the import done or failed (its rows or reason are then fetched). */
    isImportFinished: (_, params: { status: SegmentsImportUpdate }) => params.status.status === 'done' || params.status.status === 'failed',
    /** The poll that just answered was the last one allowed. */
    isPollLimitReached: ({ context }) => context.polls + 1 >= context.maxPolls,
  },
  delays: {
    /** The wait before the next status poll: CSV_IMPORT_POLL_SCHEDULE, or LIVE_SAFETY_POLL_MS while live. */
    pollDelay: ({ context }) => nextPollDelayMs(context),
  },
}).createMachine({
  id: 'segmentsImport',
  context: ({ input }) => initialContext(input.segmentId, input.maxPolls ?? CSV_IMPORT_MAX_POLLS),
  initial: 'not_started',
  states: {
    not_started: {
      on: {
        'segmentsImport.fileChosen': {
          actions: [{ type: 'assignFile', params: ({ event }) => ({ file: event.file }) }, 'clearFailure'],
        },
        'segmentsImport.upload': [{ guard: 'hasCsvFile', target: 'uploading' }, { actions: 'rejectFile' }],
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
        'segmentsImport.cancelUpload': 'not_started',
      },
    },

    preview: {
      on: {
        'segmentsImport.mapColumn': {
          actions: [{ type: 'assignMapping', params: ({ event }) => ({ column: event.column, role: event.role }) }, 'clearFailure'],
        },
        'segmentsImport.skipHeadersChanged': {
          actions: { type: 'assignSkipHeaders', params: ({ event }) => ({ skipHeaders: event.skipHeaders }) },
        },
        'segmentsImport.finalize': [
          { guard: 'isMappingComplete', target: 'finalizing' },
          { guard: 'isCustomerColumnMissing', actions: 'assignCustomerColumnRequired' },
          { actions: 'assignMappingIncomplete' },
        ],
        'segmentsImport.reset': { target: 'not_started', actions: 'startOver' },
      },
    },

    finalizing: {
      entry: 'startPolling',
      invoke: {
        id: 'watch',
        src: 'watch',
        input: ({ context }) => {
          if (!context.importId) throw new Error('watching without an import');
          return { importId: context.importId };
        },
      },
      on: {
        'segmentsImportChannel.update': [
          {
            guard: { type: 'isImportedWithoutErrors', params: ({ event }) => ({ status: { ...event.update, failures: [] } }) },
            target: '#segmentsImport.finalized.succeeded',
            actions: { type: 'assignLiveResult', params: ({ event }) => ({ update: event.update }) },
          },
          {
            guard: { type: 'isImportFinished', params: ({ event }) => ({ status: event.update }) },
            target: '.polling',
            actions: { type: 'assignProgress', params: ({ event }) => ({ status: event.update }) },
          },
          { actions: { type: 'assignProgress', params: ({ event }) => ({ status: event.update }) } },
        ],
        'segmentsImportChannel.connected': { actions: { type: 'assignLive', params: { live: true } } },
        'segmentsImportChannel.lost': { actions: { type: 'assignLive', params: { live: false } } },
      },
      initial: 'submitting',
      states: {
        submitting: {
          invoke: {
            id: 'finalize',
            src: 'finalize',
            input: ({ context }) => {
              const { importId, segmentId, mapping, skipHeaders } = context;
              if (!importId) throw new Error('finalizing without an import');
              if (mapping.customerId === null || mapping.value === null) throw new Error('finalizing an incomplete mapping');
              return { importId, segmentId, customerColumn: mapping.customerId, valueColumn: mapping.value, skipHeaders };
            },
            onDone: {
              target: 'waiting',
              actions: { type: 'assignProgress', params: ({ event }) => ({ status: event.output }) },
            },
            onError: {
              target: '#segmentsImport.preview',
              actions: { type: 'assignFinalizeFailure', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },

        waiting: {
          after: {
            pollDelay: 'polling',
          },
          on: {
            // Back (or newly) live: catch up on what the channel may have missed.
            'segmentsImportChannel.connected': { target: 'polling', actions: { type: 'assignLive', params: { live: true } } },
            // Lost: wait on the CSV import schedule again, from now.
            'segmentsImportChannel.lost': { target: 'waiting', reenter: true, actions: { type: 'assignLive', params: { live: false } } },
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
                target: '#segmentsImport.finalized.succeeded',
                actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: { type: 'isImported', params: ({ event }) => ({ status: event.output }) },
                target: '#segmentsImport.finalized.withErrors',
                actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: { type: 'isImportFailed', params: ({ event }) => ({ status: event.output }) },
                target: '#segmentsImport.finalized.failed',
                actions: { type: 'assignImportFailure', params: ({ event }) => ({ status: event.output }) },
              },
              {
                guard: 'isPollLimitReached',
                target: '#segmentsImport.finalized.failed',
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
              { guard: 'isPollLimitReached', target: '#segmentsImport.finalized.failed', actions: 'assignStatusUnknown' },
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
        'segmentsImport.reset': { target: 'not_started', actions: 'startOver' },
      },
    },
  },
});

export type SegmentsImportMachine = typeof segmentsImportMachine;
export type SegmentsImportSnapshot = SnapshotFrom<SegmentsImportMachine>;
/** A running attribute values import, as its views hold it. */
export type SegmentsImportActorRef = ActorRefFrom<SegmentsImportMachine>;
