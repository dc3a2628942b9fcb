import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAME_EMPTY } from '../../../models/integrations';
import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';
import type { DB, JsonObject } from '../../../server/db/schema';
import { providerFetch } from '../../../server/integrations/http';
import { attributesOf, intercomOauth, intercomProvider, OBJECT_TYPE_INVALID, valueAt } from '../../../server/integrations/providers/intercom';
import { ProviderHttpError, type ProviderConfig, type SyncBatch, type SyncContext } from '../../../server/integrations/types';
import { INTERCOM_CLIENT_ID, INTERCOM_CLIENT_SECRET, INTERCOM_WORKSPACE_ID, startFakeIntercom, type FakeIntercom } from '../../fakes/intercom';

/**
 * The Intercom provider against the fake Intercom (its documented wire format), through a
 * SyncContext double that records what the runner would commit: the OAuth spec, the dialog's
 * configuration, contacts or companies as customer attributes by the configured public id,
 * cursor pages and resuming, incremental search, 429s and a revoked token.
 */

let fake: FakeIntercom;
let urls: ProviderUrls;
let token: string;

interface Recorded {
  batches: SyncBatch[];
  cursors: (JsonObject | null)[];
  progress: number[];
  log: string[];
}
const fresh = (): Recorded => ({ batches: [], cursors: [], progress: [], log: [] });
const attributesIn = (recorded: Recorded) => recorded.batches.flatMap((batch) => batch.customerAttributes ?? []);

const CUSTOMER_PATH = { customer_public_id_path: { object_type: 'customer', attribute_name: 'external_id' } };
const COMPANY_PATH = { customer_public_id_path: { object_type: 'company', attribute_name: 'company_id' } };

function contextFor(
  recorded: Recorded,
  options: { config?: JsonObject; mode?: 'initial' | 'incremental'; since?: Date | null; cursor?: JsonObject | null; token?: string; stopAfter?: number } = {},
): SyncContext {
  const controller = new AbortController();
  const held = options.token ?? token;
  return {
    accountId: 'acct-test',
    integration: 'intercom',
    db: {} as Kysely<DB>,
    config: { workspace_id: INTERCOM_WORKSPACE_ID, ...(options.config ?? CUSTOMER_PATH) },
    secrets: { access_token: held },
    urls,
    mode: options.mode ?? 'initial',
    since: options.since ?? null,
    cursor: options.cursor ?? null,
    fetch: providerFetch({ signal: controller.signal, baseDelayMs: 1 }),
    accessToken: () => Promise.resolve(held),
    signal: controller.signal,
    commit: (batch, next) => {
      recorded.batches.push(batch);
      recorded.cursors.push(next.cursor);
      if (next.progress !== undefined) recorded.progress.push(next.progress);
      if (options.stopAfter !== undefined && recorded.batches.length >= options.stopAfter) return Promise.reject(new Error('killed'));
      return Promise.resolve();
    },
    log: (event) => {
      recorded.log.push(event);
      return Promise.resolve();
    },
  };
}

