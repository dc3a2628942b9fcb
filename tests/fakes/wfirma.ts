import type { IncomingMessage } from 'node:http';
import { FaultInjector, invoiceFakeControl, jsonSender, listenFake, OwnedInvoices } from './server';
import type { FakeProvider } from './types';

/**
 * A fake wFirma API v2 (https://doc.wfirma.pl): `POST /invoices/find?inputFormat=json&outputFormat=json`
 * as wFirma answers it: HTTP Basic auth with the user's e-mail and password; the body
 * `{"invoices": {"parameters": {"page", "limit", "order": {"asc"|"desc": field}}}}` (page from 1,
 * limit at most 100, default 20); the answer keys each invoice by its position as a string
 * (`{"invoices": {"0": {"invoice": {...}}, "parameters": {limit, page, total}}, "status": {"code": "OK"}}`),
 * its lines likewise (`invoicecontents: {"0": {"invoicecontent": {...}}}`), money and counts as
 * decimal strings. wFirma reports problems in the body with HTTP 200: a wrong e-mail or password
 * is `{"status": {"code": "AUTH"}}`, a body it cannot read `{"status": {"code": "INPUT ERROR"}}`.
 * Any e-mail works with the password WFIRMA_PASSWORD.
 *
 * Controls (in process) and their HTTP twins for e2e (another process):
 * - `addInvoices(invoices, email?)` / POST /__fake/invoices?email= (an invoice or a list; ids and
 *   numbers filled in): given an e-mail, only that user lists them (tests sharing one fake keep
 *   apart); without one, every user does
 * - `rateLimit(count, retryAfterSeconds)` / POST /__fake/rate_limit {count, retry_after}: the next calls answer 429
 * - `failNext(count, status)` / POST /__fake/fail {count, status}: the next calls answer that 5xx
 * - POST /__fake/delay {ms}: every find answer waits that long
 * - `reset()` / POST /__fake/reset
 */

export const WFIRMA_EMAIL = 'owner@example.com';
export const WFIRMA_PASSWORD = 'test_wfirma_password';

export interface WfirmaInvoiceContent {
  id: string;
  name: string;
  unit: string;
  count: string;
  unit_count: string;
  price: string;
  netto: string;
  brutto: string;
  discount: string;
  discount_percent: string;
  vat_code: { id: string };
}

export interface WfirmaInvoice {
  id: string;
  type: string;
  price_type: string;
  fullnumber: string;
  number: string;
  date: string;
  disposaldate: string;
  paymentdate: string;
  paymentstate: string;
  currency: string;
  netto: string;
  tax: string;
  total: string;
  created: string;
  modified: string;
  contractor: { id: string };
  contractor_detail: { id: string; name: string; nip: string; country: string };
  invoicecontents: Record<string, { invoicecontent: WfirmaInvoiceContent }>;
}

/** What a test gives for an invoice: the rest is filled in. */
export interface FakeWfirmaInvoiceInput {
  id?: number;
  type?: string;
  fullnumber?: string;
  date: string;
  currency?: string;
  contractor_name: string;
  contractor_nip?: string | null;
  contractor_id?: number;
  /** Gross totals of the lines as decimal strings or numbers (major units), with counts. */
  contents: { name: string; brutto: string | number; count?: string | number; id?: number }[];
}

export interface FakeWfirma extends FakeProvider {
  addInvoices(invoices: FakeWfirmaInvoiceInput | FakeWfirmaInvoiceInput[], email?: string): WfirmaInvoice[];
  rateLimit(count: number, retryAfterSeconds?: number): void;
  failNext(count: number, status?: number): void;
  reset(): void;
  /** Every invoices/find call received: its query, the user it authenticated as (null: none) and its parameters, oldest first. */
  readonly calls: { query: URLSearchParams; user: string | null; parameters: Record<string, unknown> }[];
}

const money = (value: string | number) => Number(value).toFixed(2);

