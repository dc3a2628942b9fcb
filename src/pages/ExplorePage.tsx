import { useParams, useSearch } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { ExploreView } from '../customers/explore/ExploreView';
import type { ExploreRouteState } from '../customers/explore/exploreApi';

/** What a route state may say (anything else in it is ignored). */
function routeStateOf(state: unknown): ExploreRouteState | null {
  if (typeof state !== 'object' || state === null) return null;
  const { title, returnTo } = state as Record<string, unknown>;
  return {
    ...(typeof title === 'string' && title !== '' ? { title } : {}),
    // Only a path of this app.
    ...(typeof returnTo === 'string' && returnTo.startsWith('/') && !returnTo.startsWith('//') ? { returnTo } : {}),
  };
}

/**
 * `/explore/{sectionId}/{segmentId}/{date}` (`?segment_value=` for one segment value's series):
 * the customers behind a data point. The details dialog passes the point's title and the
 * report's path in route state; a link opened afresh has none and shows the server's title.
 */
export function ExplorePage() {
  const { sectionId = '', segmentId = 'total', date = '' } = useParams<{ sectionId: string; segmentId: string; date: string }>();
  const segmentValue = new URLSearchParams(useSearch()).get('segment_value') ?? undefined;
  const state = routeStateOf(useHistoryState());
  return <ExploreView key={`${sectionId}/${segmentId}/${date}/${segmentValue ?? ''}`} point={{ sectionId, segmentId, date, ...(segmentValue !== undefined ? { segmentValue } : {}) }} routeState={state} />;
}
