import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The origin of links in e-mails when PUBLIC_URL is unset (development only: production
 * refuses to start without it): the local address this server listens on. Never the
 * request's Host or X-Forwarded-Host header, which its sender chooses.
 */
export function localOrigin(server: FastifyInstance): string {
  const listening = server.addresses().find((address) => typeof address === 'object' && address.port > 0);
  const port = typeof listening === 'object' ? listening.port : (server.config.port ?? 3000);
  return `http://localhost:${port}`;
}

/** An absolute link into the SPA for an e-mail: `PUBLIC_URL`, else the local origin. */
export function appLink(request: FastifyRequest, path: string): string {
  const origin = request.server.config.publicUrl ?? localOrigin(request.server);
  return `${origin}${path}`;
}
