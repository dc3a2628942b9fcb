import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';

let spaDir: string;
let ctx: TestApp;

beforeAll(async () => {
  spaDir = mkdtempSync(path.join(tmpdir(), 'subscope-spa-'));
  mkdirSync(path.join(spaDir, 'assets'));
  writeFileSync(path.join(spaDir, 'index.html'), '<!doctype html><div id="root">Subscope app</div>');
  writeFileSync(path.join(spaDir, 'assets/app-abc123.js'), 'console.log("app")');
  ctx = await createTestApp({ spaDir });
});

afterAll(async () => {
  await ctx.close();
  rmSync(spaDir, { recursive: true, force: true });
});

describe('the built SPA', () => {
  it.each(['/', '/reports/abc', '/customers/42', '/reports/abc/new-section/7', '/sign_in_via_token/eyJ.x.y'])(
    'answers the deep link %s with the app page',
    async (url) => {
      const response = await ctx.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('Subscope app');
    },
  );

  it('serves hashed assets with a long cache lifetime', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toContain('immutable');
  });

  it('answers a missing asset with 404 rather than the app page', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(response.statusCode).toBe(404);
  });

  it('never answers API, GraphQL or cable paths with the app page', async () => {
    for (const url of ['/api/v11/unknown', '/graphql/x', '/cable/x']) {
      const response = await ctx.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toHaveProperty('errors');
    }
  });
});
