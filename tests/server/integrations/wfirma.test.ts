import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANNOT_CONNECT_MESSAGES, WFIRMA_EMAIL_EMPTY, WFIRMA_PASSWORD_EMPTY } from '../../../models/integrations';
import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';
import { providerFetch } from '../../../server/integrations/http';
import { itemsOf, progressOf, wfirmaProvider } from '../../../server/integrations/providers/wfirma';
import { CannotConnectError, type ProviderConfig, type SyncBatch, type SyncContext } from '../../../server/integrations/types';
import { WFIRMA_EMAIL, WFIRMA_PASSWORD, startFakeWfirma, type FakeWfirma } from '../../fakes/wfirma';

/**
 * wFirma against its fake (the documented invoices/find wire format: Basic auth, JSON body,
 * keyed lists, statuses in the body): configuration checks, the credential check, the mapping
 * of a recorded-shape invoice, and syncs seen through a SyncContext that records what the
 * provider commits.
 */

let fake: FakeWfirma;
let urls: ProviderUrls;
const fetch = providerFetch({ baseDelayMs: 1, maxDelayMs: 20 });

interface Commit {
  batch: SyncBatch;
  cursor: SyncContext['cursor'];
  progress: number | undefined;
}

function context(overrides: Partial<SyncContext> = {}, password = WFIRMA_PASSWORD): SyncContext & { commits: Commit[] } {
  const commits: Commit[] = [];
  return {
    accountId: 'acc',
    integration: 'wfirma',
    db: undefined as unknown as SyncContext['db'],
    config: { wfirma_email: WFIRMA_EMAIL },
    secrets: { wfirma_password: password },
    urls,
    mode: 'initial',
    since: null,
    cursor: null,
    fetch,
    accessToken: () => Promise.resolve(''),
    commit: (batch, next) => {
      commits.push({ batch, cursor: next.cursor, progress: next.progress });
      return Promise.resolve();
    },
    log: () => Promise.resolve(),
    signal: new AbortController().signal,
    commits,
    ...overrides,
  };
}

const invoice = (k: number, date = '2026-01-15') => ({
  date,
  contractor_name: `Buyer ${k}`,
  contractor_nip: `52600${String(k).padStart(5, '0')}`,
  contents: [{ name: 'Pro plan (annual)', brutto: '1230.00', count: 1 }],
});

beforeAll(async () => {
  fake = await startFakeWfirma();
  urls = { ...DEFAULT_PROVIDER_URLS, wfirma: fake.url };
});
afterAll(() => fake?.close());
beforeEach(() => fake.reset());

describe('wfirma configuration', () => {
  it("names each empty field with the spec's message", () => {
    expect(wfirmaProvider.parseConfig({})).toEqual([
      { pointer: '/body/wfirma_email', detail: WFIRMA_EMAIL_EMPTY },
      { pointer: '/body/wfirma_password', detail: WFIRMA_PASSWORD_EMPTY },
    ]);
    expect(wfirmaProvider.parseConfig({ wfirma_email: '  ', wfirma_password: 7 })).toHaveLength(2);
    expect(wfirmaProvider.parseConfig(null)).toHaveLength(2);
  });

  it('shows the e-mail back and keeps the password as a secret', () => {
    expect(wfirmaProvider.parseConfig({ wfirma_email: ' owner@example.com ', wfirma_password: 'p4ss word' })).toEqual({
      config: { wfirma_email: 'owner@example.com' },
      secrets: { wfirma_password: 'p4ss word' },
    });
    expect(wfirmaProvider.parseConfig({ wfirma_email: 'a@b.pl', wfirma_password: 'x'.repeat(501) })).toEqual([{ pointer: '/body/wfirma_password', detail: 'At most 500 characters' }]);
  });

  it('accepts the right password and refuses a wrong one (AUTH with HTTP 200) or an unreachable server as cannot_connect', async () => {
    const config = (password: string): ProviderConfig => ({ config: { wfirma_email: WFIRMA_EMAIL }, secrets: { wfirma_password: password } });
    await expect(wfirmaProvider.verify(config(WFIRMA_PASSWORD), { urls, fetch })).resolves.toBeUndefined();
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ user: WFIRMA_EMAIL, parameters: { page: 1, limit: 1 } });
    expect(fake.calls[0]?.query.get('inputFormat')).toBe('json');
    expect(fake.calls[0]?.query.get('outputFormat')).toBe('json');
    const wrong = await wfirmaProvider.verify(config('nope'), { urls, fetch }).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(CannotConnectError);
    expect(wrong).toMatchObject({ code: 'cannot_connect', message: CANNOT_CONNECT_MESSAGES.cannot_connect });
    const unreachable = await wfirmaProvider
      .verify(config(WFIRMA_PASSWORD), { urls: { ...urls, wfirma: 'http://127.0.0.1:1' }, fetch: providerFetch({ maxAttempts: 1 }) })
      .catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ code: 'cannot_connect' });
  });
});

