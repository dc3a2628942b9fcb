import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { API_PREFIX } from '../version';

/** HSTS for answers served over TLS (directly, or behind a trusted proxy that says so): one year. */
export const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

/**
 * The CSP hashes of the inline scripts of the built index.html (Mantine's colour-scheme
 * script runs before the first paint), so no 'unsafe-inline' is needed for scripts.
 */
export function inlineScriptHashes(spaDir: string | undefined): string[] {
  if (!spaDir) return [];
  const index = path.join(spaDir, 'index.html');
  if (!existsSync(index)) return [];
  const html = readFileSync(index, 'utf8');
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    const body = match[1] ?? '';
    if (body.trim()) hashes.push(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

/**
 * Security headers on every answer (`@fastify/helmet`): a Content-Security-Policy that fits
 * the SPA (its own scripts and the hashed inline one; Mantine and the charts set inline
 * styles; live channels on the same origin), no framing, no MIME sniffing, no Referer (share
 * links carry secrets in their path), HSTS only over TLS, and `Cache-Control: no-store` on
 * API answers unless a route chose a policy (they carry tokens and tenant data).
 */
export async function registerSecurityHeaders(app: FastifyInstance, spaDir: string | undefined): Promise<void> {
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'", ...inlineScriptHashes(spaDir)],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'worker-src': ["'self'", 'blob:'],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
      },
    },
    // The API docs page (Swagger UI) sets its own CSP with the hashes of its inline parts.
    enableCSPNonces: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS_VALUE);
    if (request.url.startsWith(`${API_PREFIX}/`) && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
