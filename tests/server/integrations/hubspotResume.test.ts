import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';
import { hubspotOauth, hubspotProvider, PAGE_LIMIT } from '../../../server/integrations/providers/hubspot';
import { runSync, runSyncOnce, type SyncDeps } from '../../../server/integrations/runner';
import { sealSecrets } from '../../../server/integrations/secrets';
import type { IntegrationProvider, OauthClient, SyncContext } from '../../../server/integrations/types';
import { HUBSPOT_CLIENT_ID, HUBSPOT_CLIENT_SECRET, HUBSPOT_HUB_ID, startFakeHubspot, type FakeHubspot } from '../../fakes/hubspot';
import { createAuthTestApp, signUp, type AuthTestApp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { TEST_SECRETS_KEY } from './support';

/**
 * A HubSpot first sync survives a worker killed mid-sync: killed right after any of its commits
 * but the last (companies, deals, archived deals: every phase and every phase change), then run
 * again, it resumes from the cursor the runner committed (it reads only the pages not committed
 * yet) and ends with exactly the rows of an uninterrupted first sync: the same customers, the
 * same deals (stage, owner, amount, customer by public id), the same customer attribute values
 * from the companies; nothing duplicated, nothing lost.
 */

/** Three pages of companies; 330 deals, 110 of them archived: three pages of live deals, two of archived ones. */
const COMPANIES = 230;
const DEALS = 330;
const archivedDeal = (j: number) => j % 3 === 2;
const LIVE_DEALS = Array.from({ length: DEALS }, (_, j) => j).filter((j) => !archivedDeal(j)).length;
const pagesOf = (rows: number) => Math.max(1, Math.ceil(rows / PAGE_LIMIT));
/** A first sync commits once a page read: companies, then live deals, then archived deals. */
const COMMITS = pagesOf(COMPANIES) + pagesOf(LIVE_DEALS) + pagesOf(DEALS - LIVE_DEALS);

const CONFIG = { hub_id: String(HUBSPOT_HUB_ID), public_id_attribute_name: 'customer_id' };
const CLIENT: OauthClient = { clientId: HUBSPOT_CLIENT_ID, clientSecret: HUBSPOT_CLIENT_SECRET };
const REDIRECT_URI = 'https://subscope.test/users/auth/hubspot/callback';

let harness: AuthTestApp;
let fake: FakeHubspot;
let urls: ProviderUrls;
let deps: SyncDeps;

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** Companies: most name a customer of the account (`cust-k`), some a public id no customer has, some none. */
function seedCompanies(): string[] {
  const industries = ['COMPUTER_SOFTWARE', 'RETAIL', 'MINING', 'BANKING'];
  const countries = ['Poland', 'Germany', 'France'];
  const stages = ['lead', 'customer', 'opportunity'];
  return fake.addCompanies(
    Array.from({ length: COMPANIES }, (_, k) => ({
      properties: {
        name: `Company ${k}`,
        industry: industries[k % industries.length] as string,
        country: countries[k % countries.length] as string,
        city: k % 4 === 0 ? null : `City ${k % 11}`,
        numberofemployees: k % 5 === 0 ? null : String(k * 3),
        lifecyclestage: stages[k % stages.length] as string,
        ...(k % 10 === 9 ? {} : { customer_id: k % 10 === 8 ? `stranger-${k}` : `cust-${k}` }),
      },
    })),
  );
}

/** Deals over every case: known and unknown stages and owners, currencies, no company, a first company without a public id. */
function seedDeals(companies: string[]): void {
  const stages = ['appointmentscheduled', 'qualifiedtobuy', 'closedwon', 'closedlost', 'customstage'];
  const owners = ['201', '202', '203', '299', null];
  const currencies = ['USD', 'EUR', null, 'JPY'];
  fake.setOwners([
    { id: '201', email: 'anna@example.com', firstName: 'Anna', lastName: 'Nowak' },
    { id: '202', email: 'jan@example.com', firstName: 'Jan', lastName: 'Kowalski' },
    { id: '203', email: 'ola@example.com', firstName: '', lastName: '' },
  ]);
  const company = (k: number) => companies[k % companies.length] as string;
  const ids = fake.addDeals(
    Array.from({ length: DEALS }, (_, j) => ({
      properties: {
        dealname: j % 13 === 0 ? null : `Deal ${j}`,
        amount: (j * 37.5).toFixed(2),
        deal_currency_code: currencies[j % currencies.length] ?? null,
        dealstage: stages[j % stages.length] as string,
        hubspot_owner_id: owners[j % owners.length] ?? null,
        hs_v2_date_entered_current_stage: j % 2 === 0 ? new Date(Date.UTC(2026, 0, 1 + (j % 28), 9)).toISOString() : null,
      },
      companyIds: j % 7 === 0 ? [] : j % 7 === 1 ? [company(10 * j + 9), company(3 * j)] : [company(3 * j)],
    })),
  );
  fake.archiveDeals(ids.filter((_, j) => archivedDeal(j)));
}

/** The OAuth connect against the fake, through the provider's spec: the tokens and config the callback keeps. */
async function authorize(): Promise<{ config: Record<string, unknown>; secrets: Record<string, string> }> {
  const authorizeUrl = new URL(hubspotOauth.authorizeUrl({ urls, client: CLIENT, state: 'acct.state', redirectUri: REDIRECT_URI }));
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  const code = new URL(consent.headers.get('location') as string).searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  const grant = await hubspotOauth.exchange({ urls, client: CLIENT, code: code as string, redirectUri: REDIRECT_URI });
  return { config: grant.config, secrets: grant.secrets };
}

/** A fresh account with the customers the companies name, and its HubSpot integration authorized and configured. */
async function account(): Promise<string> {
  const accountId = (await signUp(harness.app)).user.account_id;
  const db = harness.db.kysely;
  await db
    .insertInto('customers')
    .values(Array.from({ length: COMPANIES }, (_, k) => ({ account_id: accountId, id: `cus${String(k).padStart(13, '0')}`, public_id: `cust-${k}`, name: `Customer ${k}` })))
    .execute();
  const grant = await authorize();
  await db
    .insertInto('integrations')
    .values({
      account_id: accountId,
      name: 'hubspot',
      configured: true,
      config: JSON.stringify({ ...grant.config, ...CONFIG }),
      secret_config: JSON.stringify(sealSecrets(TEST_SECRETS_KEY, grant.secrets)),
    })
    .execute();
  return accountId;
}

/** The provider with a hook around each commit (k counts from 1). */
function hooked(around: (k: number, commit: () => Promise<void>, ctx: SyncContext) => Promise<void>): Partial<Record<'hubspot', IntegrationProvider>> {
  return {
    hubspot: {
      ...hubspotProvider,
      sync: (ctx) => {
        let k = 0;
        return hubspotProvider.sync({ ...ctx, commit: (batch, next) => around(++k, () => ctx.commit(batch, next), ctx) });
      },
    },
  };
}

async function state(accountId: string) {
  return harness.db.kysely
    .selectFrom('integrations')
    .select(['configured', 'sync_status', 'sync_cursor', 'initially_synced', 'initial_progress', 'last_error'])
    .where('account_id', '=', accountId)
    .where('name', '=', 'hubspot')
    .executeTakeFirstOrThrow();
}

/** What an API client sees of the account after the sync, without our own ids. */
async function snapshot(accountId: string) {
  const db = harness.db.kysely;
  const customers = await db.selectFrom('customers').select(['public_id', 'name']).where('account_id', '=', accountId).orderBy('public_id').execute();
  const deals = await db
    .selectFrom('deals as d')
    .leftJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'd.account_id').onRef('c.id', '=', 'd.customer_id'))
    .select(['d.public_id', 'd.name', 'd.value', 'd.currency', 'd.stage', 'd.stage_changed_at', 'd.owner_name', 'd.external_url', 'd.source', 'c.public_id as customer'])
    .where('d.account_id', '=', accountId)
    .orderBy('d.public_id')
    .execute();
  const attributeValues = await db
    .selectFrom('customer_segment_values as v')
    .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'v.account_id').onRef('c.id', '=', 'v.customer_id'))
    .innerJoin('customer_segments as s', (join) => join.onRef('s.account_id', '=', 'v.account_id').onRef('s.id', '=', 'v.segment_id'))
    .select(['c.public_id as customer', 's.name as attribute', 'v.value'])
    .where('v.account_id', '=', accountId)
    .orderBy('c.public_id')
    .orderBy('s.name')
    .execute();
  return {
    customers,
    deals: deals.map((deal) => ({ ...deal, value: Number(deal.value), stage_changed_at: deal.stage_changed_at === null ? null : new Date(deal.stage_changed_at).toISOString() })),
    attributeValues,
  };
}

