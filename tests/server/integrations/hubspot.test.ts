import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAME_EMPTY } from '../../../models/integrations';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { hubspotSearchSettings } from '../../../server/integrations/providers/hubspot';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { openSecrets, sealSecrets } from '../../../server/integrations/secrets';
import { INTEGRATION_NOT_CONFIGURED } from '../../../server/routes/integrations';
import { HUBSPOT_CLIENT_ID, HUBSPOT_CLIENT_SECRET, HUBSPOT_HUB_ID, startFakeHubspot, type FakeHubspot } from '../../fakes/hubspot';
import { createAuthTestApp, errorsOf, problemsOf, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY } from './support';

/**
 * HubSpot through the whole app, against the fake HubSpot: the OAuth connect leaves it
 * authorized but needing its configuration; the dialog's attribute name starts the first sync,
 * which gives customers the companies' attributes and the account the deals (owners in the deal
 * owner filter); an incremental sync reads what changed, refreshing an expired token once.
 */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let fake: FakeHubspot;

const tokenOf = (who: SignedUp) => who.authorization.replace(/^Bearer /, '');
const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: { authorization: owner.authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

interface Card {
  name: string;
  configured: boolean;
  authorized: boolean;
  initially_synced: boolean;
  sync_status: string;
  config: Record<string, unknown>;
  connect: string;
  configurable: boolean;
  enabled: boolean;
  connect_url: string | null;
}
const card = async (): Promise<Card> => ((await api('GET', '/integrations')).json() as { items: Card[] }).items.find((item) => item.name === 'hubspot') as Card;
const syncLog = async () => ((await api('GET', '/integrations/hubspot/sync_log')).json() as { items: { event: string }[] }).items.map((item) => item.event);
const row = () => harness.db.kysely.selectFrom('integrations').selectAll().where('account_id', '=', owner.user.account_id).where('name', '=', 'hubspot').executeTakeFirstOrThrow();
const deals = () =>
  harness.db.kysely
    .selectFrom('deals as d')
    .leftJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'd.account_id').onRef('c.id', '=', 'd.customer_id'))
    .select(['d.public_id', 'd.name', 'd.value', 'd.currency', 'd.stage', 'd.owner_name', 'd.external_url', 'd.source', 'c.public_id as customer'])
    .where('d.account_id', '=', owner.user.account_id)
    .orderBy('d.public_id')
    .execute();

