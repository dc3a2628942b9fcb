import type { RecalculationSnapshot } from './recalculationMachine';

/**
 * What the report page reads of the recalculation: the callouts of the action bar, the
 * controls it disables and the spinner on each section.
 */

/** A refresh was asked for or the server recalculates the report. */
export function isRecalculating(snapshot: RecalculationSnapshot): boolean {
  return snapshot.matches('refreshing') || snapshot.matches('recalculating');
}

/** Recalculate, Create/Edit view, the currency switcher, the range picker and the filter are disabled. */
export function controlsDisabled(snapshot: RecalculationSnapshot): boolean {
  return isRecalculating(snapshot);
}

/** The warning callout of a report being recalculated. */
export function showsRecalculatingWarning(snapshot: RecalculationSnapshot): boolean {
  return snapshot.matches('recalculating');
}

/** The data-may-be-outdated callout: the report's freshness is 'stale' and nothing recalculates it. */
export function showsStaleCallout(snapshot: RecalculationSnapshot): boolean {
  return !isRecalculating(snapshot) && snapshot.context.freshnessStatus === 'stale';
}

/** The stale callout's Refresh button: for editors. */
export function showsRefreshButton(snapshot: RecalculationSnapshot): boolean {
  return showsStaleCallout(snapshot) && snapshot.context.canEdit;
}

/** The section shows a spinner: it is being recalculated and its update has not arrived. */
export function sectionPending(snapshot: RecalculationSnapshot, sectionId: string): boolean {
  return snapshot.context.pendingSections.includes(sectionId);
}

/** Why the last refresh failed (the toast's message), until the next refresh or recalculation starts. */
export function lastError(snapshot: RecalculationSnapshot): string | null {
  return snapshot.context.lastError;
}

/** Recalculate (and the stale callout's Refresh) does something now: an editor, nothing running. */
export function canRefresh(snapshot: RecalculationSnapshot): boolean {
  return snapshot.can({ type: 'recalculation.refresh' });
}
