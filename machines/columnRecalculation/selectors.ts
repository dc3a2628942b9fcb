import type { ColumnRecalculationSnapshot } from './columnRecalculationMachine';
import { COLUMN_SAVE_FAILURE_MESSAGE } from './messages';

/** What the table and the column drawers read of a column's machine. */

/** Its values are being computed: 'Calculating:' with a spinner, no edit or delete. */
export function isCalculating(snapshot: ColumnRecalculationSnapshot): boolean {
  return snapshot.matches('calculating');
}

/** The drawer's save is in flight. */
export function isSaving(snapshot: ColumnRecalculationSnapshot): boolean {
  return snapshot.matches('saving');
}

/** Edit and delete are offered (only once the values are in). */
export function canEditColumn(snapshot: ColumnRecalculationSnapshot): boolean {
  return snapshot.matches('finished');
}

export function isConfirmingDelete(snapshot: ColumnRecalculationSnapshot): boolean {
  return snapshot.matches('confirmingDelete');
}

export function isDeleting(snapshot: ColumnRecalculationSnapshot): boolean {
  return snapshot.matches('deleting');
}

/** The messages the drawer lists after a failed save: the server's (400/422) or the generic one. */
export function saveFailureMessages(snapshot: ColumnRecalculationSnapshot): string[] {
  if (!snapshot.matches('saveFailed')) return [];
  const failure = snapshot.context.failure;
  return failure?.kind === 'invalid' && failure.messages.length > 0 ? failure.messages : [COLUMN_SAVE_FAILURE_MESSAGE];
}
