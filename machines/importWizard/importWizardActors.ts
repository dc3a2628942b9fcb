import { fromPromise } from 'xstate';
import { IMPORT_FAILURE_MESSAGE } from './messages';
import type { FinalizeRequest, ImportPreview, ImportStatus, ImportWizardFailure, ImportWizardFailureKind } from './types';

/**
 * The calls the import wizard makes. src/ implements them over the API client; tests with
 * stubs. A refused call rejects with an `ImportWizardFailure` carrying the server's messages;
 * anything else it throws (a TypeError of fetch) counts as a failure with the generic message
 * of its step.
 */
export interface ImportWizardServices {
  /** POST /subscriptions/csv_import with the file in `csv` (no column_order): the preview. */
  upload(file: File, signal: AbortSignal): Promise<ImportPreview>;
  /** POST /subscriptions/csv_import/{id}/finalize: the mapping; answers the import's status. */
  finalize(request: FinalizeRequest, signal: AbortSignal): Promise<ImportStatus>;
  /** GET /subscriptions/csv_import/{id}. */
  fetchStatus(importId: string, signal: AbortSignal): Promise<ImportStatus>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type ImportWizardInvokeId = keyof ImportWizardServices;

export function importWizardFailure(kind: ImportWizardFailureKind, messages: string[]): ImportWizardFailure {
  return { kind, messages };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isImportWizardFailure(value: unknown): value is ImportWizardFailure {
  return isRecord(value) && typeof value.kind === 'string' && Array.isArray(value.messages);
}

/** The failure a call rejected with, as the given kind; a stray error gets the fallback message. */
export function toImportWizardFailure(error: unknown, kind: ImportWizardFailureKind, fallback = IMPORT_FAILURE_MESSAGE): ImportWizardFailure {
  if (isImportWizardFailure(error) && error.messages.length > 0) return { kind, messages: error.messages };
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
export function importWizardActors(services: ImportWizardServices) {
  return {
    upload: fromPromise<ImportPreview, { file: File }>(({ input, signal }) => unlessAborted(signal, services.upload(input.file, signal))),
    finalize: fromPromise<ImportStatus, FinalizeRequest>(({ input, signal }) => unlessAborted(signal, services.finalize(input, signal))),
    fetchStatus: fromPromise<ImportStatus, { importId: string }>(({ input, signal }) =>
      unlessAborted(signal, services.fetchStatus(input.importId, signal)),
    ),
  } satisfies Record<ImportWizardInvokeId, unknown>;
}

const notProvided = (name: ImportWizardInvokeId) => () =>
  Promise.reject(
    new Error(`The import wizard's "${name}" call is not provided: use importWizardMachine.provide({ actors: importWizardActors(services) })`),
  );

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: ImportWizardServices = {
  upload: notProvided('upload'),
  finalize: notProvided('finalize'),
  fetchStatus: notProvided('fetchStatus'),
};
