import type { FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { ApiError } from '../http/errors';
import { verifyAccessToken, type AuthContext } from './tokens';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The clock of every auth decision (token issue and expiry, reset and invitation expiry,
     * the throttle window). Tests inject one instead of sleeping.
     */
    now(): Date;
    /** onRequest hook: a valid token of any user, else 401. Sets `request.auth`. */
    requireUser(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    /** onRequest hook: a valid token of a `user`-level user; 401 without one, 403 for `shared_report_only`. */
    requireFullUser(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    /** onRequest hook: no Authorization header is fine (`request.auth` stays null); a bad token is 401. */
    optionalUser(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
  interface FastifyRequest {
    /** Who the request acts for; null on public routes and before the auth hook ran. */
    auth: AuthContext | null;
  }
}

export interface AuthPluginOptions {
  now?: () => Date;
}

export const SIGN_IN_REQUIRED = 'You need to sign in or sign up before continuing.';
export const NOT_ALLOWED = 'You are not allowed to do this.';

const unauthorized = () => ApiError.of(401, SIGN_IN_REQUIRED);

/** The token of `Authorization: Bearer <token>`; undefined when there is no such header. */
function bearerToken(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** The identity a route's auth hook established; a route without such a hook is a bug. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/**
 * Bearer-token authentication for the routes registered beside it: decorates `request.auth`
 * and the hooks `requireUser`, `requireFullUser` and `optionalUser`. Every answer for a
 * missing, malformed, expired or revoked token is the same 401.
 */
export const authPlugin = fastifyPlugin<AuthPluginOptions>(
  async (app, options) => {
    const now = options.now ?? (() => new Date());
    app.decorate('now', now);
    app.decorateRequest('auth', null);

    const authenticate = async (request: FastifyRequest, tokenRequired: boolean) => {
      const token = bearerToken(request);
      if (token === undefined && !tokenRequired) return;
      if (!token) throw unauthorized();
      const auth = await verifyAccessToken(app.db.kysely, { secret: app.config.jwtSecret, token, now: now() });
      if (!auth) throw unauthorized();
      request.auth = auth;
    };

    app.decorate('requireUser', async (request: FastifyRequest) => {
      await authenticate(request, true);
    });
    app.decorate('requireFullUser', async (request: FastifyRequest) => {
      await authenticate(request, true);
      if (authOf(request).permissionLevel !== 'user') throw ApiError.of(403, NOT_ALLOWED);
    });
    app.decorate('optionalUser', async (request: FastifyRequest) => {
      await authenticate(request, false);
    });
  },
  { name: 'subscope-auth', fastify: '5.x' },
);
