import { STATUS_CHECK_FAILURE_MESSAGE } from './messages';
import { roleOfColumn, unmappedRequiredRoles } from './mapping';
import type { MappingWizardSnapshot } from './mappingWizardMachine';
import type { ColumnMapping, FieldRolesConfig, ImportFailureRow, ImportPreview, MappingWizardFailureKind } from './types';

/**
 * The page's steps: Upload (also while uploading), Map columns (also while the mapping is sent,
 * so a refusal shows beside it), Import (the import runs); `done` once it is finalized.
 */
export type MappingWizardStep = 'upload' | 'map' | 'import' | 'done';

export function selectStep(snapshot: MappingWizardSnapshot): MappingWizardStep {
  if (snapshot.matches('preview') || snapshot.matches({ finalizing: 'submitting' })) return 'map';
  if (snapshot.matches('finalizing')) return 'import';
  if (snapshot.matches('finalized')) return 'done';
  return 'upload';
}

/** The chosen file (kept after a failed upload). */
export function selectFile(snapshot: MappingWizardSnapshot): File | null {
  return snapshot.context.file;
}

export function selectIsUploading(snapshot: MappingWizardSnapshot): boolean {
  return snapshot.matches('uploading');
}

/** The mapping is being sent (its button shows a loader). */
export function selectIsSubmittingMapping(snapshot: MappingWizardSnapshot): boolean {
  return snapshot.matches({ finalizing: 'submitting' });
}

export function selectPreview(snapshot: MappingWizardSnapshot): ImportPreview | null {
  return snapshot.context.preview;
}

export function selectMapping(snapshot: MappingWizardSnapshot): ColumnMapping {
  return snapshot.context.mapping;
}

/** The role a column of the preview plays, or null ('Not mapped'). */
export function selectColumnRole(snapshot: MappingWizardSnapshot, config: FieldRolesConfig, column: number): string | null {
  return roleOfColumn(config, snapshot.context.mapping, column);
}

/** The required roles no column plays yet, in the config's order. */
export function selectUnmappedRequiredRoles(snapshot: MappingWizardSnapshot, config: FieldRolesConfig): string[] {
  return unmappedRequiredRoles(config, snapshot.context.mapping);
}

export function selectSkipHeaders(snapshot: MappingWizardSnapshot): boolean {
  return snapshot.context.skipHeaders;
}

/** Rows the import will read: the file's rows, less the header when it is skipped. */
export function selectRowsToImport(snapshot: MappingWizardSnapshot): number {
  const total = snapshot.context.preview?.totalRows ?? 0;
  return Math.max(0, snapshot.context.skipHeaders ? total - 1 : total);
}

/** Percent of the import done, while finalizing (100 once it is done). */
export function selectProgress(snapshot: MappingWizardSnapshot): number {
  return Math.max(0, Math.min(100, snapshot.context.progress));
}

/** The import's live channel reports while it runs (else it is polled on the schedule). */
export function selectIsLive(snapshot: MappingWizardSnapshot): boolean {
  return snapshot.matches('finalizing') && snapshot.context.live;
}

/** The message of a failed status check while polling goes on, or null. */
export function selectStatusCheckMessage(snapshot: MappingWizardSnapshot): string | null {
  return snapshot.matches('finalizing') && snapshot.context.statusCheckFailed ? STATUS_CHECK_FAILURE_MESSAGE : null;
}

/** The lines of the current failure of the given kinds ([] when there is none). */
export function selectFailureMessages(snapshot: MappingWizardSnapshot, kinds: readonly MappingWizardFailureKind[]): string[] {
  const failure = snapshot.context.failure;
  return failure && kinds.includes(failure.kind) ? failure.messages : [];
}

/** What the last step shows: every row imported, the refused rows, or the failure. */
export type ImportOutcome = 'succeeded' | 'withErrors' | 'failed';

export function selectOutcome(snapshot: MappingWizardSnapshot): ImportOutcome | null {
  if (snapshot.matches({ finalized: 'succeeded' })) return 'succeeded';
  if (snapshot.matches({ finalized: 'withErrors' })) return 'withErrors';
  if (snapshot.matches({ finalized: 'failed' })) return 'failed';
  return null;
}

/** The config's 'all N … imported' once every row is imported, else null. */
export function selectSuccessMessage(snapshot: MappingWizardSnapshot, config: FieldRolesConfig): string | null {
  const result = snapshot.context.result;
  return snapshot.matches({ finalized: 'succeeded' }) && result ? config.allImportedMessage(result.successCount) : null;
}

export interface ImportCounts {
  successCount: number;
  failureCount: number;
}

export function selectCounts(snapshot: MappingWizardSnapshot): ImportCounts | null {
  const result = snapshot.context.result;
  return result ? { successCount: result.successCount, failureCount: result.failureCount } : null;
}

/** The refused rows of a finished import (the server lists the first 1,000). */
export function selectFailureRows(snapshot: MappingWizardSnapshot): ImportFailureRow[] {
  return snapshot.context.result?.failures ?? [];
}

/** The server's import id, once uploaded (the inspector shows its audit log). */
export function selectImportId(snapshot: MappingWizardSnapshot): string | null {
  return snapshot.context.importId;
}
