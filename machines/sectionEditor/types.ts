import type { ConfigProblem, CustomObject, CustomValueSpec, FilterObject, FilterOperator } from '../../models/customSections';

/**
 * The custom section editor's data: what it loads (the catalogue of values and fields, the
 * report and its section), the form's draft, the preview, and the machine's context and events.
 * The rules of a custom section's config (`CustomSectionConfig`, `configProblems`) are in
 * models/customSections.ts, shared with the server.
 */

// ------------------------------------------------------------------ what the editor loads

/**
 * A field a series can be split (group) or filtered by, as `GET /user_filtered_config` lists it:
 * a customer, payment or cost field, with its id where the field needs one (an attribute, a
 * segmentation), the operators its filters take, and whether it can split and/or filter.
 */
export interface CatalogueField {
  object: FilterObject;
  field: string;
  field_id: string | null;
  name: string;
  operators: FilterOperator[];
  groupable: boolean;
  filterable: boolean;
}

/** `GET /user_filtered_config`: the values a series can show and the fields it can be split or filtered by. */
export interface SectionCatalogue {
  values: CustomValueSpec[];
  filters: CatalogueField[];
}

/** A section of the report, as much of it as the editor reads. */
export interface LoadedSection {
  id: string;
  definition_id: string;
  title: string;
  /** week, month, quarter or year: the preview is computed at it. */
  resolution: string;
  /** A custom section's config, as stored (it may be missing or unreadable). */
  config?: unknown;
}

/** The report the section belongs to (`GET /business_reports/by_secret`), as much of it as the editor reads. */
export interface LoadedReport {
  id: string;
  sections: LoadedSection[];
}

export interface SectionEditorInput {
  /** The report's secret (the page's `/reports/:secret/...`). */
  secret: string;
  /** The section whose calculation is edited; null for a new section. */
  sectionId: string | null;
}

/** Why loading failed: the catalogue, or the report, could not be read. */
export interface LoadFailure {
  kind: 'catalogue' | 'report';
}

// ------------------------------------------------------------------ the preview

export interface PreviewPoint {
  /** YYYY-MM-DD: the first day of the period. */
  time: string;
  value: number | null;
  count?: number;
  quantity?: number;
}

export interface PreviewSeries {
  name: string;
  segment_value?: string;
  component?: string;
  /** A hidden series is computed (others may read it) but not drawn. */
  hidden?: boolean;
  /** The series' reference line, in the section's unit; null or absent for none. */
  y_reference_line?: number | null;
  data_points: PreviewPoint[];
}

export interface PreviewSegment {
  id: string;
  name: string;
  is_total: boolean;
  grouped_segment_names: string[];
  series: PreviewSeries[];
}

export interface PreviewPeriod {
  label: string;
  first_day: string;
  last_day: string;
  measure_day: string;
  current: boolean;
  complete: boolean;
}

/** `POST /business_report/{reportId}/sections/preview`: the section as the report view would show it. */
export interface SectionPreview {
  unit: string | null;
  currency: string | null;
  periods: PreviewPeriod[];
  segments: PreviewSegment[];
}

// ------------------------------------------------------------------ server refusals

/** One refusal of the server: where (a pointer under the config, '/title', or null for the whole form) and what. */
export interface ServerError {
  /** '/series/0/name' (the API's '/config/series/0/name' without '/config'), '/title', or null. */
  pointer: string | null;
  message: string;
}

/**
 * Why a save failed: the server refused the section (400/422, its errors), or anything else
 * went wrong (no answer, 5xx): 'We could not save this section, please try again'.
 */
export type SaveFailure = { kind: 'invalid'; errors: ServerError[] } | { kind: 'failed' };

/** Why a preview failed: the server's 422 errors, or nothing said (another failure). */
export interface PreviewFailure {
  errors: ServerError[];
}

// ------------------------------------------------------------------ the form's draft

/** A field chosen for a group or a filter (what the catalogue names). */
export interface FieldRef {
  object: FilterObject;
  field: string;
  field_id: string | null;
}

/** A split being edited; `object` null until a field is chosen. Keys are stable across reorders (React lists). */
export interface DraftGroup {
  key: string;
  object: FilterObject | null;
  field: string;
  field_id: string | null;
}

