import type { FilterItem } from '../../models/reportFilter';
import type { ReportFilterSnapshot } from './reportFilterMachine';
import type { FilterSection } from './types';

/**
 * What the report page reads of its filter. The section type is the caller's (the machine
 * keeps the sections the page's call answered, whatever their shape).
 */

/** The filtered sections are being fetched. */
export function isApplying(snapshot: ReportFilterSnapshot): boolean {
  return snapshot.matches('applying');
}

/** A filter is on: the page shows the filtered sections. */
export function isFiltered(snapshot: ReportFilterSnapshot): boolean {
  return snapshot.matches('filtered');
}

/** The filter being applied or on (null when unfiltered). */
export function activeItem(snapshot: ReportFilterSnapshot): FilterItem | null {
  return snapshot.context.item;
}

/**
 * The sections to show in place of the report's own: the filtered copies while a filter is on
 * (and while another one is applied over it); null means the report's own sections.
 */
export function filteredSections<S extends FilterSection>(snapshot: ReportFilterSnapshot): S[] | null {
  return snapshot.matches('unfiltered') ? null : (snapshot.context.filteredSections as S[] | null);
}

/** How many live updates wait for the filter to be cleared. */
export function heldCount(snapshot: ReportFilterSnapshot): number {
  return snapshot.context.held.length;
}

/** Why the last apply failed, until the next apply or clear. */
export function lastError(snapshot: ReportFilterSnapshot): string | null {
  return snapshot.context.lastError;
}
