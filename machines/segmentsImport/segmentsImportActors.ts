import { fromCallback, fromPromise } from 'xstate';
import type { EventObject } from 'xstate';
import { IMPORT_FAILURE_MESSAGE } from './messages';
import type {
  SegmentsFinalizeRequest,
  SegmentsImportFailure,
  SegmentsImportFailureKind,
  SegmentsImportChannelEvent,
  SegmentsImportPreview,
  SegmentsImportStatus,
  SegmentsImportUpdate,
} from './types';

/**
 * The calls the attribute values import makes. src/ implements them over the API client; tests
 * with stubs. A refused call rejects with a `SegmentsImportFailure` carrying the server's
 * messages; anything else it throws (a TypeError of fetch) counts as a failure with the generic
 * message of its step.
 */
export interface SegmentsImportServices {
  /** POST /segments_importer/draft with the file in `csv`: the preview. */
  upload(file: File, signal: AbortSignal): Promise<SegmentsImportPreview>;
  /** POST /segments_importer/finalize: the mapping; answers the import's status. */
  finalize(request: SegmentsFinalizeRequest, signal: AbortSignal): Promise<SegmentsImportStatus>;
  /** GET /segments_importer/{id}. */
  fetchStatus(importId: string, signal: AbortSignal): Promise<SegmentsImportStatus>;
  /**
   * Subscribes to the import's live channel (SegmentsImportChannel) and reports to `handlers`
   * until the returned function is called.
   */
  watch(importId: string, handlers: SegmentsImportLiveHandlers): () => void;
}

/** What the live channel reports to the machine. */
export interface SegmentsImportLiveHandlers {
  /** The subscription is confirmed (also after a reconnect). */
  connected(): void;
  /** The subscription is gone: the connection dropped (it may come back), or it was rejected. */
  lost(): void;
  update(update: SegmentsImportUpdate): void;
}

/** The ids of the chart's calls (their done and error events derive from them). */
export type SegmentsImportInvokeId = 'upload' | 'finalize' | 'fetchStatus';

export function segmentsImportFailure(kind: SegmentsImportFailureKind, messages: string[]): SegmentsImportFailure {
  return { kind, messages };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isSegmentsImportFailure(value: unknown): value is SegmentsImportFailure {
  return isRecord(value) && typeof value.kind === 'string' && Array.isArray(value.messages);
}

/** The failure a call rejected with, as the given kind; a stray error gets the fallback message. */
export function toSegmentsImportFailure(
  error: unknown,
  kind: SegmentsImportFailureKind,
  fallback = IMPORT_FAILURE_MESSAGE,
): SegmentsImportFailure {
  if (isSegmentsImportFailure(error) && error.messages.length > 0) return { kind, messages: error.messages };
  return { kind, messages: [fallback] };
}

/**
 * A call the machine gave up (its state was left, or the actor was stopped) never reports
 * back: its rejection by the abort is swallowed, so an actor restored after a stop (React's
 * development double effects) does not take the abort for a failure.
 */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function segmentsImportActors(services: SegmentsImportServices) {
  return {
    upload: fromPromise<SegmentsImportPreview, { file: File }>(({ input, signal }) =>
      unlessAborted(signal, services.upload(input.file, signal)),
    ),
    finalize: fromPromise<SegmentsImportStatus, SegmentsFinalizeRequest>(({ input, signal }) =>
      unlessAborted(signal, services.finalize(input, signal)),
    ),
    fetchStatus: fromPromise<SegmentsImportStatus, { importId: string }>(({ input, signal }) =>
      unlessAborted(signal, services.fetchStatus(input.importId, signal)),
    ),
    /** The live channel while the import runs: its reports become the machine's `segmentsImportChannel.*` events. */
    watch: fromCallback<EventObject, { importId: string }>(({ input, sendBack }) => {
      const send = (event: SegmentsImportChannelEvent) => sendBack(event);
      return services.watch(input.importId, {
        connected: () => send({ type: 'segmentsImportChannel.connected' }),
        lost: () => send({ type: 'segmentsImportChannel.lost' }),
        update: (update) => send({ type: 'segmentsImportChannel.update', update }),
      });
    }),
  } satisfies Record<SegmentsImportInvokeId | 'watch', unknown>;
}

const notProvided = (name: SegmentsImportInvokeId) => () =>
  Promise.reject(
    new Error(
      `The segments import's "${name}" call is not provided: use segmentsImportMachine.provide({ actors: segmentsImportActors(services) })`,
    ),
  );

/**
 * Placeholders that fail loudly until src/ (or a test) provides the real calls. Without a live
 * channel nothing is reported, and the import is polled.
 */
export const servicesNotProvided: SegmentsImportServices = {
  upload: notProvided('upload'),
  finalize: notProvided('finalize'),
  fetchStatus: notProvided('fetchStatus'),
  watch: () => () => {},
};
