import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
