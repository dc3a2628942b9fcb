import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { CSV_IMPORT_MAX_POLLS } from '../../models/constants';
import { isCsvFileName, nextPollDelayMs } from '../../models/imports';
import { emptyMapping, isMappingComplete, mapColumn } from './mapping';
import { mappingWizardActors, mappingWizardFailure, servicesNotProvided, toMappingWizardFailure } from './mappingWizardActors';
import { IMPORT_FAILURE_MESSAGE, NO_FILE_MESSAGE, ONLY_CSV_MESSAGE, STATUS_LIMIT_MESSAGE, UPLOAD_FAILURE_MESSAGE } from './messages';
import type {
  FieldRolesConfig,
  ImportPreview,
  ImportStatus,
  ImportUpdate,
  LiveChannelEvent,
  MappingWizardContext,
  MappingWizardEvent,
  MappingWizardInput,
} from './types';

/**
 * The column-mapping import: upload a CSV, map its columns to the field roles of `config`,
 * import it. One chart for every import (payments, attribute values, …); the config says which
 * roles there are, which are required, the default mapping, the header guess, the mapping rule
 * and whether a live channel reports the import's progress.
 *
 * - `not_started` (initial): a file is chosen (`mappingWizard.fileChosen`) and uploaded
 *   (`mappingWizard.upload`). Only a .csv goes up; anything else (or no file) stays here with
 *   the reason. A failed upload comes back here too, with the file kept for another try.
 * - `uploading`: the file goes up. The answer's first rows become the preview, each role takes
 *   its default column, and 'Skip headers' starts on when the first row looks like a header.
 *   `mappingWizard.cancelUpload` gives up.
 * - `preview`: a column is given a role (`mappingWizard.mapColumn`: a column never plays two
 *   roles, a role is on one column), 'Skip headers' toggled, and `mappingWizard.finalize` sends
 *   the mapping once the config's rule has nothing against it (else its message is shown and
 *   nothing is sent). `mappingWizard.reset` starts over with another file.
 * - `finalizing`: `submitting` sends the mapping; a refusal goes back to `preview` with the
 *   server's reason and the mapping as it was. Then `waiting` and `polling` alternate: the status
 *   is fetched after each interval (the named delay `pollDelay`, the spec's backoff schedule),
 *   showing its progress, until it is done or failed, or the poll limit is reached. A failed
 *   status check counts as a poll and polling goes on (the view says so).
 *   With a live channel (`config.live`), the invoked `watch` reports throughout `finalizing`:
 *   its progress as it changes; `done` without refused rows ends the import at once; `done`
 *   with refused rows, or `failed`, polls at once (the GET carries the rows and the reason).
 *   While the channel is live the status is polled only every LIVE_SAFETY_POLL_MS (after a
 *   first poll on the schedule, which catches a change made before the subscription was in
 *   place); when it is lost polling returns to the schedule at once, and when it comes back a
 *   poll catches up on what it missed. So a missed event never leaves the page stuck.
 * - `finalized`: `succeeded` (every row imported: the config's 'all N … imported'),
 *   `withErrors` (the counts and the refused rows) or `failed` (the import failed, or its status
 *   could not be had within the poll limit). `mappingWizard.reset` imports another file.
 */
