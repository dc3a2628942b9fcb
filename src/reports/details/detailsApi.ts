import type { ApiClient } from '../../api/client';
import type { operations } from '../../api/schema';
import { apiKey } from '../../api/queries';
import type { SectionPointInfo } from '../charts/sectionModel';
import { filterQuery, type FilterItem } from '../../../models/reportFilter';

/** `GET /business_report/sections/{id}/details` (and `/cohort_details`: the same shape). */
export type SectionDetails = operations['getSectionDetails']['responses'][200]['content']['application/json'];
export type DetailsItem = SectionDetails['items'][number];
export type DetailsPayload = DetailsItem['details'];
export type TopCustomer = DetailsPayload['top_customers'][number];

export const DETAILS_FETCH_FAILURE = 'We failed to fetch details : (';

/** Rows a dialog lists before 'the rest'. */
export const DETAILS_ROWS_LIMIT = 50;

export class DetailsCallError extends Error {
  constructor(readonly status: number) {
    super(DETAILS_FETCH_FAILURE);
    this.name = 'DetailsCallError';
  }
}

/** The details of a clicked point: a cohort cell asks /cohort_details, any other point /details. */
export function createDetailsServices(client: ApiClient) {
  return {
    /** With `filter`, the rows of the chart as the picker's filter shows it. */
    async details(point: SectionPointInfo, currency?: string, signal?: AbortSignal, filter?: FilterItem | null): Promise<SectionDetails> {
      const common = {
        ...(filter ? filterQuery(filter) : {}),
        segment_id: point.segmentId,
        ...(point.segmentValue !== undefined ? { segment_value: point.segmentValue } : {}),
        ...(currency ? { currency } : {}),
        limit: DETAILS_ROWS_LIMIT,
      };
      const path = { id: point.sectionId };
      const { data, response } =
        point.column !== undefined
          ? await client.GET('/business_report/sections/{id}/cohort_details', {
              params: { path, query: { ...common, cohort_date: point.cohortDate ?? point.time, date: point.time, column: point.column } },
              signal,
            })
          : await client.GET('/business_report/sections/{id}/details', {
              params: { path, query: { ...common, date: point.time, ...(point.component !== undefined ? { component: point.component } : {}) } },
              signal,
            });
      if (!data) throw new DetailsCallError(response.status);
      return data;
    },
  };
}

export type DetailsServices = ReturnType<typeof createDetailsServices>;

/** The cache key of a point's details: the path it is read from, the point's parameters and the filter's. */
export function detailsKey(point: SectionPointInfo, filter?: FilterItem | null) {
  const { sectionId, segmentId, segmentValue, component, time, column, cohortDate } = point;
  const filtered = filter ? filterQuery(filter) : {};
  return column !== undefined
    ? apiKey('/business_report/sections/{id}/cohort_details', { id: sectionId, segment_id: segmentId, segment_value: segmentValue, date: time, column, cohort_date: cohortDate ?? time, ...filtered })
    : apiKey('/business_report/sections/{id}/details', { id: sectionId, segment_id: segmentId, segment_value: segmentValue, date: time, component, ...filtered });
}
