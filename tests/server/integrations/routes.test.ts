import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNOT_CONNECT_MESSAGES, CHARGEBEE_API_KEY_EMPTY, CHARGEBEE_SITE_EMPTY, SITE_INVALID } from '../../../models/integrations';
import { PROVIDERS } from '../../../server/integrations/registry';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { INTEGRATION_NOT_CONFIGURED, INTEGRATION_NOT_FOUND } from '../../../server/routes/integrations';
import { startFakeChargebee, type FakeChargebee } from '../../fakes/chargebee';
import { createAuthTestApp, errorsOf, expectSignInRequired, problemsOf, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY, urlsWithChargebee } from './support';

/**
 * The integration routes (GET /integrations, /integrations/action_urls, POST and DELETE
 * /integrations/{name}, POST /integrations/{name}/sync, GET /integrations/{name}/sync_log)
 * against the fake Chargebee: validation, a refused key, a saved configuration that syncs,
 * disconnect keeping the data, another account's view, secrets never leaving the server.
 */

interface Answer {
  name: string;
  enabled: boolean;
  configurable: boolean;
  configured: boolean;
  initially_synced: boolean;
  initial_progress: number;
  connect_url: string | null;
  connect: string;
  sync_status: string;
  last_synced_at: string | null;
  last_error: string | null;
  config: Record<string, unknown>;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let fake: FakeChargebee;
let owner: SignedUp;
let stranger: SignedUp;

const api = (method: 'GET' | 'POST' | 'DELETE', url: string, who: SignedUp | null = owner, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: who ? { authorization: who.authorization } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function cards(who: SignedUp = owner): Promise<Answer[]> {
  const response = await api('GET', '/integrations', who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: Answer[] }).items;
}
const card = async (name: string, who: SignedUp = owner) => (await cards(who)).find((item) => item.name === name) as Answer;

const GOOD = { chargebee_api_key: 'test_chargebee_key', chargebee_site: 'acme' };

describe(`integration routes on ${testEngine}`, () => {
  beforeAll(async () => {
    process.env.PROVIDER_RETRY_BASE_MS = '1';
    fake = await startFakeChargebee();
    fake.seed(3);
    harness = await createAuthTestApp({ config: { ...TEST_CONFIG, providerUrls: urlsWithChargebee(fake.url), integrationSecretsKey: TEST_SECRETS_KEY } });
    app = harness.app;
    owner = await signUp(app);
    stranger = await signUp(app);
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
  });

  it('lists every card in order, with how each connects', async () => {
    const items = await cards();
    expect(items.map((item) => item.name)).toEqual(['stripe', 'chargebee', 'intercom', 'zendesk', 'hubspot', 'fakturownia', 'wfirma']);
    const byName = Object.fromEntries(items.map((item) => [item.name, item]));
    expect(byName.chargebee).toEqual({
      name: 'chargebee',
      enabled: true,
      configurable: true,
      configured: false,
      authorized: false,
      initially_synced: false,
      initial_progress: 0,
      connect_url: null,
      connect: 'dialog',
      sync_status: 'idle',
      last_synced_at: null,
      last_error: null,
      config: {},
    });
    expect(byName.stripe).toMatchObject({ enabled: true, configurable: false, connect: 'oauth', connect_url: '/users/auth/stripe' });
    expect(byName.zendesk).toMatchObject({ enabled: true, configurable: false, connect: 'closed_beta', connect_url: null });
    expect(byName.hubspot).toMatchObject({ enabled: true, configurable: true, connect: 'oauth', connect_url: '/users/auth/hubspot', configured: false, authorized: false });
    // A card whose provider is not built yet is disabled.
    for (const later of ['intercom', 'wfirma'] as const) {
      if (!PROVIDERS[later]) expect(byName[later]).toMatchObject({ enabled: false, configurable: false, connect_url: null });
    }
    expect(byName.fakturownia).toMatchObject({ enabled: true, configurable: true, connect: 'dialog' });
  });

  it('gives the OAuth connect URL of each card', async () => {
    const response = await api('GET', '/integrations/action_urls');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      data: { stripe: '/users/auth/stripe', chargebee: null, intercom: PROVIDERS.intercom ? '/users/auth/intercom' : null, zendesk: null, hubspot: '/users/auth/hubspot', fakturownia: null, wfirma: null },
    });
  });

