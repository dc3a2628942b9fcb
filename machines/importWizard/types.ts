import type { SubscriptionCsvField } from '../../models/constants';

/**
 * The column mapping of a subscription CSV import: the column index of each field, or null
 * when the field is not mapped. A column holds at most one field.
 */
export type ColumnMapping = Record<SubscriptionCsvField, number | null>;

/** What POST /subscriptions/csv_import answers for the import page: the file's first rows. */
export interface ImportPreview {
  importId: string;
  /** Rows of the whole file. */
  totalRows: number;
  /** The first rows (10 at most), cells as read. */
  rows: string[][];
  /** Cells of the widest row: the columns the mapping can use. */
  columns: number;
  delimiter: string;
  encoding: string;
}

/** POST /subscriptions/csv_import/{id}/finalize: the mapping and the skip-headers choice. */
export interface FinalizeRequest {
  importId: string;
  mapping: ColumnMapping;
  skipHeaders: boolean;
}

/** A row the import refused. */
export interface ImportFailureRow {
  rowNumber: number;
  row: string;
  message: string;
}

/**
 * The import's state as GET /subscriptions/csv_import/{id} (or the finalize answer) tells it:
 * `status` is its result status, 'done' once committed, 'failed' when it failed, otherwise
 * still running ('in_progress', 'finalizing').
 */
export interface ImportStatus {
  status: string;
  /** Percent. */
  progress: number;
  successCount: number;
  failureCount: number;
  failures: ImportFailureRow[];
  /** Why a failed import failed. */
  error: string | null;
}

/** The counts and refused rows of a committed import. */
export interface ImportResult {
  successCount: number;
  failureCount: number;
  failures: ImportFailureRow[];
}

/**
 * What went wrong, and where:
 * - `file`: no file or not a .csv (checked before uploading);
 * - `upload`: the upload was refused (too large, row too long, empty) or failed;
 * - `mapping`: a required field is not mapped (checked before finalizing);
 * - `finalize`: the server refused the mapping, or the call failed;
 * - `import`: the import failed on the server;
 * - `statusUnknown`: polling reached its limit without an answer.
 */
export type ImportWizardFailureKind = 'file' | 'upload' | 'mapping' | 'finalize' | 'import' | 'statusUnknown';

export interface ImportWizardFailure {
  kind: ImportWizardFailureKind;
  /** Lines to show, in order. */
  messages: string[];
}

export interface ImportWizardContext {
  /** Status polls before giving up (CSV_IMPORT_MAX_POLLS unless the input says otherwise). */
  maxPolls: number;
  /** The file chosen to upload; kept when the upload fails, so it can be tried again. */
  file: File | null;
  /** The server's import, once the upload is accepted. */
  importId: string | null;
  preview: ImportPreview | null;
  mapping: ColumnMapping;
  skipHeaders: boolean;
  /** Status polls made since the mapping was finalized. */
  polls: number;
  /** Percent of the import done, as last reported. */
  progress: number;
  /** The last status check failed (polling goes on). */
  statusCheckFailed: boolean;
  result: ImportResult | null;
  failure: ImportWizardFailure | null;
}

export interface ImportWizardInput {
  /** Defaults to CSV_IMPORT_MAX_POLLS; model tests pass a small limit to reach it. */
  maxPolls?: number;
}

/** The events views send. */
export type ImportWizardEvent =
  | { type: 'importWizard.fileChosen'; file: File | null }
  | { type: 'importWizard.upload' }
  | { type: 'importWizard.cancelUpload' }
  | { type: 'importWizard.mapColumn'; column: number; field: SubscriptionCsvField | null }
  | { type: 'importWizard.skipHeadersChanged'; skipHeaders: boolean }
  | { type: 'importWizard.finalize' }
  | { type: 'importWizard.reset' };
