import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANNOT_CONNECT_MESSAGES, FAKTUROWNIA_SUBDOMAIN_EMPTY, FAKTUROWNIA_TOKEN_EMPTY, SITE_INVALID } from '../../../models/integrations';
import { DEFAULT_PROVIDER_URLS, type ProviderUrls } from '../../../server/config';
import { providerFetch } from '../../../server/integrations/http';
import { estimatedProgress, fakturowniaProvider, itemsOf } from '../../../server/integrations/providers/fakturownia';
import { CannotConnectError, type ProviderConfig, type SyncBatch, type SyncContext } from '../../../server/integrations/types';
import { FAKTUROWNIA_TOKEN, startFakeFakturownia, type FakeFakturownia } from '../../fakes/fakturownia';

/**
 * Fakturownia against its fake (the documented invoices.json wire format): configuration
 * checks, the credential check, and syncs seen through a SyncContext that records what the
 * provider commits.
 */

let fake: FakeFakturownia;
let urls: ProviderUrls;
const fetch = providerFetch({ baseDelayMs: 1, maxDelayMs: 20 });

interface Commit {
  batch: SyncBatch;
  cursor: SyncContext['cursor'];
  progress: number | undefined;
}

function context(overrides: Partial<SyncContext> = {}, token = FAKTUROWNIA_TOKEN): SyncContext & { commits: Commit[] } {
  const commits: Commit[] = [];
  return {
    accountId: 'acc',
    integration: 'fakturownia',
    db: undefined as unknown as SyncContext['db'],
    config: { fakturownia_subdomain: 'acme' },
    secrets: { fakturownia_api_token: token },
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

const invoice = (k: number, issueDate = '2026-01-15') => ({
  issue_date: issueDate,
  buyer_name: `Buyer ${k}`,
  buyer_tax_no: `52600${String(k).padStart(5, '0')}`,
  positions: [{ name: 'Pro plan (annual)', total_price_gross: '1230.00', quantity: 1 }],
});

beforeAll(async () => {
  fake = await startFakeFakturownia();
  urls = { ...DEFAULT_PROVIDER_URLS, fakturownia: `${fake.url}/{subdomain}` };
});
afterAll(() => fake?.close());
beforeEach(() => fake.reset());

describe('fakturownia configuration', () => {
  it("names each empty field with the spec's message", () => {
    expect(fakturowniaProvider.parseConfig({})).toEqual([
      { pointer: '/body/fakturownia_api_token', detail: FAKTUROWNIA_TOKEN_EMPTY },
      { pointer: '/body/fakturownia_subdomain', detail: FAKTUROWNIA_SUBDOMAIN_EMPTY },
    ]);
    expect(fakturowniaProvider.parseConfig({ fakturownia_api_token: '  ', fakturownia_subdomain: 7 })).toHaveLength(2);
    expect(fakturowniaProvider.parseConfig(null)).toHaveLength(2);
  });

  it('keeps the subdomain alone (a pasted address too) and the token as a secret', () => {
    expect(fakturowniaProvider.parseConfig({ fakturownia_api_token: ' tok ', fakturownia_subdomain: 'https://Acme.fakturownia.pl/' })).toEqual({
      config: { fakturownia_subdomain: 'acme' },
      secrets: { fakturownia_api_token: 'tok' },
    });
    expect(fakturowniaProvider.parseConfig({ fakturownia_api_token: 'tok', fakturownia_subdomain: 'a b/c' })).toEqual([{ pointer: '/body/fakturownia_subdomain', detail: SITE_INVALID }]);
  });

  it('accepts the right token and refuses a wrong one or an unreachable server as cannot_connect_to_fakturownia', async () => {
    const config = (token: string): ProviderConfig => ({ config: { fakturownia_subdomain: 'acme' }, secrets: { fakturownia_api_token: token } });
    await expect(fakturowniaProvider.verify(config(FAKTUROWNIA_TOKEN), { urls, fetch })).resolves.toBeUndefined();
    const wrong = await fakturowniaProvider.verify(config('nope'), { urls, fetch }).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(CannotConnectError);
    expect(wrong).toMatchObject({ code: 'cannot_connect_to_fakturownia', message: CANNOT_CONNECT_MESSAGES.cannot_connect_to_fakturownia });
    const unreachable = await fakturowniaProvider
      .verify(config(FAKTUROWNIA_TOKEN), { urls: { ...urls, fakturownia: 'http://127.0.0.1:1/{subdomain}' }, fetch: providerFetch({ maxAttempts: 1 }) })
      .catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ code: 'cannot_connect_to_fakturownia' });
  });
});

