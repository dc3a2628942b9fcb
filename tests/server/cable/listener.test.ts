import { describe, expect, it } from 'vitest';
import { listenResiliently } from '../../../server/cable/listener';
import type { Database } from '../../../server/db/database';

/**
 * The cable's LISTEN proves itself alive with heartbeats of its own and listens again when one
 * never comes back (a dropped PostgreSQL connection would otherwise silence every live channel).
 */

/** A database whose LISTEN can be cut: notifications reach only the live listeners. */
function fakeDatabase() {
  const listeners = new Set<(payload: string) => void>();
  let listenCalls = 0;
  const db = {
    listen: async (_channel: string, onPayload: (payload: string) => void) => {
      listenCalls += 1;
      listeners.add(onPayload);
      return async () => {
        listeners.delete(onPayload);
      };
    },
    notify: async (_channel: string, payload: string) => {
      for (const listener of listeners) listener(payload);
    },
  };
  return {
    db: db as unknown as Database,
    cut: () => listeners.clear(),
    listenCalls: () => listenCalls,
    listenerCount: () => listeners.size,
  };
}

const quietLog = { warn: () => {}, error: () => {} };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the cable LISTEN', () => {
  it('hands payloads on, but not its heartbeats', async () => {
    const fake = fakeDatabase();
    const received: string[] = [];
    const listener = await listenResiliently(fake.db, 'subscope_cable', (payload) => received.push(payload), quietLog, 20);
    await fake.db.notify('subscope_cable', '{"stream":"s","account_id":"a","message":1}');
    await wait(70);
    await listener.stop();
    expect(received).toEqual(['{"stream":"s","account_id":"a","message":1}']);
    expect(fake.listenCalls()).toBe(1);
  });

  it('listens again when its heartbeat does not come back, and hears what follows', async () => {
    const fake = fakeDatabase();
    const received: string[] = [];
    const warnings: string[] = [];
    const listener = await listenResiliently(fake.db, 'subscope_cable', (payload) => received.push(payload), { ...quietLog, warn: (m) => warnings.push(m) }, 20);
    await wait(30);
    fake.cut();
    await fake.db.notify('subscope_cable', 'lost');
    await expect.poll(() => fake.listenCalls(), { timeout: 1_000, interval: 10 }).toBe(2);
    await fake.db.notify('subscope_cable', 'heard');
    await listener.stop();
    expect(received).toEqual(['heard']);
    expect(warnings).toHaveLength(1);
    expect(fake.listenerCount()).toBe(0);
  });
});
