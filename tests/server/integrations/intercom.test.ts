import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAME_EMPTY } from '../../../models/integrations';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { OBJECT_TYPE_INVALID } from '../../../server/integrations/providers/intercom';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { openSecrets } from '../../../server/integrations/secrets';
import { INTEGRATION_NOT_CONFIGURED } from '../../../server/routes/integrations';
import { INTERCOM_CLIENT_ID, INTERCOM_CLIENT_SECRET, INTERCOM_WORKSPACE_ID, startFakeIntercom, type FakeIntercom } from '../../fakes/intercom';
import { createAuthTestApp, errorsOf, problemsOf, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY } from './support';

/**
 * Intercom through the whole app, against the fake Intercom: the OAuth connect leaves it
 * authorized but needing its dialog; saving where the public id is starts the first sync, which
 * gives the account's customers the contacts' attributes; an incremental sync searches what
 * changed; a company path reads the companies instead; a revoked token fails the sync with a
 * sentence; disconnecting keeps what was synced.
 */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let fake: FakeIntercom;

const tokenOf = (who: SignedUp) => who.authorization.replace(/^Bearer /, '');
const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: { authorization: owner.authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

interface Card {
  name: string;
  enabled: boolean;
  configurable: boolean;
  configured: boolean;
  authorized: boolean;
  connect: string;
  connect_url: string | null;
  initially_synced: boolean;
  sync_status: string;
  last_error: string | null;
  config: Record<string, unknown>;
}
const card = async (): Promise<Card> => ((await api('GET', '/integrations')).json() as { items: Card[] }).items.find((item) => item.name === 'intercom') as Card;
const syncLog = async () => ((await api('GET', '/integrations/intercom/sync_log')).json() as { items: { event: string }[] }).items.map((item) => item.event);
const row = () => harness.db.kysely.selectFrom('integrations').selectAll().where('account_id', '=', owner.user.account_id).where('name', '=', 'intercom').executeTakeFirstOrThrow();

/** The account's customer attributes named 'Intercom …', by name. */
async function intercomAttributes(): Promise<Map<string, string>> {
  const items = ((await api('GET', '/object_attributes')).json() as { items: { name: string; object: string; segment_id: string | null }[] }).items;
  return new Map(items.filter((item) => item.name.startsWith('Intercom ') && item.object === 'customer').map((item) => [item.name, item.segment_id as string]));
}
const valuesOf = async (segmentId: string | undefined) => ((await api('GET', `/customer_segments/${segmentId}/search_values`)).json() as { items: { value: string }[] }).items.map((item) => item.value);

/** Each customer's value of one attribute this month (what the customer page shows). */
async function customerValues(segmentId: string | undefined): Promise<Record<string, string | null>> {
  const rows = await harness.db.kysely
    .selectFrom('customer_segment_values as v')
    .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'v.account_id').onRef('c.id', '=', 'v.customer_id'))
    .select(['c.public_id', 'v.value'])
    .where('v.account_id', '=', owner.user.account_id)
    .where('v.segment_id', '=', segmentId as string)
    .execute();
  return Object.fromEntries(rows.map((entry) => [entry.public_id, entry.value]));
}

