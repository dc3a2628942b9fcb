import type { IncomingMessage } from 'node:http';
import { FaultInjector, invoiceFakeControl, jsonSender, listenFake, OwnedInvoices } from './server';
import type { FakeProvider } from './types';

/**
 * A fake Fakturownia API: `GET /{subdomain}/invoices.json` as the documented REST API answers
 * it (https://app.fakturownia.pl/api): `api_token` in the query, `page` (from 1) and `per_page`
 * (at most 100), `period` ('all', or 'more' with `date_from`/`date_to` on the issue date),
 * `include_positions=true` for the lines; money as decimal strings; a page past the end is `[]`;
 * a wrong token is 401 `{code: 'error', message}`. Any subdomain works.
 *
 * Controls (in process) and their HTTP twins for e2e (another process):
 * - `addInvoices(invoices, subdomain?)` / POST /__fake/invoices?subdomain= (an invoice or a list; ids and
 *   numbers filled in): given a subdomain, only that subdomain lists them (tests sharing one fake
 *   keep apart); without one, every subdomain does
 * - `rateLimit(count, retryAfterSeconds)` / POST /__fake/rate_limit {count, retry_after}: the next calls answer 429
 * - `failNext(count, status)` / POST /__fake/fail {count, status}: the next calls answer that 5xx
 * - POST /__fake/delay {ms}: every list answer waits that long
 * - `reset()` / POST /__fake/reset
 */

export const FAKTUROWNIA_TOKEN = 'test_fakturownia_token';

export interface FakturowniaPosition {
  id: number;
  invoice_id: number;
  name: string;
  quantity: string;
  quantity_unit: string;
  tax: string;
  price_net: string;
  price_gross: string;
  total_price_net: string;
  total_price_gross: string;
}

export interface FakturowniaInvoice {
  id: number;
  kind: string;
  number: string;
  issue_date: string;
  sell_date: string;
  payment_to: string;
  status: string;
  currency: string;
  buyer_name: string;
  buyer_tax_no: string | null;
  client_id: number | null;
  price_net: string;
  price_gross: string;
  created_at: string;
  updated_at: string;
  positions: FakturowniaPosition[];
}

/** What a test gives for an invoice: the rest is filled in. */
export interface FakeInvoiceInput {
  id?: number;
  kind?: string;
  number?: string;
  issue_date: string;
  currency?: string;
  buyer_name: string;
  buyer_tax_no?: string | null;
  client_id?: number | null;
  /** Gross totals as decimal strings or numbers (major units), with quantities. */
  positions: { name: string; total_price_gross: string | number; quantity?: string | number; id?: number }[];
}

export interface FakeFakturownia extends FakeProvider {
  addInvoices(invoices: FakeInvoiceInput | FakeInvoiceInput[], subdomain?: string): FakturowniaInvoice[];
  rateLimit(count: number, retryAfterSeconds?: number): void;
  failNext(count: number, status?: number): void;
  reset(): void;
  /** Every invoices.json call received (path and query), oldest first. */
  readonly calls: { path: string; query: URLSearchParams }[];
}

const money = (value: string | number) => Number(value).toFixed(2);

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

export async function startFakeFakturownia(): Promise<FakeFakturownia> {
  /** Each invoice belongs to the subdomain it was added for, or to every one. */
  const invoices = new OwnedInvoices<FakturowniaInvoice>((a, b) => a.id - b.id);
  let nextInvoiceId = 1000;
  let nextPositionId = 50_000;
  const faults = new FaultInjector();
  const calls: { path: string; query: URLSearchParams }[] = [];

  const addInvoices = (input: FakeInvoiceInput | FakeInvoiceInput[], subdomain?: string): FakturowniaInvoice[] => {
    const added = (Array.isArray(input) ? input : [input]).map((given) => {
      const id = given.id ?? nextInvoiceId++;
      const positions = given.positions.map((position) => {
        const gross = money(position.total_price_gross);
        const quantity = Number(position.quantity ?? 1);
        const net = money(Number(gross) / 1.23);
        return {
          id: position.id ?? nextPositionId++,
          invoice_id: id,
          name: position.name,
          quantity: quantity.toFixed(1),
          quantity_unit: 'szt.',
          tax: '23',
          price_net: money(Number(net) / quantity),
          price_gross: money(Number(gross) / quantity),
          total_price_net: net,
          total_price_gross: gross,
        };
      });
      const gross = positions.reduce((sum, position) => sum + Number(position.total_price_gross), 0);
      const at = `${given.issue_date}T10:00:00.000+01:00`;
      return {
        id,
        kind: given.kind ?? 'vat',
        number: given.number ?? `FV ${id}/${given.issue_date.slice(5, 7)}/${given.issue_date.slice(0, 4)}`,
        issue_date: given.issue_date,
        sell_date: given.issue_date,
        payment_to: given.issue_date,
        status: 'issued',
        currency: given.currency ?? 'PLN',
        buyer_name: given.buyer_name,
        buyer_tax_no: given.buyer_tax_no ?? null,
        client_id: given.client_id ?? null,
        price_net: money(gross / 1.23),
        price_gross: money(gross),
        created_at: at,
        updated_at: at,
        positions,
      };
    });
    return invoices.add(added, subdomain);
  };

  const reset = () => {
    invoices.clear();
    faults.reset();
    calls.length = 0;
  };

  const fake = await listenFake(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const send = jsonSender(response);
    if (request.method === 'POST' && url.pathname.startsWith('/__fake/')) {
      const answer = invoiceFakeControl(url, (await bodyOf(request)) as Record<string, unknown>, { ownerParameter: 'subdomain', add: addInvoices, faults, reset });
      return answer ? send(...answer) : send(404, { code: 'error', message: 'Not found' });
    }
    const match = /^\/([^/]+)\/invoices\.json$/.exec(url.pathname);
    if (request.method !== 'GET' || !match) return send(404, { code: 'error', message: 'Not found' });
    calls.push({ path: url.pathname, query: url.searchParams });
    const fault = faults.next();
    if (fault?.status === 429) return send(429, { code: 'error', message: 'Too many requests' }, { 'retry-after': String(fault.retryAfter) });
    if (fault) return send(fault.status, { code: 'error', message: 'Service unavailable' });
    await faults.wait();
    if (url.searchParams.get('api_token') !== FAKTUROWNIA_TOKEN) return send(401, { code: 'error', message: 'You must be logged in to gain access to the site' });
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 25) || 25));
    const subdomain = decodeURIComponent(match[1] as string).toLowerCase();
    let selected = invoices.of(subdomain);
    if (url.searchParams.get('period') === 'more') {
      const from = url.searchParams.get('date_from') ?? '0000-01-01';
      const to = url.searchParams.get('date_to') ?? '9999-12-31';
      selected = selected.filter((invoice) => invoice.issue_date >= from && invoice.issue_date <= to);
    }
    const withPositions = url.searchParams.get('include_positions') === 'true';
    const slice = selected.slice((page - 1) * perPage, page * perPage).map((invoice) => (withPositions ? invoice : { ...invoice, positions: undefined }));
    return send(200, slice);
  });

  return {
    ...fake,
    addInvoices,
    rateLimit: (count, retryAfterSeconds) => faults.rateLimit(count, retryAfterSeconds),
    failNext: (count, status) => faults.failNext(count, status),
    reset,
    calls,
  };
}
