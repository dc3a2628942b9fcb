import { fromCallback, fromPromise } from 'xstate';
import type { EventObject } from 'xstate';
import { IMPORT_FAILURE_MESSAGE } from './messages';
import type {
  FinalizeRequest,
  ImportPreview,
  ImportStatus,
  ImportUpdate,
  LiveChannelEvent,
  MappingWizardFailure,
  MappingWizardFailureKind,
} from './types';

/**
 * The calls a mapping import makes: its API adapter. src/ implements them over the API client;
 * tests with stubs. A refused call rejects with a `MappingWizardFailure` carrying the server's
 * messages; anything else it throws (a TypeError of fetch) counts as a failure with the generic
 * message of its step.
 */
export interface MappingWizardServices {
  /** Uploads the file: the preview. */
  upload(file: File, signal: AbortSignal): Promise<ImportPreview>;
  /** Sends the mapping; answers the import's status. */
  finalize(request: FinalizeRequest, signal: AbortSignal): Promise<ImportStatus>;
  /** The import's status. */
  fetchStatus(importId: string, signal: AbortSignal): Promise<ImportStatus>;
  /**
   * Subscribes to the import's live channel and reports to `handlers` until the returned
   * function is called. Only imports whose config is `live` are watched.
   */
  watch?(importId: string, handlers: LiveChannelHandlers): () => void;
}

/** What the live channel reports to the machine. */
export interface LiveChannelHandlers {
  /** The subscription is confirmed (also after a reconnect). */
  connected(): void;
  /** The subscription is gone: the connection dropped (it may come back), or it was rejected. */
  lost(): void;
  update(update: ImportUpdate): void;
}

/** The ids of the chart's calls (their done and error events derive from them). */
export type MappingWizardInvokeId = 'upload' | 'finalize' | 'fetchStatus';

export function mappingWizardFailure(kind: MappingWizardFailureKind, messages: string[]): MappingWizardFailure {
  return { kind, messages };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isMappingWizardFailure(value: unknown): value is MappingWizardFailure {
  return isRecord(value) && typeof value.kind === 'string' && Array.isArray(value.messages);
}

/** The failure a call rejected with, as the given kind; a stray error gets the fallback message. */
export function toMappingWizardFailure(
  error: unknown,
  kind: MappingWizardFailureKind,
  fallback = IMPORT_FAILURE_MESSAGE,
): MappingWizardFailure {
  if (isMappingWizardFailure(error) && error.messages.length > 0) return { kind, messages: error.messages };
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
export function mappingWizardActors(services: MappingWizardServices) {
  return {
    upload: fromPromise<ImportPreview, { file: File }>(({ input, signal }) => unlessAborted(signal, services.upload(input.file, signal))),
    finalize: fromPromise<ImportStatus, FinalizeRequest>(({ input, signal }) => unlessAborted(signal, services.finalize(input, signal))),
    fetchStatus: fromPromise<ImportStatus, { importId: string }>(({ input, signal }) =>
      unlessAborted(signal, services.fetchStatus(input.importId, signal)),
    ),
    /** The live channel while the import runs: its reports become the machine's `liveChannel.*` events. */
    watch: fromCallback<EventObject, { importId: string }>(({ input, sendBack }) => {
      const send = (event: LiveChannelEvent) => sendBack(event);
      if (!services.watch) return undefined;
      return services.watch(input.importId, {
        connected: () => send({ type: 'liveChannel.connected' }),
        lost: () => send({ type: 'liveChannel.lost' }),
        update: (update) => send({ type: 'liveChannel.update', update }),
      });
    }),
  } satisfies Record<MappingWizardInvokeId | 'watch', unknown>;
}

const notProvided = (name: MappingWizardInvokeId) => () =>
  Promise.reject(new Error(`The mapping wizard's "${name}" call is not provided: use machine.provide({ actors: mappingWizardActors(services) })`));

/**
 * Placeholders that fail loudly until src/ (or a test) provides the real calls. Without a live
 * channel nothing is reported, and the import is polled.
 */
export const servicesNotProvided: MappingWizardServices = {
  upload: notProvided('upload'),
  finalize: notProvided('finalize'),
  fetchStatus: notProvided('fetchStatus'),
};
