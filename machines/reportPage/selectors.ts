import type { RecalculationActorRef } from '../recalculation/recalculationMachine';
import type { ReportFilterActorRef } from '../reportFilter/reportFilterMachine';
import type { ReportPageSnapshot } from './reportPageMachine';
import type { PageReport } from './types';

/**
 * What the report page reads of its machine. The report type is the caller's (the machine keeps
 * the report the page handed it). The children's own selectors (machines/recalculation,
 * machines/reportFilter) read their snapshots: `recalculationOf` and `filterOf` give them.
 */

/** The report with its original sections (a filter's copies are the filter child's). */
export function pageReport<R extends PageReport>(snapshot: ReportPageSnapshot): R {
  return snapshot.context.report as R;
}

/** The recalculation child (it runs as long as the page). */
export function recalculationOf(snapshot: ReportPageSnapshot): RecalculationActorRef | undefined {
  return snapshot.children.recalculation as RecalculationActorRef | undefined;
}

/** The filter child (it runs as long as the page). */
export function filterOf(snapshot: ReportPageSnapshot): ReportFilterActorRef | undefined {
  return snapshot.children.reportFilter as ReportFilterActorRef | undefined;
}

/** The filter picker is open. */
export function pickerOpen(snapshot: ReportPageSnapshot): boolean {
  return snapshot.matches({ picker: 'open' });
}

/** The page offers a filter at all (never on a shared report). */
export function filterAvailable(snapshot: ReportPageSnapshot): boolean {
  return !snapshot.context.shared;
}

/** Filtering is refused with the warning now: a recalculation runs or a section is edited (the Filter button shows it). */
export function filterBlocked(snapshot: ReportPageSnapshot): boolean {
  return filterAvailable(snapshot) && (snapshot.context.recalculating || snapshot.context.editing.length > 0);
}

/** Edit mode: a section's edit is under way. */
export function isEditing(snapshot: ReportPageSnapshot): boolean {
  return snapshot.matches({ edit: 'editing' });
}

/** A settings change is being saved (or waits its turn). */
export function savingSettings(snapshot: ReportPageSnapshot): boolean {
  return snapshot.matches({ settings: 'saving' }) || snapshot.context.settingsQueue.length > 0;
}

/** The filter warning is on screen (another request shows no second one). */
export function showsFilterWarning(snapshot: ReportPageSnapshot): boolean {
  return snapshot.matches({ warning: 'shown' });
}
