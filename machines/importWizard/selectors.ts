import type { SubscriptionCsvField } from '../../models/constants';
import type { ImportWizardSnapshot } from './importWizardMachine';
import { fieldOfColumn, missingRequiredFields } from './mapping';
import { allRecordsImportedMessage, STATUS_CHECK_FAILURE_MESSAGE } from './messages';
import type { ColumnMapping, ImportFailureRow, ImportPreview, ImportWizardFailureKind } from './types';

/**
 * The page's steps: Upload (also while uploading), Map columns (also while the mapping is sent,
 * so a refusal shows beside it), Import (the import runs); `done` once it is finalized.
 */
export type ImportWizardStep = 'upload' | 'map' | 'import' | 'done';

export function selectStep(snapshot: ImportWizardSnapshot): ImportWizardStep {
  if (snapshot.matches('preview') || snapshot.matches({ finalizing: 'submitting' })) return 'map';
  if (snapshot.matches('finalizing')) return 'import';
  if (snapshot.matches('finalized')) return 'done';
  return 'upload';
}

/** The chosen file (kept after a failed upload). */
export function selectFile(snapshot: ImportWizardSnapshot): File | null {
  return snapshot.context.file;
}

export function selectIsUploading(snapshot: ImportWizardSnapshot): boolean {
  return snapshot.matches('uploading');
}

/** The mapping is being sent (its button shows a loader). */
export function selectIsSubmittingMapping(snapshot: ImportWizardSnapshot): boolean {
  return snapshot.matches({ finalizing: 'submitting' });
}

export function selectPreview(snapshot: ImportWizardSnapshot): ImportPreview | null {
  return snapshot.context.preview;
}

export function selectMapping(snapshot: ImportWizardSnapshot): ColumnMapping {
  return snapshot.context.mapping;
}

/** The field a column of the preview is mapped to, or null ('Not mapped'). */
export function selectColumnField(snapshot: ImportWizardSnapshot, column: number): SubscriptionCsvField | null {
  return fieldOfColumn(snapshot.context.mapping, column);
}

export function selectMissingRequiredFields(snapshot: ImportWizardSnapshot): SubscriptionCsvField[] {
  return missingRequiredFields(snapshot.context.mapping);
}

export function selectSkipHeaders(snapshot: ImportWizardSnapshot): boolean {
  return snapshot.context.skipHeaders;
}

/** Rows the import will read: the file's rows, less the header when it is skipped. */
export function selectRowsToImport(snapshot: ImportWizardSnapshot): number {
  const total = snapshot.context.preview?.totalRows ?? 0;
  return Math.max(0, snapshot.context.skipHeaders ? total - 1 : total);
}

/** Percent of the import done, while finalizing (100 once it is done). */
export function selectProgress(snapshot: ImportWizardSnapshot): number {
  return Math.max(0, Math.min(100, snapshot.context.progress));
}

/** The message of a failed status check while polling goes on, or null. */
export function selectStatusCheckMessage(snapshot: ImportWizardSnapshot): string | null {
  return snapshot.matches('finalizing') && snapshot.context.statusCheckFailed ? STATUS_CHECK_FAILURE_MESSAGE : null;
}

/** The lines of the current failure of the given kinds ([] when there is none). */
export function selectFailureMessages(snapshot: ImportWizardSnapshot, kinds: readonly ImportWizardFailureKind[]): string[] {
  const failure = snapshot.context.failure;
  return failure && kinds.includes(failure.kind) ? failure.messages : [];
}

/** What the last step shows: every row imported, the refused rows, or the failure. */
export type ImportOutcome = 'succeeded' | 'withErrors' | 'failed';

export function selectOutcome(snapshot: ImportWizardSnapshot): ImportOutcome | null {
  if (snapshot.matches({ finalized: 'succeeded' })) return 'succeeded';
  if (snapshot.matches({ finalized: 'withErrors' })) return 'withErrors';
  if (snapshot.matches({ finalized: 'failed' })) return 'failed';
  return null;
}

/** 'all N records imported' once every row is imported, else null. */
export function selectSuccessMessage(snapshot: ImportWizardSnapshot): string | null {
  const result = snapshot.context.result;
  return snapshot.matches({ finalized: 'succeeded' }) && result ? allRecordsImportedMessage(result.successCount) : null;
}

export interface ImportCounts {
  successCount: number;
  failureCount: number;
}

export function selectCounts(snapshot: ImportWizardSnapshot): ImportCounts | null {
  const result = snapshot.context.result;
  return result ? { successCount: result.successCount, failureCount: result.failureCount } : null;
}

/** The refused rows of a finished import (the server lists the first 1,000). */
export function selectFailureRows(snapshot: ImportWizardSnapshot): ImportFailureRow[] {
  return snapshot.context.result?.failures ?? [];
}

/** The server's import id, once uploaded (the inspector shows its audit log). */
export function selectImportId(snapshot: ImportWizardSnapshot): string | null {
  return snapshot.context.importId;
}
