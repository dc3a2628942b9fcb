import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNOT_CONNECT_MESSAGES } from '../../../models/integrations';
import type { InvoiceItem } from '../../../models/invoices';
import type { Payment } from '../../../models/payments';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { createAuthTestApp, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { FAKTUROWNIA_TOKEN, startFakeFakturownia, type FakeFakturownia } from '../../fakes/fakturownia';

/**
 * Fakturownia through the whole app: connecting it reads the invoices; the lines no rule
 * matches wait on /invoices; a rule made from one turns it into a payment; a line of a name a
 * rule has becomes a payment on the next sync; reading again writes nothing twice.
 */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let fake: FakeFakturownia;

const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: { authorization: owner.authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

const rejected = async () => ((await api('GET', '/invoice_items')).json() as { items: InvoiceItem[] }).items;
const payments = async () => ((await api('GET', '/subscription_histories?limit=200')).json() as { items: Payment[] }).items;

beforeAll(async () => {
  fake = await startFakeFakturownia();
  harness = await createAuthTestApp({ config: { ...TEST_CONFIG, providerUrls: { ...DEFAULT_PROVIDER_URLS, fakturownia: `${fake.url}/{subdomain}` } } });
  app = harness.app;
  owner = await signUp(app);
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await fake?.close();
});

describe(`fakturownia on ${testEngine}`, () => {
  it('refuses a wrong token with cannot_connect_to_fakturownia', async () => {
    const response = await api('POST', '/integrations/fakturownia', { fakturownia_api_token: 'wrong', fakturownia_subdomain: 'acme' });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ errors: [{ code: 'cannot_connect_to_fakturownia', detail: CANNOT_CONNECT_MESSAGES.cannot_connect_to_fakturownia }] });
  });

  it('syncs the invoices: rejected lines wait, a rule turns them into payments, the next sync distils at once and duplicates nothing', async () => {
    fake.addInvoices([
      { issue_date: '2026-01-15', currency: 'USD', buyer_name: 'Acme', buyer_tax_no: '5260001246', positions: [{ name: 'Pro plan (annual)', total_price_gross: '1200.00' }] },
      { issue_date: '2026-02-01', currency: 'USD', buyer_name: 'Beta', positions: [{ name: 'Setup fee', total_price_gross: 300 }] },
    ]);
    const connected = await api('POST', '/integrations/fakturownia', { fakturownia_api_token: FAKTUROWNIA_TOKEN, fakturownia_subdomain: 'acme' });
    expect(connected.statusCode, connected.body).toBe(200);
    await integrationSyncsSettled(app);
    expect((await api('GET', '/invoice_items/status')).json()).toEqual({ has_rejected_invoice_items: true });
    expect((await rejected()).map((item) => [item.name, item.value, item.invoice.buyer_name])).toEqual(
      expect.arrayContaining([
        ['Pro plan (annual)', 120_000, 'Acme'],
        ['Setup fee', 30_000, 'Beta'],
      ]),
    );

    const rule = await api('POST', '/distillers', { line_name: 'Pro plan (annual)', item_type: 'recurring', issue_date_treatment: 'started_at', product_key: 'Pro', duration_in_months: 12, matcher: 'equal' });
    expect(rule.json()).toMatchObject({ processed: 1 });
    expect((await rejected()).map((item) => item.name)).toEqual(['Setup fee']);

    fake.addInvoices({ issue_date: '2026-02-15', currency: 'USD', buyer_name: 'Acme', buyer_tax_no: '5260001246', positions: [{ name: 'Pro plan (annual)', total_price_gross: '1200.00' }] });
    const again = await api('POST', '/integrations/fakturownia/sync');
    expect(again.statusCode, again.body).toBe(202);
    await integrationSyncsSettled(app);
    const made = await payments();
    expect(made.map((payment) => [payment.customer.name, payment.started_at, payment.total_value, payment.source]).sort()).toEqual([
      ['Acme', '2026-01-15', 120_000, 'fakturownia'],
      ['Acme', '2026-02-15', 120_000, 'fakturownia'],
    ]);
    expect(new Set(made.map((payment) => payment.customer.id)).size).toBe(1);
    expect((await rejected()).map((item) => item.name)).toEqual(['Setup fee']);
  });
});
