import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../server/db/schema';
import { disconnect } from '../../../server/integrations/connections';
import { chargebeeProvider } from '../../../server/integrations/providers/chargebee';
import { integrationSyncsSettled, runSync, runSyncOnce, type SyncDeps } from '../../../server/integrations/runner';
import { buildApp } from '../../../server/app';
import { sealSecrets } from '../../../server/integrations/secrets';
import type { IntegrationProvider, SyncContext } from '../../../server/integrations/types';
import { fakeInvoice, startFakeChargebee, type FakeChargebee } from '../../fakes/chargebee';
import { createAuthTestApp, signUp, type AuthTestApp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY, urlsWithChargebee } from './support';

/**
 * The runner with the Chargebee provider against the fake: the first sync's percent, a run
 * killed at any commit resuming to the same rows, 429 with Retry-After and 5xx retried, a sync
 * that keeps failing recording why and resuming on Retry, a disconnect stopping a run, and an
 * incremental sync versioning a changed payment and deleting a voided one.
 */

const CUSTOMERS = 150; // two pages of customers, two of invoices

let harness: AuthTestApp;
let fake: FakeChargebee;
let deps: SyncDeps;

const silent = { info: () => {}, warn: () => {}, error: () => {} };

async function account(): Promise<string> {
  const user = await signUp(harness.app);
  const accountId = user.user.account_id;
  await harness.db.kysely
    .insertInto('integrations')
    .values({
      account_id: accountId,
      name: 'chargebee',
      configured: true,
      config: JSON.stringify({ chargebee_site: 'acme' }),
      secret_config: JSON.stringify(sealSecrets(TEST_SECRETS_KEY, { chargebee_api_key: 'test_chargebee_key' })),
    })
    .execute();
  return accountId;
}

/** The provider with a hook around each commit (k counts from 1). */
function hooked(around: (k: number, commit: () => Promise<void>, ctx: SyncContext) => Promise<void>): Partial<Record<'chargebee', IntegrationProvider>> {
  return {
    chargebee: {
      ...chargebeeProvider,
      sync: (ctx) => {
        let k = 0;
        return chargebeeProvider.sync({ ...ctx, commit: (batch, next) => around(++k, () => ctx.commit(batch, next), ctx) });
      },
    },
  };
}

async function state(accountId: string) {
  return harness.db.kysely
    .selectFrom('integrations')
    .select(['configured', 'sync_status', 'sync_cursor', 'initially_synced', 'initial_progress', 'last_error', 'last_synced_at'])
    .where('account_id', '=', accountId)
    .where('name', '=', 'chargebee')
    .executeTakeFirstOrThrow();
}

/** What the account holds from Chargebee, without our own ids. */
async function snapshot(accountId: string) {
  const db = harness.db.kysely;
  const customers = await db.selectFrom('customers').select(['public_id', 'name']).where('account_id', '=', accountId).orderBy('public_id').execute();
  const payments = await db
    .selectFrom('payments as p')
    .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'p.account_id').onRef('c.id', '=', 'p.customer_id'))
    .select(['p.external_id', 'c.public_id', 'p.started_at', 'p.ended_at', 'p.total_value', 'p.monthly_amount', 'p.currency', 'p.version', 'p.deleted_at'])
    .where('p.account_id', '=', accountId)
    .orderBy('p.external_id')
    .execute();
  return { customers, payments: payments.map((p) => ({ ...p, started_at: String(p.started_at), ended_at: String(p.ended_at), total_value: Number(p.total_value), deleted: p.deleted_at !== null, deleted_at: undefined })) };
}

async function events(accountId: string): Promise<string[]> {
  const rows = await harness.db.kysely.selectFrom('audit_log').select('event').where('account_id', '=', accountId).where('entity_type', '=', 'integration').orderBy('id').execute();
  return rows.map((row) => row.event);
}

