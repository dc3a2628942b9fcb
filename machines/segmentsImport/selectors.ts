import { roleOfColumn, SEGMENTS_COLUMN_ROLES } from './mapping';
import { allValuesImportedMessage, STATUS_CHECK_FAILURE_MESSAGE } from './messages';
import type { SegmentsImportSnapshot } from './segmentsImportMachine';
import type {
  SegmentsColumnMapping,
  SegmentsColumnRole,
  SegmentsImportFailureKind,
  SegmentsImportFailureRow,
  SegmentsImportPreview,
} from './types';

/**
 * The page's steps: Upload (also while uploading), Map columns (also while the mapping is sent,
 * so a refusal shows beside it), Import (the import runs); `done` once it is finalized.
 */
export type SegmentsImportStep = 'upload' | 'map' | 'import' | 'done';

export function selectStep(snapshot: SegmentsImportSnapshot): SegmentsImportStep {
  if (snapshot.matches('preview') || snapshot.matches({ finalizing: 'submitting' })) return 'map';
  if (snapshot.matches('finalizing')) return 'import';
  if (snapshot.matches('finalized')) return 'done';
  return 'upload';
}

/** The custom attribute (customer segment) the values go to. */
export function selectSegmentId(snapshot: SegmentsImportSnapshot): string {
  return snapshot.context.segmentId;
}

/** The chosen file (kept after a failed upload). */
export function selectFile(snapshot: SegmentsImportSnapshot): File | null {
  return snapshot.context.file;
}

export function selectIsUploading(snapshot: SegmentsImportSnapshot): boolean {
  return snapshot.matches('uploading');
}

/** The mapping is being sent (its button shows a loader). */
export function selectIsSubmittingMapping(snapshot: SegmentsImportSnapshot): boolean {
  return snapshot.matches({ finalizing: 'submitting' });
}

export function selectPreview(snapshot: SegmentsImportSnapshot): SegmentsImportPreview | null {
  return snapshot.context.preview;
}

export function selectMapping(snapshot: SegmentsImportSnapshot): SegmentsColumnMapping {
  return snapshot.context.mapping;
}

/** The role a column of the preview plays, or null ('Not mapped'). */
export function selectColumnRole(snapshot: SegmentsImportSnapshot, column: number): SegmentsColumnRole | null {
  return roleOfColumn(snapshot.context.mapping, column);
}

/** The roles no column plays yet (Customer ID first). */
export function selectUnmappedRoles(snapshot: SegmentsImportSnapshot): SegmentsColumnRole[] {
  const { mapping } = snapshot.context;
  return SEGMENTS_COLUMN_ROLES.filter((role) => mapping[role] === null);
}

export function selectSkipHeaders(snapshot: SegmentsImportSnapshot): boolean {
  return snapshot.context.skipHeaders;
}

/** Rows the import will read: the file's rows, less the header when it is skipped. */
export function selectRowsToImport(snapshot: SegmentsImportSnapshot): number {
  const total = snapshot.context.preview?.totalRows ?? 0;
  return Math.max(0, snapshot.context.skipHeaders ? total - 1 : total);
}

/** Percent of the import done, while finalizing (100 once it is done). */
export function selectProgress(snapshot: SegmentsImportSnapshot): number {
  return Math.max(0, Math.min(100, snapshot.context.progress));
}

/** The import's live channel reports while it runs (else it is polled on the schedule). */
export function selectIsLive(snapshot: SegmentsImportSnapshot): boolean {
  return snapshot.matches('finalizing') && snapshot.context.live;
}

/** The message of a failed status check while polling goes on, or null. */
export function selectStatusCheckMessage(snapshot: SegmentsImportSnapshot): string | null {
  return snapshot.matches('finalizing') && snapshot.context.statusCheckFailed ? STATUS_CHECK_FAILURE_MESSAGE : null;
}

/** The lines of the current failure of the given kinds ([] when there is none). */
export function selectFailureMessages(snapshot: SegmentsImportSnapshot, kinds: readonly SegmentsImportFailureKind[]): string[] {
  const failure = snapshot.context.failure;
  return failure && kinds.includes(failure.kind) ? failure.messages : [];
}

/** What the last step shows: every value imported, the refused rows, or the failure. */
export type SegmentsImportOutcome = 'succeeded' | 'withErrors' | 'failed';

export function selectOutcome(snapshot: SegmentsImportSnapshot): SegmentsImportOutcome | null {
  if (snapshot.matches({ finalized: 'succeeded' })) return 'succeeded';
  if (snapshot.matches({ finalized: 'withErrors' })) return 'withErrors';
  if (snapshot.matches({ finalized: 'failed' })) return 'failed';
  return null;
}

/** 'all N values imported' once every row is imported, else null. */
export function selectSuccessMessage(snapshot: SegmentsImportSnapshot): string | null {
  const result = snapshot.context.result;
  return snapshot.matches({ finalized: 'succeeded' }) && result ? allValuesImportedMessage(result.successCount) : null;
}

export interface SegmentsImportCounts {
  successCount: number;
  failureCount: number;
}

export function selectCounts(snapshot: SegmentsImportSnapshot): SegmentsImportCounts | null {
  const result = snapshot.context.result;
  return result ? { successCount: result.successCount, failureCount: result.failureCount } : null;
}

/** The refused rows of a finished import (the server may list only the first ones). */
export function selectFailureRows(snapshot: SegmentsImportSnapshot): SegmentsImportFailureRow[] {
  return snapshot.context.result?.failures ?? [];
}

/** The server's import id, once uploaded (the inspector shows it). */
export function selectImportId(snapshot: SegmentsImportSnapshot): string | null {
  return snapshot.context.importId;
}
