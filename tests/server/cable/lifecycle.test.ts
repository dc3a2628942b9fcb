import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { CABLE_NOTIFY_CHANNEL } from '../../../server/cable/streams';
import { openDatabase, type Database } from '../../../server/db/database';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';
import { DAY, linkTokenFor, MINUTE, signIn, signUp, TestClock } from '../auth/support';
import { CableClient, createImport, listen, segmentsImportIdentifier, tokenOf, type CableFrame } from './support';

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

  /** Another instance on the same database (its own connection pool on PostgreSQL, as on another machine), listening. */
  async function secondInstance(db: TestDatabase, clock: TestClock) {
    const own: Database = db.url ? await openDatabase({ kind: 'postgresql', url: db.url, poolSize: 2 }) : db;
    const app = await buildApp({ config: TEST_CONFIG, db: own, now: clock.now });
    const base = await listen(app);
    cleanups.push(async () => {
      await app.close();
      if (own !== db) await own.close();
    });
    return { app, base };
  }

  /** A client of `base` with `authorization`'s token, welcomed. */
  async function welcomed(base: string, authorization: string): Promise<CableClient> {
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(authorization) });
    cleanups.push(() => client.close());
    await client.waitFor((frame) => frame.type === 'welcome');
    return client;
  }

  const UNAUTHORIZED = { type: 'disconnect', reason: 'unauthorized', reconnect: false };
  const isDisconnect = (frame: CableFrame) => frame.type === 'disconnect';
  /**
   * Revocations end connections as they are heard, not at the periodic check (every 60 s): a
   * few seconds is the bound; the periodic check cannot have run in them.
   */
  const PROMPTLY_MS = 5_000;

  it('ends the connections of a token signed out over HTTP at once, on every instance; other tokens keep theirs', async () => {
    const { app, db, clock, base } = await start();
    const other = await secondInstance(db, clock);
    const owner = await signUp(app);
    const importId = await createImport(db, owner.user.account_id);
    const onA = await welcomed(base, owner.authorization);
    const onB = await welcomed(other.base, owner.authorization);
    const secondSession = await signIn(app, owner.email, owner.password);
    expect(secondSession.statusCode).toBe(200);
    const keeps = await welcomed(other.base, String(secondSession.headers.authorization));

    const signOut = await app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: owner.authorization } });
    expect(signOut.statusCode).toBe(204);
    for (const client of [onA, onB]) {
      expect(await client.waitFor(isDisconnect, PROMPTLY_MS, 'a disconnect')).toEqual(UNAUTHORIZED);
      await client.closed;
    }
    // The other token's connection is still served.
    expect(await keeps.subscribeAndWait(segmentsImportIdentifier(importId))).toBe('confirm_subscription');
    expect(keeps.frames.some(isDisconnect)).toBe(false);
  });

  it("ends every connection of a user's earlier tokens when the password is reset, on every instance; the new session's stays", async () => {
    const { app, db, clock, base } = await start();
    const other = await secondInstance(db, clock);
    const owner = await signUp(app);
    const colleague = await signUp(app);
    const importId = await createImport(db, owner.user.account_id);
    const elsewhere = await signIn(app, owner.email, owner.password, '198.51.100.30');
    const first = await welcomed(base, owner.authorization);
    const second = await welcomed(other.base, String(elsewhere.headers.authorization));
    const unrelated = await welcomed(other.base, colleague.authorization);

    await app.inject({ method: 'POST', url: '/api/v11/users/password', payload: { user: { email: owner.email } } });
    const resetToken = await linkTokenFor(app, owner.email, 'reset_password');
    clock.advance(1000);
    const reset = await app.inject({
      method: 'PUT',
      url: '/api/v11/users/password',
      payload: { user: { reset_password_token: resetToken, password: 'violet-harbour-tram-77', password_confirmation: 'violet-harbour-tram-77' } },
    });
    expect(reset.statusCode).toBe(200);
    const fresh = await welcomed(other.base, String(reset.headers.authorization));
    for (const client of [first, second]) {
      expect(await client.waitFor(isDisconnect, PROMPTLY_MS, 'a disconnect')).toEqual(UNAUTHORIZED);
      await client.closed;
    }
    expect(await fresh.subscribeAndWait(segmentsImportIdentifier(importId))).toBe('confirm_subscription');
    expect(await unrelated.subscribeAndWait(JSON.stringify({ channel: 'NoSuchChannel' }))).toBe('reject_subscription');
    expect([...fresh.frames, ...unrelated.frames].some(isDisconnect)).toBe(false);
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