/** GET /users/auth/hubspot, the fake's consent page, and back to our callback: the callback's answer. */
async function connectByOauth(): Promise<LightMyRequestResponse> {
  const start = await app.inject({ method: 'GET', url: `/users/auth/hubspot?authorization=${encodeURIComponent(tokenOf(owner))}&frontend_request=true&redirect_url=/settings` });
  expect(start.statusCode, start.body).toBe(302);
  const authorize = new URL(String(start.headers.location));
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/oauth/authorize`);
  expect(authorize.searchParams.get('client_id')).toBe(HUBSPOT_CLIENT_ID);
  expect(authorize.searchParams.get('scope')).toContain('crm.objects.deals.read');
  const consent = await fetch(authorize, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location') as string);
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

beforeAll(async () => {
  fake = await startFakeHubspot();
  harness = await createAuthTestApp({
    config: {
      ...TEST_CONFIG,
      publicUrl: 'https://subscope.test',
      integrationSecretsKey: TEST_SECRETS_KEY,
      providerUrls: { ...DEFAULT_PROVIDER_URLS, hubspotApi: fake.url, hubspotAuthorize: fake.url },
      oauthClients: { hubspot: { clientId: HUBSPOT_CLIENT_ID, clientSecret: HUBSPOT_CLIENT_SECRET } },
    },
  });
  app = harness.app;
  owner = await signUp(app);
  for (const [name, publicId] of [
    ['Acme', 'cust-1'],
    ['Beta', 'cust-2'],
  ]) {
    const made = await api('POST', '/customers', { name, public_id: publicId });
    expect(made.statusCode, made.body).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await fake?.close();
});

describe(`hubspot on ${testEngine}`, () => {
  it('connects by OAuth and then needs its configuration: authorized, not configured, nothing synced', async () => {
    expect(await card()).toMatchObject({ enabled: true, connect: 'oauth', configurable: true, connect_url: '/users/auth/hubspot', configured: false, authorized: false });
    const back = await connectByOauth();
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('/settings?integration=hubspot&status=connected');
    await integrationSyncsSettled(app);
    const answer = await card();
    expect(answer).toMatchObject({ configured: false, authorized: true, sync_status: 'idle', initially_synced: false, config: { hub_id: String(HUBSPOT_HUB_ID) } });
    expect(JSON.stringify(answer)).not.toMatch(/hs-access|hs-refresh/);
    expect(await syncLog()).toEqual(['authorized']);
    const sync = await api('POST', '/integrations/hubspot/sync');
    expect(sync.statusCode).toBe(409);
    expect(errorsOf(sync)[0]?.detail).toBe(INTEGRATION_NOT_CONFIGURED);
    expect(fake.calls.some((call) => call.path.startsWith('/crm/'))).toBe(false);
  });

  it('refuses an empty attribute name with the dialog’s message', async () => {
    for (const body of [{}, { public_id_attribute_name: '   ' }, { public_id_attribute_name: 42 }]) {
      const refused = await api('POST', '/integrations/hubspot', body);
      expect(refused.statusCode, refused.body).toBe(422);
      expect(problemsOf(refused)).toEqual([{ pointer: '/body/public_id_attribute_name', detail: ATTRIBUTE_NAME_EMPTY }]);
    }
    expect((await card()).configured).toBe(false);
  });

  it('saves the attribute name and syncs: company attributes onto customers, deals with stages, owners and customers', async () => {
    fake.setOwners([
      { id: '101', email: 'anna@example.com', firstName: 'Anna', lastName: 'Nowak' },
      { id: '102', email: 'jan@example.com', firstName: 'Jan', lastName: 'Kowalski' },
    ]);
    const [acme, beta, stranger] = fake.addCompanies([
      { properties: { name: 'Acme Inc.', industry: 'COMPUTER_SOFTWARE', country: 'Poland', city: 'Warsaw', numberofemployees: '50', lifecyclestage: 'customer', customer_id: 'cust-1' } },
      { properties: { name: 'Beta LLC', industry: 'RETAIL', country: 'Germany', city: null, numberofemployees: null, lifecyclestage: 'lead', customer_id: 'cust-2' } },
      { properties: { name: 'Nobody here', industry: 'RETAIL', customer_id: 'not-a-customer' } },
      { properties: { name: 'No public id', industry: 'MINING' } },
    ]);
    fake.addDeals([
      { id: '501', properties: { dealname: 'Acme renewal', amount: '1200.50', deal_currency_code: 'USD', dealstage: 'closedwon', hubspot_owner_id: '101', hs_v2_date_entered_current_stage: '2026-10-01T09:00:00Z' }, companyIds: [acme as string] },
      { id: '502', properties: { dealname: 'Beta pilot', amount: '300', deal_currency_code: 'EUR', dealstage: 'qualifiedtobuy', hubspot_owner_id: '102' }, companyIds: [beta as string] },
      { id: '503', properties: { dealname: 'Stranger deal', amount: '99', dealstage: 'appointmentscheduled' }, companyIds: [stranger as string] },
    ]);
    fake.rateLimit(1, 1);
    const saved = await api('POST', '/integrations/hubspot', { public_id_attribute_name: 'customer_id' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ configured: true, authorized: true, config: { hub_id: String(HUBSPOT_HUB_ID), public_id_attribute_name: 'customer_id' } });
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ configured: true, initially_synced: true, sync_status: 'idle' });
    expect(await syncLog()).toEqual(expect.arrayContaining(['configured', 'sync_started', 'sync_succeeded']));

    // The deal owner filter lists the synced owners.
    expect((await api('GET', '/deal_owners')).json()).toEqual({ items: [{ owner_name: 'Anna Nowak' }, { owner_name: 'Jan Kowalski' }] });
    expect(await deals()).toEqual([
      { public_id: '501', name: 'Acme renewal', value: 120_050, currency: 'USD', stage: 'Closed Won', owner_name: 'Anna Nowak', external_url: `https://app.hubspot.com/contacts/${HUBSPOT_HUB_ID}/deal/501`, source: 'hubspot', customer: 'cust-1' },
      { public_id: '502', name: 'Beta pilot', value: 30_000, currency: 'EUR', stage: 'Qualified To Buy', owner_name: 'Jan Kowalski', external_url: `https://app.hubspot.com/contacts/${HUBSPOT_HUB_ID}/deal/502`, source: 'hubspot', customer: 'cust-2' },
      // Its company's public id is no customer's: the deal has no customer, and none is made.
      { public_id: '503', name: 'Stranger deal', value: 9_900, currency: 'USD', stage: 'Appointment Scheduled', owner_name: null, external_url: `https://app.hubspot.com/contacts/${HUBSPOT_HUB_ID}/deal/503`, source: 'hubspot', customer: null },
    ]);
    expect(await harness.db.kysely.selectFrom('customers').select('public_id').where('account_id', '=', owner.user.account_id).orderBy('public_id').execute()).toEqual([
      { public_id: 'cust-1' },
      { public_id: 'cust-2' },
    ]);

    // The companies' attributes, as customer attributes with their values.
    const attributes = ((await api('GET', '/object_attributes')).json() as { items: { name: string; object: string; segment_id: string | null }[] }).items;
    const industry = attributes.find((attribute) => attribute.name === 'HubSpot industry');
    expect(industry).toMatchObject({ object: 'customer', segment_id: expect.any(String) as string });
    expect(attributes.map((attribute) => attribute.name)).toEqual(expect.arrayContaining(['HubSpot country', 'HubSpot city', 'HubSpot number of employees', 'HubSpot lifecycle stage']));
    const values = await api('GET', `/customer_segments/${industry?.segment_id}/search_values`);
    expect(values.json()).toEqual({ items: [{ value: 'COMPUTER_SOFTWARE' }, { value: 'RETAIL' }] });
    const country = attributes.find((attribute) => attribute.name === 'HubSpot country');
    expect((await api('GET', `/customer_segments/${country?.segment_id}/search_values`)).json()).toEqual({ items: [{ value: 'Germany' }, { value: 'Poland' }] });
  });

  it('syncs incrementally what changed, refreshing an expired token once and keeping the new one', async () => {
    // The held token is past its expiry: refreshed before the first call.
    const before = await row();
    const held = openSecrets(TEST_SECRETS_KEY, before.secret_config);
    await harness.db.kysely
      .updateTable('integrations')
      .set({ secret_config: JSON.stringify(sealSecrets(TEST_SECRETS_KEY, { ...held, expires_at: String(Date.now() - 1_000) })) })
      .where('account_id', '=', owner.user.account_id)
      .where('name', '=', 'hubspot')
      .execute();
    fake.expireTokens();
    fake.addDeals([{ id: '501', properties: { amount: '1500', dealstage: 'appointmentscheduled' } }]);
    const callsBefore = fake.calls.length;
    const sync = await api('POST', '/integrations/hubspot/sync');
    expect(sync.statusCode, sync.body).toBe(202);
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle', initially_synced: true });
    expect(fake.refreshes).toBe(1);
    const after = openSecrets(TEST_SECRETS_KEY, (await row()).secret_config);
    expect(after.access_token).not.toBe(held.access_token);
    expect(Number(after.expires_at)).toBeGreaterThan(Date.now() + 60_000);
    expect((await syncLog()).slice(0, 4)).toEqual(['sync_succeeded', 'token_refreshed', 'hubspot.read', 'sync_started']);
    const calls = fake.calls.slice(callsBefore).map((call) => `${call.method} ${call.path.split('?')[0]}`);
    expect(calls).toEqual(expect.arrayContaining(['POST /crm/v3/objects/companies/search', 'POST /crm/v3/objects/deals/search', 'POST /crm/v4/associations/deals/companies/batch/read']));
    // Deals are read by search; the only list read is of the archived ones.
    const dealLists = fake.calls.slice(callsBefore).filter((call) => call.method === 'GET' && call.path.startsWith('/crm/v3/objects/deals?'));
    expect(dealLists.length).toBeGreaterThan(0);
    expect(dealLists.every((call) => new URL(call.path, 'http://x').searchParams.get('archived') === 'true')).toBe(true);
    const renewal = (await deals()).find((deal) => deal.public_id === '501');
    expect(renewal).toMatchObject({ value: 150_000, stage: 'Appointment Scheduled', customer: 'cust-1', owner_name: 'Anna Nowak' });

    // A token HubSpot stops accepting before its time (a 401) is refreshed once, and the call tried again.
    fake.expireTokens();
    const again = await api('POST', '/integrations/hubspot/sync');
    expect(again.statusCode).toBe(202);
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle' });
    expect(fake.refreshes).toBe(2);
  });

  it('removes a deal archived in HubSpot at the next sync, and keeps the others', async () => {
    expect((await deals()).map((deal) => deal.public_id)).toEqual(['501', '502', '503']);
    fake.archiveDeals(['503']);
    const sync = await api('POST', '/integrations/hubspot/sync');
    expect(sync.statusCode, sync.body).toBe(202);
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle', last_error: null });
    expect((await deals()).map((deal) => deal.public_id)).toEqual(['501', '502']);
    // Archived once is removed once: the next sync lists it again and changes nothing.
    expect((await api('POST', '/integrations/hubspot/sync')).statusCode).toBe(202);
    await integrationSyncsSettled(app);
    expect((await deals()).map((deal) => deal.public_id)).toEqual(['501', '502']);
  });

  it('reads past the search’s result window by querying again from the last result’s modification time', async () => {
    // HubSpot's search pages through 10,000 results a query; here 200, with 250 deals changed since the last sync.
    fake.searchWindow = 200;
    hubspotSearchSettings.window = 200;
    try {
      const start = Date.now() + 60_000;
      fake.addDeals(
        Array.from({ length: 250 }, (_, k) => ({
          id: String(7_000 + k),
          properties: { dealname: `Bulk ${k}`, amount: '10', dealstage: 'appointmentscheduled' },
          updatedAt: new Date(start + k * 1_000).toISOString(),
        })),
      );
      const callsBefore = fake.calls.length;
      expect((await api('POST', '/integrations/hubspot/sync')).statusCode).toBe(202);
      await integrationSyncsSettled(app);
      expect(await card()).toMatchObject({ sync_status: 'idle', last_error: null });
      const ids = (await deals()).map((deal) => deal.public_id);
      expect(ids).toHaveLength(252);
      expect(ids).toEqual(expect.arrayContaining(['501', '502', '7000', '7199', '7200', '7249']));
      expect(fake.calls.slice(callsBefore).filter((call) => call.path === '/crm/v3/objects/deals/search').length).toBeGreaterThanOrEqual(3);
    } finally {
      fake.searchWindow = 10_000;
      hubspotSearchSettings.window = 10_000;
    }
  });

  it('disconnects: neither authorized nor configured, what was synced stays', async () => {
    expect((await api('DELETE', '/integrations/hubspot')).statusCode).toBe(204);
    expect(await card()).toMatchObject({ configured: false, authorized: false, config: {} });
    expect((await api('POST', '/integrations/hubspot', { public_id_attribute_name: 'customer_id' })).statusCode).toBe(409);
    expect((await api('GET', '/deal_owners')).json()).toEqual({ items: [{ owner_name: 'Anna Nowak' }, { owner_name: 'Jan Kowalski' }] });
  });
});