describe('wfirma mapping', () => {
  // An invoice as invoices/find answers it (outputFormat=json): ids and amounts as strings, lists keyed by position.
  const recorded = {
    id: '421314833',
    type: 'normal',
    price_type: 'netto',
    fullnumber: 'FV 7/2026',
    date: '2026-01-15',
    currency: 'eur',
    total: '3026.52',
    contractor: { id: '170307729' },
    contractor_detail: { id: '170307729', name: 'Acme Sp. z o.o.', nip: '6682018672', country: 'PL' },
    invoicecontents: {
      '0': { invoicecontent: { id: '8101', name: 'Pro plan (annual)', unit: 'szt.', count: '2.0000', price: '1000.00', netto: '2000.00', brutto: '2460.50' } },
      '1': { invoicecontent: { id: '8102', name: '  ', count: '1.0000', price: '1.00', brutto: '1.23' } },
      '2': { invoicecontent: { id: '8103', name: 'Setup fee', count: '1.0000', price: '460.18' } },
      parameters: { total: '3' },
    },
  };

  it('makes every line of a sales invoice an item in minor units, keyed by invoice and line', () => {
    expect(itemsOf(recorded)).toEqual([
      {
        externalId: '421314833:8101',
        name: 'Pro plan (annual)',
        value: 246_050,
        currency: 'EUR',
        quantity: 2,
        invoiceNumber: 'FV 7/2026',
        buyerName: 'Acme Sp. z o.o.',
        buyerId: '6682018672',
        issueDate: '2026-01-15',
      },
      // A line without its gross value: price times count.
      expect.objectContaining({ externalId: '421314833:8103', name: 'Setup fee', value: 46_018, quantity: 1 }),
    ]);
    expect(itemsOf({ ...recorded, contractor_detail: { name: 'Acme', nip: '' } })[0]).toMatchObject({ buyerId: 'contractor-170307729', buyerName: 'Acme' });
    expect(itemsOf({ ...recorded, type: 'proforma' })).toEqual([]);
    expect(itemsOf({ ...recorded, type: 'correction' })).toEqual([]);
    expect(itemsOf({ id: 1, invoicecontents: null })).toEqual([]);
  });

  it('gives the first sync’s percent from the total: growing, below 100', () => {
    const percents = [0, 100, 500, 999].map((read) => progressOf(read, 1000));
    expect(percents).toEqual([0, 10, 50, 99]);
    const estimates = [100, 1000, 100_000].map((read) => progressOf(read, null));
    expect(estimates).toEqual([...estimates].sort((a, b) => a - b));
    expect(Math.max(...estimates)).toBeLessThan(100);
  });
});

