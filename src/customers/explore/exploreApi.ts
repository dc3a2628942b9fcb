import type { ApiClient } from '../../api/client';
import { ApiCallError, apiKey } from '../../api/queries';
import type { EXPLORE_GROWTH_BUCKETS } from '../../../models/constants';

export type ExploreGrowthBucket = (typeof EXPLORE_GROWTH_BUCKETS)[number];

/** One customer behind the data point (`GET /customer_metrics`). */
export interface ExploreCustomer {
  customer: { id: string; name: string; deleted: boolean };
  /** Whole months from the start of its paid run to the point. */
  months_being_customer: number;
  /** Minor units of `currency`. */
  new_mrr_when_occurred: number;
  mrr: number;
  accrued_total: number;
  /** mrr / new_mrr_when_occurred - 1 (a fraction); null when it started at 0. */
  growth_since_start: number | null;
  growth_bucket: ExploreGrowthBucket;
}

export interface ExploreAnswer {
  items: ExploreCustomer[];
  currency: string;
  /** The section's title and the point's period. */
  title: string;
}

/** The data point explored: the route's section, segment and day, and the URL's segment value. */
export interface ExplorePoint {
  sectionId: string;
  segmentId: string;
  date: string;
  segmentValue?: string;
}

export const EXPLORE_FETCH_FAILURE = 'We could not fetch the customers of this data point';

export const exploreKey = ({ sectionId, segmentId, date, segmentValue }: ExplorePoint) =>
  apiKey('/customer_metrics', { section_id: sectionId, segment_id: segmentId, date, segment_value: segmentValue });

/** The customers behind the point, with the figures the explore chart plots. */
export async function fetchExplore(client: ApiClient, point: ExplorePoint, signal?: AbortSignal): Promise<ExploreAnswer> {
  const query = { section_id: point.sectionId, segment_id: point.segmentId, date: point.date, ...(point.segmentValue !== undefined ? { segment_value: point.segmentValue } : {}) };
  const { data, response } = await client.GET('/customer_metrics', { params: { query }, signal });
  if (!data) throw new ApiCallError(EXPLORE_FETCH_FAILURE, response.status);
  return data;
}

/** The explore page's path of a data point (the segment value, when there is one, in the query). */
export function explorePath({ sectionId, segmentId, date, segmentValue }: ExplorePoint): string {
  const path = `/explore/${encodeURIComponent(sectionId)}/${encodeURIComponent(segmentId)}/${encodeURIComponent(date)}`;
  return segmentValue === undefined ? path : `${path}?${new URLSearchParams({ segment_value: segmentValue }).toString()}`;
}

/** What the explore page is handed in route state: its title and the report to go back to. */
export interface ExploreRouteState {
  title?: string;
  /** The report's path (`/reports/{secret}`). */
  returnTo?: string;
}
