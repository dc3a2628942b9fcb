import { useMemo } from 'react';
import type { ApiClient } from '../../../api/client';
import { useApi } from '../../../api/ApiContext';

/** The spec's messages (second document, section 8). */
export const DEFINITIONS_FAILURE = 'We could not fetch section definitions, you will not be able to add a new chart. Try refreshing the page.';
export const ADD_SECTIONS_FAILURE = 'Something went wrong and we could not add some of the sections to your report : (';
export const DELETE_SECTION_FAILURE = 'Something went wrong and we could not delete section';
export const DELETE_SEGMENT_FAILURE = 'Something went wrong and we could not delete section segment';
export const UPDATE_SETTINGS_FAILURE = 'Something went wrong and we could not update section settings';
export const SAVE_CHANGES_FAILURE = 'We could not save your changes. Please try again.';

function definitionsCall(client: ApiClient, signal?: AbortSignal) {
  return client.GET('/business_report/section_definitions', { signal });
}

/** A chart a report can hold, with the account's segmenters it accepts (GET /business_report/section_definitions). */
export type SectionDefinition = NonNullable<Awaited<ReturnType<typeof definitionsCall>>['data']>['items'][number];
export type Segmenter = SectionDefinition['segmenters'][number];

/** One of the PUT /business_report/sections/{id} bodies. */
export type SectionChange =
  | { title: string }
  | { summary: string }
  | { position: number }
  | { data_type: 'line_chart' | 'bar_chart' | 'stacked_bar_chart' | 'cohort'; use_hierarchy: boolean; resolution: 'week' | 'month' | 'quarter' | 'year' }
  | { data_categories: ('values' | 'counts' | 'units' | 'month_over_month_growth' | 'month_over_month_retention' | 'moving_average3')[] }
  | { segment_ids: string[] };

/** A failed section call: `message` is the spec's text to show. */
export class SectionCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'SectionCallError';
  }
}

/** The section editing calls (server/routes/reportSections.ts). Each rejects with a SectionCallError carrying the spec's message. */
export function createSectionsApi(client: ApiClient) {
  return {
    async definitions(signal?: AbortSignal): Promise<SectionDefinition[]> {
      const { data, response } = await definitionsCall(client, signal);
      if (!data) throw new SectionCallError(DEFINITIONS_FAILURE, response.status);
      return data.items;
    },
    async addSection(reportId: string, definitionId: string, segmentIds: string[]): Promise<void> {
      const { response } = await client.POST('/business_report/{reportId}/sections', { params: { path: { reportId } }, body: { definition_id: definitionId, segment_ids: segmentIds } });
      if (!response.ok) throw new SectionCallError(ADD_SECTIONS_FAILURE, response.status);
    },
    async updateSection(sectionId: string, change: SectionChange, failure: string): Promise<void> {
      const { response } = await client.PUT('/business_report/sections/{id}', { params: { path: { id: sectionId } }, body: change });
      if (!response.ok) throw new SectionCallError(failure, response.status);
    },
    async deleteSection(sectionId: string): Promise<void> {
      const { response } = await client.DELETE('/business_report/sections/{id}', { params: { path: { id: sectionId } } });
      if (!response.ok) throw new SectionCallError(DELETE_SECTION_FAILURE, response.status);
    },
    async deleteSegment(sectionId: string, segmentId: string): Promise<void> {
      const { response } = await client.DELETE('/business_report/sections/{id}/segments/{segmentId}', { params: { path: { id: sectionId, segmentId } } });
      if (!response.ok) throw new SectionCallError(DELETE_SEGMENT_FAILURE, response.status);
    },
    /** The values a segment groups (one series each), as last computed. */
    async expandSegment(sectionId: string, segmentId: string): Promise<string[]> {
      const { data, response } = await client.GET('/business_report/sections/{id}/segments/{segmentId}', { params: { path: { id: sectionId, segmentId } } });
      if (!data) throw new SectionCallError('We could not list the values of this segment', response.status);
      return data.grouped_segment_names;
    },
  };
}

export type SectionsApi = ReturnType<typeof createSectionsApi>;

/** The section calls over the app's API client (or a test's). */
export function useSectionsApi(): SectionsApi {
  const client = useApi();
  return useMemo(() => createSectionsApi(client), [client]);
}
