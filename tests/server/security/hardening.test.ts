import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config';
import { chooseDemoPassword, isLoopbackHost, PUBLISHED_DEMO_PASSWORD } from '../../../server/demo/password';
import { LONE_SURROGATE_NOT_ALLOWED } from '../../../server/http/hardening';
import { RATE_RULES } from '../../../server/http/rateLimits';
import { createTestApp, TEST_CONFIG, type TestApp } from '../helpers/app';

/** Global rules of the HTTP layer: headers, strict bodies, NUL characters, rate limits, the dev outbox, e-mail links, the demo password. */

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('security headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers with a CSP that forbids framing, no sniffing, no referrer, and no-store on the API', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v11/health' });
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends HSTS only over TLS', async () => {
    const proxied = await createTestApp({ config: { ...TEST_CONFIG, trustProxy: '127.0.0.1' } });
    try {
      const response = await proxied.app.inject({ method: 'GET', url: '/api/v11/health', headers: { 'x-forwarded-proto': 'https' } });
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=31536000/);
    } finally {
      await proxied.close();
    }
  });

  it('never lets a sign-in answer, which carries a token, be cached', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/users/sign_in', ...json({ user: { email: 'nobody@example.com', password: 'wrong-password-1' } }) });
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('request bodies and strings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses a body key the route does not name, naming it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v11/users/sign_in',
      ...json({ user: { email: 'a@example.com', password: 'x-password-1', account_id: 'acc_other' } }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      errors: [expect.objectContaining({ source: { pointer: '/user/account_id' }, detail: 'account_id is not a known property', status: '400' })],
    });
  });

  it.each([
    ['a JSON body', { method: 'POST' as const, url: '/api/v11/users/sign_in', ...json({ user: { email: 'a\u0000@example.com', password: 'x' } }) }, '/user/email'],
    ['a query value', { method: 'GET' as const, url: '/api/v11/business_reports/by_secret?secret=abc%00def' }, '/querystring/secret'],
    ['a path parameter', { method: 'GET' as const, url: '/api/v11/invitations/abc%00def' }, '/params/token'],
    ['the demo token', { method: 'GET' as const, url: '/api/v11/demo?token=%00' }, '/querystring/token'],
  ])('answers 400 for a NUL character in %s, before anything reaches the database', async (_label, request, pointer) => {
    const response = await t.app.inject(request);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0]).toMatchObject({ source: { pointer }, code: 'nul_character' });
  });
});

describe('lone surrogates', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['a string', '{"user":{"email":"a\\ud800@example.com","password":"x"}}', '/user/email'],
    ['a low half before its high half', '{"user":{"email":"\\udfff\\ud800@example.com","password":"x"}}', '/user/email'],
    ['a key', '{"user":{"email":"a@example.com","password":"x","\\ud800":1}}', '/user/\ud800'],
  ])('answers 400 for a lone surrogate in %s of a JSON body, naming it', async (_label, payload, pointer) => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/users/sign_in', headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0]).toMatchObject({ source: { pointer }, code: 'lone_surrogate', detail: LONE_SURROGATE_NOT_ALLOWED });
  });

  it('takes a surrogate pair (an emoji) as the text it is', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v11/users/sign_in', ...json({ user: { email: '🙂@example.com', password: 'x-password-1' } }) });
    expect(response.statusCode).toBe(401);
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { ...TEST_CONFIG, rateLimitScale: 1 } });
  });
  afterAll(() => t.close());

  it('limits password-reset e-mails per client address with a 429 that says when to retry', async () => {
    const rule = RATE_RULES['POST /users/password'];
    expect(rule).toBeDefined();
    const send = (ip: string) =>
      t.app.inject({ method: 'POST', url: '/api/v11/users/password', remoteAddress: ip, ...json({ user: { email: 'someone@example.com' } }) });
    for (let index = 0; index < (rule?.max ?? 0); index += 1) expect((await send('10.0.0.7')).statusCode).not.toBe(429);
    const refused = await send('10.0.0.7');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().errors[0]).toMatchObject({ status: '429', code: 'rate_limited', detail: expect.stringMatching(/^Too many requests\. Try again in \d+ (seconds|minutes)\.$/) });
    // Another address has its own allowance.
    expect((await send('10.0.0.8')).statusCode).not.toBe(429);
  });

  it('documents the 429 of every limited operation in the API document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/v11/openapi.json' })).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    // The /cable upgrade is not an operation of the document (docs/cable.md describes it).
    for (const key of Object.keys(RATE_RULES).filter((rule) => rule !== 'GET /cable')) {
      const [method, path] = key.split(' ') as [string, string];
      const operation = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      expect(operation, key).toBeDefined();
      expect(operation?.responses['429'], key).toBeDefined();
    }
  });
});

