import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errorBody } from './errors';

const NOT_SPA = /^\/(api|graphql|cable)(\/|$)/;

/**
 * Serves the built SPA. Hashed assets are cached for a year; index.html never is, so a new
 * build reaches users on their next navigation. Any other GET that accepts HTML falls back
 * to index.html (history-API routing); API paths answer JSON 404s instead.
 */
export async function registerSpa(app: FastifyInstance, spaDir: string | undefined): Promise<void> {
  const hasSpa = spaDir !== undefined && existsSync(path.join(spaDir, 'index.html'));
  if (hasSpa) {
    await app.register(fastifyStatic, {
      root: spaDir,
      prefix: '/',
      wildcard: true,
      index: 'index.html',
      setHeaders: (reply: FastifyReply, filePath: string) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !NOT_SPA.test(pathname);
    // A browser navigation asks for HTML (and a JWT in the path has dots); an asset request does not.
    const navigation = (request.headers.accept ?? '').includes('text/html') || !path.extname(pathname);
    if (wantsPage && hasSpa && navigation) {
      return reply.header('cache-control', 'no-cache').type('text/html').sendFile('index.html');
    }
    return reply.status(404).send(errorBody(404, [{ detail: `No route for ${request.method} ${pathname}` }]));
  });
}
