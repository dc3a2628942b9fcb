import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ErrorSchema } from '../auth/schemas';
import { API_PREFIX } from '../version';
import { ApiError } from './errors';

/** Who a limit counts: the signed-in user (the client address when there is none), or the client address. */
type Scope = 'user' | 'ip';

export interface RateRule {
  /** Requests allowed in one window. */
  max: number;
  windowMs: number;
  scope: Scope;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The limits of the calls that cost us or a third party something (an e-mail, a hash, a
 * recomputation, a file) or that a guesser would repeat, by `METHOD path` as registered
 * (without the API prefix). Sign-in has its own throttle in the database (server/auth/throttle.ts).
 */
export const RATE_RULES: Record<string, RateRule> = {
  // Sign-up (per client address) and invitations (per inviting user): each sends an e-mail.
  'POST /users': { max: 20, windowMs: HOUR, scope: 'user' },
  // E-mails sent to addresses the caller types, and guesses of e-mailed tokens.
  'POST /users/password': { max: 10, windowMs: 15 * MINUTE, scope: 'ip' },
  'PUT /users/password': { max: 20, windowMs: 15 * MINUTE, scope: 'ip' },
  'GET /invitations/:token': { max: 30, windowMs: 15 * MINUTE, scope: 'ip' },
  'PUT /invitations/:token': { max: 20, windowMs: 15 * MINUTE, scope: 'ip' },
  // Token sign-in (the SPA's /sign_in_via_token reads GET /users/me with the token).
  'GET /users/me': { max: 300, windowMs: 5 * MINUTE, scope: 'ip' },
  'GET /demo': { max: 300, windowMs: 5 * MINUTE, scope: 'ip' },
  'GET /demo/report': { max: 300, windowMs: 5 * MINUTE, scope: 'ip' },
  // Recomputations: in another currency for one answer, or stored.
  'PUT /business_reports/:id/settings': { max: 30, windowMs: 10 * MINUTE, scope: 'user' },
  'POST /business_reports/:id/refresh': { max: 30, windowMs: 10 * MINUTE, scope: 'user' },
  // Exports (files built in this process or in a job).
  'GET /business_report/sections/:id/export_data': { max: 60, windowMs: 10 * MINUTE, scope: 'user' },
  'POST /business_report/sections/:id/export_details': { max: 30, windowMs: 10 * MINUTE, scope: 'user' },
  // Live-channel connections (WebSocket upgrades of /cable), per client address; open ones are also bounded per user.
  'GET /cable': { max: 120, windowMs: MINUTE, scope: 'ip' },
  // Imports (uploads of up to 200 MB each).
  'POST /subscriptions/csv_import': { max: 30, windowMs: HOUR, scope: 'user' },
  'POST /subscriptions/csv_import/:id/finalize': { max: 30, windowMs: HOUR, scope: 'user' },
  'POST /segments_importer/draft': { max: 30, windowMs: HOUR, scope: 'user' },
  'POST /segments_importer/finalize': { max: 30, windowMs: HOUR, scope: 'user' },
};

/**
 * `GET /business_reports/by_secret?currency=XYZ` recomputes every section in another currency
 * for one answer; the same call without a currency is a cached read (not limited).
 */
export const CURRENCY_RECOMPUTE_RULE: RateRule = { max: 60, windowMs: 10 * MINUTE, scope: 'user' };

export function tooManyRequestsMessage(retryAfterSeconds: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  if (seconds < 120) return `Too many requests. Try again in ${seconds} seconds.`;
  return `Too many requests. Try again in ${Math.ceil(seconds / 60)} minutes.`;
}

function keyOf(scope: Scope, request: FastifyRequest): string {
  if (scope === 'user' && request.auth) return `user:${request.auth.accountId}:${request.auth.userId}`;
  return `ip:${request.ip}`;
}

function withTooManyRequests(route: RouteOptions): void {
  const schema = route.schema ?? {};
  const response = (schema.response ?? {}) as Record<string, unknown>;
  if (response['429'] || response[429]) return;
  route.schema = { ...schema, response: { ...response, 429: { ...ErrorSchema, description: 'Too many requests: wait for the time in `Retry-After` (exports: too many in progress for the account)' } } };
}

export interface RateLimitOptions {
  /** Multiplies every limit (an e2e run signs up more people from one address than a person would). Default 1. */
  scale?: number;
}

/**
 * Rate limits (`@fastify/rate-limit`, counted in this process) for the routes of
 * `RATE_RULES`, applied by path, so a rule needs no edit of its route. Registered before the
 * routes. The counting hook runs before the handler, after authentication, so a signed-in
 * caller is counted per user and one user cannot use up another's allowance.
 */
export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions = {}): Promise<void> {
  const scale = Math.max(1, options.scale ?? 1);
  app.addHook('onRoute', (route: RouteOptions) => {
    const path = route.url.startsWith(API_PREFIX) ? route.url.slice(API_PREFIX.length) : route.url;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const rule = methods.map((method) => RATE_RULES[`${method} ${path}`]).find(Boolean);
    const currencyRule = methods.includes('GET') && path === '/business_reports/by_secret' ? CURRENCY_RECOMPUTE_RULE : undefined;
    const chosen = rule ?? currencyRule;
    if (!chosen) return;
    withTooManyRequests(route);
    route.config = {
      ...(route.config as object),
      rateLimit: {
        max: chosen.max * scale,
        timeWindow: chosen.windowMs,
        hook: 'preHandler',
        groupId: `${methods.join(',')} ${path}`,
        keyGenerator: (request: FastifyRequest) => keyOf(chosen.scope, request),
        ...(currencyRule
          ? { allowList: (request: FastifyRequest) => !(request.query as { currency?: string } | undefined)?.currency }
          : {}),
      },
    } as RouteOptions['config'];
  });
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => {
      const error = ApiError.of(429, tooManyRequestsMessage(context.ttl / 1000), undefined, 'rate_limited');
      return error as unknown as object;
    },
  });
}
