import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNOT_CONNECT_MESSAGES, WFIRMA_EMAIL_EMPTY, WFIRMA_PASSWORD_EMPTY } from '../../../models/integrations';
import type { InvoiceItem } from '../../../models/invoices';
import type { Payment } from '../../../models/payments';
import { DEFAULT_PROVIDER_URLS } from '../../../server/config';
import { integrationSyncsSettled } from '../../../server/integrations/runner';
import { createAuthTestApp, problemsOf, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import { WFIRMA_PASSWORD, startFakeWfirma, type FakeWfirma } from '../../fakes/wfirma';

/**
 * wFirma through the whole app: empty fields and a wrong password are refused with the dialog's
 * messages and nothing is saved; connecting reads the invoices; the lines no rule matches wait
 * on /invoices; a rule made from one turns it into a payment; a line of a name a rule has becomes
 * a payment on the next sync (a rate limit on the way waited out); reading again writes nothing
 * twice; the password never comes back.
 */

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let fake: FakeWfirma;
const EMAIL = 'books@acme.example';

const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({ method, url: `/api/v11${url}`, headers: { authorization: owner.authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

const rejected = async () => ((await api('GET', '/invoice_items')).json() as { items: InvoiceItem[] }).items;
const payments = async () => ((await api('GET', '/subscription_histories?limit=200')).json() as { items: Payment[] }).items;
const card = async () => ((await api('GET', '/integrations')).json() as { items: Record<string, unknown>[] }).items.find((item) => item.name === 'wfirma');

beforeAll(async () => {
  fake = await startFakeWfirma();
  harness = await createAuthTestApp({ config: { ...TEST_CONFIG, providerUrls: { ...DEFAULT_PROVIDER_URLS, wfirma: fake.url } } });
  app = harness.app;
  owner = await signUp(app);
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await fake?.close();
});

describe(`wfirma on ${testEngine}`, () => {
  it('is a dialog card that can be connected', async () => {
    expect(await card()).toMatchObject({ enabled: true, configurable: true, connect: 'dialog', configured: false, connect_url: null });
  });

  it('refuses empty fields on their pointers and a wrong password with cannot_connect, saving nothing', async () => {
    const empty = await api('POST', '/integrations/wfirma', { wfirma_email: '', wfirma_password: '' });
    expect(empty.statusCode).toBe(422);
    expect(problemsOf(empty)).toEqual([
      { pointer: '/body/wfirma_email', detail: WFIRMA_EMAIL_EMPTY },
      { pointer: '/body/wfirma_password', detail: WFIRMA_PASSWORD_EMPTY },
    ]);
    const wrong = await api('POST', '/integrations/wfirma', { wfirma_email: EMAIL, wfirma_password: 'wrong' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json()).toMatchObject({ errors: [{ code: 'cannot_connect', detail: CANNOT_CONNECT_MESSAGES.cannot_connect }] });
    expect(await card()).toMatchObject({ configured: false, config: {} });
  });

  it('syncs the invoices: rejected lines wait, a rule turns them into payments, the next sync distils at once and duplicates nothing', async () => {
    fake.addInvoices(
      [
        { date: '2026-01-15', currency: 'USD', contractor_name: 'Acme', contractor_nip: '5260001246', contents: [{ name: 'Pro plan (annual)', brutto: '1200.00' }] },
        { date: '2026-02-01', currency: 'USD', contractor_name: 'Beta', contents: [{ name: 'Setup fee', brutto: 300 }] },
        { date: '2026-02-02', type: 'proforma', contractor_name: 'Gamma', contents: [{ name: 'Pro plan (annual)', brutto: 1200 }] },
      ],
      EMAIL,
    );
    const connected = await api('POST', '/integrations/wfirma', { wfirma_email: EMAIL, wfirma_password: WFIRMA_PASSWORD });
    expect(connected.statusCode, connected.body).toBe(200);
    expect(connected.body).not.toContain(WFIRMA_PASSWORD);
    await integrationSyncsSettled(app);
    const synced = await card();
    expect(synced).toMatchObject({ configured: true, initially_synced: true, initial_progress: 100, sync_status: 'idle', last_error: null, config: { wfirma_email: EMAIL } });
    expect(JSON.stringify(synced)).not.toContain(WFIRMA_PASSWORD);
    expect((await api('GET', '/invoice_items/status')).json()).toEqual({ has_rejected_invoice_items: true });
    expect((await rejected()).map((item) => [item.name, item.value, item.invoice.buyer_name]).sort()).toEqual([
      ['Pro plan (annual)', 120_000, 'Acme'],
      ['Setup fee', 30_000, 'Beta'],
    ]);

    const rule = await api('POST', '/distillers', { line_name: 'Pro plan (annual)', item_type: 'recurring', issue_date_treatment: 'started_at', product_key: 'Pro', duration_in_months: 12, matcher: 'equal' });
    expect(rule.json()).toMatchObject({ processed: 1 });
    expect((await rejected()).map((item) => item.name)).toEqual(['Setup fee']);

    fake.addInvoices({ date: '2026-02-15', currency: 'USD', contractor_name: 'Acme', contractor_nip: '5260001246', contents: [{ name: 'Pro plan (annual)', brutto: '1200.00' }] }, EMAIL);
    fake.rateLimit(1, 0);
    const again = await api('POST', '/integrations/wfirma/sync');
    expect(again.statusCode, again.body).toBe(202);
    await integrationSyncsSettled(app);
    expect(await card()).toMatchObject({ sync_status: 'idle', last_error: null });
    const made = await payments();
    expect(made.map((payment) => [payment.customer.name, payment.started_at, payment.total_value, payment.source]).sort()).toEqual([
      ['Acme', '2026-01-15', 120_000, 'wfirma'],
      ['Acme', '2026-02-15', 120_000, 'wfirma'],
    ]);
    expect(new Set(made.map((payment) => payment.customer.id)).size).toBe(1);
    expect((await rejected()).map((item) => item.name)).toEqual(['Setup fee']);
  });
});
