import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStartCommand } from '../../../e2e/support/server';
import { CableClient, tokenOf } from '../cable/support';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * Scale-out as docs/scaling.md describes it, with real processes: two API instances
 * (`npm start` with WORKERS=false, each on its own port) and one `npm run worker`, on one fresh
 * PostgreSQL database, and clients that talk to one instance or the other as a load balancer
 * would send them. Nothing here waits for time: every step waits for what it expects, with a
 * generous deadline (the machine running the suite may be busy).
 *
 * PostgreSQL only (embedded PGlite is one process); CI always runs the server project on
 * PostgreSQL. On PGlite the file checks that `npm run worker` refuses to start.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const DEADLINE_MS = 60_000;
const JWT_SECRET = 'scale-out-test-secret-shared-by-every-instance';

interface Child {
  name: string;
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const children: Child[] = [];
const dataDirs: string[] = [];

/** Starts `npm start` or `npm run worker` as the package scripts do (without npm), and keeps it for afterAll. */
function spawnScript(name: string, script: 'start' | 'worker', env: NodeJS.ProcessEnv): Child {
  const command = npmStartCommand(script);
  const dataDir = mkdtempSync(path.join(tmpdir(), `subscope-scale-${name}-`));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, command.args, {
    cwd: root,
    env: {
      ...process.env,
      ...command.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      JWT_SECRET,
      ECB_FEED_URL: 'off',
      SEED_DEMO: 'false',
      SKIP_SPA_BUILD: 'true',
      SUBSCOPE_TEST_ROUTES: 'true',
      RATE_LIMIT_SCALE: '100',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: Child = { name, process: child, output: () => log, exited };
  children.push(started);
  return started;
}

/** Resolves with the first match of `pattern` in the child's output; fails when it exits or the deadline passes. */
async function waitForOutput(child: Child, pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match;
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}:\n${child.output()}`);
    if (Date.now() > deadline) throw new Error(`${child.name}: no ${String(pattern)} in ${timeoutMs} ms:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `probe` until it answers something `done` accepts; fails with the last answer after the deadline. */
async function until<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function stopAll(): Promise<void> {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await child.exited;
    }),
  );
}

