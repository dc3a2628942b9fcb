import { csvImportFailure } from '../../machines/csvImport/csvImportActors';
import type { CsvImportServices } from '../../machines/csvImport/csvImportActors';
import type { CsvImportFailure, CsvImportRowFailure } from '../../machines/csvImport/types';
import { CSV_IMPORT_COLUMN_ORDER } from '../../models/constants';
import type { ApiClient } from '../api/client';
import { apiErrorItems, apiErrorText } from '../api/errors';

/** Where the id of the import this browser started is kept until its result is dismissed. */
export const CSV_IMPORT_STORAGE_KEY = 'subscope.csvImport.importId';

/**
 * The stored import id. Reading storage that cannot be used (blocked, private mode) throws, and
 * the machine starts in the file picker; writing to it stores nothing.
 */
export const storedCsvImport = {
  read(): string | null {
    return window.localStorage.getItem(CSV_IMPORT_STORAGE_KEY);
  },
  write(importId: string): void {
    try {
      window.localStorage.setItem(CSV_IMPORT_STORAGE_KEY, importId);
    } catch {
      // Without storage a reload cannot resume; the import itself goes on.
    }
  },
  clear(): void {
    try {
      window.localStorage.removeItem(CSV_IMPORT_STORAGE_KEY);
    } catch {
      // Nothing stored to clear.
    }
  },
};

export type CsvImportStore = typeof storedCsvImport;

/** The multipart body of POST /subscriptions/csv_import: the column order and the file in `paying_customers`. */
export function csvImportForm(file: File): FormData {
  const form = new FormData();
  form.append('column_order', CSV_IMPORT_COLUMN_ORDER.join(','));
  form.append('paying_customers', file, file.name);
  return form;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The rows a 400 answer lists (`validation_failures`), skipping anything not in their shape. */
export function validationFailuresOf(body: unknown): CsvImportRowFailure[] {
  if (!isRecord(body) || !Array.isArray(body.validation_failures)) return [];
  return body.validation_failures.filter(
    (item): item is CsvImportRowFailure =>
      isRecord(item) && typeof item.row_number === 'number' && typeof item.row === 'string' && typeof item.message === 'string',
  );
}

/** What an error answer means for the dialog: 400 lists rows, 404 is a missing import, 5xx no answer, the rest a refusal. */
export function failureOfAnswer(response: Response, body: unknown): CsvImportFailure {
  const messages = apiErrorItems(body).map((item) => apiErrorText(item));
  if (response.status === 400) return csvImportFailure('validation', messages, validationFailuresOf(body));
  if (response.status === 404) return csvImportFailure('notFound', messages);
  if (response.status >= 500) return csvImportFailure('unavailable');
  return csvImportFailure('rejected', messages);
}

/** Runs a call; a transport failure (offline, refused connection) becomes `unavailable`, an abort stays an abort. */
async function reach<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (signal.aborted) throw error;
    throw csvImportFailure('unavailable');
  }
}

/** The CSV import machine's calls over the API client (which adds the Authorization header) and localStorage. */
export function createCsvImportServices(client: ApiClient, store: Pick<CsvImportStore, 'read'> = storedCsvImport): CsvImportServices {
  return {
    async readStoredImport() {
      return store.read();
    },

    async uploadCsv(file, signal) {
      const form = csvImportForm(file);
      const { data, error, response } = await reach(signal, () =>
        client.POST('/subscriptions/csv_import', {
          // The route takes multipart, which the generated types leave out (no JSON request body):
          // the serializer hands the FormData to fetch, which sets the multipart boundary.
          body: form as never,
          bodySerializer: () => form,
          signal,
        }),
      );
      if (!response.ok || !data) throw failureOfAnswer(response, error);
      return { importId: data.id };
    },

    async fetchImportStatus(importId, signal) {
      const { data, error, response } = await reach(signal, () =>
        client.GET('/subscriptions/csv_import/{id}', { params: { path: { id: importId } }, signal }),
      );
      if (!response.ok || !data) throw failureOfAnswer(response, error);
      return { id: data.id, status: data.status, progress: data.progress, file_name: data.file_name, result: data.result };
    },
  };
}
