import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { startQueue, type JobQueue } from '../../../server/jobs/queue';
import { MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT, tooManyExportsMessage } from '../../../server/routes/sectionExports';
import { signUp, TestClock, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * Details exports wait in the job queue until a worker takes them. With no worker running
 * (every worker busy), one account's flood of exports stops at its own cap instead of
 * queueing ahead of every other account.
 */
describe(`details exports per account on ${testEngine}`, () => {
  let db: TestDatabase;
  let queue: JobQueue;
  let app: FastifyInstance;
  let flooder: SignedUp;
  let neighbour: SignedUp;
  const sections = new Map<string, string>();

  async function seed(who: SignedUp, customer: string): Promise<void> {
    const account = who.user.account_id;
    await db.kysely.insertInto('customers').values({ account_id: account, id: customer, name: `Customer ${customer}`, public_id: null }).execute();
    await db.kysely
      .insertInto('payments')
      .values({ account_id: account, id: `subh0000000${customer}`, customer_id: customer, started_at: '2025-06-01', ended_at: '2026-06-01', duration_in_months: 12, total_value: 120_000, currency: 'USD', invoice_number: null, external_id: null, import_id: null })
      .execute();
    const created = await app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: who.authorization }, payload: { title: 'Fairness', sections: [{ definition_id: 'mrr' }] } });
    expect(created.statusCode, created.body).toBe(201);
    await app.reports.settled();
    const read = await app.inject({ method: 'GET', url: `/api/v11/business_reports/by_secret?secret=${(created.json() as { secret: string }).secret}`, headers: { authorization: who.authorization } });
    sections.set(who.user.id, (read.json() as { sections: Array<{ id: string }> }).sections[0]?.id as string);
  }

  const exportDetails = (who: SignedUp) =>
    app.inject({ method: 'POST', url: `/api/v11/business_report/sections/${sections.get(who.user.id) ?? ''}/export_details?date=2025-12-01`, headers: { authorization: who.authorization } });

  beforeAll(async () => {
    db = await createTestDatabase();
    queue = await startQueue(db, { pollingIntervalSeconds: 0.5 });
    app = await buildApp({ config: TEST_CONFIG, db, queue, now: new TestClock().now });
    await app.ready();
    flooder = await signUp(app);
    neighbour = await signUp(app);
    await seed(flooder, 'fl1');
    await seed(neighbour, 'nb1');
  });
  afterAll(async () => {
    await app?.close();
    await queue?.stop();
    await db?.close();
  });

  it('accepts a few at once per account, refuses the rest with 429, and leaves other accounts unaffected', async () => {
    const answers = await Promise.all(Array.from({ length: MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT + 4 }, () => exportDetails(flooder)));
    const codes = answers.map((answer) => answer.statusCode).sort();
    expect(codes.filter((code) => code === 202)).toHaveLength(MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT);
    expect(codes.filter((code) => code === 429)).toHaveLength(4);
    const refused = answers.find((answer) => answer.statusCode === 429);
    expect(refused?.json().errors[0]).toMatchObject({ detail: tooManyExportsMessage(MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT), code: 'exports_in_progress' });
    const { rows } = await db.executeSql("select count(*)::int as n from pgboss.job where name like '%export%'");
    expect((rows[0] as { n: number }).n).toBe(MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT);

    const other = await exportDetails(neighbour);
    expect(other.statusCode, other.body).toBe(202);
  });
});