export interface DraftFilter {
  key: string;
  object: FilterObject | null;
  field: string;
  field_id: string | null;
  operator: FilterOperator;
  /** A text for `eq`, a list for `in` and `in_reporting_month`. */
  value: string | string[];
}

export interface DraftSeries {
  key: string;
  name: string;
  /** The value shown; null when none is chosen. */
  value: { object: CustomObject; attribute: string } | null;
  /** Its arguments as typed ('12'). */
  arguments: Record<string, string>;
  groups: DraftGroup[];
  filters: DraftFilter[];
  /** The reference line as typed ('' for none). */
  reference: string;
  hidden: boolean;
}

/** The form: the title (a new section only), the section's groups and its series. */
export interface Draft {
  title: string;
  groups: DraftGroup[];
  series: DraftSeries[];
  /** The next key to hand out. */
  nextKey: number;
}

/** Series groups are `series: k`; the section's own groups `series: null`. */
export type GroupOwner = number | null;

/** One change of the form. */
export type DraftEdit =
  | { kind: 'title'; title: string }
  | { kind: 'addSeries' }
  | { kind: 'removeSeries'; series: number }
  | { kind: 'moveSeries'; series: number; by: -1 | 1 }
  | { kind: 'seriesName'; series: number; name: string }
  | { kind: 'seriesValue'; series: number; value: { object: CustomObject; attribute: string } | null }
  | { kind: 'seriesArgument'; series: number; name: string; value: string }
  | { kind: 'seriesReference'; series: number; reference: string }
  | { kind: 'seriesHidden'; series: number; hidden: boolean }
  | { kind: 'addGroup'; series: GroupOwner }
  | { kind: 'groupField'; series: GroupOwner; group: number; field: FieldRef | null }
  | { kind: 'removeGroup'; series: GroupOwner; group: number }
  | { kind: 'addFilter'; series: number }
  | { kind: 'filterField'; series: number; filter: number; field: FieldRef | null }
  | { kind: 'filterOperator'; series: number; filter: number; operator: FilterOperator }
  | { kind: 'filterValue'; series: number; filter: number; value: string | string[] }
  | { kind: 'removeFilter'; series: number; filter: number };

// ------------------------------------------------------------------ the machine

export interface SectionEditorContext {
  secret: string;
  sectionId: string | null;
  /** Loaded: the values and fields a section can use. */
  catalogue: SectionCatalogue | null;
  /** Loaded: the report's id (the preview and the create calls are under it). */
  reportId: string | null;
  /** The resolution the preview is computed at (the edited section's, else month). */
  resolution: string;
  /** The form. */
  draft: Draft;
  /** What `configProblems` finds in the draft (kept up to date with every edit). */
  problems: ConfigProblem[];
  /** Save was asked for once: the problems are shown at their fields from then on. */
  submitted: boolean;
  /** The server's refusals of the last save, by pointer (an edit at a pointer clears its own). */
  serverErrors: ServerError[];
  /** Messages of the last save about the whole form (not one field). */
  formErrors: string[];
  /** The last preview shown (kept while another one loads). */
  preview: SectionPreview | null;
  /** What `preview` answers: the request (config and resolution) as `previewRequestKey` writes it. */
  previewFor: string | null;
  /** Why the last preview failed (messages), null otherwise. */
  previewErrors: string[] | null;
  /** Why loading failed (the message shown), null otherwise. */
  loadError: string | null;
  /** The saved section's id (once saved). */
  savedId: string | null;
}

/** Events from the editor's view. */
export type SectionEditorEvent =
  /** 'Try again' after loading failed. */
  | { type: 'editor.retry' }
  /** A change of the form. */
  | { type: 'editor.edit'; edit: DraftEdit }
  /** 'Save' (or Ctrl/Cmd+Enter): validates, then creates or updates the section. */
  | { type: 'editor.save' }
  /** 'Try again' on a failed preview. */
  | { type: 'editor.retryPreview' };

export type SectionEditorEventType = SectionEditorEvent['type'];

/** What the machine tells the view once the section is saved (provided `saved`: go back to the report). */
export interface SectionSavedNotice {
  secret: string;
  sectionId: string;
}
