import type { FilterItem, ReportViewFilter } from '../../models/reportFilter';
import type { FreshnessStatus, RecalculationStatus } from '../recalculation/types';

/**
 * The report page's workflow: the report it shows (its original sections), the live updates,
 * the recalculation and the filter it runs as children, the filter picker, edit mode, demo
 * edits and the settings it saves. The shapes are structural and minimal (what the chart
 * reads), so src/ hands in its own report type and reads it back through the selectors' type
 * parameters.
 */

/** A section as the page needs it. */
export interface PageSection {
  id: string;
  recalculation_status: RecalculationStatus;
  /** When its numbers were computed (ISO 8601, UTC): an update older than what the page shows is not applied. */
  computed_at?: string | null;
}

/** The report's settings as the page needs them (the rest are the caller's). */
export interface PageSettings {
  display_quarters: boolean;
}

/** A report as the page needs it (GET /business_reports/by_secret answers more). */
export interface PageReport<S extends PageSection = PageSection> {
  id: string;
  secret: string;
  currency: string;
  can_edit: boolean;
  title: string;
  summary: string;
  recalculation_status: RecalculationStatus;
  freshness_status: FreshnessStatus;
  refreshed_at: string | null;
  settings: PageSettings;
  sections: S[];
  /** The report view's stored filter (PUT /business_reports/{id} body `filter`); null or absent when none. */
  filter?: ReportViewFilter | null;
}

/** BusinessReportChannel's `business_report` update. */
export interface ReportStatusUpdate {
  object: 'business_report';
  recalculation_status: RecalculationStatus;
  freshness_status: FreshnessStatus;
  refreshed_at: string | null;
}

/** BusinessReportChannel's `business_report_section` update: the whole section, or (`partial`) only its status. */
export type SectionUpdate<S extends PageSection = PageSection> =
  | { object: 'business_report_section'; section: S; partial?: false }
  | { object: 'business_report_section'; section: PageSection; partial: true };

export type PageUpdate<S extends PageSection = PageSection> = ReportStatusUpdate | SectionUpdate<S>;

/** An edit of the report's own fields that needs no recalculation (title and summary in place, tags). */
export interface ReportEdit {
  title?: string;
  summary?: string;
  tags?: string[];
}

/** A settings change (PUT /business_reports/{id}/settings) and the toast of its failure. */
export interface SettingsChange {
  change: Partial<PageSettings> & { currency?: string; subtract_finite_discount_from_mrr?: boolean; subtract_forever_discount_from_mrr?: boolean; [setting: string]: unknown };
  /** The toast when it could not be saved. */
  failure: string;
}

export interface ReportPageInput<S extends PageSection = PageSection> {
  report: PageReport<S>;
  /** The public demo: title and summary edits stay in this browser (`storeDemoEdit`). */
  demo?: boolean;
  /** A shared report (its share link): the filter picker never opens. */
  shared?: boolean;
}

/** A toast the page asks for: the filter warning (4 s) or a failure (danger, 10 s). */
export interface ReportPageNotice {
  kind: 'filterWarning' | 'error';
  message: string;
}

export interface ReportPageContext<S extends PageSection = PageSection> {
  /** The report with its original sections (a filter's copies live in the filter child). */
  report: PageReport<S>;
  demo: boolean;
  shared: boolean;
  /** The recalculation child refreshes or recalculates (mirrored from its snapshots). */
  recalculating: boolean;
  /** Sections whose edit is under way (edit mode while any). */
  editing: string[];
  /** Settings changes to save, in order; the first is being saved. */
  settingsQueue: SettingsChange[];
}

/** Events from the view, the live channel and the children. */
export type ReportPageEvent =
  /** A BusinessReportChannel update of this report. */
  | { type: 'live.update'; update: PageUpdate }
  /** The report as read again (after a recalculation, a reconnection, a section's settings). */
  | { type: 'report.reloaded'; report: PageReport }
  /** The report as the page changed it locally (a section moved, retitled or deleted). */
  | { type: 'report.changed'; report: PageReport }
  /** Title, summary or tags saved (in the demo: kept in this browser). */
  | { type: 'report.edited'; change: ReportEdit }
  /** 'Recalculate', or the stale callout's 'Refresh'. */
  | { type: 'report.refresh' }
  /** A new range was saved: the server recalculates. */
  | { type: 'report.periodSaved'; period: unknown }
  /** A section change that alters numbers was saved, or charts were added: the server recalculates. */
  | { type: 'report.recalculationStarted' }
  /** The report view's filter was saved (the drawer): the server recalculates. */
  | { type: 'report.viewSaved'; filter: ReportViewFilter | null }
  /** 'Add chart' was pressed. */
  | { type: 'chart.add' }
  /** A settings switch or the currency switcher. */
  | { type: 'settings.change'; change: SettingsChange['change']; failure: string }
  /** A section's edit started or ended (edit mode). */
  | { type: 'edit.started'; sectionId: string }
  | { type: 'edit.ended'; sectionId: string }
  /** The Filter button or Shift+F. */
  | { type: 'filter.request' }
  /** The picker was closed without a choice. */
  | { type: 'picker.close' }
  /** An item picked in the picker. */
  | { type: 'filter.apply'; item: FilterItem }
  /** 'Clear filter'. */
  | { type: 'filter.clear' }
  /** The filter child passes on (or replays) a section update: apply it to the report now. */
  | { type: 'filter.released'; update: SectionUpdate };

export type ReportPageEventType = ReportPageEvent['type'];
