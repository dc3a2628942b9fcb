import type { CustomSectionConfig } from '../../../models/customSections';
import type { DataCategory, SectionDataType } from '../../db/schema';
import type { ReportFilter } from '../filters';
import type { Resolution } from '../periods';
import type { ValueBucket, ValueMapping } from '../segments';
import type { ReportSettingsInput } from '../settings';

/**
 * The plain data that goes into and comes out of the section computation
 * (`computeSections`, `computeDetails`): no class, no typed array, no Date, so a result can be
 * stored as JSON (`report_sections.result`) or sent as it is.
 *
 * Units: money is in minor units of the section's `currency` (cents for USD, whole yen for
 * JPY); ratios and rates are fractions (0.05 = 5 %); counts are customers (or costs, deals);
 * quantities are item quantities. Each result says which in `unit`.
 */

export type DataType = SectionDataType;
export type KeyNumberKind = 'currency' | 'percent' | 'other';
export type UnderlyingData = 'subscriptions' | 'costs' | 'deals';
/** The spec's segmenter types: 'total' is always there and hidden as a type. */
export type SegmenterType = 'total' | 'customer_segment' | 'subscription_segment' | 'cost_segment';
/** What `value` of a data point measures. */
export type ValueUnit = 'minor_units' | 'fraction' | 'ratio' | 'count' | 'units';

/** A report's months, 1-12 (`business_reports.start_year` ... `end_month`). */
export interface SectionRange {
  start_year: number;
  start_month: number;
  end_year: number;
  end_month: number;
}

/**
 * A segmenter a section is split by. `id` is what sections store (`report_section_segments`);
 * built-in ids name what they split by:
 * - `total`
 * - `customer_segment:<customer_segments.id>` (a customer attribute)
 * - `subscription_segment:product`, `subscription_segment:item_type`,
 *   `subscription_segment:currency`, `subscription_segment:attribute:<object_attributes.id>`
 * - `cost_segment:<object_attributes.id>` (a cost attribute)
 * A user-made segmentation (`segmenter_definitions`) has its own id and names the built-in one
 * it groups in `base`, with its mappings, buckets or product list.
 */
export interface SegmenterRef {
  id: string;
  name?: string;
  base?: string;
  mappings?: readonly ValueMapping[];
  buckets?: readonly ValueBucket[];
  products?: readonly string[];
}

/** One section of a report to compute. */
export interface SectionRequest {
  /** An id of the catalogue (`server/metrics/definitions/catalogue.ts`). */
  definition_id: string;
  range: SectionRange;
  /** Default: month. */
  resolution?: Resolution;
  /** Default: the definition's default data type. */
  data_type?: DataType;
  use_hierarchy?: boolean;
  /** Segmenters besides the total (which is always computed): ids or references. */
  segmenters?: readonly (string | SegmenterRef)[];
  /** Default: the definition's first data category. */
  data_category?: DataCategory;
  /** Report currency (ISO 4217); default: report_settings.currency, else the account currency. */
  currency?: string | null;
  /** The report settings that change numbers (discount subtraction, currency). */
  report_settings?: ReportSettingsInput;
  /** The report filter: restricts every section to matching customers and payments. */
  filter?: ReportFilter | null;
  /** 'YYYY-MM-DD': the day the current period is measured on. Never read from the clock here. */
  today: string;
  /** A custom section (`definition_id` 'user_filtered'): its series, groups and filters (custom.ts). */
  custom?: CustomSectionConfig | null;
}

export interface DataPoint {
  /** First day of the period, 'YYYY-MM-DD' (for a cohort cell: of the period cohort + k). */
  time: string;
  /** The section's number in its data category; null where it is undefined (a rate over 0). */
  value: number | null;
  /** Customers (or costs, deals) behind the point, where the definition counts them. */
  count?: number;
  /** Item quantities behind the point (data category units). */
  quantity?: number;
  /** Cohort cells: the money (mrr_cohorts) behind the share in `value`. */
  amount?: number;
  /** Cohort cells: 'initial', or k for the period cohort + k ('month 0' is 0). */
  column?: 'initial' | number;
}

export interface SeriesResult {
  name: string;
  /** A custom section's series: what its points measure (series of one section may differ). */
  unit?: ValueUnit;
  /** A custom section's series the chart does not draw (its details still answer). */
  hidden?: boolean;
  /** A custom section's series: a horizontal line at this value, in the points' units. */
  y_reference_line?: number | null;
  /** The segment value (a segmenter's segment, 'Other' included) this series shows. */
  segment_value?: string;
  /** Part of a multi-series definition: a movement class, a deal stage, a cohort period. */
  component?: string;
  data_points: DataPoint[];
}

/** A segmenter's view of a section (the spec's Segment): the total, or one series per segment value. */
export interface SegmentResult {
  id: string;
  name: string;
  is_total: boolean;
  series: SeriesResult[];
  grouped_segment_names: string[];
}

export interface PeriodResult {
  label: string;
  first_day: string;
  last_day: string;
  /** The day stocks are measured: the last day, or today for the current period. */
  measure_day: string;
  current: boolean;
  /** The period is over (its last day is before today). */
  complete: boolean;
}

export interface KeyNumberResult {
  /** The total's value at the last complete period of the range. */
  value: number | null;
  kind: KeyNumberKind;
  /** The period it is taken from ('YYYY-MM-DD', its first day); null when no period of the range is complete. */
  time: string | null;
}

export interface SectionResult {
  definition_id: string;
  data_type: DataType;
  resolution: Resolution;
  data_category: DataCategory;
  unit: ValueUnit;
  /** ISO code of the money in this result. */
  currency: string;
  periods: PeriodResult[];
  segments: SegmentResult[];
  key_number?: KeyNumberResult;
}

export class SectionRequestError extends Error {
  override name = 'SectionRequestError';
  constructor(
    message: string,
    /** JSON pointer of the offending field in the request. */
    readonly pointer: string,
  ) {
    super(message);
  }
}
