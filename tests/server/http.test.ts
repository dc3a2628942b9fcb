import { Type } from '@fastify/type-provider-typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { ApiError } from '../../server/http/errors';
import { createTestDatabase, testEngine, type TestDatabase } from './helpers/database';
import { TEST_CONFIG } from './helpers/app';
import type { FastifyInstance } from 'fastify';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await buildApp({ db, config: TEST_CONFIG });
  // Routes that exist only in this test, to drive the shared error handler.
  app.register(
    async (api) => {
      api.post(
        '/probe',
        { schema: { body: Type.Object({ user: Type.Object({ email: Type.String({ minLength: 3 }), age: Type.Integer() }) }) } },
        async () => ({ ok: true }),
      );
      api.get('/conflict', async () => {
        throw ApiError.of(409, 'Rule already present', '/line_name', 'already_present');
      });
      api.get('/crash', async () => {
        throw new Error('select * from secrets -- internal detail');
      });
    },
    { prefix: '/api/v11' },
  );
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await db.close();
});

describe('GET /api/v11/health', () => {
  it('answers status, version and the storage engine', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), api_version: 11, database: testEngine });
  });
});

describe('error shape', () => {
  it('answers an unknown API path with a JSON 404 in the spec shape', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/nothing/here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      errors: [{ detail: 'No route for GET /api/v11/nothing/here', status: '404', title: 'Not Found' }],
    });
  });

  it('reports each invalid field with a JSON pointer into the body', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v11/probe', payload: { user: { email: 'a' } } });
    expect(response.statusCode).toBe(400);
    const { errors } = response.json() as { errors: Array<{ source: { pointer: string }; detail: string; status: string }> };
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: { pointer: '/user/email' }, status: '400' }),
        expect.objectContaining({ source: { pointer: '/user/age' }, detail: 'age is required', status: '400' }),
      ]),
    );
  });

  it('rejects a malformed JSON body with 400, not 500', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v11/probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"user":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].status).toBe('400');
  });

  it('passes a deliberate API error through with its pointer and code', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/conflict' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      errors: [{ source: { pointer: '/line_name' }, detail: 'Rule already present', code: 'already_present', status: '409', title: 'Conflict' }],
    });
  });

  it('hides the internals of an unexpected failure', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/crash' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ errors: [{ detail: 'Something went wrong', status: '500', title: 'Internal Server Error' }] });
    expect(response.body).not.toContain('secrets');
    expect(response.body).not.toContain('at ');
  });
});

describe('API contract', () => {
  it('serves the OpenAPI document with every API route', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; paths: Record<string, unknown>; servers: unknown };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/health');
    expect(document.servers).toEqual([{ url: '/api/v11' }]);
  });

  it('renders browsable docs', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v11/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('swagger-ui');
  });
});

/**
 * Every app a process builds shares the compiled route schemas (server/http/schemaCompilers.ts),
 * by the schemas' content: an app whose route at the same address has other rules answers by
 * its own rules, in both directions (what it accepts and what it sends).
 */
describe('route schemas compiled once per process', () => {
  async function appWith(minLength: number, sends: 'name' | 'name and secret'): Promise<{ app: FastifyInstance; db: TestDatabase }> {
    const own = await createTestDatabase();
    const built = await buildApp({ db: own, config: TEST_CONFIG });
    built.register(
      async (api) => {
        api.post(
          '/shared_probe',
          {
            schema: {
              body: Type.Object({ code: Type.String({ minLength }) }),
              response: { 200: sends === 'name' ? Type.Object({ name: Type.String() }) : Type.Object({ name: Type.String(), secret: Type.String() }) },
            },
          },
          async () => ({ name: 'probe', secret: 'kept out unless the schema names it' }),
        );
      },
      { prefix: '/api/v11' },
    );
    await built.ready();
    return { app: built, db: own };
  }

  it('validates and serializes each app by its own schemas', async () => {
    const strict = await appWith(5, 'name');
    const lenient = await appWith(2, 'name and secret');
    try {
      const send = (target: FastifyInstance, code: string) => target.inject({ method: 'POST', url: '/api/v11/shared_probe', payload: { code } });
      expect((await send(strict.app, 'abc')).statusCode).toBe(400);
      const accepted = await send(lenient.app, 'abc');
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toEqual({ name: 'probe', secret: 'kept out unless the schema names it' });
      const strictAccepted = await send(strict.app, 'abcdef');
      expect(strictAccepted.json()).toEqual({ name: 'probe' });
      expect((await send(lenient.app, 'a')).statusCode).toBe(400);
    } finally {
      await Promise.all([strict, lenient].map(async ({ app: built, db: own }) => (await built.close(), await own.close())));
    }
  });
});