async function textOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The e-mail and password of an HTTP Basic `authorization` header, or null. */
function basicAuthOf(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function startFakeWfirma(): Promise<FakeWfirma> {
  /** Each invoice belongs to the user (e-mail) it was added for, or to every one. */
  const invoices = new OwnedInvoices<WfirmaInvoice>((a, b) => Number(a.id) - Number(b.id));
  let nextInvoiceId = 70_000_000;
  let nextContentId = 90_000_000;
  let nextContractorId = 5_000_000;
  const faults = new FaultInjector();
  const calls: FakeWfirma['calls'] = [];

  const addInvoices = (input: FakeWfirmaInvoiceInput | FakeWfirmaInvoiceInput[], email?: string): WfirmaInvoice[] => {
    const added = (Array.isArray(input) ? input : [input]).map((given): WfirmaInvoice => {
      const id = String(given.id ?? nextInvoiceId++);
      const contents = given.contents.map((content) => {
        const brutto = money(content.brutto);
        const count = Number(content.count ?? 1);
        const netto = money(Number(brutto) / 1.23);
        return {
          id: String(content.id ?? nextContentId++),
          name: content.name,
          unit: 'szt.',
          count: count.toFixed(4),
          unit_count: count.toFixed(4),
          price: money(Number(netto) / count),
          netto,
          brutto,
          discount: '0',
          discount_percent: '0',
          vat_code: { id: '222' },
        };
      });
      const total = contents.reduce((sum, content) => sum + Number(content.brutto), 0);
      const netto = contents.reduce((sum, content) => sum + Number(content.netto), 0);
      const contractorId = String(given.contractor_id ?? nextContractorId++);
      const at = `${given.date} 10:00:00`;
      return {
        id,
        type: given.type ?? 'normal',
        price_type: 'brutto',
        fullnumber: given.fullnumber ?? `FV ${id.slice(-4)}/${given.date.slice(0, 4)}`,
        number: id.slice(-4),
        date: given.date,
        disposaldate: given.date,
        paymentdate: given.date,
        paymentstate: 'unpaid',
        currency: given.currency ?? 'PLN',
        netto: money(netto),
        tax: money(total - netto),
        total: money(total),
        created: at,
        modified: at,
        contractor: { id: contractorId },
        contractor_detail: { id: contractorId, name: given.contractor_name, nip: given.contractor_nip ?? '', country: 'PL' },
        invoicecontents: Object.fromEntries(contents.map((content, index) => [String(index), { invoicecontent: content }])),
      };
    });
    return invoices.add(added, email);
  };

  const reset = () => {
    invoices.clear();
    faults.reset();
    calls.length = 0;
  };

  const fake = await listenFake(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const send = jsonSender(response);
    const text = await textOf(request);
    if (request.method === 'POST' && url.pathname.startsWith('/__fake/')) {
      const answer = invoiceFakeControl(url, (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>, { ownerParameter: 'email', add: addInvoices, faults, reset });
      return answer ? send(...answer) : send(404, { status: { code: 'NOT FOUND' } });
    }
    // wFirma answers an unknown module or action with 200 and a status in the body too.
    if (request.method !== 'POST' || url.pathname.replace(/\/+$/, '') !== '/invoices/find') return send(200, { status: { code: 'NOT FOUND' } });
    const auth = basicAuthOf(request.headers.authorization);
    let parameters: Record<string, unknown> = {};
    const inputJson = url.searchParams.get('inputFormat') === 'json';
    let readable = inputJson;
    if (inputJson && text !== '') {
      try {
        const parsed = JSON.parse(text) as { invoices?: { parameters?: Record<string, unknown> } };
        parameters = parsed.invoices?.parameters ?? {};
      } catch {
        readable = false;
      }
    }
    calls.push({ query: url.searchParams, user: auth?.user ?? null, parameters });
    const fault = faults.next();
    if (fault?.status === 429) return send(429, { status: { code: 'TOTAL REQUESTS LIMIT EXCEEDED' } }, { 'retry-after': String(fault.retryAfter) });
    if (fault) return send(fault.status, { status: { code: 'OUT OF SERVICE' } });
    await faults.wait();
    if (!auth || auth.password !== WFIRMA_PASSWORD || auth.user.trim() === '') return send(200, { status: { code: 'AUTH' } });
    if (!readable || url.searchParams.get('outputFormat') !== 'json') return send(200, { status: { code: 'INPUT ERROR' } });
    const page = Math.max(1, Number(parameters.page ?? 1) || 1);
    const limit = Math.min(100, Math.max(1, Number(parameters.limit ?? 20) || 20));
    const user = auth.user.toLowerCase();
    const selected = invoices.of(user);
    const order = (parameters.order ?? {}) as { asc?: unknown; desc?: unknown };
    if (order.desc === 'id') selected.reverse();
    const slice = selected.slice((page - 1) * limit, page * limit);
    return send(200, {
      invoices: { ...Object.fromEntries(slice.map((invoice, index) => [String(index), { invoice }])), parameters: { limit: String(limit), page: String(page), total: String(selected.length) } },
      status: { code: 'OK' },
    });
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