  it('asks for a sign-in and a full user', async () => {
    for (const [method, url] of [
      ['GET', '/integrations'],
      ['GET', '/integrations/action_urls'],
      ['POST', '/integrations/chargebee'],
      ['DELETE', '/integrations/chargebee'],
      ['POST', '/integrations/chargebee/sync'],
      ['GET', '/integrations/chargebee/sync_log'],
    ] as const) {
      expectSignInRequired(await api(method, url, null, method === 'POST' ? {} : undefined));
    }
    const viewer = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await api('GET', '/integrations', viewer)).statusCode).toBe(403);
  });

  it('words each empty or malformed field, and never fails on odd input', async () => {
    const empty = await api('POST', '/integrations/chargebee', owner, {});
    expect(empty.statusCode).toBe(422);
    expect(problemsOf(empty)).toEqual([
      { pointer: '/body/chargebee_api_key', detail: CHARGEBEE_API_KEY_EMPTY },
      { pointer: '/body/chargebee_site', detail: CHARGEBEE_SITE_EMPTY },
    ]);
    const blank = await api('POST', '/integrations/chargebee', owner, { chargebee_api_key: '  ', chargebee_site: 'acme' });
    expect(problemsOf(blank)).toEqual([{ pointer: '/body/chargebee_api_key', detail: CHARGEBEE_API_KEY_EMPTY }]);
    const wrongTypes = await api('POST', '/integrations/chargebee', owner, { chargebee_api_key: 12, chargebee_site: ['acme'] });
    expect(wrongTypes.statusCode).toBe(422);
    const site = await api('POST', '/integrations/chargebee', owner, { chargebee_api_key: 'k', chargebee_site: 'not a site' });
    expect(problemsOf(site)).toEqual([{ pointer: '/body/chargebee_site', detail: SITE_INVALID }]);
    expect((await api('POST', '/integrations/chargebee', owner, { chargebee_api_key: 'k\u0000', chargebee_site: 'acme' })).statusCode).toBe(400);
    const huge = await api('POST', '/integrations/chargebee', owner, { chargebee_api_key: 'k'.repeat(100_000), chargebee_site: 'x'.repeat(100_000) });
    expect(huge.statusCode).toBe(422);
    const notObject = await app.inject({ method: 'POST', url: '/api/v11/integrations/chargebee', headers: { authorization: owner.authorization, 'content-type': 'application/json' }, payload: '[1,2]' });
    expect([400, 422]).toContain(notObject.statusCode);
    expect((await card('chargebee')).configured).toBe(false);
  });

  it('refuses a key Chargebee refuses, saving nothing', async () => {
    const response = await api('POST', '/integrations/chargebee', owner, { ...GOOD, chargebee_api_key: 'wrong_key' });
    expect(response.statusCode).toBe(422);
    expect(errorsOf(response)).toMatchObject([{ code: 'cannot_connect_to_chargebee', detail: CANNOT_CONNECT_MESSAGES.cannot_connect_to_chargebee, source: { pointer: '/body' } }]);
    expect((await card('chargebee')).configured).toBe(false);
  });

  it('answers 404 for unknown or not configurable names, 409 for a sync of what is not connected', async () => {
    expect((await api('POST', '/integrations/nosuch', owner, GOOD)).statusCode).toBe(404);
    // An OAuth integration with a dialog before its OAuth connect: nothing to configure yet.
    const unauthorized = await api('POST', '/integrations/hubspot', owner, { public_id_attribute_name: 'customer_id' });
    expect(unauthorized.statusCode).toBe(409);
    expect(errorsOf(unauthorized)[0]?.detail).toBe(INTEGRATION_NOT_CONFIGURED);
    // Stripe has no dialog: no such route, the API's JSON error.
    const stripe = await api('POST', '/integrations/stripe', owner, GOOD);
    expect(stripe.statusCode).toBe(404);
    expect(errorsOf(stripe)[0]?.detail).toBeTruthy();
    const unknown = await api('DELETE', '/integrations/nosuch');
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)[0]?.detail).toBe(INTEGRATION_NOT_FOUND);
    expect((await api('GET', '/integrations/nosuch/sync_log')).statusCode).toBe(404);
    expect((await api('POST', '/integrations/nosuch/sync')).statusCode).toBe(404);
    const notConnected = await api('POST', '/integrations/chargebee/sync');
    expect(notConnected.statusCode).toBe(409);
    expect(errorsOf(notConnected)[0]?.detail).toBe(INTEGRATION_NOT_CONFIGURED);
  });

  it('saves a configuration, syncs it, and keeps the key out of every answer and of the database row', async () => {
    const response = await api('POST', '/integrations/chargebee', owner, { ...GOOD, chargebee_site: 'https://Acme.chargebee.com/' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ name: 'chargebee', configured: true, sync_status: 'queued', config: { chargebee_site: 'acme' } });
    expect(response.body).not.toContain('test_chargebee_key');
    await integrationSyncsSettled(app);
    const synced = await card('chargebee');
    expect(synced).toMatchObject({ configured: true, initially_synced: true, initial_progress: 100, sync_status: 'idle', last_error: null, config: { chargebee_site: 'acme' } });
    expect(Date.parse(synced.last_synced_at as string)).toBeGreaterThan(0);
    const row = await harness.db.kysely.selectFrom('integrations').selectAll().where('account_id', '=', owner.user.account_id).where('name', '=', 'chargebee').executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('test_chargebee_key');
    const payments = await harness.db.kysely.selectFrom('payments').select(['external_id', 'total_value', 'currency']).where('account_id', '=', owner.user.account_id).where('source', '=', 'chargebee').orderBy('external_id').execute();
    expect(payments.map((p) => [p.external_id, Number(p.total_value), p.currency])).toEqual([
      ['inv_1:li_inv_1', 5000, 'USD'],
      ['inv_2:li_inv_2', 5000, 'USD'],
      ['inv_3:li_inv_3', 5000, 'USD'],
    ]);
    // The other account sees nothing of it.
    expect(await card('chargebee', stranger)).toMatchObject({ configured: false, initially_synced: false, config: {} });
    expect((await api('GET', '/integrations/chargebee/sync_log', stranger)).json()).toEqual({ items: [] });
    expect((await api('POST', '/integrations/chargebee/sync', stranger)).statusCode).toBe(409);
  });

  it('syncs again on request (202), incrementally, and logs each sync newest first', async () => {
    const response = await api('POST', '/integrations/chargebee/sync');
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toMatchObject({ name: 'chargebee', sync_status: 'queued', initially_synced: true });
    await integrationSyncsSettled(app);
    const log = await api('GET', '/integrations/chargebee/sync_log');
    expect(log.statusCode).toBe(200);
    const items = (log.json() as { items: { at: string; event: string; details: Record<string, unknown> }[] }).items;
    expect(items.map((item) => item.event)).toEqual(['sync_succeeded', 'sync_started', 'sync_succeeded', 'sync_started', 'configured']);
    expect(items[1]?.details).toEqual({ mode: 'incremental' });
    expect(items[3]?.details).toEqual({ mode: 'initial' });
    expect(JSON.stringify(items)).not.toContain('test_chargebee_key');
  });

  it('disconnects: not configured, secrets gone, synced data kept; another account’s disconnect touches nothing here', async () => {
    expect((await api('DELETE', '/integrations/chargebee', stranger)).statusCode).toBe(204);
    expect((await card('chargebee')).configured).toBe(true);
    const response = await api('DELETE', '/integrations/chargebee');
    expect(response.statusCode).toBe(204);
    expect(await card('chargebee')).toMatchObject({ configured: false, sync_status: 'idle', config: {}, last_error: null });
    const row = await harness.db.kysely.selectFrom('integrations').select(['secret_config', 'sync_cursor']).where('account_id', '=', owner.user.account_id).where('name', '=', 'chargebee').executeTakeFirstOrThrow();
    expect(row).toEqual({ secret_config: null, sync_cursor: null });
    const kept = await harness.db.kysely.selectFrom('payments').select('id').where('account_id', '=', owner.user.account_id).where('source', '=', 'chargebee').where('deleted_at', 'is', null).execute();
    expect(kept).toHaveLength(3);
    expect((await api('POST', '/integrations/chargebee/sync')).statusCode).toBe(409);
  });

  it('starts a new initial sync when another site is saved', async () => {
    expect((await api('POST', '/integrations/chargebee', owner, GOOD)).statusCode).toBe(200);
    await integrationSyncsSettled(app);
    expect((await card('chargebee')).initially_synced).toBe(true);
    const other = await api('POST', '/integrations/chargebee', owner, { ...GOOD, chargebee_site: 'other-site' });
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json()).toMatchObject({ configured: true, initially_synced: false, initial_progress: 0, sync_status: 'queued', config: { chargebee_site: 'other-site' } });
    await integrationSyncsSettled(app);
    expect(await card('chargebee')).toMatchObject({ initially_synced: true, sync_status: 'idle', config: { chargebee_site: 'other-site' } });
  });
});
