import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database';
import { startQueue, type JobQueue } from '../../server/jobs/queue';
import { createTestDatabase, testEngine, type TestDatabase } from './helpers/database';

describe(`job queue on ${testEngine}`, () => {
  let db: TestDatabase;
  let queue: JobQueue;
  beforeAll(async () => {
    db = await createTestDatabase();
    queue = await startQueue(db, { pollingIntervalSeconds: 0.5 });
  });
  afterAll(async () => {
    await queue.stop();
    await db.close();
  });

  it('delivers a sent job to its worker with its data', async () => {
    const seen: Array<{ n: number }> = [];
    await queue.work<{ n: number }>('probe.deliver', async (data) => {
      seen.push(data);
    });
    await queue.send('probe.deliver', { n: 1 });
    await queue.send('probe.deliver', { n: 2 });
    await expect.poll(() => seen.map((d) => d.n).sort(), { timeout: 15_000 }).toEqual([1, 2]);
  });

  it('retries a job whose handler fails, until it succeeds', async () => {
    let attempts = 0;
    await queue.work('probe.retry', async () => {
      attempts += 1;
      if (attempts < 2) throw new Error('transient');
    });
    const id = await queue.send('probe.retry', {}, { retryLimit: 3, retryDelay: 1, retryBackoff: false });
    expect(id).toBeTruthy();
    await expect.poll(async () => (await queue.boss.getJobById('probe.retry', id!))?.state, { timeout: 20_000 }).toBe('completed');
    expect(attempts).toBe(2);
  });

  it('keeps jobs in the database: a job sent before any worker runs is taken later', async () => {
    const id = await queue.send('probe.later', { keep: true });
    const stored = await queue.boss.getJobById('probe.later', id!);
    expect(stored?.state).toBe('created');
    const seen: unknown[] = [];
    await queue.work('probe.later', async (data) => {
      seen.push(data);
    });
    await expect.poll(() => seen, { timeout: 15_000 }).toEqual([{ keep: true }]);
  });

  it('creates queues with their options while another process creates the same ones at once', async () => {
    // On PostgreSQL the other process has its own pool: truly concurrent creations, which can
    // deadlock inside pg-boss (two instances and a worker booting together); on PGlite, one session.
    const other = db.url ? await openDatabase({ kind: 'postgresql', url: db.url, poolSize: 4 }) : db;
    const otherQueue = await startQueue(other, { supervise: false });
    try {
      const names = Array.from({ length: 6 }, (_, k) => `probe.race${k}`);
      const options = { retryLimit: 3, retryBackoff: true, expireInSeconds: 4 * 3600 };
      await Promise.all([queue, otherQueue].flatMap((q) => names.map((name) => q.ensureQueue(name, options))));
      for (const name of names) expect(await queue.boss.getQueue(name), name).toMatchObject({ name, expireInSeconds: 4 * 3600, retryLimit: 3 });
    } finally {
      await otherQueue.stop();
      if (other !== db) await other.close();
    }
  });
});