export function createMappingWizardMachine(config: FieldRolesConfig) {
  const initialContext = (maxPolls: number): MappingWizardContext => ({
    maxPolls,
    file: null,
    importId: null,
    preview: null,
    mapping: emptyMapping(config),
    skipHeaders: false,
    polls: 0,
    progress: 0,
    statusCheckFailed: false,
    live: false,
    result: null,
    failure: null,
  });
  const machineId = `#${config.id}`;

  const machineSetup = setup({
    types: {
      context: {} as MappingWizardContext,
      events: {} as MappingWizardEvent | LiveChannelEvent,
      input: {} as MappingWizardInput,
    },
    actors: mappingWizardActors(servicesNotProvided),
    actions: {
      assignFile: assign({ file: (_, params: { file: File | null }) => params.file }),
      rejectFile: assign({
        failure: ({ context }) => mappingWizardFailure('file', [context.file ? ONLY_CSV_MESSAGE : NO_FILE_MESSAGE]),
      }),
      clearFailure: assign({ failure: null }),
      assignUploadFailure: assign({
        failure: (_, params: { error: unknown }) => toMappingWizardFailure(params.error, 'upload', UPLOAD_FAILURE_MESSAGE),
      }),
      assignPreview: assign((_, params: { preview: ImportPreview }) => {
        const mapping = config.defaultMapping(params.preview.columns);
        return {
          importId: params.preview.importId,
          preview: params.preview,
          mapping,
          skipHeaders: config.looksLikeHeader(params.preview.rows, mapping),
        };
      }),
      assignMapping: assign({
        mapping: ({ context }, params: { column: number; role: string | null }) => mapColumn(config, context.mapping, params.column, params.role),
      }),
      assignSkipHeaders: assign({ skipHeaders: (_, params: { skipHeaders: boolean }) => params.skipHeaders }),
      /** The config's rule against the mapping, as the `mapping` failure. */
      assignMappingProblem: assign({
        failure: ({ context }) => mappingWizardFailure('mapping', [config.mappingProblem(context.mapping) ?? IMPORT_FAILURE_MESSAGE]),
      }),
      assignFinalizeFailure: assign({
        failure: (_, params: { error: unknown }) => toMappingWizardFailure(params.error, 'finalize', IMPORT_FAILURE_MESSAGE),
      }),
      startPolling: assign({ polls: 0, progress: 0, statusCheckFailed: false, live: false, result: null, failure: null }),
      /** Progress only grows: a poll's answer may be older than the live channel's last report. */
      assignProgress: assign({
        progress: ({ context }, params: { status: ImportUpdate }) => Math.max(context.progress, params.status.progress),
      }),
      assignLive: assign({ live: (_, params: { live: boolean }) => params.live }),
      /** The channel reported the import done without refused rows: the counts are all there is. */
      assignLiveResult: assign((_, params: { update: ImportUpdate }) => ({
        progress: 100,
        statusCheckFailed: false,
        result: { successCount: params.update.successCount, failureCount: 0, failures: [] },
      })),
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
        failure: (_, params: { status: ImportUpdate }) =>
          mappingWizardFailure('import', [params.status.error && params.status.error.length > 0 ? params.status.error : IMPORT_FAILURE_MESSAGE]),
      }),
      assignStatusUnknown: assign({ statusCheckFailed: false, failure: mappingWizardFailure('statusUnknown', [STATUS_LIMIT_MESSAGE]) }),
      startOver: assign(({ context }) => initialContext(context.maxPolls)),
    },
    guards: {
      hasCsvFile: ({ context }) => isCsvFileName(context.file?.name),
      isMappingComplete: ({ context }) => isMappingComplete(config, context.mapping),
      isImportedWithoutErrors: (_, params: { status: ImportUpdate }) => params.status.status === 'done' && params.status.failureCount === 0,
      isImported: (_, params: { status: ImportUpdate }) => params.status.status === 'done',
      isImportFailed: (_, params: { status: ImportUpdate }) => params.status.status === 'failed',
      /** The channel reports the import done or failed (its rows or reason are then fetched). */
      isImportFinished: (_, params: { status: ImportUpdate }) => params.status.status === 'done' || params.status.status === 'failed',
      /** The poll that just answered was the last one allowed. */
      isPollLimitReached: ({ context }) => context.polls + 1 >= context.maxPolls,
    },
    delays: {
      /** The wait before the next status poll: the spec's schedule, or LIVE_SAFETY_POLL_MS while live. */
      pollDelay: ({ context }) => nextPollDelayMs(context),
    },
  });

  /** What the live channel adds to `finalizing`: the `watch` actor and its reports. */
  const watchedFinalizing = {
    invoke: {
      id: 'watch',
      src: 'watch',
      input: ({ context }: { context: MappingWizardContext }) => {
        if (!context.importId) throw new Error('watching without an import');
        return { importId: context.importId };
      },
    },
    on: {
      'liveChannel.update': [
        {
          guard: { type: 'isImportedWithoutErrors', params: ({ event }: { event: LiveChannelEvent }) => ({ status: updateOf(event) }) },
          target: `${machineId}.finalized.succeeded`,
          actions: { type: 'assignLiveResult', params: ({ event }: { event: LiveChannelEvent }) => ({ update: updateOf(event) }) },
        },
        {
          guard: { type: 'isImportFinished', params: ({ event }: { event: LiveChannelEvent }) => ({ status: updateOf(event) }) },
          target: '.polling',
          actions: { type: 'assignProgress', params: ({ event }: { event: LiveChannelEvent }) => ({ status: updateOf(event) }) },
        },
        { actions: { type: 'assignProgress', params: ({ event }: { event: LiveChannelEvent }) => ({ status: updateOf(event) }) } },
      ],
      'liveChannel.connected': { actions: { type: 'assignLive', params: { live: true } } },
      'liveChannel.lost': { actions: { type: 'assignLive', params: { live: false } } },
    },
  } as const;

  /** What the live channel adds to `finalizing.waiting`. */
  const watchedWaiting = {
    on: {
      // Back (or newly) live: catch up on what the channel may have missed.
      'liveChannel.connected': { target: 'polling', actions: { type: 'assignLive', params: { live: true } } },
      // Lost: wait on the schedule again, from now.
      'liveChannel.lost': { target: 'waiting', reenter: true, actions: { type: 'assignLive', params: { live: false } } },
    },
  } as const;

  return machineSetup.createMachine({
    id: config.id,
    context: ({ input }) => initialContext(input.maxPolls ?? CSV_IMPORT_MAX_POLLS),
    initial: 'not_started',
    states: {
      not_started: {
        on: {
          'mappingWizard.fileChosen': {
            actions: [{ type: 'assignFile', params: ({ event }) => ({ file: event.file }) }, 'clearFailure'],
          },
          'mappingWizard.upload': [{ guard: 'hasCsvFile', target: 'uploading' }, { actions: 'rejectFile' }],
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
          'mappingWizard.cancelUpload': 'not_started',
        },
      },

      preview: {
        on: {
          'mappingWizard.mapColumn': {
            actions: [{ type: 'assignMapping', params: ({ event }) => ({ column: event.column, role: event.role }) }, 'clearFailure'],
          },
          'mappingWizard.skipHeadersChanged': {
            actions: { type: 'assignSkipHeaders', params: ({ event }) => ({ skipHeaders: event.skipHeaders }) },
          },
          'mappingWizard.finalize': [{ guard: 'isMappingComplete', target: 'finalizing' }, { actions: 'assignMappingProblem' }],
          'mappingWizard.reset': { target: 'not_started', actions: 'startOver' },
        },
      },

      finalizing: {
        entry: 'startPolling',
        ...(config.live ? watchedFinalizing : {}),
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
                target: `${machineId}.preview`,
                actions: { type: 'assignFinalizeFailure', params: ({ event }) => ({ error: event.error }) },
              },
            },
          },

          waiting: {
            after: {
              pollDelay: 'polling',
            },
            ...(config.live ? watchedWaiting : {}),
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
                  target: `${machineId}.finalized.succeeded`,
                  actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
                },
                {
                  guard: { type: 'isImported', params: ({ event }) => ({ status: event.output }) },
                  target: `${machineId}.finalized.withErrors`,
                  actions: { type: 'assignResult', params: ({ event }) => ({ status: event.output }) },
                },
                {
                  guard: { type: 'isImportFailed', params: ({ event }) => ({ status: event.output }) },
                  target: `${machineId}.finalized.failed`,
                  actions: { type: 'assignImportFailure', params: ({ event }) => ({ status: event.output }) },
                },
                {
                  guard: 'isPollLimitReached',
                  target: `${machineId}.finalized.failed`,
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
                { guard: 'isPollLimitReached', target: `${machineId}.finalized.failed`, actions: 'assignStatusUnknown' },
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
          'mappingWizard.reset': { target: 'not_started', actions: 'startOver' },
        },
      },
    },
  });
}

/** The update a `liveChannel.update` event carries (the chart only routes those events here). */
function updateOf(event: LiveChannelEvent): ImportUpdate {
  if (event.type !== 'liveChannel.update') throw new Error(`${event.type} carries no update`);
  return event.update;
}

export type MappingWizardMachine = ReturnType<typeof createMappingWizardMachine>;
export type MappingWizardSnapshot = SnapshotFrom<MappingWizardMachine>;
/** A running mapping import, as its views hold it. */
export type MappingWizardActorRef = ActorRefFrom<MappingWizardMachine>;