describe('fakturownia mapping', () => {
  it('makes every line of a sales invoice an item in minor units, keyed by invoice and position', () => {
    const recorded = {
      id: 318_211_234,
      kind: 'vat',
      number: 'FV 12/01/2026',
      issue_date: '2026-01-15',
      currency: 'eur',
      buyer_name: 'Acme Sp. z o.o.',
      buyer_tax_no: '5260001246',
      client_id: 9_001,
      positions: [
        { id: 77, name: 'Pro plan (annual)', quantity: '2.0', total_price_gross: '2460.50' },
        { id: 78, name: '  ', quantity: '1.0', total_price_gross: '1.00' },
      ],
    };
    expect(itemsOf(recorded)).toEqual([
      {
        externalId: '318211234:77',
        name: 'Pro plan (annual)',
        value: 246_050,
        currency: 'EUR',
        quantity: 2,
        invoiceNumber: 'FV 12/01/2026',
        buyerName: 'Acme Sp. z o.o.',
        buyerId: '5260001246',
        issueDate: '2026-01-15',
      },
    ]);
    expect(itemsOf({ ...recorded, buyer_tax_no: '' })[0]?.buyerId).toBe('client-9001');
    expect(itemsOf({ ...recorded, kind: 'proforma' })).toEqual([]);
  });

  it('estimates the first sync’s percent from the pages read: growing, below 100', () => {
    const percents = [1, 2, 5, 50, 10_000].map(estimatedProgress);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(Math.max(...percents)).toBeLessThan(100);
  });
});

describe('fakturownia sync', () => {
  it('reads every invoice page by page, committing each page with the next page as its cursor', async () => {
    fake.addInvoices(Array.from({ length: 150 }, (_, k) => invoice(k)));
    fake.addInvoices({ ...invoice(999), kind: 'proforma' });
    const ctx = context();
    await fakturowniaProvider.sync(ctx);
    expect(ctx.commits.map((commit) => [commit.batch.invoiceItems?.length, commit.cursor, commit.progress])).toEqual([
      [100, { page: 2 }, estimatedProgress(1)],
      [50, null, 100],
    ]);
    expect(fake.calls.map((call) => [call.query.get('page'), call.query.get('per_page'), call.query.get('period'), call.query.get('include_positions')])).toEqual([
      ['1', '100', 'all', 'true'],
      ['2', '100', 'all', 'true'],
    ]);
  });

  it('lists to a subdomain only its own invoices and the shared ones', async () => {
    fake.addInvoices(invoice(1));
    fake.addInvoices(invoice(2), 'other');
    const ctx = context();
    await fakturowniaProvider.sync(ctx);
    expect(ctx.commits[0]?.batch.invoiceItems?.map((item) => item.buyerName)).toEqual(['Buyer 1']);
  });

  it('resumes at the committed cursor', async () => {
    fake.addInvoices(Array.from({ length: 120 }, (_, k) => invoice(k)));
    const ctx = context({ cursor: { page: 2 } });
    await fakturowniaProvider.sync(ctx);
    expect(ctx.commits).toHaveLength(1);
    expect(ctx.commits[0]?.batch.invoiceItems).toHaveLength(20);
    expect(fake.calls.map((call) => call.query.get('page'))).toEqual(['2']);
  });

  it('waits out a rate limit (429 with Retry-After) and a 503, then goes on', async () => {
    fake.addInvoices([invoice(1), invoice(2)]);
    fake.rateLimit(2, 0);
    const ctx = context();
    await fakturowniaProvider.sync(ctx);
    fake.failNext(1, 503);
    await fakturowniaProvider.sync(ctx);
    expect(ctx.commits.map((commit) => commit.batch.invoiceItems?.length)).toEqual([2, 2]);
    expect(fake.calls).toHaveLength(5);
  });

  it('an incremental sync reads every invoice again, without a percent', async () => {
    fake.addInvoices([invoice(1, '2025-06-01'), invoice(2, '2026-02-20')]);
    const ctx = context({ mode: 'incremental', since: new Date('2026-03-01T12:00:00Z') });
    await fakturowniaProvider.sync(ctx);
    expect(fake.calls[0]?.query.get('period')).toBe('all');
    expect(ctx.commits.map((commit) => [commit.batch.invoiceItems?.map((item) => item.issueDate), commit.progress])).toEqual([[['2025-06-01', '2026-02-20'], undefined]]);
  });

  it('a token revoked meanwhile stops the sync with cannot_connect_to_fakturownia', async () => {
    fake.addInvoices([invoice(1)]);
    await expect(fakturowniaProvider.sync(context({}, 'revoked'))).rejects.toMatchObject({ code: 'cannot_connect_to_fakturownia' });
  });
});
