import type { FilterItem } from '../../models/reportFilter';

/**
 * The report filter's hold-and-replay (second spec document, section 4): the shapes it needs of
 * the report's sections and of the live updates it holds. They are structural and minimal, so
 * the machine stays generic: src/ hands it its own section and update types (a report section
 * of the API, BusinessReportChannel's `business_report_section` update) and reads them back
 * through the selectors' type parameters.
 */

/** A section of the filtered report (`GET /business_reports/by_secret_filtered` answers them). */
export interface FilterSection {
  id: string;
}

/** A live update of one section, held while a filter is on (the machine never looks inside but for the section's id). */
export interface FilterUpdate {
  section: { id: string };
}

export interface ReportFilterInput {
  /** The report's secret (the filtered call reads the report by it). */
  secret: string;
  /** The currency the report shows (by_secret_filtered's `currency`); the server's default when left out. */
  currency?: string;
}

/** A toast the machine asks for: the filter could not be applied (danger, 10 s). */
export interface ReportFilterNotice {
  kind: 'error';
  message: string;
}

/** The filter that was on before the one being applied (a failed apply goes back to it). */
export interface AppliedFilter<S extends FilterSection = FilterSection> {
  item: FilterItem;
  sections: S[];
}

export interface ReportFilterContext<S extends FilterSection = FilterSection, U extends FilterUpdate = FilterUpdate> {
  secret: string;
  currency: string | null;
  /** The filter being applied or on; null when unfiltered. */
  item: FilterItem | null;
  /** The filtered copies of the sections while filtered (the originals stay with the page). */
  filteredSections: S[] | null;
  /** While applying: the filter that was on before (null when there was none). */
  previous: AppliedFilter<S> | null;
  /** Live updates that arrived while applying or filtered, in arrival order. */
  held: U[];
  /** Why the last apply failed, until the next apply or clear. */
  lastError: string | null;
}

/** Events from the report page (the parent machine, or a view). */
export type ReportFilterEvent =
  /** A filter item picked in the filter picker: the filtered sections are fetched. */
  | { type: 'filter.apply'; item: FilterItem; currency?: string }
  /** 'Clear filter', or a rule that clears the filter (a recalculation starts, quarters display turned off, Add chart). */
  | { type: 'filter.clear' }
  /** A live update of a section: passed on at once while unfiltered, else held until the filter is cleared. */
  | { type: 'filter.update'; update: FilterUpdate };

export type ReportFilterEventType = ReportFilterEvent['type'];

/** What the machine sends its parent: an update to apply now (passed through, or replayed when the filter is cleared). */
export interface FilterReleasedEvent<U extends FilterUpdate = FilterUpdate> {
  type: 'filter.released';
  update: U;
}
