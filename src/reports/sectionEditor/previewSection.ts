import { USER_FILTERED_DEFINITION_ID } from '../../../models/customSections';
import type { SectionPreview } from '../../../machines/sectionEditor/types';
import type { ReportSection } from '../charts/sectionModel';

/** The section id the preview's chart is drawn under (nothing of the report has it). */
export const PREVIEW_SECTION_ID = 'section-editor-preview';

/**
 * The preview as a report section, so the report's own chart draws it: a line chart of the
 * series shown (a hidden series is computed but not drawn), with the reference line of the first
 * series that has one.
 */
export function previewSection(preview: SectionPreview, resolution: string): ReportSection {
  const segments = preview.segments.map((segment) => ({
    id: segment.id,
    name: segment.name,
    is_total: segment.is_total,
    grouped_segment_names: segment.grouped_segment_names,
    series: segment.series
      .filter((series) => series.hidden !== true)
      .map((series) => ({
        name: series.name,
        ...(series.segment_value !== undefined ? { segment_value: series.segment_value } : {}),
        ...(series.component !== undefined ? { component: series.component } : {}),
        data_points: series.data_points,
      })),
  }));
  const reference =
    preview.segments.flatMap((segment) => segment.series).find((series) => series.hidden !== true && typeof series.y_reference_line === 'number')?.y_reference_line ?? null;
  return {
    id: PREVIEW_SECTION_ID,
    definition_id: USER_FILTERED_DEFINITION_ID,
    title: 'Preview',
    summary: '',
    data_type: 'line_chart',
    use_hierarchy: false,
    resolution,
    position: 0,
    data_categories: ['values'],
    decimal: false,
    reference_value: reference,
    segment_ids: segments.map((segment) => segment.id),
    underlying_data: 'subscriptions',
    recalculation_status: 'recalculated',
    error: null,
    computed_at: null,
    unit: preview.unit,
    currency: preview.currency,
    periods: preview.periods,
    segments,
    key_number: null,
  };
}
