/**
 * The column mapping of an import: the column index of each field role, or null when no column
 * plays it. A column plays at most one role, and a role is played by one column at most.
 */
export type ColumnMapping<Role extends string = string> = Record<Role, number | null>;

/**
 * What one import maps: its field roles (which CSV columns can map to which fields, which are
 * required, what each is called) and the rules around them. A new import is a new config, an
 * API adapter (`MappingWizardServices`) and the page's words (src/imports/wizard/).
 */
export interface FieldRolesConfig<Role extends string = string> {
  /** The machine's id; also the name its actors have in the state inspector. */
  id: string;
  /** Every role a column can play, in the order the page lists them. */
  roles: readonly Role[];
  /** How the page names each role (the server's messages use the same words). */
  labels: Readonly<Record<Role, string>>;
  /** The roles a mapping must give a column, in the order the page and the rule list them. */
  required: readonly Role[];
  /**
   * Groups of roles of which the mapping must give at least one a column (the payments'
   * amount: monthly amount or total value; its period: months or end date). The page lists
   * each group with the required roles; `mappingProblem` says what is wrong.
   */
  alternatives?: readonly (readonly Role[])[];
  /** The mapping a freshly uploaded file starts with, for a file of `columns` columns. */
  defaultMapping(columns: number): ColumnMapping<Role>;
  /** Whether the file's first row looks like a header: the default of 'Skip headers'. */
  looksLikeHeader(rows: readonly (readonly string[])[], mapping: ColumnMapping<Role>): boolean;
  /** The spec's message for a mapping that cannot be sent yet, or null when it can. */
  mappingProblem(mapping: ColumnMapping<Role>): string | null;
  /** The result of an import without refused rows ('all N records imported'). */
  allImportedMessage(successCount: number): string;
  /**
   * The import has a live channel reporting its progress (the `watch` actor); polling stays as
   * the fallback. Without one the import is only polled.
   */
  live: boolean;
}

/** What the upload answers: the file's first rows. */
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

/** The finalize call: the mapping and the skip-headers choice. */
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
 * The import's state as its GET (or the finalize answer) tells it: 'done' once committed,
 * 'failed' when it failed, otherwise still running ('in_progress', 'finalizing').
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

/** A status change the live channel reports: the state without the refused rows (those come with the GET). */
export type ImportUpdate = Omit<ImportStatus, 'failures'>;

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
 * - `mapping`: the mapping breaks the import's rule (checked before finalizing);
 * - `finalize`: the server refused the mapping, or the call failed;
 * - `import`: the import failed on the server;
 * - `statusUnknown`: polling reached its limit without an answer.
 */
export type MappingWizardFailureKind = 'file' | 'upload' | 'mapping' | 'finalize' | 'import' | 'statusUnknown';

export interface MappingWizardFailure {
  kind: MappingWizardFailureKind;
  /** Lines to show, in order. */
  messages: string[];
}

export interface MappingWizardContext {
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
  /**
   * The live channel is subscribed (its subscription confirmed): status changes arrive as they
   * happen, and the status is polled only now and then, as a safety net. Always false without one.
   */
  live: boolean;
  result: ImportResult | null;
  failure: MappingWizardFailure | null;
}

export interface MappingWizardInput {
  /** Defaults to CSV_IMPORT_MAX_POLLS; model tests pass a small limit to reach it. */
  maxPolls?: number;
}

/**
 * What the live channel tells the machine (its `watch` actor sends them): the subscription is
 * confirmed (again, after a reconnect), it is lost (a disconnect, or a rejection), or the import
 * changed.
 */
export type LiveChannelEvent =
  | { type: 'liveChannel.connected' }
  | { type: 'liveChannel.lost' }
  | { type: 'liveChannel.update'; update: ImportUpdate };

/** The events views send. */
export type MappingWizardEvent =
  | { type: 'mappingWizard.fileChosen'; file: File | null }
  | { type: 'mappingWizard.upload' }
  | { type: 'mappingWizard.cancelUpload' }
  | { type: 'mappingWizard.mapColumn'; column: number; role: string | null }
  | { type: 'mappingWizard.skipHeadersChanged'; skipHeaders: boolean }
  | { type: 'mappingWizard.finalize' }
  | { type: 'mappingWizard.reset' };
