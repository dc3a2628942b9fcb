import type { FastifyRequest } from 'fastify';

/**
 * An absolute link into the SPA for an e-mail: `PUBLIC_URL` when configured, otherwise the
 * origin the request was made to (behind a proxy, from X-Forwarded-Proto/Host).
 */
export function appLink(request: FastifyRequest, path: string): string {
  const origin = request.server.config.publicUrl ?? `${request.protocol}://${request.host}`;
  return `${origin}${path}`;
}
