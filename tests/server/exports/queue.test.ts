import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { startQueue, type JobQueue } from '../../../server/jobs/queue';
import { SECTION_DETAILS_EXPORT_JOB } from '../../../server/reports/exports/sectionDetails';
import { registerExportWorkers } from '../../../server/reports/exports/workers';
import { signUp, TestClock, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * With a job queue, a details export is a pg-boss job: it waits in the database until a worker
 * (any process running registerExportWorkers) takes it, and then the file is there.
 */
describe(`details exports through the job queue on ${testEngine}`, () => {
  let db: TestDatabase;
  let queue: JobQueue;
  let app: FastifyInstance;
  let owner: SignedUp;

  beforeAll(async () => {
    db = await createTestDatabase();
    queue = await startQueue(db, { pollingIntervalSeconds: 0.5 });
    app = await buildApp({ config: TEST_CONFIG, db, queue, now: new TestClock().now });
    await app.ready();
    owner = await signUp(app);
    const account = owner.user.account_id;
    await db.kysely.insertInto('customers').values({ account_id: account, id: 'c1', name: 'Queued Customer', public_id: null }).execute();
    await db.kysely
      .insertInto('payments')
      .values({ account_id: account, id: 'subh00000000qu1', customer_id: 'c1', started_at: '2025-06-01', ended_at: '2026-06-01', duration_in_months: 12, total_value: 120_000, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
      .execute();
  });
  afterAll(async () => {
    await app?.close();
    await queue?.stop();
    await db?.close();
  });

  /** The pg-boss job of an export (its singleton key is the export's id), as stored. */
  const queuedJob = async (exportId: string) => {
    const { rows } = await db.executeSql('select state, data from pgboss.job where name = $1 and singleton_key = $2', [SECTION_DETAILS_EXPORT_JOB, exportId]);
    expect(rows.length).toBeLessThanOrEqual(1);
    return rows[0] as { state: string; data: { exportId?: string } } | undefined;
  };

  it('stays in progress until a worker takes the job, then the file is ready', async () => {
    const created = await app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: owner.authorization }, payload: { title: 'queued', sections: [{ definition_id: 'mrr' }] } });
    expect(created.statusCode, created.body).toBe(201);
    await app.reports.settled();
    const { secret } = created.json() as { secret: string };
    const report = await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${secret}`, headers: { authorization: owner.authorization } });
    const sectionId = (report.json() as { sections: { id: string }[] }).sections[0]?.id;

    const started = await app.inject({ method: 'POST', url: `/api/v11/business_report/sections/${sectionId}/export_details?date=2026-02-01`, headers: { authorization: owner.authorization } });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json() as { id: string };
    const status = async () => (await app.inject({ method: 'GET', url: `/api/v11/section_exports/${id}`, headers: { authorization: owner.authorization } })).json() as { status: string; url: string | null };

    // The 202 came after the job was written: it waits in pg-boss's table, taken by no one,
    // and the export is still in progress (it does not run in this process).
    const job = await queuedJob(id);
    expect(job).toMatchObject({ state: 'created', data: { exportId: id } });
    expect(await status()).toMatchObject({ status: 'in_progress', url: null });

    await registerExportWorkers(queue, db, { error: () => {} });
    await expect.poll(async () => (await status()).status, { timeout: 20_000 }).toBe('done');
    // It was the worker that made the file: pg-boss has the job completed.
    await expect.poll(async () => (await queuedJob(id))?.state, { timeout: 20_000 }).toBe('completed');
    const file = await app.inject({ method: 'GET', url: (await status()).url as string });
    expect(file.statusCode).toBe(200);
    expect(file.body).toContain('c1,Queued Customer,100\r\n');
  });
});
