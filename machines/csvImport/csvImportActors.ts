import { fromPromise } from 'xstate';
import type { CsvImportFailure, CsvImportFailureKind, CsvImportRowFailure, CsvImportStatus, CsvImportUpload } from './types';

/**
 * The calls the CSV import machine makes. src/ implements them over the API client and
 * localStorage; tests implement them with stubs. The upload and the status poll reject with a
 * `CsvImportFailure`.
 */
export interface CsvImportServices {
  /** The id of the import this browser started and did not dismiss (localStorage), or null. */
  readStoredImport(): Promise<string | null>;
  /**
   * POST /subscriptions/csv_import (multipart: `column_order` and the file in `paying_customers`).
   * Fails `validation` (400, with the rows), `rejected` (413, 422, …) or `unavailable`.
   */
  uploadCsv(file: File, signal: AbortSignal): Promise<CsvImportUpload>;
  /** GET /subscriptions/csv_import/{id}. Fails `notFound` (404), `rejected` or `unavailable`. */
  fetchImportStatus(importId: string, signal: AbortSignal): Promise<CsvImportStatus>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type CsvImportInvokeId = keyof CsvImportServices;

export function csvImportFailure(
  kind: CsvImportFailureKind,
  messages: string[] = [],
  validationFailures: CsvImportRowFailure[] = [],
): CsvImportFailure {
  return { kind, messages, validationFailures };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isCsvImportFailure(value: unknown): value is CsvImportFailure {
  return isRecord(value) && typeof value.kind === 'string' && Array.isArray(value.messages) && Array.isArray(value.validationFailures);
}

/** Anything an actor threw that is not a CsvImportFailure (a TypeError of fetch) counts as `unavailable`. */
export function toCsvImportFailure(error: unknown): CsvImportFailure {
  return isCsvImportFailure(error) ? error : csvImportFailure('unavailable');
}

/**
 * A call the machine gave up (its state was left, or the actor was stopped) never reports
 * back: its rejection by the abort is swallowed, so an actor restored after a stop (React's
 * development double effects) does not take the abort of its first call for a failure.
 */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function csvImportActors(services: CsvImportServices) {
  return {
    readStoredImport: fromPromise<string | null>(() => services.readStoredImport()),
    uploadCsv: fromPromise<CsvImportUpload, { file: File }>(({ input, signal }) =>
      unlessAborted(signal, services.uploadCsv(input.file, signal)),
    ),
    fetchImportStatus: fromPromise<CsvImportStatus, { importId: string }>(({ input, signal }) =>
      unlessAborted(signal, services.fetchImportStatus(input.importId, signal)),
    ),
  } satisfies Record<CsvImportInvokeId, unknown>;
}

const notProvided = (name: CsvImportInvokeId) => () =>
  Promise.reject(
    new Error(`The CSV import machine's "${name}" call is not provided: use csvImportMachine.provide({ actors: csvImportActors(services) })`),
  );

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: CsvImportServices = {
  readStoredImport: notProvided('readStoredImport'),
  uploadCsv: notProvided('uploadCsv'),
  fetchImportStatus: notProvided('fetchImportStatus'),
};
