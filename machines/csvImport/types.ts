/**
 * The CSV import dialog's data: what the server answers about an import, why a call failed,
 * and the machine's context and events.
 */

/** One row the server refused: its number in the file (1 = the first line), the row as read, and why. */
export interface CsvImportRowFailure {
  row_number: number;
  row: string;
  message: string;
}

/** The result of an import (GET /subscriptions/csv_import/{id}: `result`). */
export interface CsvImportResult {
  /** 'done' once committed, 'failed' when the import failed, else the import's status. */
  status: string;
  success_count: number;
  failure_count: number;
  /** The first failed rows (the server lists up to 1000; `failure_count` counts them all). */
  failures: CsvImportRowFailure[];
  /** Why a failed import failed. */
  error?: string;
}

/** What one status poll answers: the fields of GET /subscriptions/csv_import/{id} the dialog reads. */
export interface CsvImportStatus {
  id: string;
  /** 'in_progress', 'finalizing', 'done', 'failed', … */
  status: string;
  /** Percent, 0 to 100. */
  progress: number;
  file_name: string;
  result: CsvImportResult;
}

/** What an accepted upload answers (POST /subscriptions/csv_import: 200). */
export interface CsvImportUpload {
  importId: string;
}

/**
 * Why a call of the dialog failed:
 * - `validation`: the upload was refused with rows that cannot be imported (400), listed;
 * - `notFound`: the import is not there (404: another account's id, or a deleted import);
 * - `rejected`: any other refusal (413 too large, 422 not a CSV or empty, 403), with the server's reason;
 * - `unavailable`: no answer, or a server fault (network, 5xx).
 */
export type CsvImportFailureKind = 'validation' | 'notFound' | 'rejected' | 'unavailable';

/** What the upload and status actors reject with. */
export interface CsvImportFailure {
  kind: CsvImportFailureKind;
  /** The server's reasons, one line each ([] when it gave none). */
  messages: string[];
  /** The rows a 400 answer lists. */
  validationFailures: CsvImportRowFailure[];
}

/** A toast the machine asks for: the 30 s import notice, or the failure toast (danger, 10 s). */
export interface CsvImportNotice {
  kind: 'importNotice' | 'failure';
  message: string;
}

export interface CsvImportContext {
  /** The file chosen in the dialog (until its upload is accepted). */
  file: File | null;
  /** The import under way or finished (also kept in localStorage until dismissed). */
  importId: string | null;
  /** Status polls made for this import since it started (or since the page was loaded). */
  polls: number;
  /** Percent done, from the last poll. */
  progress: number;
  /** The imported file's name, from the last poll. */
  fileName: string | null;
  /** The result of a finished import. */
  result: CsvImportResult | null;
  /** The rows listed by a refused upload (400). */
  validationFailures: CsvImportRowFailure[];
  /** The server's reasons for an error, shown under the spec's message. */
  errorDetails: string[];
}

/** Events from the dialog. */
export type CsvImportEvent =
  /** A file was chosen in the file input (null: the choice was cleared). */
  | { type: 'csvImport.fileSelected'; file: File | null }
  /** 'Import': upload the chosen .csv file. */
  | { type: 'csvImport.upload' }
  /** 'Try again' after a validation failure, an error or the polling limit: back to not started. */
  | { type: 'csvImport.tryAgain' }
  /** 'Dismiss' a completed result: back to not started, the stored import id cleared. */
  | { type: 'csvImport.dismiss' };

export type CsvImportEventType = CsvImportEvent['type'];
