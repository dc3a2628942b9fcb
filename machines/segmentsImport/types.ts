/**
 * The roles a column of an attribute values file can play: the customer's ID (the customer
 * public id) or the value of the custom attribute being imported.
 */
export type SegmentsColumnRole = 'customerId' | 'value';

/**
 * The column of each role, or null when no column plays it. A column plays at most one role,
 * and each role is played by one column at most (the spec: only one value column at a time).
 */
export type SegmentsColumnMapping = Record<SegmentsColumnRole, number | null>;

/** What POST /segments_importer/draft answers: the file's first rows. */
export interface SegmentsImportPreview {
  importId: string;
  /** Rows of the whole file. */
  totalRows: number;
  /** The first rows, cells as read. */
  rows: string[][];
  /** Cells of the widest row: the columns the mapping can use. */
  columns: number;
  delimiter: string;
  encoding: string;
}

/** POST /segments_importer/finalize: the two columns, the skip-headers choice and the attribute. */
export interface SegmentsFinalizeRequest {
  importId: string;
  /** The custom attribute (customer segment) whose values are imported. */
  segmentId: string;
  customerColumn: number;
  valueColumn: number;
  skipHeaders: boolean;
}

/** A row the import refused. */
export interface SegmentsImportFailureRow {
  rowNumber: number;
  row: string;
  message: string;
}

/**
 * The import's state as GET /segments_importer/{id} (or the finalize answer) tells it:
 * 'done' once committed, 'failed' when it failed, otherwise still running ('in_progress',
 * 'finalizing').
 */
export interface SegmentsImportStatus {
  status: string;
  /** Percent. */
  progress: number;
  successCount: number;
  failureCount: number;
  failures: SegmentsImportFailureRow[];
  /** Why a failed import failed. */
  error: string | null;
}

/**
 * A status change the import's live channel (SegmentsImportChannel) reports: its state without
 * the refused rows (those come with GET /segments_importer/{id}).
 */
export interface SegmentsImportUpdate {
  status: string;
  /** Percent. */
  progress: number;
  successCount: number;
  failureCount: number;
  error: string | null;
}

/** The counts and refused rows of a committed import. */
export interface SegmentsImportResult {
  successCount: number;
  failureCount: number;
  failures: SegmentsImportFailureRow[];
}

/**
 * What went wrong, and where:
 * - `file`: no file or not a .csv (checked before uploading);
 * - `upload`: the upload was refused (too large, row too long, empty) or failed;
 * - `mapping`: no Customer ID column, or no value column (checked before finalizing);
 * - `finalize`: the server refused the mapping (or the attribute is unknown), or the call failed;
 * - `import`: the import failed on the server;
 * - `statusUnknown`: polling reached its limit without an answer.
 */
export type SegmentsImportFailureKind = 'file' | 'upload' | 'mapping' | 'finalize' | 'import' | 'statusUnknown';

export interface SegmentsImportFailure {
  kind: SegmentsImportFailureKind;
  /** Lines to show, in order. */
  messages: string[];
}

export interface SegmentsImportContext {
  /** The custom attribute (customer segment) the values go to. */
  segmentId: string;
  /** Status polls before giving up (CSV_IMPORT_MAX_POLLS unless the input says otherwise). */
  maxPolls: number;
  /** The file chosen to upload; kept when the upload fails, so it can be tried again. */
  file: File | null;
  /** The server's import, once the upload is accepted. */
  importId: string | null;
  preview: SegmentsImportPreview | null;
  mapping: SegmentsColumnMapping;
  skipHeaders: boolean;
  /** Status polls made since the mapping was finalized. */
  polls: number;
  /** Percent of the import done, as last reported. */
  progress: number;
  /** The last status check failed (polling goes on). */
  statusCheckFailed: boolean;
  /**
   * The live channel is subscribed (its subscription confirmed): status changes arrive as they
   * happen, and the status is polled only now and then, as a safety net.
   */
  live: boolean;
  result: SegmentsImportResult | null;
  failure: SegmentsImportFailure | null;
}

export interface SegmentsImportInput {
  /** The custom attribute to import values of (the page takes it from `?segment=`). */
  segmentId: string;
  /** Defaults to CSV_IMPORT_MAX_POLLS; model tests pass a small limit to reach it. */
  maxPolls?: number;
}

/**
 * What the import's live channel tells the machine (its `watch` actor sends them): the
 * subscription is confirmed (again, after a reconnect), it is lost (a disconnect, or a
 * rejection), or the import changed.
 */
export type SegmentsImportChannelEvent =
  | { type: 'segmentsImportChannel.connected' }
  | { type: 'segmentsImportChannel.lost' }
  | { type: 'segmentsImportChannel.update'; update: SegmentsImportUpdate };

/** The events views send. */
export type SegmentsImportEvent =
  | { type: 'segmentsImport.fileChosen'; file: File | null }
  | { type: 'segmentsImport.upload' }
  | { type: 'segmentsImport.cancelUpload' }
  | { type: 'segmentsImport.mapColumn'; column: number; role: SegmentsColumnRole | null }
  | { type: 'segmentsImport.skipHeadersChanged'; skipHeaders: boolean }
  | { type: 'segmentsImport.finalize' }
  | { type: 'segmentsImport.reset' };
