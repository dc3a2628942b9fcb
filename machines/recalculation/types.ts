/**
 * The report page's recalculation: the report's and its sections' statuses as the server
 * tells them (the business_report and business_report_section objects), and the machine's
 * input, context and events.
 */

/** A report's or a section's `recalculation_status`. */
export type RecalculationStatus = 'recalculated' | 'recalculating' | 'failed';

/** A report's `freshness_status`: 'stale' once its data changed after the last recalculation. */
export type FreshnessStatus = 'fresh' | 'stale';

/** The report as the page loaded it. */
export interface RecalculationInput {
  reportId: string;
  /** GET /business_reports/{id}/can_edit: only editors refresh the report. */
  canEdit: boolean;
  recalculationStatus: RecalculationStatus;
  freshnessStatus: FreshnessStatus;
  /** The report's sections: each shows a spinner while a recalculation is under way, until its update arrives. */
  sectionIds: string[];
}

/** A toast the machine asks for: the refresh failure (danger, 10 s). */
export interface RecalculationNotice {
  kind: 'error';
  message: string;
}

export interface RecalculationContext {
  reportId: string;
  canEdit: boolean;
  sectionIds: string[];
  /** The report's status as last told (by the input, the live channel or a reload). */
  recalculationStatus: RecalculationStatus;
  freshnessStatus: FreshnessStatus;
  /** Sections recalculating whose update has not arrived yet (a spinner each). */
  pendingSections: string[];
  /** Why the last refresh failed, until the next refresh or recalculation starts. */
  lastError: string | null;
}

/** Events from the report page. */
export type RecalculationEvent =
  /** 'Recalculate' in the action bar, or the stale callout's 'Refresh' (editors only). */
  | { type: 'recalculation.refresh' }
  /** A business_report object from the live channel or a reload. */
  | { type: 'recalculation.reportUpdated'; recalculationStatus: RecalculationStatus; freshnessStatus: FreshnessStatus }
  /** A business_report_section object from the live channel. */
  | { type: 'recalculation.sectionUpdated'; sectionId: string; recalculationStatus: RecalculationStatus }
  /** A range or currency change was saved: the server recalculates the report. */
  | { type: 'recalculation.settingsChanged' }
  /** The account's data changed (an import, an edited payment): a fresh report becomes stale. */
  | { type: 'recalculation.dataChanged' };

export type RecalculationEventType = RecalculationEvent['type'];
