import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { hubspotOauth } from './providers/hubspot';
import { intercomOauth } from './providers/intercom';
import { stripeClient } from './providers/stripe';
import type { OauthProviderSpec } from './types';

/**
 * Connecting a data source by OAuth (Stripe Connect now; HubSpot and Intercom fit the same
 * shape): the browser is sent to the provider's authorize page with a `state`, comes back to
 * `/users/auth/{provider}/callback` with a code and that state, and the server exchanges the code
 * for tokens, which are kept encrypted (server/integrations/connections.ts).
 *
 * The state is `{account id}.{43 random base64url characters}`: the random part is kept in
 * `oauth_states` beside the account, the user, where to send the browser back, and an expiry
 * ten minutes away. The callback takes the row out (delete ... returning): a state works once,
 * only before it expires, only for the provider it was made for.
 */

export const OAUTH_PROVIDERS = ['stripe', 'hubspot', 'intercom'] as const;
export type OauthProviderName = (typeof OAUTH_PROVIDERS)[number];
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** Where the browser goes back when the redirect_url it brought is missing or not ours. */
export const DEFAULT_RETURN_PATH = '/settings';

export const isOauthProvider = (name: string): name is OauthProviderName => (OAUTH_PROVIDERS as readonly string[]).includes(name);

/**
 * Stripe Connect OAuth (standard accounts): `{connect}/oauth/authorize` with `read_only` scope,
 * then `POST {connect}/oauth/token` (grant_type authorization_code) through the stripe SDK with
 * the platform's secret key; `stripe_user_id` is the connected account (`acct_…`).
 */
const stripeOauth: OauthProviderSpec = {
  authorizeUrl({ urls, client, state, redirectUri }) {
    const url = new URL('/oauth/authorize', urls.stripeConnect);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.clientId, scope: 'read_only', state, redirect_uri: redirectUri }).toString();
    return url.toString();
  },
  async exchange({ urls, client, code }) {
    const stripe = stripeClient({ apiUrl: urls.stripeConnect, apiKey: client.clientSecret });
    const token = await stripe.oauth.token({ grant_type: 'authorization_code', code });
    if (!token.access_token || !token.stripe_user_id) throw new Error('Stripe answered the code without an access token');
    return {
      config: { stripe_account_id: token.stripe_user_id },
      secrets: { access_token: token.access_token, ...(token.refresh_token ? { refresh_token: token.refresh_token } : {}), stripe_user_id: token.stripe_user_id },
      externalAccountId: token.stripe_user_id,
    };
  },
};

/** The providers whose OAuth is built. */
export const OAUTH_SPECS: Partial<Record<OauthProviderName, OauthProviderSpec>> = {
  stripe: stripeOauth,
  hubspot: hubspotOauth,
  intercom: intercomOauth,
};

/**
 * The path to send the browser back to: a same-origin path (`/settings`), or an absolute URL on
 * this deployment's own origin (`publicOrigin`), reduced to its path; anything else (another
 * host, `//host`, `javascript:`) gives DEFAULT_RETURN_PATH.
 */
export function safeReturnPath(input: string | null | undefined, publicOrigin: string | undefined): string {
  if (!input || input.length > 2000) return DEFAULT_RETURN_PATH;
  const base = 'http://return.invalid';
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return DEFAULT_RETURN_PATH;
  }
  const relative = input.startsWith('/') && !input.startsWith('//') && !input.startsWith('/\\') && url.origin === base;
  const ours = publicOrigin !== undefined && url.origin === new URL(publicOrigin).origin && /^https?:\/\//i.test(input);
  if (!relative && !ours) return DEFAULT_RETURN_PATH;
  return `${url.pathname}${url.search}`;
}

/** `path` with `?integration={provider}&status=…` added (its own query kept). */
export function returnLocation(path: string, provider: OauthProviderName, status: 'connected' | 'failed'): string {
  const url = new URL(path, 'http://return.invalid');
  url.searchParams.set('integration', provider);
  url.searchParams.set('status', status);
  return `${url.pathname}${url.search}`;
}

/** Records a new state for the account's user; the answer is the state to hand to the provider. */
export async function createOauthState(db: Kysely<DB>, options: { accountId: string; userId: string; provider: OauthProviderName; returnPath: string; now: Date }): Promise<string> {
  const random = randomBytes(32).toString('base64url');
  // Expired states of the account go as a new one is made.
  await db.deleteFrom('oauth_states').where('account_id', '=', options.accountId).where('expires_at', '<', options.now).execute();
  await db
    .insertInto('oauth_states')
    .values({
      account_id: options.accountId,
      state: random,
      provider: options.provider,
      user_id: options.userId,
      redirect_url: options.returnPath,
      created_at: options.now,
      expires_at: new Date(options.now.getTime() + OAUTH_STATE_TTL_MS),
    })
    .execute();
  return `${options.accountId}.${random}`;
}

export interface ConsumedState {
  accountId: string;
  userId: string;
  returnPath: string;
}

/** Takes a state out (once): its account, user and return path, or null when unknown, expired, already used or another provider's. */
export async function consumeOauthState(db: Kysely<DB>, state: string, provider: OauthProviderName, now: Date): Promise<ConsumedState | null> {
  const dot = state.lastIndexOf('.');
  if (dot <= 0 || state.length > 300) return null;
  const accountId = state.slice(0, dot);
  const random = state.slice(dot + 1);
  if (!/^[\w-]{32,}$/.test(random)) return null;
  const row = await db
    .deleteFrom('oauth_states')
    .where('account_id', '=', accountId)
    .where('state', '=', random)
    .returning(['provider', 'user_id', 'redirect_url', 'expires_at'])
    .executeTakeFirst();
  if (!row || row.provider !== provider || row.expires_at.getTime() <= now.getTime()) return null;
  return { accountId, userId: row.user_id, returnPath: row.redirect_url ?? DEFAULT_RETURN_PATH };
}
