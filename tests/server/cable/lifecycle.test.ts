import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { CABLE_NOTIFY_CHANNEL } from '../../../server/cable/streams';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';
import { DAY, MINUTE, signUp, TestClock } from '../auth/support';
import { CableClient, createImport, listen, segmentsImportIdentifier, tokenOf } from './support';

/**
 * A cable connection over time: a token that expires or is revoked while connected ends it, and
 * closing the app tells every client to come back later and leaves nothing running (no socket,
 * heartbeat or LISTEN), so a test process (and `npm start` on SIGTERM) exits.
 */
describe(`/cable connections over time on ${testEngine}`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The app on its own database, listening; `listens` counts the cable's LISTENs started and ended. */
  async function start() {
    const db: TestDatabase = await createTestDatabase();
    const listens = { started: 0, stopped: 0 };
    const listen0 = db.listen;
    db.listen = async (channel, onPayload) => {
      const stop = await listen0(channel, onPayload);
      if (channel !== CABLE_NOTIFY_CHANNEL) return stop;
      listens.started += 1;
      return async () => {
        listens.stopped += 1;
        await stop();
      };
    };
    const clock = new TestClock();
    const app = await buildApp({ config: TEST_CONFIG, db, now: clock.now });
    const base = await listen(app);
    let closed = false;
    const close = async () => {
      if (!closed) await app.close();
      closed = true;
    };
    cleanups.push(async () => {
      await close();
      await db.close();
    });
    return { app, db, clock, base, listens, close };
  }

  it('ends a connection whose token expires while connected: disconnect unauthorized at the next heartbeat', async () => {
    const { app, clock, base } = await start();
    const owner = await signUp(app);
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(owner.authorization) });
    cleanups.push(() => client.close());
    await client.waitFor((frame) => frame.type === 'welcome');

    clock.advance(DAY + MINUTE);
    const frame = await client.waitFor((f) => f.type === 'disconnect', 4_000, 'a disconnect');
    expect(frame).toEqual({ type: 'disconnect', reason: 'unauthorized', reconnect: false });
    await client.closed;
  });

  it('ends a connection whose user signed out: the next subscribe is answered with disconnect unauthorized', async () => {
    const { app, db, base } = await start();
    const owner = await signUp(app);
    const importId = await createImport(db, owner.user.account_id);
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(owner.authorization) });
    cleanups.push(() => client.close());
    await client.waitFor((frame) => frame.type === 'welcome');

    const signOut = await app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
    expect(signOut.statusCode).toBeLessThan(300);
    client.subscribe(segmentsImportIdentifier(importId));
    expect(await client.waitFor((f) => f.type === 'disconnect')).toEqual({ type: 'disconnect', reason: 'unauthorized', reconnect: false });
    expect(client.frames.some((f) => f.type === 'confirm_subscription')).toBe(false);
    await client.closed;
  });

  it('on close tells every client to reconnect later (server_restart), closes their sockets and stops its LISTEN', async () => {
    const { app, db, base, listens, close } = await start();
    const owner = await signUp(app);
    const importId = await createImport(db, owner.user.account_id);
    const token = tokenOf(owner.authorization);
    const first = await CableClient.connect(base, { api_version: '11', token });
    const second = await CableClient.connect(base, { api_version: '11', token });
    for (const client of [first, second]) await client.waitFor((frame) => frame.type === 'welcome');
    expect(await first.subscribeAndWait(segmentsImportIdentifier(importId))).toBe('confirm_subscription');
    expect(app.cable.connectionCount()).toBe(2);
    expect(listens).toEqual({ started: 1, stopped: 0 });

    const started = Date.now();
    await close();
    expect(Date.now() - started, 'closing waits for no client').toBeLessThan(3_000);
    for (const client of [first, second]) {
      expect(client.frames.find((f) => f.type === 'disconnect')).toEqual({ type: 'disconnect', reason: 'server_restart', reconnect: true });
      await client.closed;
    }
    expect(app.cable.connectionCount()).toBe(0);
    expect(app.cable.streamCount()).toBe(0);
    expect(listens).toEqual({ started: 1, stopped: 1 });
    await expect(CableClient.connect(base, { api_version: '11', token })).rejects.toThrow();
  });
});