async function syncEvents(accountId: string): Promise<string[]> {
  const rows = await harness.db.kysely.selectFrom('audit_log').select('event').where('account_id', '=', accountId).where('entity_type', '=', 'integration').orderBy('id').execute();
  return rows.map((row) => row.event).filter((event) => event.startsWith('sync_'));
}

/** The list pages read since the fake's call `from` (companies, deals, archived deals): one a commit. */
const pagesRead = (from: number) => fake.calls.slice(from).filter((call) => call.method === 'GET' && /^\/crm\/v3\/objects\/(companies|deals)\?/.test(call.path)).length;

describe(`hubspot sync killed mid-way on ${testEngine}`, () => {
  let expected: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    fake = await startFakeHubspot();
    seedDeals(seedCompanies());
    urls = { ...DEFAULT_PROVIDER_URLS, hubspotApi: fake.url, hubspotAuthorize: fake.url };
    harness = await createAuthTestApp({ config: TEST_CONFIG });
    deps = { database: harness.db, secretsKey: TEST_SECRETS_KEY, urls, oauthClients: { hubspot: CLIENT }, log: silent, fetch: { baseDelayMs: 1 }, afterSync: async () => {} };
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
  });

  it(`syncs uninterrupted in ${COMMITS} commits, one a page: the reference rows`, async () => {
    const reference = await account();
    let commits = 0;
    const from = fake.calls.length;
    await runSync(
      {
        ...deps,
        providers: hooked(async (_k, commit) => {
          commits += 1;
          await commit();
        }),
      },
      reference,
      'hubspot',
    );
    expect(await state(reference)).toMatchObject({ sync_status: 'idle', sync_cursor: null, initially_synced: true, initial_progress: 100, last_error: null });
    expect(commits).toBe(COMMITS);
    expect(pagesRead(from)).toBe(COMMITS);
    expect(await syncEvents(reference)).toEqual(['sync_started', 'sync_succeeded']);

    expected = await snapshot(reference);
    // The sync makes no customer: the account's own, unchanged.
    expect(expected.customers).toHaveLength(COMPANIES);
    expect(expected.customers[0]).toEqual({ public_id: 'cust-0', name: 'Customer 0' });
    // Every live deal once, archived ones never.
    expect(expected.deals).toHaveLength(LIVE_DEALS);
    expect(new Set(expected.deals.map((deal) => deal.public_id)).size).toBe(LIVE_DEALS);
    expect(expected.deals.filter((deal) => deal.customer === null).length).toBeGreaterThan(0);
    expect(expected.deals.filter((deal) => deal.customer !== null).length).toBeGreaterThan(LIVE_DEALS / 2);
    expect(new Set(expected.deals.map((deal) => deal.stage))).toEqual(new Set(['Appointment Scheduled', 'Qualified To Buy', 'Closed Won', 'Closed Lost', 'customstage']));
    expect(new Set(expected.deals.map((deal) => deal.owner_name))).toEqual(new Set(['Anna Nowak', 'Jan Kowalski', 'ola@example.com', null]));
    expect(new Set(expected.deals.map((deal) => deal.currency))).toEqual(new Set(['USD', 'EUR', 'JPY']));
    // The companies naming a customer (8 of each 10) give it 6 attributes each.
    const named = Array.from({ length: COMPANIES }, (_, k) => k).filter((k) => k % 10 < 8).length;
    expect(expected.attributeValues).toHaveLength(named * 6);
    expect(expected.attributeValues.filter((row) => row.customer === 'cust-1')).toEqual([
      { customer: 'cust-1', attribute: 'HubSpot city', value: 'City 1' },
      { customer: 'cust-1', attribute: 'HubSpot country', value: 'Germany' },
      { customer: 'cust-1', attribute: 'HubSpot industry', value: 'RETAIL' },
      { customer: 'cust-1', attribute: 'HubSpot lifecycle stage', value: 'customer' },
      { customer: 'cust-1', attribute: 'HubSpot name', value: 'Company 1' },
      { customer: 'cust-1', attribute: 'HubSpot number of employees', value: '3' },
    ]);
  });

  // Right after each commit but the last (the last commit clears the cursor: nothing is left to resume).
  it.each(Array.from({ length: COMMITS - 1 }, (_, k) => k + 1))('a first sync killed right after commit %i resumes from its cursor to the same rows', async (at) => {
    const accountId = await account();
    const kill = new AbortController();
    const providers = hooked(async (k, commit) => {
      await commit();
      if (k === at) {
        kill.abort(new Error('killed'));
        throw new Error('killed');
      }
    });
    const killedFrom = fake.calls.length;
    expect(await runSyncOnce({ ...deps, providers, signal: kill.signal }, accountId, 'hubspot')).toBe('stopped');
    expect(pagesRead(killedFrom)).toBe(at);
    const left = await state(accountId);
    expect(left).toMatchObject({ sync_status: 'syncing', initially_synced: false });
    // The cursor of commit `at`: the phase the next page belongs to.
    const phase = at < pagesOf(COMPANIES) ? 'companies' : at < pagesOf(COMPANIES) + pagesOf(LIVE_DEALS) ? 'deals' : 'archived';
    expect(left.sync_cursor).toMatchObject({ phase });

    const resumedFrom = fake.calls.length;
    expect(await runSyncOnce(deps, accountId, 'hubspot')).toBe('done');
    // Resumed from the committed cursor: only the pages not committed yet are read.
    expect(pagesRead(resumedFrom)).toBe(COMMITS - at);
    expect(await state(accountId)).toMatchObject({ sync_status: 'idle', sync_cursor: null, initially_synced: true, initial_progress: 100, last_error: null });
    expect(await snapshot(accountId)).toEqual(expected);
    expect(await syncEvents(accountId)).toEqual(['sync_started', 'sync_resumed', 'sync_succeeded']);
  });
});