/** The consent screen's redirect and the code's exchange through the provider's OAuth spec. */
async function connect(): Promise<{ config: JsonObject; secrets: Record<string, string>; externalAccountId: string | null }> {
  const client = { clientId: INTERCOM_CLIENT_ID, clientSecret: INTERCOM_CLIENT_SECRET };
  const authorize = new URL(intercomOauth.authorizeUrl({ urls, client, state: 'acct.state', redirectUri: 'https://subscope.test/users/auth/intercom/callback' }));
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/oauth`);
  expect(Object.fromEntries(authorize.searchParams)).toEqual({ client_id: INTERCOM_CLIENT_ID, state: 'acct.state', redirect_uri: 'https://subscope.test/users/auth/intercom/callback' });
  const consent = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location') as string);
  expect(back.searchParams.get('state')).toBe('acct.state');
  return intercomOauth.exchange({ urls, client, code: back.searchParams.get('code') as string, redirectUri: 'https://subscope.test/users/auth/intercom/callback' });
}

beforeAll(async () => {
  fake = await startFakeIntercom();
  urls = { ...DEFAULT_PROVIDER_URLS, intercomApi: fake.url, intercomAuthorize: fake.url };
  token = (await connect()).secrets.access_token as string;
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
});

describe('Intercom OAuth', () => {
  it('exchanges the code for a token without expiry and names the workspace', async () => {
    const grant = await connect();
    expect(grant).toEqual({ config: { workspace_id: INTERCOM_WORKSPACE_ID }, secrets: { access_token: expect.stringMatching(/^ic-token-/) as string }, externalAccountId: INTERCOM_WORKSPACE_ID });
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /auth/eagle/token', 'GET /me']);
    expect(fake.calls[1]?.version).toBe('2.11');
  });

  it('refuses a code Intercom does not know', async () => {
    const client = { clientId: INTERCOM_CLIENT_ID, clientSecret: INTERCOM_CLIENT_SECRET };
    await expect(intercomOauth.exchange({ urls, client, code: 'ic-code-forged', redirectUri: 'https://subscope.test/cb' })).rejects.toBeInstanceOf(ProviderHttpError);
  });
});

describe('Intercom configuration', () => {
  it('needs the dialog until the public id path is saved', () => {
    expect(intercomProvider.needsConfiguration?.({ workspace_id: INTERCOM_WORKSPACE_ID })).toBe(true);
    expect(intercomProvider.needsConfiguration?.({ customer_public_id_path: { object_type: 'customer', attribute_name: ' ' } })).toBe(true);
    expect(intercomProvider.needsConfiguration?.({ workspace_id: INTERCOM_WORKSPACE_ID, ...CUSTOMER_PATH })).toBe(false);
  });

  it('checks the body with the dialog’s messages', () => {
    expect(intercomProvider.parseConfig({ customer_public_id_path: { object_type: 'company', attribute_name: '  custom_attributes.account_id ' } })).toEqual({
      config: { customer_public_id_path: { object_type: 'company', attribute_name: 'custom_attributes.account_id' } },
      secrets: {},
    });
    expect(intercomProvider.parseConfig({ customer_public_id_path: { object_type: 'customer', attribute_name: '   ' } })).toEqual([
      { pointer: '/body/customer_public_id_path/attribute_name', detail: ATTRIBUTE_NAME_EMPTY },
    ]);
    expect(intercomProvider.parseConfig({})).toEqual([
      { pointer: '/body/customer_public_id_path/object_type', detail: OBJECT_TYPE_INVALID },
      { pointer: '/body/customer_public_id_path/attribute_name', detail: ATTRIBUTE_NAME_EMPTY },
    ]);
    expect(intercomProvider.parseConfig({ customer_public_id_path: { object_type: 'lead', attribute_name: 'email' } })).toEqual([
      { pointer: '/body/customer_public_id_path/object_type', detail: OBJECT_TYPE_INVALID },
    ]);
    expect((intercomProvider.parseConfig({ customer_public_id_path: { object_type: 'customer', attribute_name: 'x'.repeat(501) } }) as { pointer: string }[])[0]?.pointer).toBe(
      '/body/customer_public_id_path/attribute_name',
    );
  });

  it('verifies nothing more: the OAuth connect checked the token', async () => {
    const parsed = intercomProvider.parseConfig(CUSTOMER_PATH) as ProviderConfig;
    await expect(intercomProvider.verify(parsed, { urls, fetch: providerFetch({ baseDelayMs: 1 }), secrets: { access_token: token } })).resolves.toBeUndefined();
  });
});

describe('Intercom mapping', () => {
  const contact = {
    type: 'contact',
    id: '64f0a001',
    external_id: 'cust-1',
    email: 'ada@acme.test',
    location: { type: 'location', country: 'Poland', city: 'Kraków', region: null },
    custom_attributes: { plan_tier: 'gold', seats: 12, beta: true, trial_ends_at: 1_767_225_600, account_id: 'acc-9', nested: { a: 1 }, empty: '  ' },
  };

  it('reads the public id at a path, a bare name falling back to the custom attributes', () => {
    expect(valueAt(contact, 'external_id')).toBe('cust-1');
    expect(valueAt(contact, 'custom_attributes.account_id')).toBe('acc-9');
    expect(valueAt(contact, 'account_id')).toBe('acc-9');
    expect(valueAt(contact, 'location.country')).toBe('Poland');
    expect(valueAt(contact, 'nothing.here')).toBeUndefined();
  });

  it('gives every other custom attribute and the standard fields as “Intercom …” attributes', () => {
    expect(attributesOf(contact, { objectType: 'customer', attributeName: 'custom_attributes.account_id' })).toEqual({
      publicId: 'acc-9',
      values: {
        'Intercom country': 'Poland',
        'Intercom city': 'Kraków',
        'Intercom plan_tier': 'gold',
        'Intercom seats': '12',
        'Intercom beta': 'true',
        'Intercom trial_ends_at': '2026-01-01',
        'Intercom empty': null,
      },
    });
    expect(attributesOf(contact, { objectType: 'customer', attributeName: 'external_id' })?.values['Intercom account_id']).toBe('acc-9');
    expect(attributesOf({ ...contact, external_id: null }, { objectType: 'customer', attributeName: 'external_id' })).toBeNull();
    const company = { type: 'company', id: 'c1', company_id: 'cust-7', name: 'Acme', plan: { type: 'plan', id: 'p', name: 'Pro' }, size: 40, industry: 'Software', custom_attributes: { region: 'EU' } };
    expect(attributesOf(company, { objectType: 'company', attributeName: 'company_id' })).toEqual({
      publicId: 'cust-7',
      values: { 'Intercom plan': 'Pro', 'Intercom company size': '40', 'Intercom industry': 'Software', 'Intercom region': 'EU' },
    });
  });
});

describe('Intercom sync', () => {
  it('reads every contact in cursor pages, with the percent, and ends with no cursor', async () => {
    fake.addContacts(
      Array.from({ length: 160 }, (_, k) => ({ external_id: k % 40 === 39 ? null : `cust-${k}`, email: `c${k}@acme.test`, custom_attributes: { plan_tier: k % 2 ? 'gold' : 'silver' }, location: { country: 'Poland' } })),
    );
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded));
    expect(recorded.batches).toHaveLength(2);
    expect(recorded.cursors[0]).toMatchObject({ starting_after: expect.any(String) as string, page: 2, total_pages: 2 });
    expect(recorded.cursors[1]).toBeNull();
    expect(recorded.progress).toEqual([50, 99]);
    const attributes = attributesIn(recorded);
    expect(attributes).toHaveLength(156);
    expect(attributes[1]).toEqual({ publicId: 'cust-1', values: { 'Intercom country': 'Poland', 'Intercom city': null, 'Intercom plan_tier': 'gold' } });
    expect(fake.calls.map((call) => call.path.split('?')[0])).toEqual(['/contacts', '/contacts']);
    expect(fake.calls[0]?.path).toContain('per_page=150');
    expect(fake.calls.every((call) => call.version === '2.11')).toBe(true);
    expect(recorded.log).toEqual(['intercom.read']);
  });

  it('resumes at the last committed cursor with nothing lost', async () => {
    fake.addContacts(Array.from({ length: 160 }, (_, k) => ({ external_id: `cust-${k}` })));
    const killed = fresh();
    await expect(intercomProvider.sync(contextFor(killed, { stopAfter: 2 }))).rejects.toThrow('killed');
    // The second page's commit died: the runner holds the first page's cursor and resumes there, reading the second page again.
    const resumed = fresh();
    await intercomProvider.sync(contextFor(resumed, { cursor: killed.cursors[0] ?? null }));
    expect(resumed.batches).toHaveLength(1);
    expect(resumed.cursors).toEqual([null]);
    expect(new Set([...(killed.batches[0]?.customerAttributes ?? []), ...attributesIn(resumed)].map((entry) => entry.publicId)).size).toBe(160);
  });

  it('searches the contacts updated since the last sync on an incremental one', async () => {
    const old = Math.floor(Date.now() / 1000) - 86_400;
    fake.addContacts([
      { external_id: 'cust-old', custom_attributes: { plan_tier: 'gold' }, updated_at: old },
      { external_id: 'cust-new', custom_attributes: { plan_tier: 'platinum' } },
    ]);
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded, { mode: 'incremental', since: new Date(Date.now() - 3_600_000) }));
    expect(attributesIn(recorded).map((entry) => entry.publicId)).toEqual(['cust-new']);
    expect(recorded.progress).toEqual([]);
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /companies/list?page=1&per_page=50', 'POST /contacts/search']);
  });

  it('gives a contact its company’s plan, size, industry and custom attributes, reading the companies once', async () => {
    fake.addCompanies([
      { company_id: 'co-acme', name: 'Acme', plan: 'Enterprise', size: 250, industry: 'Software', custom_attributes: { region: 'EU', renewal_at: 1_767_225_600 } },
      { company_id: 'co-beta', name: 'Beta', plan: 'Starter', size: 4 },
    ]);
    fake.addContacts([
      { external_id: 'cust-1', custom_attributes: { plan_tier: 'gold' }, companies: ['co-acme', 'co-beta'] },
      { external_id: 'cust-2', companies: ['co-beta'] },
      { external_id: 'cust-3', custom_attributes: { plan_tier: 'silver' } },
      ...Array.from({ length: 150 }, (_, k) => ({ external_id: `cust-x${k}`, companies: ['co-beta'] })),
    ]);
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded));
    const byId = new Map(attributesIn(recorded).map((entry) => [entry.publicId, entry.values]));
    // The first company Intercom lists on the contact.
    expect(byId.get('cust-1')).toEqual({
      'Intercom country': null,
      'Intercom city': null,
      'Intercom plan_tier': 'gold',
      'Intercom plan': 'Enterprise',
      'Intercom company size': '250',
      'Intercom industry': 'Software',
      'Intercom company region': 'EU',
      'Intercom company renewal_at': '2026-01-01',
    });
    expect(byId.get('cust-2')).toMatchObject({ 'Intercom plan': 'Starter', 'Intercom company size': '4', 'Intercom industry': null });
    // No company: no company values (and no empty company attributes).
    expect(byId.get('cust-3')).toEqual({ 'Intercom country': null, 'Intercom city': null, 'Intercom plan_tier': 'silver' });
    expect(byId.get('cust-x149')).toMatchObject({ 'Intercom plan': 'Starter' });
    expect(fake.calls.map((call) => `${call.method} ${call.path.split('&starting_after')[0]}`)).toEqual([
      'GET /contacts?per_page=150',
      'POST /companies/list?page=1&per_page=50',
      'GET /contacts?per_page=150',
    ]);
  });

  it('writes again, on an incremental sync, the contacts of a company changed since, though they did not change', async () => {
    const old = Math.floor(Date.now() / 1000) - 86_400;
    fake.addCompanies([
      { company_id: 'co-acme', plan: 'Growth', updated_at: old },
      { company_id: 'co-beta', plan: 'Starter', updated_at: old },
    ]);
    fake.addContacts([
      { external_id: 'cust-1', companies: ['co-acme'], updated_at: old },
      { external_id: 'cust-2', companies: ['co-acme'], updated_at: old },
      { external_id: 'cust-3', companies: ['co-beta'], updated_at: old },
    ]);
    // Acme moves to Enterprise after the last sync; none of its contacts changes.
    fake.addCompanies([{ company_id: 'co-acme', plan: 'Enterprise' }]);
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded, { mode: 'incremental', since: new Date(Date.now() - 3_600_000) }));
    expect(attributesIn(recorded).map((entry) => [entry.publicId, entry.values['Intercom plan']])).toEqual([
      ['cust-1', 'Enterprise'],
      ['cust-2', 'Enterprise'],
    ]);
    const acme = fake.calls.find((call) => call.path.includes('/contacts?'))?.path;
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /companies/list?page=1&per_page=50', 'POST /contacts/search', `GET ${acme}`]);
    expect(acme).toMatch(/^\/companies\/[0-9a-f]+\/contacts\?page=1&per_page=150$/);
  });

  it('reads companies by page when the public id is a company’s, keeping those changed on an incremental sync', async () => {
    const old = Math.floor(Date.now() / 1000) - 86_400;
    fake.addCompanies(Array.from({ length: 60 }, (_, k) => ({ company_id: `cust-${k}`, name: `Company ${k}`, plan: 'Pro', size: k, updated_at: k === 59 ? undefined : old })));
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded, { config: COMPANY_PATH }));
    expect(recorded.batches).toHaveLength(2);
    expect(recorded.cursors).toEqual([{ starting_after: null, page: 2, total_pages: 2 }, null]);
    expect(recorded.progress).toEqual([50, 99]);
    expect(attributesIn(recorded)[3]).toEqual({ publicId: 'cust-3', values: { 'Intercom plan': 'Pro', 'Intercom company size': '3', 'Intercom industry': null } });
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /companies/list?page=1&per_page=50', 'POST /companies/list?page=2&per_page=50']);

    const incremental = fresh();
    await intercomProvider.sync(contextFor(incremental, { config: COMPANY_PATH, mode: 'incremental', since: new Date(Date.now() - 3_600_000) }));
    expect(attributesIn(incremental).map((entry) => entry.publicId)).toEqual(['cust-59']);
  });

  it('waits out a 429 and a 503, then reads on', async () => {
    fake.addContacts([{ external_id: 'cust-1' }]);
    fake.rateLimit(1, 0);
    fake.failNext(1, 503);
    const recorded = fresh();
    await intercomProvider.sync(contextFor(recorded));
    expect(attributesIn(recorded).map((entry) => entry.publicId)).toEqual(['cust-1']);
    expect(fake.calls).toHaveLength(3);
  });

  it('fails with a 401 when Intercom no longer accepts the token', async () => {
    const recorded = fresh();
    const error: unknown = await intercomProvider.sync(contextFor(recorded, { token: 'ic-token-revoked' })).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect((error as ProviderHttpError).status).toBe(401);
    expect(recorded.batches).toEqual([]);
  });
});
