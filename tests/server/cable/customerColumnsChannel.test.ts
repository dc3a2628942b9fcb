import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuthTestApp, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';
import { CableClient, listen, tokenOf } from './support';

/**
 * CustomerColumnsChannel on a real socket: a full user hears their account's calculated
 * columns start and finish recalculating; another account's columns are not heard, and a
 * shared-report-only user is refused.
 */
describe(`CustomerColumnsChannel on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let base: string;
  let owner: SignedUp;
  let stranger: SignedUp;
  const clients: CableClient[] = [];
  const identifier = JSON.stringify({ channel: 'CustomerColumnsChannel' });
  const column = {
    name: 'MRR at the end of 2025',
    formula: '',
    variables: [{ fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: null, end_year: null }],
  };

  beforeAll(async () => {
    harness = await createAuthTestApp();
    app = harness.app;
    base = await listen(app);
    owner = await signUp(app);
    stranger = await signUp(app);
    await harness.db.kysely.insertInto('customers').values({ account_id: owner.user.account_id, id: 'c1', name: 'One', public_id: null }).execute();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => harness?.close());

  async function connected(who: SignedUp): Promise<CableClient> {
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(who.authorization) });
    clients.push(client);
    await client.waitFor((frame) => frame.type === 'welcome', 5_000, 'welcome');
    return client;
  }

  async function createColumn(who: SignedUp): Promise<string> {
    const response = await app.inject({ method: 'POST', url: '/api/v11/customer_related_metric_definitions', headers: { authorization: who.authorization }, payload: column });
    expect(response.statusCode, response.body).toBe(201);
    await app.customerColumns.settled();
    return (response.json() as { id: string }).id;
  }

  it('sends in_progress when a column’s recalculation starts and finished when it ends, for the account’s columns only', async () => {
    const client = await connected(owner);
    expect(await client.subscribeAndWait(identifier)).toBe('confirm_subscription');
    await createColumn(stranger);
    const id = await createColumn(owner);
    await expect.poll(() => client.messagesOf(identifier).length).toBe(2);
    expect(client.messagesOf(identifier)).toEqual([
      { object: 'customer_related_metric_definition', id, recalculation_status: 'in_progress' },
      { object: 'customer_related_metric_definition', id, recalculation_status: 'finished' },
    ]);

    const changed = await app.inject({ method: 'PUT', url: `/api/v11/customer_related_metric_definitions/${id}`, headers: { authorization: owner.authorization }, payload: { ...column, name: 'Renamed' } });
    expect(changed.statusCode, changed.body).toBe(200);
    await app.customerColumns.settled();
    await expect.poll(() => client.messagesOf(identifier).length).toBe(4);
    expect(client.messagesOf(identifier).slice(2).map((m) => (m as { recalculation_status: string }).recalculation_status)).toEqual(['in_progress', 'finished']);
  });

  it('refuses a subscription that names anything besides the channel', async () => {
    const client = await connected(owner);
    expect(await client.subscribeAndWait(JSON.stringify({ channel: 'CustomerColumnsChannel', id: stranger.user.account_id }))).toBe('reject_subscription');
  });

  it('refuses a shared-report-only user', async () => {
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    const client = await connected(viewer);
    expect(await client.subscribeAndWait(identifier)).toBe('reject_subscription');
  });
});
