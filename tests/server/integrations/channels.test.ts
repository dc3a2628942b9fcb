import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { startFakeChargebee, type FakeChargebee } from '../../fakes/chargebee';
import { createAuthTestApp, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { CableClient, listen, tokenOf } from '../cable/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY, urlsWithChargebee } from './support';

/**
 * IntegrationsChannel (every card at subscription, then each change) and
 * IntegrationStatusEventsChannel (initially_synced, sync_failed) on a real socket, for the
 * account's full users only.
 */

interface Answer {
  name: string;
  configured: boolean;
  sync_status: string;
  initial_progress: number;
  initially_synced: boolean;
  last_error: string | null;
}
type Message = { type: 'integrations'; items: Answer[] } | { type: 'integration'; integration: Answer };

describe(`integration channels on ${testEngine}`, () => {
  let harness: AuthTestApp;
  let app: FastifyInstance;
  let fake: FakeChargebee;
  let base: string;
  let owner: SignedUp;
  let stranger: SignedUp;
  const clients: CableClient[] = [];
  const cards = JSON.stringify({ channel: 'IntegrationsChannel' });
  const events = JSON.stringify({ channel: 'IntegrationStatusEventsChannel' });

  beforeAll(async () => {
    process.env.PROVIDER_RETRY_BASE_MS = '1';
    fake = await startFakeChargebee();
    fake.seed(120);
    harness = await createAuthTestApp({ config: { ...TEST_CONFIG, providerUrls: urlsWithChargebee(fake.url), integrationSecretsKey: TEST_SECRETS_KEY } });
    app = harness.app;
    base = await listen(app);
    owner = await signUp(app);
    stranger = await signUp(app);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
  });

  async function connected(who: SignedUp): Promise<CableClient> {
    const client = await CableClient.connect(base, { api_version: '11', token: tokenOf(who.authorization) });
    clients.push(client);
    await client.waitFor((frame) => frame.type === 'welcome', 5_000, 'welcome');
    return client;
  }

  const configure = (who: SignedUp) =>
    app.inject({ method: 'POST', url: '/api/v11/integrations/chargebee', headers: { authorization: who.authorization }, payload: { chargebee_api_key: 'test_chargebee_key', chargebee_site: 'acme' } });

  it('sends every card on subscription, then each change of the account’s integrations, and initially_synced at the end', async () => {
    const client = await connected(owner);
    const other = await connected(stranger);
    expect(await client.subscribeAndWait(cards)).toBe('confirm_subscription');
    expect(await client.subscribeAndWait(events)).toBe('confirm_subscription');
    expect(await other.subscribeAndWait(cards)).toBe('confirm_subscription');
    await expect.poll(() => client.messagesOf(cards).length).toBe(1);
    const [first] = client.messagesOf(cards) as Message[];
    expect(first?.type).toBe('integrations');
    expect(first?.type === 'integrations' && first.items.map((item) => item.name)).toEqual(['stripe', 'chargebee', 'intercom', 'zendesk', 'hubspot', 'fakturownia', 'wfirma']);

    expect((await configure(owner)).statusCode).toBe(200);
    await integrationSyncsSettled(app);
    await expect.poll(() => client.messagesOf(events).length).toBe(1);
    expect(client.messagesOf(events)).toEqual([{ event: 'initially_synced', integration: 'chargebee' }]);
    const changes = (client.messagesOf(cards) as Message[]).slice(1).map((message) => (message.type === 'integration' ? message.integration : null));
    expect(changes.every((answer) => answer?.name === 'chargebee')).toBe(true);
    expect(changes[0]).toMatchObject({ configured: true, sync_status: 'queued' });
    expect(changes.some((answer) => answer?.sync_status === 'syncing')).toBe(true);
    expect(changes.at(-1)).toMatchObject({ sync_status: 'idle', initially_synced: true, initial_progress: 100 });
    const percents = changes.map((answer) => answer?.initial_progress ?? 0);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    // The other account heard its own cards only.
    expect(other.messagesOf(cards)).toHaveLength(1);
  });

  it('sends sync_failed with the reason when a sync fails', async () => {
    const client = await connected(owner);
    expect(await client.subscribeAndWait(events)).toBe('confirm_subscription');
    fake.failNext(50, 500);
    const response = await app.inject({ method: 'POST', url: '/api/v11/integrations/chargebee/sync', headers: { authorization: owner.authorization } });
    expect(response.statusCode).toBe(202);
    await integrationSyncsSettled(app);
    fake.failNext(0);
    await expect.poll(() => client.messagesOf(events).length).toBe(1);
    expect(client.messagesOf(events)).toEqual([{ event: 'sync_failed', integration: 'chargebee', error: 'Chargebee did not answer properly (HTTP 500); the sync will continue where it stopped' }]);
  });

  it('refuses other params and users who may only see shared reports', async () => {
    const client = await connected(owner);
    expect(await client.subscribeAndWait(JSON.stringify({ channel: 'IntegrationsChannel', account_id: stranger.user.account_id }))).toBe('reject_subscription');
    expect(await client.subscribeAndWait(JSON.stringify({ channel: 'IntegrationStatusEventsChannel', id: 'x' }))).toBe('reject_subscription');
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    const viewing = await connected(viewer);
    expect(await viewing.subscribeAndWait(cards)).toBe('reject_subscription');
    expect(await viewing.subscribeAndWait(events)).toBe('reject_subscription');
  });
});
