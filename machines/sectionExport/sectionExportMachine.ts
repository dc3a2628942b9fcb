import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { sectionExportActors, servicesNotProvided } from './sectionExportActors';
import type { SectionExportContext, SectionExportEvent, SectionExportNotice, SectionExportRequest, SectionExportUpdate } from './types';

export const initialSectionExportContext: SectionExportContext = { request: null, exportId: null, url: null, fileName: null };

const STARTED: SectionExportNotice = { kind: 'started' };
const FAILED: SectionExportNotice = { kind: 'failed' };

type UpdateEvent = Extract<SectionExportEvent, { type: 'sectionExportChannel.update' }>;
const updateOf = ({ event }: { event: UpdateEvent }): SectionExportUpdate => event.update;

/**
 * A section's details export (spec: "An export runs asynchronously; a notification follows
 * with a download action"):
 *
 * - `idle`: nothing asked yet. `sectionExport.start` → `starting`.
 * - `starting`: POST export_details (the invoked `start`). Accepted → `inProgress` with the
 *   started toast ('Your export is in progress. We will notify you once completed', 5 s).
 *   Refused or unreachable → `failed`.
 * - `inProgress`: listens on SectionDetailsExportChannel (the invoked `watch`) for the export.
 *   A message that it is done → `completed` with the complete toast (no timeout, Download);
 *   one that it failed → `failed`. Messages of another export or still in progress change
 *   nothing; `sectionExport.start` is ignored (one export at a time).
 * - `completed`: the url and file name are kept. `failed`: the start failure toast ('We could
 *   not start your export, please try again later', 30 s) was shown. From either,
 *   `sectionExport.start` starts anew.
 *
 * The toasts are an effect provided by src/ (`notify`); the calls are actors provided the same
 * way (`sectionExportActors(services)`).
 */
export const sectionExportMachine = setup({
  types: {
    context: {} as SectionExportContext,
    events: {} as SectionExportEvent,
  },
  actors: sectionExportActors(servicesNotProvided),
  actions: {
    assignRequest: assign((_, params: { request: SectionExportRequest }) => ({ ...initialSectionExportContext, request: params.request })),
    assignStarted: assign((_, params: { update: SectionExportUpdate }) => ({ exportId: params.update.id })),
    assignFinished: assign((_, params: SectionExportUpdate) => ({ url: params.url, fileName: params.file_name })),
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: SectionExportNotice) => {},
  },
  guards: {
    isDone: ({ context }, params: SectionExportUpdate) => params.id === context.exportId && params.status === 'done' && params.url !== null,
    isFailed: ({ context }, params: SectionExportUpdate) => params.id === context.exportId && params.status === 'failed',
  },
}).createMachine({
  id: 'sectionExport',
  context: initialSectionExportContext,
  initial: 'idle',
  states: {
    idle: {
      on: {
        'sectionExport.start': { target: 'starting', actions: { type: 'assignRequest', params: ({ event }) => ({ request: event.request }) } },
      },
    },

    starting: {
      invoke: {
        id: 'start',
        src: 'start',
        input: ({ context }) => context.request as SectionExportRequest,
        onDone: { target: 'inProgress', actions: [{ type: 'assignStarted', params: ({ event }) => ({ update: event.output }) }, { type: 'notify', params: STARTED }] },
        onError: { target: 'failed', actions: { type: 'notify', params: FAILED } },
      },
    },

    inProgress: {
      invoke: {
        id: 'watch',
        src: 'watch',
        input: ({ context }) => ({ exportId: context.exportId as string }),
      },
      on: {
        'sectionExportChannel.update': [
          {
            guard: { type: 'isDone', params: updateOf },
            target: 'completed',
            actions: [
              { type: 'assignFinished', params: updateOf },
              { type: 'notify', params: ({ event }) => ({ kind: 'completed' as const, url: event.update.url as string, fileName: event.update.file_name }) },
            ],
          },
          { guard: { type: 'isFailed', params: updateOf }, target: 'failed', actions: { type: 'notify', params: FAILED } },
        ],
      },
    },

    completed: {
      on: {
        'sectionExport.start': { target: 'starting', actions: { type: 'assignRequest', params: ({ event }) => ({ request: event.request }) } },
      },
    },

    failed: {
      on: {
        'sectionExport.start': { target: 'starting', actions: { type: 'assignRequest', params: ({ event }) => ({ request: event.request }) } },
      },
    },
  },
});

export type SectionExportMachine = typeof sectionExportMachine;
export type SectionExportSnapshot = SnapshotFrom<SectionExportMachine>;
export type SectionExportActorRef = ActorRefFrom<SectionExportMachine>;
