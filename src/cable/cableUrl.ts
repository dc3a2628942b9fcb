import { API_VERSION } from '../../models/constants';

/** Where the server serves its live channels (the Action Cable consumer's default mount path). */
export const CABLE_PATH = '/cable';

/**
 * The address of the live channels for the signed-in user: the API version and the token ride
 * in the query, since a browser cannot set headers on a WebSocket (docs/cable.md). Relative:
 * the consumer makes it `ws(s)://` on the page's host.
 */
export function cableUrl(token: string | null): string {
  const query = new URLSearchParams({ api_version: String(API_VERSION) });
  if (token) query.set('token', token);
  return `${CABLE_PATH}?${query.toString()}`;
}
