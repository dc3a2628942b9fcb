import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { CABLE_NOTIFY_CHANNEL, importStream } from '../../../server/cable/streams';
import { openDatabase, type Database } from '../../../server/db/database';
import { setImportStatus } from '../../../server/imports/auditLog';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { CableClient, createImport, listen, segmentsImportIdentifier, tokenOf, type CableFrame } from './support';

/**
 * `/cable` against the real app on a real socket: the Action Cable handshake, heartbeat and
 * refusals, SegmentsImportChannel's subscriptions, and events from setImportStatus (delivered
 * on commit only) and from NOTIFYs of other database handles (fan-out).
 */
describe(`/cable on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let base: string;
  let owner: SignedUp;
  let stranger: SignedUp;
  const clients: CableClient[] = [];

  beforeAll(async () => {
    harness = await createAuthTestApp();
    app = harness.app;
    base = await listen(app);
    owner = await signUp(app);
    stranger = await signUp(app);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => harness?.close());

  async function connect(query: Record<string, string>, protocols?: string[]): Promise<CableClient> {
    const client = await CableClient.connect(base, query, protocols);
    clients.push(client);
    return client;
  }

  /** A connection of `who`, welcomed. */
  async function connected(who: SignedUp = owner): Promise<CableClient> {
    const client = await connect({ api_version: '11', token: tokenOf(who.authorization) });
    await client.waitFor((frame) => frame.type === 'welcome', 5_000, 'welcome');
    return client;
  }

  const isDisconnect = (frame: CableFrame) => frame.type === 'disconnect';

  /**
   * Every frame the server sent this client before the call has arrived: the answer to a
   * command comes after them on the one socket, and commands are handled in the order sent.
   */
  let roundTrips = 0;
  async function roundTrip(client: CableClient): Promise<void> {
    roundTrips += 1;
    expect(await client.subscribeAndWait(JSON.stringify({ channel: 'NoSuchChannel', n: roundTrips }))).toBe('reject_subscription');
  }

  /**
   * Every event NOTIFYed on the cable channel before the call (committed) has reached the client
   * subscribed to the import: a marker NOTIFYed after them on the import's stream arrives after
   * them (one LISTEN, notifications in commit order), and the test waits for it.
   */
  let barriers = 0;
  const isBarrier = (message: unknown) => typeof message === 'object' && message !== null && 'barrier' in message;
  async function barrier(client: CableClient, accountId: string, importId: string): Promise<void> {
    barriers += 1;
    const n = barriers;
    await harness.db.notify(CABLE_NOTIFY_CHANNEL, JSON.stringify({ stream: importStream(accountId, importId), account_id: accountId, message: { barrier: n } }));
    await client.waitFor((frame) => frame.identifier === segmentsImportIdentifier(importId) && (frame.message as { barrier?: number } | undefined)?.barrier === n, 5_000, `barrier ${n}`);
  }
  /** The messages of a subscription, without the markers of `barrier`. */
  const eventsOf = (client: CableClient, identifier: string) => client.messagesOf(identifier).filter((message) => !isBarrier(message));

  describe('the connection', () => {
    it("welcomes a connection that carries API version 11 and a valid token, in the consumer's protocol", async () => {
      const client = await connect({ api_version: '11', token: tokenOf(owner.authorization) });
      await client.waitFor((frame) => frame.type === 'welcome');
      expect(client.protocol).toBe('actioncable-v1-json');
      expect(client.frames[0]).toEqual({ type: 'welcome' });
    });

    it('answers actioncable-v1-json whatever the order offered', async () => {
      const client = await connect({ api_version: '11', token: tokenOf(owner.authorization) }, ['actioncable-unsupported', 'actioncable-v1-json']);
      expect(client.protocol).toBe('actioncable-v1-json');
    });

    it('pings every 3 s with the time in unix seconds', async () => {
      const client = await connected();
      const arrivals: number[] = [];
      const seen = new Set<CableFrame>();
      for (let n = 0; n < 2; n += 1) {
        const ping = await client.waitFor((frame) => frame.type === 'ping' && !seen.has(frame), 4_000, 'a ping');
        seen.add(ping);
        arrivals.push(Date.now());
        expect(Number.isInteger(ping.message)).toBe(true);
        expect(Math.abs((ping.message as number) - Date.now() / 1000)).toBeLessThan(5);
      }
      const gap = (arrivals[1] ?? 0) - (arrivals[0] ?? 0);
      expect(gap).toBeGreaterThan(2_500);
      expect(gap).toBeLessThan(3_700);
    });

    it.each([
      ['a malformed token', () => ({ api_version: '11', token: 'not-a-jwt' })],
      ['no token', () => ({ api_version: '11' })],
      ['a token signed with another secret', () => ({ api_version: '11', token: `${tokenOf(owner.authorization).slice(0, -4)}AAAA` })],
    ])('refuses %s: disconnect unauthorized, no reconnect, socket closed', async (_, query) => {
      const client = await connect(query());
      const frame = await client.waitFor(isDisconnect);
      expect(frame).toEqual({ type: 'disconnect', reason: 'unauthorized', reconnect: false });
      await client.closed;
      expect(client.frames.some((f) => f.type === 'welcome')).toBe(false);
    });

    it('refuses the token of a user who signed out (revoked on every instance)', async () => {
      const leaver = await signUp(app);
      const signOut = await app.inject({ method: 'DELETE', url: '/api/v11/users/sign_out', headers: { authorization: leaver.authorization } });
      expect(signOut.statusCode).toBeLessThan(300);
      const client = await connect({ api_version: '11', token: tokenOf(leaver.authorization) });
      expect(await client.waitFor(isDisconnect)).toEqual({ type: 'disconnect', reason: 'unauthorized', reconnect: false });
    });

    it.each([['missing', {}], ['another', { api_version: '10' }]])('refuses a %s API version: disconnect invalid_request', async (_, version) => {
      const client = await connect({ token: tokenOf(owner.authorization), ...version });
      expect(await client.waitFor(isDisconnect)).toEqual({ type: 'disconnect', reason: 'invalid_request', reconnect: false });
      await client.closed;
    });

    it('leaves no connection or stream behind when the client goes away', async () => {
      const importId = await createImport(harness.db, owner.user.account_id);
      const before = app.cable.connectionCount();
      const client = await connected();
      expect(await client.subscribeAndWait(segmentsImportIdentifier(importId))).toBe('confirm_subscription');
      expect(app.cable.connectionCount()).toBe(before + 1);
      expect(app.cable.streamCount()).toBeGreaterThan(0);
      await client.close();
      await expect.poll(() => app.cable.connectionCount()).toBe(before);
      expect(app.cable.streamCount()).toBe(0);
    });
  });

  describe('BusinessReportChannel', () => {
    async function createReport(who: SignedUp): Promise<{ id: string; secret: string }> {
      const response = await app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: who.authorization }, payload: { title: 'Live', sections: [{ definition_id: 'mrr' }, { definition_id: 'customers' }] } });
      expect(response.statusCode, response.body).toBe(201);
      await app.reports.settled();
      return response.json() as { id: string; secret: string };
    }
    const reportIdentifier = (secret: string) => JSON.stringify({ channel: 'BusinessReportChannel', secret });

    it("sends a report's state when subscribed, then each recomputed section and the state as a refresh goes", async () => {
      const { id, secret } = await createReport(owner);
      const identifier = reportIdentifier(secret);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier)).toHaveLength(1);
      expect(client.messagesOf(identifier)[0]).toMatchObject({ object: 'business_report', id, recalculation_status: 'recalculated', freshness_status: 'fresh' });

      const refresh = await app.inject({ method: 'POST', url: `/api/v11/business_reports/${id}/refresh`, headers: { authorization: owner.authorization } });
      expect(refresh.statusCode).toBe(202);
      await app.reports.settled();
      await expect.poll(() => client.messagesOf(identifier).length).toBe(5);
      const messages = client.messagesOf(identifier).slice(1) as { object: string; recalculation_status?: string; section?: { definition_id?: string; recalculation_status: string } }[];
      expect(messages.map((m) => [m.object, m.recalculation_status ?? m.section?.recalculation_status])).toEqual([
        ['business_report', 'recalculating'],
        ['business_report_section', 'recalculated'],
        ['business_report_section', 'recalculated'],
        ['business_report', 'recalculated'],
      ]);
      expect(messages.filter((m) => m.section).map((m) => m.section?.definition_id)).toEqual(['mrr', 'customers']);
    });

    it("rejects another account's report and an unknown secret", async () => {
      const theirs = await createReport(stranger);
      const client = await connected();
      expect(await client.subscribeAndWait(reportIdentifier(theirs.secret))).toBe('reject_subscription');
      expect(await client.subscribeAndWait(reportIdentifier('nope'))).toBe('reject_subscription');
      expect(await client.subscribeAndWait(JSON.stringify({ channel: 'BusinessReportChannel' }))).toBe('reject_subscription');
    });
  });

  describe('SegmentsImportChannel', () => {
    it("confirms a subscription to an attribute values import of the user's account, echoing the identifier, then sends its current state", async () => {
      const importId = await createImport(harness.db, owner.user.account_id);
      const client = await connected();
      // The identifier is echoed as sent, key order and all.
      const identifier = `{"id":"${importId}","channel":"SegmentsImportChannel"}`;
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier)).toHaveLength(1);
      expect(client.messagesOf(identifier)[0]).toMatchObject({ import_id: importId, kind: 'segments', status: 'preview', progress: 0, event: 'subscribed', error: null });
    });

    it.each([
      ["another account's import", async () => segmentsImportIdentifier(await createImport(harness.db, stranger.user.account_id))],
      ['an import of payments', async () => segmentsImportIdentifier(await createImport(harness.db, owner.user.account_id, { kind: 'subscriptions' }))],
      ['an unknown import', async () => segmentsImportIdentifier('imp_nope')],
      ['no import id', async () => JSON.stringify({ channel: 'SegmentsImportChannel' })],
      ['an unknown channel', async () => JSON.stringify({ channel: 'NoSuchChannel', id: 'x' })],
      ['an identifier that is not JSON', async () => 'SegmentsImportChannel'],
    ])('rejects %s, echoing the identifier, and keeps the connection', async (_, identifierOf) => {
      const identifier = await identifierOf();
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('reject_subscription');
      const ownImport = await createImport(harness.db, owner.user.account_id);
      expect(await client.subscribeAndWait(segmentsImportIdentifier(ownImport))).toBe('confirm_subscription');
      expect(client.frames.some(isDisconnect)).toBe(false);
    });

    it('confirms a subscription sent twice once (the consumer re-sends until confirmed)', async () => {
      const importId = await createImport(harness.db, owner.user.account_id);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      client.subscribe(identifier);
      client.subscribe(identifier);
      await client.waitFor((frame) => frame.type === 'confirm_subscription');
      // The second subscribe was handled before the command that follows it.
      await roundTrip(client);
      expect(client.frames.filter((frame) => frame.type === 'confirm_subscription')).toHaveLength(1);
    });

    it("delivers an import's status change only when its transaction commits", async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier).length).toBe(1); // the current state

      await harness.db.kysely.transaction().execute(async (trx) => {
        await setImportStatus(trx, accountId, importId, 'in_progress', 'queued', {}, { progress: 10 });
        if (testEngine === 'postgresql') {
          // A NOTIFY of another connection, committed after the status change was made.
          await barrier(client, accountId, importId);
        } else {
          // PGlite hands a NOTIFY to its listeners as the statement that made it answers (the
          // transaction holds its only connection, so nothing else can NOTIFY meanwhile).
          await roundTrip(client);
        }
        expect(eventsOf(client, identifier), 'nothing before the commit').toHaveLength(1);
      });
      await expect.poll(() => eventsOf(client, identifier).length).toBe(2);
      expect(eventsOf(client, identifier)[1]).toMatchObject({ import_id: importId, status: 'in_progress', progress: 10, event: 'queued', success_count: 0, failure_count: 0 });
      expect(Date.parse((eventsOf(client, identifier)[1] as { created_at: string }).created_at)).not.toBeNaN();
    });

    it('delivers nothing of a transaction that rolls back', async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier).length).toBe(1);

      await expect(
        harness.db.kysely.transaction().execute(async (trx) => {
          await setImportStatus(trx, accountId, importId, 'failed', 'failed', { error: 'boom' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await setImportStatus(harness.db.kysely, accountId, importId, 'in_progress', 'queued', {}, { progress: 5 });
      // The change after the rollback arrives; the rolled-back one never does.
      await expect.poll(() => client.messagesOf(identifier).length).toBe(2);
      await barrier(client, accountId, importId);
      expect(eventsOf(client, identifier).map((message) => (message as { event: string }).event)).toEqual(['subscribed', 'queued']);
    });

    it('reports a failed import with its reason', async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId, { status: 'in_progress' });
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await harness.db.kysely.updateTable('imports').set({ result: JSON.stringify({ error: 'x'.repeat(20_000) }) }).where('id', '=', importId).execute();
      await setImportStatus(harness.db.kysely, accountId, importId, 'failed', 'failed', { error: 'x' });
      const failed = await client.waitFor((frame) => frame.identifier === identifier && (frame.message as { status?: string } | undefined)?.status === 'failed');
      // A long reason is cut, so the event stays under NOTIFY's 8000 bytes.
      expect((failed.message as { error: string }).error).toHaveLength(500);
    });

    it('stops delivering after unsubscribe', async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier).length).toBe(1);
      client.unsubscribe(identifier);
      // Handled before the command that follows it.
      await roundTrip(client);
      await setImportStatus(harness.db.kysely, accountId, importId, 'in_progress', 'queued');
      // A marker on another import the client listens to, published after the change, arrives after it would have.
      const otherImport = await createImport(harness.db, accountId);
      expect(await client.subscribeAndWait(segmentsImportIdentifier(otherImport))).toBe('confirm_subscription');
      await barrier(client, accountId, otherImport);
      expect(client.messagesOf(identifier)).toHaveLength(1);
    });
  });

  describe('fan-out through LISTEN/NOTIFY', () => {
    it('delivers an event NOTIFYed on the channel by any handle (a worker) to the subscribers of its stream', async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      const publisher: Database = harness.db.url ? await openDatabase({ kind: 'postgresql', url: harness.db.url, poolSize: 1 }) : harness.db;
      try {
        await publisher.notify(CABLE_NOTIFY_CHANNEL, JSON.stringify({ stream: importStream(accountId, importId), account_id: accountId, message: { hello: 'from a worker' } }));
        await client.waitFor((frame) => frame.identifier === identifier && JSON.stringify(frame.message) === '{"hello":"from a worker"}');
      } finally {
        if (publisher !== harness.db) await publisher.close();
      }
    });

    it("never hands a stream's event to a connection of another account", async () => {
      const accountId = owner.user.account_id;
      const importId = await createImport(harness.db, accountId);
      const identifier = segmentsImportIdentifier(importId);
      const client = await connected();
      expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
      await expect.poll(() => client.messagesOf(identifier).length).toBe(1);
      await harness.db.notify(CABLE_NOTIFY_CHANNEL, JSON.stringify({ stream: importStream(accountId, importId), account_id: stranger.user.account_id, message: { leak: true } }));
      await harness.db.notify(CABLE_NOTIFY_CHANNEL, 'not json');
      await barrier(client, accountId, importId);
      expect(eventsOf(client, identifier)).toHaveLength(1);
    });

    // Another process on the same data: only a PostgreSQL server has one (CI's second pass runs it).
    if (testEngine === 'postgresql') {
      it('reaches a browser on instance B when a worker on another process changes the import (PostgreSQL)', async () => {
        const url = harness.db.url;
        if (!url) throw new Error('PostgreSQL only');
        // Instance B: another app on its own connection pool, as on another machine.
        const dbB = await openDatabase({ kind: 'postgresql', url, poolSize: 2 });
        const appB = await buildApp({ config: TEST_CONFIG, db: dbB, now: harness.clock.now });
        // The worker: yet another handle.
        const worker = await openDatabase({ kind: 'postgresql', url, poolSize: 1 });
        try {
          const baseB = await listen(appB);
          const accountId = owner.user.account_id;
          const importId = await createImport(harness.db, accountId);
          const identifier = segmentsImportIdentifier(importId);
          const client = await CableClient.connect(baseB, { api_version: '11', token: tokenOf(owner.authorization) });
          clients.push(client);
          expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
          await worker.kysely.transaction().execute((trx) => setImportStatus(trx, accountId, importId, 'finalizing', 'commit started', {}, { progress: 50 }));
          const event = await client.waitFor((frame) => frame.identifier === identifier && (frame.message as { event?: string } | undefined)?.event === 'commit started');
          expect(event.message).toMatchObject({ status: 'finalizing', progress: 50 });
          await client.close();
        } finally {
          await appB.close();
          await dbB.close();
          await worker.close();
        }
      });
    }
  });
});
