/**
 * The details export of a report section (POST /business_report/sections/{id}/export_details,
 * then SectionDetailsExportChannel): the request, the channel's messages, and the machine's
 * context and events.
 */

/** The query of POST /business_report/sections/{id}/export_details. */
export interface SectionExportQuery {
  start_date?: string;
  end_date?: string;
  date?: string;
  segment_id?: string;
  segment_value?: string;
  cohort_date?: string;
  variant?: 'money' | 'sub' | 'units_sold';
  format?: 'csv' | 'xlsx';
}

export interface SectionExportRequest {
  sectionId: string;
  query: SectionExportQuery;
}

export type SectionExportStatus = 'in_progress' | 'done' | 'failed';

/** A SectionDetailsExportChannel message (and the answer of the start call). */
export interface SectionExportUpdate {
  id: string;
  status: SectionExportStatus;
  /** Downloads the file once done. */
  url: string | null;
  file_name: string | null;
}

/** A toast the machine asks for: started (5 s), complete (stays, with Download) or the start failure (30 s). */
export type SectionExportNotice = { kind: 'started' } | { kind: 'completed'; url: string; fileName: string | null } | { kind: 'failed' };

export interface SectionExportContext {
  /** The export asked for last. */
  request: SectionExportRequest | null;
  /** The server's id of the running (or last) export. */
  exportId: string | null;
  /** The finished export's download url and file name. */
  url: string | null;
  fileName: string | null;
}

/** Events from the view and from the live channel. */
export type SectionExportEvent =
  /** 'Export details' in the section menu. */
  | { type: 'sectionExport.start'; request: SectionExportRequest }
  /** A SectionDetailsExportChannel message about the running export. */
  | { type: 'sectionExportChannel.update'; update: SectionExportUpdate };

export type SectionExportEventType = SectionExportEvent['type'];
