import { useLocation, useSearch } from 'wouter';

/** The current path with its query, as remembered for the redirect after sign-in. */
export function useCurrentPath(): string {
  const [location] = useLocation();
  const search = useSearch();
  return search ? `${location}?${search}` : location;
}
