import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerFetch, retryAfterMs } from '../../../server/integrations/http';
import { openSecrets, sealSecrets, secretsKeyOf } from '../../../server/integrations/secrets';

/** Credentials sealed at rest (AES-256-GCM) and the provider fetch's retries. */

describe('integration secrets', () => {
  const key = Buffer.alloc(32, 1);

  it('seals so the sealed form holds no secret, differs each time, and opens back', () => {
    const secrets = { chargebee_api_key: 'live_secret_value' };
    const one = sealSecrets(key, secrets);
    const two = sealSecrets(key, secrets);
    expect(JSON.stringify(one)).not.toContain('live_secret_value');
    expect(one).not.toEqual(two);
    expect(openSecrets(key, one)).toEqual(secrets);
    expect(openSecrets(key, null)).toEqual({});
  });

  it('refuses another key and a changed sealed form', () => {
    const sealed = sealSecrets(key, { token: 'abc' });
    expect(() => openSecrets(Buffer.alloc(32, 2), sealed)).toThrow();
    expect(() => openSecrets(key, { ...sealed, data: Buffer.from('tampered').toString('base64') })).toThrow();
    expect(() => sealSecrets(Buffer.alloc(16), {})).toThrow();
  });

  it('uses the configured key, else one random key per process', () => {
    expect(secretsKeyOf({ integrationSecretsKey: key })).toBe(key);
    expect(secretsKeyOf({})).toHaveLength(32);
    expect(secretsKeyOf({})).toBe(secretsKeyOf({}));
  });
});

describe('provider fetch', () => {
  let url = '';
  const answers: { status: number; headers?: Record<string, string> }[] = [];
  let calls = 0;
  const server = createServer((_request, response) => {
    calls += 1;
    const answer = answers.shift() ?? { status: 200 };
    response.writeHead(answer.status, answer.headers ?? {}).end(String(answer.status));
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('retries 429 and 5xx up to its limit, then hands back the last answer; other answers are not retried', async () => {
    calls = 0;
    answers.push({ status: 429, headers: { 'retry-after': '0' } }, { status: 502 }, { status: 200 });
    expect((await providerFetch({ baseDelayMs: 1 })(url)).status).toBe(200);
    expect(calls).toBe(3);
    calls = 0;
    answers.push({ status: 503 }, { status: 503 }, { status: 503 });
    expect((await providerFetch({ baseDelayMs: 1, maxAttempts: 3 })(url)).status).toBe(503);
    expect(calls).toBe(3);
    calls = 0;
    answers.push({ status: 401 });
    expect((await providerFetch({ baseDelayMs: 1 })(url)).status).toBe(401);
    expect(calls).toBe(1);
  });

  it('stops waiting when the sync is aborted', async () => {
    const controller = new AbortController();
    answers.push({ status: 429, headers: { 'retry-after': '30' } });
    const pending = providerFetch({ signal: controller.signal })(url);
    setTimeout(() => controller.abort(new Error('stopped')), 20);
    await expect(pending).rejects.toThrow('stopped');
  });
});