describe(`scale-out: two API instances and a worker on ${testEngine}`, () => {
  afterAll(async () => {
    await stopAll();
    for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  if (testEngine === 'pglite') {
    it('refuses to start `npm run worker` on embedded PGlite, which serves one process', async () => {
      const worker = spawnScript('pglite-worker', 'worker', { DATABASE_URL: '' });
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain('Embedded PGlite serves one process');
    }, 120_000);
  }

  if (testEngine === 'postgresql') {
    describe('on one PostgreSQL database', () => {
      let database: TestDatabase;
      let a: string;
      let b: string;
      let worker: Child;
      let authorization: string;
      let report: { id: string; secret: string };
      const cables: CableClient[] = [];

      const call = async (base: string, method: string, suffix: string, options: { authorization?: string; body?: unknown; form?: FormData } = {}) => {
        const headers: Record<string, string> = {};
        if (options.authorization) headers.authorization = options.authorization;
        if (options.body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(`${base}/api/v11${suffix}`, { method, headers, body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      };

      beforeAll(async () => {
        // A fresh, empty database: the three processes start at once and set it up once between
        // them (migrations under an advisory lock, pg-boss's schema, the shipped exchange rates).
        database = await createTestDatabase({ migrate: false });
        const env = { DATABASE_URL: database.url, WORKERS: 'false' };
        const instanceA = spawnScript('api-a', 'start', env);
        const instanceB = spawnScript('api-b', 'start', env);
        worker = spawnScript('worker', 'worker', { DATABASE_URL: database.url });
        const running = /Subscope is running at (http:\/\/\S+)/;
        const [matchA, matchB] = await Promise.all([waitForOutput(instanceA, running), waitForOutput(instanceB, running), waitForOutput(worker, /Workers started; waiting for jobs\./)]);
        a = matchA[1] as string;
        b = matchB[1] as string;
        expect(new URL(a).port).not.toBe(new URL(b).port);

        const signUp = await call(a, 'POST', '/users', { body: { user: { email: `scale.${Date.now()}@example.com`, password: 'quiet-orbit-lantern-42', name: 'Scale Owner' } } });
        expect(signUp.status).toBe(201);
        authorization = signUp.headers.get('authorization') as string;
      }, 180_000);

      afterAll(async () => {
        await Promise.all(cables.map((cable) => cable.close()));
        await stopAll();
        await database?.close();
      });

      it('takes an import started on instance A on the worker, and instance B polls it to completion', async () => {
        // Two customers over 2025 and 2026, a month at a time: something for the report to show.
        const rows: string[] = [];
        for (let month = 0; month < 18; month++) {
          const start = new Date(Date.UTC(2025, month, 1)).toISOString().slice(0, 10);
          const end = new Date(Date.UTC(2025, month + 1, 1)).toISOString().slice(0, 10);
          rows.push(`cus-1,${start},${end},100`, `cus-2,${start},${end},${month < 6 ? 0 : 50}`);
        }
        const form = new FormData();
        form.append('column_order', 'customer_id,started_at,ended_at,monthly_amount');
        form.append('paying_customers', new Blob([rows.join('\n')], { type: 'text/csv' }), 'payments.csv');
        const upload = await call(a, 'POST', '/subscriptions/csv_import', { authorization, form });
        expect(upload.status, JSON.stringify(upload.body)).toBe(200);
        const id = String(upload.body.id);

        const finished = await until(
          'the import, polled on B',
          async () => (await call(b, 'GET', `/subscriptions/csv_import/${id}`, { authorization })).body as { status?: string; result?: { success_count?: number; failure_count?: number } },
          (view) => view.status === 'done' || view.status === 'failed',
        );
        expect(finished).toMatchObject({ status: 'done', result: { success_count: rows.length, failure_count: 0 } });
        // The queue's job did it: API instances with WORKERS=false only send jobs, and the worker is the only process working them.
        const job = await database.executeSql(`select state from pgboss.job where name = 'imports.subscriptions' and singleton_key = $1`, [id]);
        expect(job.rows).toEqual([{ state: 'completed' }]);
        expect((await call(b, 'GET', '/test/payment_count', { authorization })).body).toEqual({ count: rows.length });
      }, 120_000);

      it('hears on instance B a recalculation asked of A, and one taken by the worker, with fresh by_secret answers on B', async () => {
        const created = await call(a, 'POST', '/business_reports', { authorization, body: { title: 'Scale-out overview', sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        report = created.body as { id: string; secret: string };

        const cable = await CableClient.connect(b, { api_version: '11', token: tokenOf(authorization) });
        cables.push(cable);
        const identifier = JSON.stringify({ channel: 'BusinessReportChannel', secret: report.secret });
        expect(await cable.subscribeAndWait(identifier)).toBe('confirm_subscription');
        type ReportMessage = { object?: string; recalculation_status?: string; refreshed_at?: string | null };
        const reportStates = (from: number) =>
          cable.frames
            .slice(from)
            .filter((frame) => frame.identifier === identifier && frame.type === undefined)
            .map((frame) => frame.message as ReportMessage)
            .filter((message) => message.object === 'business_report');
        /** Waits, from frame `from` on, for the report's state 'recalculating' and then 'recalculated'; answers the latter. */
        const recalculation = async (from: number): Promise<ReportMessage> => {
          await cable.waitFor(() => {
            const states = reportStates(from);
            const started = states.findIndex((state) => state.recalculation_status === 'recalculating');
            return started >= 0 && states.slice(started).some((state) => state.recalculation_status === 'recalculated');
          }, DEADLINE_MS, 'a recalculation start and end on B');
          const states = reportStates(from);
          return states.slice(states.findIndex((state) => state.recalculation_status === 'recalculating')).find((state) => state.recalculation_status === 'recalculated') as ReportMessage;
        };
        const bySecretOnB = async () => {
          const answer = await call(b, 'GET', `/business_reports/by_secret?secret=${report.secret}`, { authorization });
          expect(answer.status).toBe(200);
          return answer.body as { title: string; recalculation_status: string; refreshed_at: string | null; sections: { recalculation_status: string }[] };
        };

        // The creation's own recalculation (run by A) ends before anything else is asked.
        await until('the first recalculation', bySecretOnB, (view) => view.recalculation_status === 'recalculated');
        // B has the answer cached now; what follows is written by A and by the worker.
        const first = await bySecretOnB();

        // A refresh asked of A: A runs it (it holds the account's metrics snapshot) and B's subscriber hears it.
        let mark = cable.frames.length;
        const refresh = await call(a, 'POST', `/business_reports/${report.id}/refresh`, { authorization });
        expect(refresh.status).toBe(202);
        const byA = await recalculation(mark);
        expect(byA.refreshed_at).not.toBe(first.refreshed_at);
        const afterA = await bySecretOnB();
        expect(afterA).toMatchObject({ recalculation_status: 'recalculated', refreshed_at: byA.refreshed_at });

        // The daily refresh job, taken from the queue by the worker (the API instances work no jobs).
        mark = cable.frames.length;
        const boss = new PgBoss({ connectionString: database.url, supervise: false, schedule: false, migrate: false });
        await boss.start();
        try {
          expect(await boss.send('reports.daily_refresh', {})).toEqual(expect.any(String));
        } finally {
          await boss.stop({ graceful: false });
        }
        const byWorker = await recalculation(mark);
        await waitForOutput(worker, /Scheduled reports: 1 report\(s\) with auto refresh recalculated/, DEADLINE_MS);
        expect(byWorker.refreshed_at).not.toBe(byA.refreshed_at);
        // B's cached answer is not served once the worker's results are in: the next request has them.
        const afterWorker = await bySecretOnB();
        expect(afterWorker).toMatchObject({ recalculation_status: 'recalculated', refreshed_at: byWorker.refreshed_at });
        expect(afterWorker.sections.every((section) => section.recalculation_status === 'recalculated')).toBe(true);
      }, 120_000);

      it('answers by_secret on B with a title edited through A at once', async () => {
        const before = await call(b, 'GET', `/business_reports/by_secret?secret=${report.secret}`, { authorization });
        expect(before.body).toMatchObject({ title: 'Scale-out overview' });
        const edit = await call(a, 'PUT', `/business_reports/${report.id}`, { authorization, body: { title: 'Renamed on A' } });
        expect(edit.status, JSON.stringify(edit.body)).toBe(200);
        const after = await call(b, 'GET', `/business_reports/by_secret?secret=${report.secret}`, { authorization });
        expect(after.body).toMatchObject({ title: 'Renamed on A' });
        expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      }, 120_000);

      it('refuses on B, at once, a token signed out on A, and closes its open connection on B', async () => {
        // A second session of the same user: it has to stay valid.
        const signIn = await call(b, 'POST', '/users/sign_in', { body: { user: { email: ((await call(a, 'GET', '/users/me', { authorization })).body.user as { email: string }).email, password: 'quiet-orbit-lantern-42' } } });
        expect(signIn.status).toBe(200);
        const other = signIn.headers.get('authorization') as string;

        const cable = await CableClient.connect(b, { api_version: '11', token: tokenOf(authorization) });
        cables.push(cable);
        await cable.waitFor((frame) => frame.type === 'welcome', DEADLINE_MS, 'the welcome on B');
        expect((await call(b, 'GET', '/users/me', { authorization })).status).toBe(200);

        expect((await call(a, 'DELETE', '/users/sign_out', { authorization })).status).toBe(204);
        // The very next request on B: no cache of accepted tokens anywhere.
        expect((await call(b, 'GET', '/users/me', { authorization })).status).toBe(401);
        expect((await call(b, 'GET', '/users/me', { authorization: other })).status).toBe(200);
        // B heard the revocation (NOTIFY from A's transaction) and ended the connection of that token.
        const disconnect = await cable.waitFor((frame) => frame.type === 'disconnect', DEADLINE_MS, 'a disconnect on B');
        expect(disconnect).toMatchObject({ reason: 'unauthorized', reconnect: false });
        await cable.closed;
      }, 120_000);
    });
  }
});
