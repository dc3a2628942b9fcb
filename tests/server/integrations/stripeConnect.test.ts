import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { safeReturnPath } from '../../../server/integrations/oauth';
import { BAD_SIGNATURE } from '../../../server/routes/stripeWebhooks';
import { FAKE_STRIPE_ACCOUNT, FAKE_STRIPE_CLIENT_ID, FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, startFakeStripe, stripeSignatureHeader, type FakeStripe } from '../../fakes/stripe';
import { expectSignInRequired, sharedReportOnlyColleague, signUp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';

/**
 * Connecting Stripe (GET /users/auth/stripe and its callback, against the fake Stripe's Connect
 * OAuth) and Stripe's webhook (POST /api/v11/integrations/stripe/webhooks), as a browser, the
 * API client and Stripe see them.
 */

let fake: FakeStripe;
let db: TestDatabase;
let app: FastifyInstance;
let owner: SignedUp;
let other: SignedUp;

const tokenOf = (who: SignedUp) => who.authorization.replace(/^Bearer /, '');
const start = (who: SignedUp | null, query = '', provider = 'stripe') =>
  app.inject({ method: 'GET', url: `/users/auth/${provider}?${who ? `authorization=${encodeURIComponent(tokenOf(who))}&` : ''}frontend_request=true${query}` });

/** Follows the fake's authorize page back to our callback; the answer is the callback's. */
async function authorizeAndReturn(startAnswer: LightMyRequestResponse): Promise<LightMyRequestResponse> {
  expect(startAnswer.statusCode, startAnswer.body).toBe(302);
  const authorize = await fetch(String(startAnswer.headers.location), { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const back = new URL(authorize.headers.get('location') as string);
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

async function integrationRow(accountId: string) {
  return db.kysely.selectFrom('integrations').selectAll().where('account_id', '=', accountId).where('name', '=', 'stripe').executeTakeFirst();
}

const webhook = (payload: string, signature: string | undefined) =>
  app.inject({ method: 'POST', url: '/api/v11/integrations/stripe/webhooks', headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) }, payload });

beforeAll(async () => {
  fake = await startFakeStripe();
  fake.seed(2);
  db = await createTestDatabase();
  app = await buildApp({
    db,
    config: {
      ...TEST_CONFIG,
      publicUrl: 'https://subscope.test',
      providerUrls: { ...DEFAULT_PROVIDER_URLS, stripeApi: fake.url, stripeConnect: fake.url },
      oauthClients: { stripe: { clientId: FAKE_STRIPE_CLIENT_ID, clientSecret: FAKE_STRIPE_SECRET_KEY } },
      stripeWebhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
    },
  });
  await app.ready();
  owner = await signUp(app);
  other = await signUp(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
  await fake?.close();
});

describe(`GET /users/auth/{provider} on ${testEngine}`, () => {
  it('needs a full user’s token; an unknown provider is 404', async () => {
    expectSignInRequired(await start(null));
    expectSignInRequired(await app.inject({ method: 'GET', url: '/users/auth/stripe?authorization=not-a-token' }));
    const colleague = await sharedReportOnlyColleague(app, db, owner);
    expect((await start(colleague)).statusCode).toBe(403);
    expect((await start(owner, '', 'salesforce')).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/users/auth/stripe?authorization=${'x'.repeat(5000)}` })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/users/auth/stripe?authorization=%00' })).statusCode).toBe(400);
    expect(await db.kysely.selectFrom('oauth_states').selectAll().execute()).toEqual([]);
  });

  it('sends the browser to Stripe’s authorize page with a fresh state; HubSpot without a client comes back failed', async () => {
    const answer = await start(owner, '&redirect_url=/settings');
    expect(answer.statusCode).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${fake.url}/oauth/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: FAKE_STRIPE_CLIENT_ID,
      scope: 'read_only',
      state: expect.stringMatching(new RegExp(`^${owner.user.account_id}\\.[\\w-]{43}$`)) as string,
      redirect_uri: 'https://subscope.test/users/auth/stripe/callback',
    });
    const hubspot = await start(owner, '&redirect_url=/settings', 'hubspot');
    expect(hubspot.statusCode).toBe(302);
    expect(hubspot.headers.location).toBe('/settings?integration=hubspot&status=failed');
  });
});

describe(`GET /users/auth/stripe/callback on ${testEngine}`, () => {
  it('connects: tokens kept encrypted, the account id kept, the first sync runs, the browser returns connected', async () => {
    const back = await authorizeAndReturn(await start(owner, `&redirect_url=${encodeURIComponent('https://subscope.test/settings?tab=data')}`));
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('/settings?tab=data&integration=stripe&status=connected');

    const row = await integrationRow(owner.user.account_id);
    expect(row).toMatchObject({ configured: true, external_account_id: FAKE_STRIPE_ACCOUNT, config: { stripe_account_id: FAKE_STRIPE_ACCOUNT } });
    expect(JSON.stringify(row?.secret_config)).not.toMatch(/sk_test_oauth|rt_/);
    await integrationSyncsSettled(app);
    const synced = await integrationRow(owner.user.account_id);
    expect(synced).toMatchObject({ initially_synced: true, sync_status: 'idle', initial_progress: 100 });
    const customers = await db.kysely.selectFrom('customers').select(['public_id', 'name']).where('account_id', '=', owner.user.account_id).orderBy('public_id').execute();
    expect(customers).toEqual([
      { public_id: 'cus_seed1', name: 'Seed customer 1' },
      { public_id: 'cus_seed2', name: 'Seed customer 2' },
    ]);
    const payments = await db.kysely.selectFrom('payments').select(['external_id', 'invoice_number']).where('account_id', '=', owner.user.account_id).where('deleted_at', 'is', null).execute();
    // Seed customer 1 pays monthly (3 invoices), 2 monthly as well (3): six paid lines.
    expect(payments).toHaveLength(6);
    // Nothing of it reaches another account.
    expect(await db.kysely.selectFrom('payments').select('id').where('account_id', '=', other.user.account_id).execute()).toEqual([]);
  });

  it('comes back failed, storing nothing, for a reused, expired, foreign-provider or missing state, a denial and a refused code', async () => {
    const first = await start(other, '&redirect_url=/settings');
    const state = new URL(String(first.headers.location)).searchParams.get('state') as string;
    const failed = '/settings?integration=stripe&status=failed';

    // Another provider's callback with this state: refused, and the state is used up.
    expect((await app.inject({ method: 'GET', url: `/users/auth/hubspot/callback?code=ac_x&state=${encodeURIComponent(state)}` })).headers.location).toBe('/settings?integration=hubspot&status=failed');
    expect((await app.inject({ method: 'GET', url: `/users/auth/stripe/callback?code=ac_x&state=${encodeURIComponent(state)}` })).headers.location).toBe(failed);
    expect((await app.inject({ method: 'GET', url: '/users/auth/stripe/callback?code=ac_x' })).headers.location).toBe(failed);
    expect((await app.inject({ method: 'GET', url: `/users/auth/stripe/callback?code=ac_x&state=${other.user.account_id}.${'a'.repeat(43)}` })).headers.location).toBe(failed);
    expect((await app.inject({ method: 'GET', url: `/users/auth/stripe/callback?code=ac_x&state=%00${'b'.repeat(3000)}` })).statusCode).toBe(400);

    // Expired: ten minutes have passed.
    const second = await start(other);
    await db.kysely.updateTable('oauth_states').set({ expires_at: new Date(Date.now() - 1000) }).where('account_id', '=', other.user.account_id).execute();
    expect((await authorizeAndReturn(second)).headers.location).toBe(failed);

    // Denied at Stripe.
    fake.denyNextAuthorization();
    expect((await authorizeAndReturn(await start(other, '&redirect_url=/reports'))).headers.location).toBe('/reports?integration=stripe&status=failed');

    // A code Stripe refuses.
    const third = await start(other);
    const refused = await app.inject({ method: 'GET', url: `/users/auth/stripe/callback?code=ac_unknown&state=${encodeURIComponent(new URL(String(third.headers.location)).searchParams.get('state') as string)}` });
    expect(refused.headers.location).toBe(failed);

    // A used state does not work twice.
    const fourth = await start(other);
    const authorize = await fetch(String(fourth.headers.location), { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location') as string);
    const once = await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    // The connected Stripe account already belongs to the owner's account: it cannot be connected twice.
    expect(once.headers.location).toBe(failed);
    expect((await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).headers.location).toBe(failed);

    expect((await integrationRow(other.user.account_id))?.configured ?? false).toBe(false);
  });

  it('returns only to paths of this app', () => {
    const origin = 'https://subscope.test';
    expect(safeReturnPath('/settings?x=1', origin)).toBe('/settings?x=1');
    expect(safeReturnPath('https://subscope.test/settings', origin)).toBe('/settings');
    for (const foreign of ['https://evil.test/settings', '//evil.test/x', '/\\evil.test', 'javascript:alert(1)', '', undefined, 'settings']) expect(safeReturnPath(foreign, origin)).toBe('/settings');
  });
});

describe(`POST /integrations/stripe/webhooks on ${testEngine}`, () => {
  const event = (account: string, type = 'invoice.paid') => JSON.stringify({ id: 'evt_1', object: 'event', type, account, created: Math.floor(Date.now() / 1000), data: { object: { id: 'in_x', object: 'invoice' } } });

  it('refuses a body the signature does not sign, without a 500 for any input', async () => {
    const payload = event(FAKE_STRIPE_ACCOUNT);
    for (const signature of [undefined, 'nonsense', stripeSignatureHeader(payload, 'whsec_other'), stripeSignatureHeader(payload, FAKE_STRIPE_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600)]) {
      const answer = await webhook(payload, signature);
      expect(answer.statusCode).toBe(400);
      expect((answer.json() as { errors: { detail: string }[] }).errors[0]?.detail).toBe(BAD_SIGNATURE);
    }
    // The signed body changed by one character.
    expect((await webhook(payload.replace('evt_1', 'evt_2'), stripeSignatureHeader(payload, FAKE_STRIPE_WEBHOOK_SECRET))).statusCode).toBe(400);
    expect((await webhook('\u0000'.repeat(10), 'x')).statusCode).toBe(400);
    expect((await webhook('x'.repeat(600 * 1024), 'x')).statusCode).toBe(413);
    const notJson = 'not json';
    expect((await webhook(notJson, stripeSignatureHeader(notJson, FAKE_STRIPE_WEBHOOK_SECRET))).statusCode).toBe(400);
  });

  it('queues a sync of the connected account a signed event names; other accounts and events are acknowledged only', async () => {
    const before = await integrationRow(owner.user.account_id);
    expect(before?.initially_synced).toBe(true);
    const status = await fake.sendWebhook(`${await listening()}/api/v11/integrations/stripe/webhooks`, 'customer.updated', { id: 'cus_seed1', object: 'customer' });
    expect(status).toBe(200);
    const signed = (payload: string) => webhook(payload, stripeSignatureHeader(payload, FAKE_STRIPE_WEBHOOK_SECRET));
    const queued = await signed(event(FAKE_STRIPE_ACCOUNT));
    expect(queued.json()).toEqual({ received: true, queued: true });
    expect((await signed(event('acct_unknown'))).json()).toEqual({ received: true, queued: false });
    expect((await signed(event(FAKE_STRIPE_ACCOUNT, 'charge.succeeded'))).json()).toEqual({ received: true, queued: false });
    await integrationSyncsSettled(app);
    const after = await integrationRow(owner.user.account_id);
    expect(after?.sync_status).toBe('idle');
    expect(after?.last_synced_at?.getTime()).toBeGreaterThan(before?.last_synced_at?.getTime() ?? 0);
  });
});

/** The app on a real port, for the fake to post its webhook to. */
let listeningUrl: string | undefined;
async function listening(): Promise<string> {
  if (!listeningUrl) listeningUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return listeningUrl;
}