/** GET /users/auth/intercom, the fake's consent page, and back to our callback: the callback's answer. */
async function connectByOauth(): Promise<LightMyRequestResponse> {
  const start = await app.inject({ method: 'GET', url: `/users/auth/intercom?authorization=${encodeURIComponent(tokenOf(owner))}&frontend_request=true&redirect_url=/settings` });
  expect(start.statusCode, start.body).toBe(302);
  const authorize = new URL(String(start.headers.location));
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/oauth`);
  expect(authorize.searchParams.get('client_id')).toBe(INTERCOM_CLIENT_ID);
  expect(authorize.searchParams.get('redirect_uri')).toBe('https://subscope.test/users/auth/intercom/callback');
  const consent = await fetch(authorize, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location') as string);
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

beforeAll(async () => {
  process.env.PROVIDER_RETRY_BASE_MS = '1';
  fake = await startFakeIntercom();
  harness = await createAuthTestApp({
    config: {
      ...TEST_CONFIG,
      publicUrl: 'https://subscope.test',
      integrationSecretsKey: TEST_SECRETS_KEY,
      providerUrls: { ...DEFAULT_PROVIDER_URLS, intercomApi: fake.url, intercomAuthorize: fake.url },
      oauthClients: { intercom: { clientId: INTERCOM_CLIENT_ID, clientSecret: INTERCOM_CLIENT_SECRET } },
    },
  });
  app = harness.app;
  owner = await signUp(app);
  for (const [name, publicId] of [
    ['Acme', 'cust-1'],
    ['Beta', 'cust-2'],
    ['Gamma', 'cust-3'],
  ]) {
    const made = await api('POST', '/customers', { name, public_id: publicId });
    expect(made.statusCode, made.body).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  delete process.env.PROVIDER_RETRY_BASE_MS;
  await harness?.close();
  await fake?.close();
});

describe(`intercom on ${testEngine}`, () => {
  it('connects by OAuth and then needs its configuration: authorized, not configured, nothing read', async () => {
    expect(await card()).toMatchObject({ enabled: true, connect: 'oauth', configurable: true, connect_url: '/users/auth/intercom', configured: false, authorized: false });
    expect((await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'customer', attribute_name: 'external_id' } })).statusCode).toBe(409);
    const back = await connectByOauth();
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('/settings?integration=intercom&status=connected');
    await integrationSyncsSettled(app);
    const answer = await card();
    expect(answer).toMatchObject({ configured: false, authorized: true, sync_status: 'idle', initially_synced: false, config: { workspace_id: INTERCOM_WORKSPACE_ID } });
    expect(JSON.stringify(answer)).not.toMatch(/ic-token/);
    expect(openSecrets(TEST_SECRETS_KEY, (await row()).secret_config).access_token).toMatch(/^ic-token-/);
    expect(await syncLog()).toEqual(['authorized']);
    const sync = await api('POST', '/integrations/intercom/sync');
    expect(sync.statusCode).toBe(409);
    expect(errorsOf(sync)[0]?.detail).toBe(INTEGRATION_NOT_CONFIGURED);
    expect(fake.calls.map((call) => call.path)).toEqual(['/auth/eagle/token', '/me']);
  });

  it('refuses an empty attribute name or an unknown object type with their messages', async () => {
    const empty = await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'customer', attribute_name: '  ' } });
    expect(empty.statusCode, empty.body).toBe(422);
    expect(problemsOf(empty)).toEqual([{ pointer: '/body/customer_public_id_path/attribute_name', detail: ATTRIBUTE_NAME_EMPTY }]);
    const unknown = await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'lead', attribute_name: 'email' } });
    expect(unknown.statusCode, unknown.body).toBe(422);
    expect(problemsOf(unknown)).toEqual([{ pointer: '/body/customer_public_id_path/object_type', detail: OBJECT_TYPE_INVALID }]);
    expect((await card()).configured).toBe(false);
  });

  it('saves where the public id is and syncs the contacts’ attributes onto the customers', async () => {
    fake.addContacts([
      { external_id: 'cust-1', email: 'ada@acme.test', location: { country: 'Poland', city: 'Warsaw' }, custom_attributes: { plan_tier: 'gold', seats: 12 } },
      { external_id: 'cust-2', email: 'bob@beta.test', location: { country: 'Germany' }, custom_attributes: { plan_tier: 'silver', seats: 3 } },
      // A public id no customer has: skipped, no customer made.
      { external_id: 'stranger', custom_attributes: { plan_tier: 'bronze' } },
      // A lead without an external id: nothing to match.
      { email: 'lead@nowhere.test', role: 'lead', custom_attributes: { plan_tier: 'trial' } },
    ]);
    fake.rateLimit(1, 0);
    const saved = await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'customer', attribute_name: 'external_id' } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      configured: true,
      authorized: true,
      config: { workspace_id: INTERCOM_WORKSPACE_ID, customer_public_id_path: { object_type: 'customer', attribute_name: 'external_id' } },
    });
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ configured: true, initially_synced: true, sync_status: 'idle', last_error: null });
    expect(await syncLog()).toEqual(expect.arrayContaining(['configured', 'sync_started', 'intercom.read', 'sync_succeeded']));

    const attributes = await intercomAttributes();
    expect([...attributes.keys()].sort()).toEqual(['Intercom city', 'Intercom country', 'Intercom plan_tier', 'Intercom seats']);
    expect(await valuesOf(attributes.get('Intercom plan_tier'))).toEqual(['gold', 'silver']);
    expect(await customerValues(attributes.get('Intercom country'))).toEqual({ 'cust-1': 'Poland', 'cust-2': 'Germany' });
    expect(await customerValues(attributes.get('Intercom seats'))).toEqual({ 'cust-1': '12', 'cust-2': '3' });
    expect(await harness.db.kysely.selectFrom('customers').select('public_id').where('account_id', '=', owner.user.account_id).orderBy('public_id').execute()).toEqual([
      { public_id: 'cust-1' },
      { public_id: 'cust-2' },
      { public_id: 'cust-3' },
    ]);
  });

  it('syncs incrementally what changed, through the contact search', async () => {
    fake.addContacts([{ external_id: 'cust-3', custom_attributes: { plan_tier: 'platinum' } }]);
    const callsBefore = fake.calls.length;
    const sync = await api('POST', '/integrations/intercom/sync');
    expect(sync.statusCode, sync.body).toBe(202);
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle', initially_synced: true });
    // The companies first: one changed since would have contacts to write again.
    expect(fake.calls.slice(callsBefore).map((call) => `${call.method} ${call.path}`)).toEqual(['POST /companies/list?page=1&per_page=50', 'POST /contacts/search']);
    expect(await customerValues((await intercomAttributes()).get('Intercom plan_tier'))).toEqual({ 'cust-1': 'gold', 'cust-2': 'silver', 'cust-3': 'platinum' });
  });

  it('reads the companies when the public id is a company’s, keeping the OAuth connect', async () => {
    fake.addCompanies([
      { company_id: 'cust-1', name: 'Acme', plan: 'Enterprise', size: 120, industry: 'Software', custom_attributes: { region: 'EU' } },
      { company_id: 'nobody', name: 'Nobody', plan: 'Free' },
    ]);
    const saved = await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ configured: true, config: { workspace_id: INTERCOM_WORKSPACE_ID, customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } } });
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle', last_error: null });
    expect(fake.calls.at(-1)?.path).toBe('/companies/list?page=1&per_page=50');
    const attributes = await intercomAttributes();
    expect(await customerValues(attributes.get('Intercom plan'))).toEqual({ 'cust-1': 'Enterprise' });
    expect(await customerValues(attributes.get('Intercom region'))).toEqual({ 'cust-1': 'EU' });
    expect(await customerValues(attributes.get('Intercom company size'))).toEqual({ 'cust-1': '120' });
  });

  it('keeps the dialog’s setting when the same workspace connects by OAuth again', async () => {
    const back = await connectByOauth();
    expect(back.headers.location).toBe('/settings?integration=intercom&status=connected');
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({
      configured: true,
      authorized: true,
      sync_status: 'idle',
      config: { workspace_id: INTERCOM_WORKSPACE_ID, customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } },
    });
  });

  it('fails the sync with a sentence when Intercom stops accepting the token', async () => {
    fake.revokeTokens();
    expect((await api('POST', '/integrations/intercom/sync')).statusCode).toBe(202);
    await integrationSyncsSettled(app);
    const failed = await card();
    expect(failed).toMatchObject({ sync_status: 'failed', last_error: 'Intercom refused our credentials (HTTP 401): please connect again' });
    expect(failed.last_error).not.toMatch(/Access Token Invalid/);
  });

  it('disconnects: neither authorized nor configured, what was synced stays', async () => {
    expect((await api('DELETE', '/integrations/intercom')).statusCode).toBe(204);
    expect(await card()).toMatchObject({ configured: false, authorized: false, config: {} });
    expect((await api('POST', '/integrations/intercom', { customer_public_id_path: { object_type: 'customer', attribute_name: 'external_id' } })).statusCode).toBe(409);
    expect(await valuesOf((await intercomAttributes()).get('Intercom plan_tier'))).toEqual(['gold', 'platinum', 'silver']);
  });
});
