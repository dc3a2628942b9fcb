import type { CsvImportSnapshot } from './csvImportMachine';
import {
  CSV_IMPORT_ERROR_MESSAGE,
  CSV_IMPORT_POLLING_LIMIT_MESSAGE,
  CSV_IMPORT_VALIDATION_FAILURE_TITLE,
  CSV_ONLY_MESSAGE,
} from './messages';
import { isCsvFileName } from '../../models/imports';
import type { CsvImportResult, CsvImportRowFailure } from './types';

/**
 * What the dialog shows:
 * - `checking`: looking for an import started before this page load;
 * - `notStarted`: the file picker;
 * - `uploading`: the file is being sent;
 * - `inProgress`: the import runs on the server (a progress bar);
 * - `completed`: the counts and the failed rows;
 * - `validationFailure`: the upload was refused, with the rows that cannot be imported;
 * - `error`: 'We are sorry, something went wrong';
 * - `pollingLimitReached`: 'Failed to get status of import, please get in touch'.
 */
export type CsvImportPhase =
  | 'checking'
  | 'notStarted'
  | 'uploading'
  | 'inProgress'
  | 'completed'
  | 'validationFailure'
  | 'error'
  | 'pollingLimitReached';

export function selectPhase(snapshot: CsvImportSnapshot): CsvImportPhase {
  if (snapshot.matches('checkingStored')) return 'checking';
  if (snapshot.matches('uploading')) return 'uploading';
  if (snapshot.matches('inProgress')) return 'inProgress';
  if (snapshot.matches('completed')) return 'completed';
  if (snapshot.matches('validationFailure')) return 'validationFailure';
  if (snapshot.matches('error')) return 'error';
  if (snapshot.matches('pollingLimitReached')) return 'pollingLimitReached';
  return 'notStarted';
}

/** An import is being sent or runs on the server. */
export function selectIsRunning(snapshot: CsvImportSnapshot): boolean {
  return snapshot.matches('uploading') || snapshot.matches('inProgress');
}

/** The chosen file (while not started or uploading). */
export function selectFile(snapshot: CsvImportSnapshot): File | null {
  return snapshot.context.file;
}

/** The message under the file input: a chosen file that is not a .csv. */
export function selectFileError(snapshot: CsvImportSnapshot): string | null {
  const { file } = snapshot.context;
  return file && !isCsvFileName(file.name) ? CSV_ONLY_MESSAGE : null;
}

/** 'Import' is enabled: a .csv file is chosen and nothing runs. */
export function selectCanUpload(snapshot: CsvImportSnapshot): boolean {
  return snapshot.can({ type: 'csvImport.upload' });
}

/** Percent done of the running import (from the last poll). */
export function selectProgress(snapshot: CsvImportSnapshot): number {
  return Math.min(100, Math.max(0, Math.round(snapshot.context.progress)));
}

/** The imported file's name, once a poll told it (or the chosen file's while uploading). */
export function selectFileName(snapshot: CsvImportSnapshot): string | null {
  return snapshot.context.fileName ?? snapshot.context.file?.name ?? null;
}

export function selectImportId(snapshot: CsvImportSnapshot): string | null {
  return snapshot.context.importId;
}

/** The result of a completed import. */
export function selectResult(snapshot: CsvImportSnapshot): CsvImportResult | null {
  return snapshot.matches('completed') ? snapshot.context.result : null;
}

/** The rows a refused upload lists (400). */
export function selectValidationFailures(snapshot: CsvImportSnapshot): CsvImportRowFailure[] {
  return snapshot.matches('validationFailure') ? snapshot.context.validationFailures : [];
}

/**
 * The failure the dialog shows: the spec's message, and the server's reasons under it (the
 * 400's summary, 'The file is larger than 200 MB', a failed import's error). Null when nothing failed.
 */
export function selectFailure(snapshot: CsvImportSnapshot): { message: string; details: string[] } | null {
  if (snapshot.matches('validationFailure')) return { message: CSV_IMPORT_VALIDATION_FAILURE_TITLE, details: snapshot.context.errorDetails };
  if (snapshot.matches('error')) return { message: CSV_IMPORT_ERROR_MESSAGE, details: snapshot.context.errorDetails };
  if (snapshot.matches('pollingLimitReached')) return { message: CSV_IMPORT_POLLING_LIMIT_MESSAGE, details: [] };
  return null;
}

/** A short status for the Import CSV card: 'Import in progress (40%)', 'Import completed', 'Import failed'. */
export type CsvImportBadge = { label: string; tone: 'running' | 'done' | 'failed' } | null;

export function selectBadge(snapshot: CsvImportSnapshot): CsvImportBadge {
  const phase = selectPhase(snapshot);
  switch (phase) {
    case 'uploading':
      return { label: 'Uploading', tone: 'running' };
    case 'inProgress':
      return { label: `Import in progress (${selectProgress(snapshot)}%)`, tone: 'running' };
    case 'completed':
      return { label: 'Import completed', tone: 'done' };
    case 'validationFailure':
    case 'error':
    case 'pollingLimitReached':
      return { label: 'Import failed', tone: 'failed' };
    default:
      return null;
  }
}

/** The label of the button that opens the dialog: what the user will find in it. */
export function selectOpenLabel(snapshot: CsvImportSnapshot): string {
  const phase = selectPhase(snapshot);
  if (phase === 'uploading' || phase === 'inProgress') return 'Show progress';
  if (phase === 'completed' || phase === 'validationFailure' || phase === 'error' || phase === 'pollingLimitReached') return 'Show result';
  return 'Upload a file';
}