describe('wfirma sync', () => {
  it('reads every invoice page by page, committing each page with the next page as its cursor and the percent from the total', async () => {
    fake.addInvoices(Array.from({ length: 150 }, (_, k) => invoice(k)));
    fake.addInvoices({ ...invoice(999), type: 'proforma' });
    const ctx = context();
    await wfirmaProvider.sync(ctx);
    expect(ctx.commits.map((commit) => [commit.batch.invoiceItems?.length, commit.cursor, commit.progress])).toEqual([
      [100, { page: 2 }, 66],
      [50, null, 100],
    ]);
    expect(fake.calls.map((call) => call.parameters)).toEqual([
      { page: 1, limit: 100, order: { asc: 'id' } },
      { page: 2, limit: 100, order: { asc: 'id' } },
    ]);
  });

  it('reads the invoices of the connected user only (and the shared ones)', async () => {
    fake.addInvoices(invoice(1));
    fake.addInvoices(invoice(2), 'someone@else.pl');
    const ctx = context();
    await wfirmaProvider.sync(ctx);
    expect(ctx.commits[0]?.batch.invoiceItems?.map((item) => item.buyerName)).toEqual(['Buyer 1']);
  });

  it('a sync killed after a commit resumes at its cursor: nothing lost, only the unread pages read', async () => {
    fake.addInvoices(Array.from({ length: 230 }, (_, k) => invoice(k)));
    const killed = context({
      commit: (batch, next) => {
        killed.commits.push({ batch, cursor: next.cursor, progress: next.progress });
        return killed.commits.length === 2 ? Promise.reject(new Error('killed')) : Promise.resolve();
      },
    });
    await expect(wfirmaProvider.sync(killed)).rejects.toThrow('killed');
    // The second commit never happened: the run resumes from the first one's cursor.
    const resumed = context({ cursor: killed.commits[0]?.cursor ?? null });
    fake.calls.length = 0;
    await wfirmaProvider.sync(resumed);
    expect(fake.calls.map((call) => call.parameters.page)).toEqual([2, 3]);
    const ids = [...(killed.commits[0]?.batch.invoiceItems ?? []), ...resumed.commits.flatMap((commit) => commit.batch.invoiceItems ?? [])].map((item) => item.externalId);
    expect(ids).toHaveLength(230);
    expect(new Set(ids).size).toBe(230);
    expect(resumed.commits.at(-1)).toMatchObject({ cursor: null, progress: 100 });
  });

  it('waits out a rate limit (429 with Retry-After) and a 503, then goes on', async () => {
    fake.addInvoices([invoice(1), invoice(2)]);
    fake.rateLimit(2, 0);
    const ctx = context();
    await wfirmaProvider.sync(ctx);
    fake.failNext(1, 503);
    await wfirmaProvider.sync(ctx);
    expect(ctx.commits.map((commit) => commit.batch.invoiceItems?.length)).toEqual([2, 2]);
    expect(fake.calls).toHaveLength(5);
  });

  it('a rate limit that does not end fails the sync with the provider’s status', async () => {
    fake.addInvoices([invoice(1)]);
    fake.rateLimit(10, 0);
    await expect(wfirmaProvider.sync(context())).rejects.toMatchObject({ name: 'ProviderHttpError', status: 429 });
    expect(fake.calls).toHaveLength(5);
  });

  it('an incremental sync reads every invoice again, without a percent', async () => {
    fake.addInvoices([invoice(1, '2025-06-01'), invoice(2, '2026-02-20')]);
    const ctx = context({ mode: 'incremental', since: new Date('2026-03-01T12:00:00Z') });
    await wfirmaProvider.sync(ctx);
    expect(ctx.commits.map((commit) => [commit.batch.invoiceItems?.map((item) => item.issueDate), commit.progress])).toEqual([[['2025-06-01', '2026-02-20'], undefined]]);
  });

  it('a password changed meanwhile stops the sync with cannot_connect', async () => {
    fake.addInvoices([invoice(1)]);
    await expect(wfirmaProvider.sync(context({}, 'changed'))).rejects.toMatchObject({ code: 'cannot_connect' });
  });
});
