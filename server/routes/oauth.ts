import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { verifyAccessToken } from '../auth/tokens';
import { ApiError } from '../http/errors';
import { saveConnection } from '../integrations/connections';
import {
  consumeOauthState,
  createOauthState,
  isOauthProvider,
  OAUTH_SPECS,
  returnLocation,
  safeReturnPath,
  type OauthProviderName,
} from '../integrations/oauth';
import { DEFAULT_PROVIDER_URLS } from '../config';
import type { FastifyInstance } from 'fastify';
import { localOrigin } from '../mail/links';

/**
 * OAuth connect of a data source (docs/stripe.md), at the root because both are browser
 * navigations: the Settings card sends the browser to
 * `/users/auth/{provider}?authorization={token}&frontend_request=true&redirect_url={url}`, which
 * answers 302 to the provider's authorize page with a state (server/integrations/oauth.ts); the
 * provider sends it back to `/users/auth/{provider}/callback?code=&state=`, which exchanges the
 * code, keeps the tokens encrypted, starts the first sync and answers 302 to the return path
 * with `?integration={provider}&status=connected` (or `failed`: a refused, expired, reused or
 * foreign state, a denied authorization, a code the provider refuses).
 */

export const SIGN_IN_REQUIRED = 'You need to sign in or sign up before continuing.';
export const NOT_ALLOWED = 'You are not allowed to do this.';
export const UNKNOWN_PROVIDER = 'There is no such integration to connect';

const ProviderParams = Type.Object({ provider: Type.String({ maxLength: 40 }) });
const StartQuery = Type.Object({
  authorization: Type.Optional(Type.String({ maxLength: 4096, description: 'The API token (the same as the bearer token); a browser navigation cannot send a header' })),
  frontend_request: Type.Optional(Type.String({ maxLength: 10 })),
  redirect_url: Type.Optional(Type.String({ maxLength: 2000, description: 'Where to come back to: a path of this app, or a URL on its own origin' })),
});
const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2000 })),
  state: Type.Optional(Type.String({ maxLength: 2000 })),
  scope: Type.Optional(Type.String({ maxLength: 2000 })),
  error: Type.Optional(Type.String({ maxLength: 2000 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});

/**
 * This deployment's origin: PUBLIC_URL, else (development, tests) the local origin the server
 * listens on, as e-mail links use it. Never the request's Host header, which its sender chooses.
 */
const ownOrigin = (app: FastifyInstance): string => app.config.publicUrl ?? localOrigin(app);

export interface OauthRouteOptions {
  /** The clock of token checks and state expiry (the app's; tests inject one). */
  now?: () => Date;
}

export const oauthRoutes: FastifyPluginAsyncTypebox<OauthRouteOptions> = async (app, options) => {
  const now = options.now ?? (() => new Date());
  const urls = () => app.config.providerUrls ?? DEFAULT_PROVIDER_URLS;
  const callbackUri = (provider: OauthProviderName) => `${ownOrigin(app)}/users/auth/${provider}/callback`;
  const providerOf = (name: string): OauthProviderName => {
    if (!isOauthProvider(name)) throw ApiError.of(404, UNKNOWN_PROVIDER, '/params/provider');
    return name;
  };

  app.get(
    '/users/auth/:provider',
    { schema: { hide: true, params: ProviderParams, querystring: StartQuery } },
    async (request, reply) => {
      const provider = providerOf(request.params.provider);
      const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
      const token = request.query.authorization ?? header;
      const auth = token ? await verifyAccessToken(app.db.kysely, { secret: app.config.jwtSecret, token, now: now() }) : null;
      if (!auth) throw ApiError.of(401, SIGN_IN_REQUIRED);
      if (auth.permissionLevel !== 'user') throw ApiError.of(403, NOT_ALLOWED);
      const returnPath = safeReturnPath(request.query.redirect_url, ownOrigin(app));
      const spec = OAUTH_SPECS[provider];
      const client = app.config.oauthClients?.[provider];
      if (!spec || !client) {
        app.log.warn(`oauth ${provider}: no OAuth client configured; the connect fails`);
        return reply.redirect(returnLocation(returnPath, provider, 'failed'), 302);
      }
      const state = await createOauthState(app.db.kysely, { accountId: auth.accountId, userId: auth.userId, provider, returnPath, now: now() });
      reply.header('cache-control', 'no-store');
      return reply.redirect(spec.authorizeUrl({ urls: urls(), client, state, redirectUri: callbackUri(provider) }), 302);
    },
  );

  app.get(
    '/users/auth/:provider/callback',
    { schema: { hide: true, params: ProviderParams, querystring: CallbackQuery } },
    async (request, reply) => {
      const provider = providerOf(request.params.provider);
      reply.header('cache-control', 'no-store');
      const { code, state, error } = request.query;
      const consumed = state ? await consumeOauthState(app.db.kysely, state, provider, now()) : null;
      if (!consumed) return reply.redirect(returnLocation('/settings', provider, 'failed'), 302);
      const spec = OAUTH_SPECS[provider];
      const client = app.config.oauthClients?.[provider];
      if (error || !code || !spec || !client) {
        app.log.info(`oauth ${provider}: account ${consumed.accountId} did not connect (${error ?? 'no code'})`);
        return reply.redirect(returnLocation(consumed.returnPath, provider, 'failed'), 302);
      }
      try {
        const grant = await spec.exchange({ urls: urls(), client, code, redirectUri: callbackUri(provider) });
        // The same account at the provider keeps the settings of its dialog (HubSpot, Intercom); a configured one syncs, one still needing its dialog waits for it.
        await saveConnection(app, consumed.accountId, provider, grant, consumed.userId, { mergeConfig: true });
      } catch (failure) {
        app.log.warn(`oauth ${provider}: account ${consumed.accountId} could not connect: ${failure instanceof Error ? failure.message : String(failure)}`);
        return reply.redirect(returnLocation(consumed.returnPath, provider, 'failed'), 302);
      }
      return reply.redirect(returnLocation(consumed.returnPath, provider, 'connected'), 302);
    },
  );
};