describe(`integration runner on ${testEngine}`, () => {
  let reference: string;
  let expected: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    fake = await startFakeChargebee();
    fake.seed(CUSTOMERS);
    harness = await createAuthTestApp({ config: TEST_CONFIG });
    deps = { database: harness.db, secretsKey: TEST_SECRETS_KEY, urls: urlsWithChargebee(fake.url), log: silent, fetch: { baseDelayMs: 1 }, afterSync: async () => {} };
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
  });

  it('reports the first sync’s percent as it goes, never backwards, and ends at 100', async () => {
    reference = await account();
    const seen: number[] = [];
    // The account's data version (what tells cached metrics they are stale) after each commit.
    const dataVersion = async () => Number((await harness.db.kysely.selectFrom('accounts').select('data_version').where('id', '=', reference).executeTakeFirstOrThrow()).data_version);
    const versions = [await dataVersion()];
    const providers = hooked(async (_k, commit) => {
      await commit();
      seen.push((await state(reference)).initial_progress);
      versions.push(await dataVersion());
    });
    await runSync({ ...deps, providers }, reference, 'chargebee');
    expect(seen).toHaveLength(4);
    // Raised by every commit, each its own transaction.
    expect(versions.slice(1).every((version, k) => version > (versions[k] as number))).toBe(true);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen.at(-1)).toBeLessThan(100);
    expect(await state(reference)).toMatchObject({ sync_status: 'idle', sync_cursor: null, initially_synced: true, initial_progress: 100, last_error: null });
    expected = await snapshot(reference);
    expect(expected.customers).toHaveLength(CUSTOMERS);
    expect(expected.payments).toHaveLength(CUSTOMERS);
    expect(expected.payments[0]).toMatchObject({ currency: 'USD', total_value: 5000, monthly_amount: 5000, version: 1, deleted: false });
  });

  // Killed before a commit (its transaction never happened) or right after one, at fixed and at random points.
  const random = 1 + Math.floor(Math.random() * 4);
  it.each([
    ['before', 1],
    ['after', 2],
    ['before', 4],
    ['after', random],
  ] as const)('a run killed %s commit %i resumes from the last commit to the same rows', async (when, at) => {
    const accountId = await account();
    const kill = new AbortController();
    const providers = hooked(async (k, commit) => {
      if (k === at && when === 'before') {
        kill.abort(new Error('killed'));
        throw new Error('killed');
      }
      await commit();
      if (k === at) {
        kill.abort(new Error('killed'));
        throw new Error('killed');
      }
    });
    expect(await runSyncOnce({ ...deps, providers, signal: kill.signal }, accountId, 'chargebee')).toBe('stopped');
    const left = await state(accountId);
    expect(left.sync_status).toBe('syncing');
    // Killed before the first commit or after the last, no cursor is left: the next run starts over, rewriting nothing twice.
    const cursorKept = !(when === 'before' && at === 1) && !(when === 'after' && at === 4);
    if (cursorKept) expect(left.sync_cursor).not.toBeNull();
    else expect(left.sync_cursor).toBeNull();
    await runSync(deps, accountId, 'chargebee');
    expect(await state(accountId)).toMatchObject({ sync_status: 'idle', sync_cursor: null, initially_synced: true, initial_progress: 100 });
    expect(await snapshot(accountId)).toEqual(expected);
    expect(await events(accountId)).toEqual(['sync_started', cursorKept ? 'sync_resumed' : 'sync_started', 'sync_succeeded']);
  });

  it('waits as a 429’s Retry-After asks, then goes on', async () => {
    const accountId = await account();
    fake.rateLimit(1, 1);
    const calls = fake.calls.length;
    const started = Date.now();
    await runSync(deps, accountId, 'chargebee');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(await state(accountId)).toMatchObject({ sync_status: 'idle', initially_synced: true });
    // The refused call was made again: one call more than a clean run's.
    expect(fake.calls.length - calls).toBe(1 + 1 + 2 + 2 + 2);
    expect(await snapshot(accountId)).toEqual(expected);
  });

  it('retries 5xx answers with backoff; a sync that keeps failing says why, and Retry resumes it', async () => {
    const accountId = await account();
    fake.failNext(2, 503);
    await runSync(deps, accountId, 'chargebee');
    expect(await state(accountId)).toMatchObject({ sync_status: 'idle', initially_synced: true });

    const second = await account();
    const providers = hooked(async (k, commit) => {
      await commit();
      if (k === 2) fake.failNext(100, 503);
    });
    expect(await runSyncOnce({ ...deps, providers }, second, 'chargebee')).toBe('failed');
    fake.failNext(0);
    const failed = await state(second);
    expect(failed).toMatchObject({ sync_status: 'failed', initially_synced: false, last_error: 'Chargebee did not answer properly (HTTP 503); the sync will continue where it stopped' });
    expect(failed.sync_cursor).not.toBeNull();
    await runSync(deps, second, 'chargebee');
    expect(await state(second)).toMatchObject({ sync_status: 'idle', initially_synced: true, last_error: null });
    expect(await snapshot(second)).toEqual(expected);
    expect(await events(second)).toEqual(['sync_started', 'sync_failed', 'sync_resumed', 'sync_succeeded']);
  });

  it('stops a running sync at its next commit when disconnected, keeping what it wrote', async () => {
    const accountId = await account();
    const providers = hooked(async (k, commit) => {
      await commit();
      if (k === 1) await disconnect(harness.app, accountId, 'chargebee');
    });
    expect(await runSyncOnce({ ...deps, providers }, accountId, 'chargebee')).toBe('stopped');
    expect(await state(accountId)).toMatchObject({ configured: false, sync_status: 'idle', sync_cursor: null });
    const kept = await snapshot(accountId);
    expect(kept.customers).toHaveLength(100);
    expect(kept.payments).toHaveLength(0);
    expect(await events(accountId)).toEqual(['sync_started', 'disconnected', 'sync_stopped']);
    // A disconnected integration does not sync.
    expect(await runSyncOnce(deps, accountId, 'chargebee')).toBe('skipped');
  });

  it('resumes, when the app starts, a sync the last process left running', async () => {
    const accountId = await account();
    const kill = new AbortController();
    const providers = hooked(async (k, commit) => {
      await commit();
      if (k === 2) {
        kill.abort(new Error('killed'));
        throw new Error('killed');
      }
    });
    expect(await runSyncOnce({ ...deps, providers, signal: kill.signal }, accountId, 'chargebee')).toBe('stopped');
    const restarted = await buildApp({ db: harness.db, config: { ...TEST_CONFIG, integrationSecretsKey: TEST_SECRETS_KEY, providerUrls: urlsWithChargebee(fake.url) } });
    try {
      await restarted.ready();
      await integrationSyncsSettled(restarted);
      expect(await state(accountId)).toMatchObject({ sync_status: 'idle', initially_synced: true, sync_cursor: null });
      expect(await snapshot(accountId)).toEqual(expected);
    } finally {
      await restarted.close();
    }
  });

  it('syncs changes incrementally: a changed invoice makes a new version, a voided one deletes its payment', async () => {
    const now = Math.floor(Date.now() / 1000) + 5;
    fake.add({
      invoices: [
        fakeInvoice('inv_1', 'cust_1', { from: '2024-01-01', to: '2024-02-01', amount: 6000, subscriptionId: 'sub_1', updatedAt: now }),
        { ...fakeInvoice('inv_2', 'cust_2', { from: '2024-01-01', to: '2024-02-01', amount: 5000, subscriptionId: 'sub_2', updatedAt: now }), status: 'voided' },
      ],
    });
    const calls = fake.calls.length;
    await runSync(deps, reference, 'chargebee');
    const incremental = fake.calls.slice(calls).filter((call) => call.path.endsWith('/invoices'));
    expect(incremental.every((call) => call.query.get('updated_at[after]') !== null)).toBe(true);
    const after = await snapshot(reference);
    const byId = new Map(after.payments.map((p) => [p.external_id, p]));
    expect(byId.get('inv_1:li_inv_1')).toMatchObject({ total_value: 6000, monthly_amount: 6000, version: 2, deleted: false });
    expect(byId.get('inv_2:li_inv_2')).toMatchObject({ version: 2, deleted: true });
    expect(byId.get('inv_3:li_inv_3')).toMatchObject({ version: 1 });
    const versions = await harness.db.kysely.selectFrom('payment_versions').select(['version', 'total_value', 'deleted']).where('account_id', '=', reference).orderBy('total_value').execute();
    expect(versions.map((v) => [v.version, Number(v.total_value), v.deleted])).toEqual([
      [1, 5000, false],
      [1, 5000, false],
    ]);
    expect((await events(reference)).slice(-2)).toEqual(['sync_started', 'sync_succeeded']);
    const details = await harness.db.kysely.selectFrom('audit_log').select('details').where('account_id', '=', reference).where('event', '=', 'sync_started').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(details.details as JsonObject).toEqual({ mode: 'incremental' });
  });

  it('makes payments of billed invoices, paid or still due, and none of a pending one', async () => {
    const now = Math.floor(Date.now() / 1000) + 10;
    const invoice = (id: string, customer: string, status: string) => ({
      ...fakeInvoice(id, customer, { from: '2024-03-01', to: '2024-04-01', amount: 7000, subscriptionId: `sub_${customer.slice(5)}`, updatedAt: now }),
      status,
    });
    fake.add({ invoices: [invoice('inv_due', 'cust_3', 'payment_due'), invoice('inv_unpaid', 'cust_4', 'not_paid'), invoice('inv_posted', 'cust_5', 'posted'), invoice('inv_pending', 'cust_6', 'pending')] });
    await runSync(deps, reference, 'chargebee');
    const byId = new Map((await snapshot(reference)).payments.map((p) => [p.external_id, p]));
    for (const id of ['inv_due', 'inv_unpaid', 'inv_posted']) expect(byId.get(`${id}:li_${id}`)).toMatchObject({ total_value: 7000, started_at: '2024-03-01', ended_at: '2024-04-01', deleted: false });
    expect(byId.has('inv_pending:li_inv_pending')).toBe(false);
  });
});