describe('the development outbox', () => {
  it('does not exist unless enabled', async () => {
    const t = await createTestApp({ config: { ...TEST_CONFIG, devOutbox: false } });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/api/v11/dev/outbox' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('answers only clients on this machine, whatever X-Forwarded-For says', async () => {
    const t = await createTestApp({ config: { ...TEST_CONFIG, trustProxy: true } });
    try {
      const local = await t.app.inject({ method: 'GET', url: '/api/v11/dev/outbox', remoteAddress: '127.0.0.1' });
      expect(local.statusCode).toBe(200);
      const remote = await t.app.inject({ method: 'GET', url: '/api/v11/dev/outbox', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
      expect(remote.statusCode).toBe(404);
      expect(remote.body).not.toContain('items');
    } finally {
      await t.close();
    }
  });

  it('is never enabled in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', SUBSCOPE_DEV_OUTBOX: 'true', PUBLIC_URL: 'https://app.example.com', JWT_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/subscope-config-test' });
    expect(config.devOutbox).toBe(false);
  });
});

describe('links in e-mails', () => {
  it('come from PUBLIC_URL, never from the Host header', async () => {
    const t = await createTestApp({ config: { ...TEST_CONFIG, publicUrl: 'https://app.example.com' } });
    try {
      const email = `host.${Date.now()}@example.com`;
      await t.app.inject({ method: 'POST', url: '/api/v11/users', ...json({ user: { email, password: 'quiet-orbit-lantern-42', name: 'Host Test' } }) });
      await t.app.inject({ method: 'POST', url: '/api/v11/users/password', headers: { host: 'evil.example.net', 'x-forwarded-host': 'evil.example.net', 'content-type': 'application/json' }, payload: JSON.stringify({ user: { email } }) });
      const outbox = (await t.app.inject({ method: 'GET', url: `/api/v11/dev/outbox?to=${encodeURIComponent(email)}` })).json() as { items: Array<{ text: string }> };
      expect(outbox.items[0]?.text).toContain('https://app.example.com/reset_password/');
      expect(outbox.items[0]?.text).not.toContain('evil.example.net');
    } finally {
      await t.close();
    }
  });

  it('come from the local origin in development, not from the Host header', async () => {
    const t = await createTestApp();
    try {
      const email = `local.${Date.now()}@example.com`;
      await t.app.inject({ method: 'POST', url: '/api/v11/users', ...json({ user: { email, password: 'quiet-orbit-lantern-42', name: 'Local Test' } }) });
      await t.app.inject({ method: 'POST', url: '/api/v11/users/password', headers: { host: 'evil.example.net', 'content-type': 'application/json' }, payload: JSON.stringify({ user: { email } }) });
      const outbox = (await t.app.inject({ method: 'GET', url: `/api/v11/dev/outbox?to=${encodeURIComponent(email)}` })).json() as { items: Array<{ text: string }> };
      expect(outbox.items[0]?.text).toMatch(/http:\/\/localhost:\d+\/reset_password\//);
      expect(outbox.items[0]?.text).not.toContain('evil.example.net');
    } finally {
      await t.close();
    }
  });

  it('production refuses to start without PUBLIC_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/subscope-config-test' })).toThrow(/PUBLIC_URL must be set in production/);
  });
});

describe('the demo password', () => {
  it('is the published one only on a loopback-only instance', () => {
    expect(chooseDemoPassword({ host: '127.0.0.1', configured: undefined })).toEqual({ password: PUBLISHED_DEMO_PASSWORD, generated: false });
    expect(chooseDemoPassword({ host: 'localhost', configured: undefined }).password).toBe(PUBLISHED_DEMO_PASSWORD);
    const reachable = chooseDemoPassword({ host: '0.0.0.0', configured: undefined });
    expect(reachable.generated).toBe(true);
    expect(reachable.password).not.toBe(PUBLISHED_DEMO_PASSWORD);
    expect(reachable.password.length).toBeGreaterThanOrEqual(32);
    expect(chooseDemoPassword({ host: '0.0.0.0', configured: undefined }).password).not.toBe(reachable.password);
  });

  it('refuses the published value even when configured on a reachable instance, and keeps any other configured one', () => {
    expect(chooseDemoPassword({ host: '0.0.0.0', configured: PUBLISHED_DEMO_PASSWORD }).generated).toBe(true);
    expect(chooseDemoPassword({ host: '::', configured: 'operator-chosen-secret' })).toEqual({ password: 'operator-chosen-secret', generated: false });
  });

  it('knows which listen addresses are loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com'].some(isLoopbackHost)).toBe(false);
  });

  it('defaults the listen address to loopback', () => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/subscope-config-test' }).host).toBe('127.0.0.1');
  });
});
