import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../e2e/support/server';
import { copyBootedPGliteDataDir, createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * The real server process killed with SIGKILL while it imports (at a different moment each
 * round: early, while uploading, and late, while validating or committing), then started again on the same data: the import
 * ends either done with every row or failed with none, and importing the file again adds
 * nothing twice.
 */
const ROWS = 3_000;
const CSV = Array.from({ length: ROWS }, (_, k) => `cus-${k % 700},${2024 + Math.floor(k / 700)}-0${1 + (k % 9)}-01,${2024 + Math.floor(k / 700)}-${String(2 + (k % 9)).padStart(2, '0')}-01,${10 + (k % 50)}.5`).join('\n');
/** Milliseconds after the upload starts at which the process is killed, one round each. */
const KILL_AFTER_MS = [40, 1_200];

interface ImportView {
  status: string;
  result: { status: string; success_count: number; failure_count: number };
}

describe(`an import killed mid-way on ${testEngine}`, () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  const env: NodeJS.ProcessEnv = { SKIP_SPA_BUILD: 'true', SEED_DEMO: 'false' };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'subscope-crash-'));
    if (testEngine === 'postgresql') {
      database = await createTestDatabase({ migrate: false });
      env.DATABASE_URL = database.url;
    } else {
      // The embedded cluster as a first boot leaves it (the first start is not what is tested).
      await copyBootedPGliteDataDir(dataDir);
    }
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (suffix: string) => `${server?.url}/api/v11${suffix}`;

  async function signUp(): Promise<string> {
    const response = await fetch(api('/users'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { email: `crash.${Date.now()}@example.com`, password: 'quiet-orbit-lantern-42', name: 'Owner' } }),
    });
    expect(response.status).toBe(201);
    return response.headers.get('authorization') as string;
  }

  function upload(authorization: string): Promise<Response> {
    const form = new FormData();
    form.append('column_order', 'customer_id,started_at,ended_at,monthly_amount');
    form.append('paying_customers', new Blob([CSV], { type: 'text/csv' }), 'payments.csv');
    return fetch(api('/subscriptions/csv_import'), { method: 'POST', headers: { authorization }, body: form });
  }

  async function view(authorization: string, id: string): Promise<ImportView> {
    return (await (await fetch(api(`/subscriptions/csv_import/${id}`), { headers: { authorization } })).json()) as ImportView;
  }

  async function waitFinished(authorization: string, id: string): Promise<ImportView> {
    for (let attempt = 0; attempt < 300; attempt++) {
      const current = await view(authorization, id);
      if (current.status === 'done' || current.status === 'failed') return current;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`import ${id} did not finish`);
  }

  async function paymentCount(authorization: string): Promise<number> {
    const response = await fetch(api('/test/payment_count'), { headers: { authorization } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { count: number }).count;
  }

  it.each(KILL_AFTER_MS)('killed %i ms into an import: nothing lost, nothing doubled after a restart', async (killAfter) => {
    server = await startServer({ dataDir, env });
    const authorization = await signUp();
    const uploading = upload(authorization).then(
      async (response) => ({ status: response.status, body: (await response.json()) as { id?: string } }),
      () => null,
    );
    await new Promise((resolve) => setTimeout(resolve, killAfter));
    await server.stop('SIGKILL');
    const answered = await uploading;

    server = await startServer({ dataDir, env });
    const known = answered?.body.id ? [answered.body.id] : (await importsOf(authorization)).map((i) => i.id);
    for (const id of known) {
      const finished = await waitFinished(authorization, id);
      const count = await paymentCount(authorization);
      if (finished.status === 'done') expect(count).toBe(ROWS);
      else expect(count).toBe(0);
    }
    // The same file again: everything is there once.
    const again = await upload(authorization);
    expect(again.status).toBe(200);
    const second = await waitFinished(authorization, ((await again.json()) as { id: string }).id);
    expect(second.status).toBe('done');
    expect(second.result.success_count).toBe(ROWS);
    expect(await paymentCount(authorization)).toBe(ROWS);
    await server.stop('SIGTERM');
    server = undefined;
  }, 120_000);

  /** The account's imports, through the test routes (the upload's answer may have been cut off). */
  async function importsOf(authorization: string): Promise<{ id: string; status: string }[]> {
    const response = await fetch(api('/test/imports'), { headers: { authorization } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { imports: { id: string; status: string }[] }).imports;
  }
});
