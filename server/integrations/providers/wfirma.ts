import { CANNOT_CONNECT_MESSAGES, CONFIGURATION_VALUE_MAX, WfirmaConfiguration } from '../../../models/integrations';
import { fieldFailures } from '../../../models/validation';
import { CannotConnectError, ProviderHttpError, type ConfigProblem, type IntegrationProvider, type ProviderFetch, type SyncContext, type SyncInvoiceItem } from '../types';
import type { ProviderUrls } from '../../config';

/**
 * wFirma (docs/integrations.md, docs/invoices.md): an invoicing tool, read through its API v2,
 * `POST {base}/invoices/find?inputFormat=json&outputFormat=json` with HTTP Basic auth (the
 * user's e-mail and password) and `{"invoices": {"parameters": {page, limit, order}}}`. Every
 * line (invoice content) of every sales document becomes an invoice item; the import rules turn
 * the items into payments. Every sync reads every invoice, oldest id first: an invoice can be
 * edited or issued with an earlier date at any time, and lines are keyed by invoice id and line
 * id, so a line read again unchanged writes nothing. wFirma answers problems with HTTP 200 and a
 * status in the body (`AUTH` for a wrong e-mail or password); its answers carry the total, so the
 * first sync's percent is the share of invoices read.
 */

export const LIMIT = 100;
/** Document types that are not sales (pro formas, offers, corrections): not read. */
export const SKIPPED_TYPES = new Set(['proforma', 'proforma_bill', 'offer', 'offer_bill', 'correction']);
/** Body statuses meaning the e-mail or password is refused (or the user may not use the API). */
const REFUSED_STATUSES = new Set(['AUTH', 'AUTH FAILED LIMIT WAIT 5 MINUTES', 'DENIED']);

interface InvoiceContent {
  id?: number | string | null;
  name?: string | null;
  count?: string | number | null;
  price?: string | number | null;
  brutto?: string | number | null;
}

export interface WfirmaInvoiceJson {
  id: number | string;
  type?: string | null;
  fullnumber?: string | null;
  date?: string | null;
  currency?: string | null;
  contractor?: { id?: number | string | null; name?: string | null; nip?: string | null } | null;
  contractor_detail?: { name?: string | null; nip?: string | null } | null;
  /** wFirma's keyed list: `{"0": {"invoicecontent": {...}}, ...}` (an array is read too). */
  invoicecontents?: Record<string, unknown> | unknown[] | null;
}

interface FindAnswer {
  invoices?: Record<string, unknown>;
  status?: { code?: string; message?: string };
}

const blank = (value: unknown): string | null => {
  if (value === null || value === undefined || typeof value === 'object') return null;
  const text = String(value).replaceAll('\u0000', '').trim();
  return text === '' ? null : text;
};

/** A decimal amount in major units ('123.45', 123.45) in minor units (two decimals). */
export function minorUnits(value: string | number | null | undefined): number {
  const number = Number(value ?? 0);
  return Number.isFinite(number) ? Math.round(number * 100) : 0;
}

/** The entries of one of wFirma's keyed lists (`{"0": {"invoice": {...}}, "parameters": {...}}`), in key order, under `inner`. */
export function entriesOf<T>(list: unknown, inner: string): T[] {
  if (list === null || typeof list !== 'object') return [];
  const entries = Array.isArray(list)
    ? list
    : Object.entries(list as Record<string, unknown>)
        .filter(([key]) => /^\d+$/.test(key))
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, value]) => value);
  return entries.flatMap((entry) => {
    const value = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)[inner] : undefined;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? [value as T] : [];
  });
}

/** The invoice's lines as invoice items (none for a document that is not a sale). */
export function itemsOf(invoice: WfirmaInvoiceJson): SyncInvoiceItem[] {
  if (invoice.type && SKIPPED_TYPES.has(invoice.type)) return [];
  const nip = blank(invoice.contractor_detail?.nip) ?? blank(invoice.contractor?.nip);
  const contractorId = blank(invoice.contractor?.id);
  const buyerId = nip ?? (contractorId && contractorId !== '0' ? `contractor-${contractorId}` : null);
  const buyerName = blank(invoice.contractor_detail?.name) ?? blank(invoice.contractor?.name);
  const currency = (blank(invoice.currency) ?? 'PLN').toUpperCase();
  const issueDate = blank(invoice.date);
  return entriesOf<InvoiceContent>(invoice.invoicecontents, 'invoicecontent').flatMap((content, index) => {
    const name = blank(content.name);
    if (!name) return [];
    const count = Number(content.count ?? 1);
    const value = blank(content.brutto) !== null ? minorUnits(content.brutto) : Math.round(minorUnits(content.price) * (Number.isFinite(count) ? count : 1));
    return [
      {
        externalId: `${invoice.id}:${blank(content.id) ?? `#${index}`}`,
        name: name.slice(0, 500),
        value,
        currency: /^[A-Z]{3}$/.test(currency) ? currency : 'PLN',
        quantity: Math.max(1, Math.round(count) || 1),
        invoiceNumber: blank(invoice.fullnumber),
        buyerName,
        buyerId,
        issueDate: issueDate && /^\d{4}-\d{2}-\d{2}$/.test(issueDate) ? issueDate : null,
      },
    ];
  });
}

export function findUrl(urls: ProviderUrls): string {
  return `${urls.wfirma.replace(/\/+$/, '')}/invoices/find?inputFormat=json&outputFormat=json`;
}

const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`, 'utf8').toString('base64')}`;
const refused = () => new CannotConnectError('cannot_connect', CANNOT_CONNECT_MESSAGES.cannot_connect);

export interface FoundPage {
  invoices: WfirmaInvoiceJson[];
  /** How many invoices the find has in all (null when wFirma did not say). */
  total: number | null;
}

/** One page of `invoices/find`: a refused e-mail or password is CannotConnectError, any other problem ProviderHttpError. */
export async function findPage(fetch: ProviderFetch, urls: ProviderUrls, credentials: { email: string; password: string }, page: number, limit: number, signal?: AbortSignal): Promise<FoundPage> {
  const response = await fetch(findUrl(urls), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', authorization: basic(credentials.email, credentials.password) },
    body: JSON.stringify({ invoices: { parameters: { page, limit, order: { asc: 'id' } } } }),
    signal,
  });
  const text = await response.text();
  if (response.status === 401 || response.status === 403) throw refused();
  if (!response.ok) throw new ProviderHttpError(response.status, text);
  let body: FindAnswer;
  try {
    body = JSON.parse(text) as FindAnswer;
  } catch {
    throw new ProviderHttpError(response.status, text);
  }
  const code = body?.status?.code ?? '';
  if (REFUSED_STATUSES.has(code)) throw refused();
  if (code === 'TOTAL REQUESTS LIMIT EXCEEDED') throw new ProviderHttpError(429, text);
  if (code !== 'OK') throw new ProviderHttpError(response.status, text);
  const list = body.invoices ?? {};
  const parameters = (list.parameters ?? {}) as { total?: unknown };
  const total = Number(parameters.total);
  return { invoices: entriesOf<WfirmaInvoiceJson>(list, 'invoice'), total: parameters.total !== undefined && Number.isFinite(total) ? total : null };
}

/** The first sync's percent after `read` invoices of `total`: growing, below 100 until the end. */
export function progressOf(read: number, total: number | null): number {
  if (!total || total <= 0) return Math.min(95, Math.round((100 * read) / (read + 1000)));
  return Math.min(99, Math.floor((100 * read) / total));
}

function credentialsOf(config: { config: Record<string, unknown>; secrets: Record<string, string> }) {
  return { email: String(config.config.wfirma_email ?? ''), password: config.secrets.wfirma_password ?? '' };
}

export const wfirmaProvider: IntegrationProvider = {
  name: 'wfirma',
  configurable: true,
  connect: 'dialog',

  parseConfig(body) {
    const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const textOf = (value: unknown) => (typeof value === 'string' ? value.replaceAll('\u0000', '') : '');
    const given = { wfirma_email: textOf(record.wfirma_email), wfirma_password: textOf(record.wfirma_password) };
    const problems: ConfigProblem[] = fieldFailures(WfirmaConfiguration, given).map((failure) => ({ pointer: `/body/${failure.path}`, detail: failure.message }));
    if (problems.length > 0) return problems;
    const email = given.wfirma_email.trim();
    // A password is kept as typed: spaces at its ends may be part of it.
    const password = given.wfirma_password;
    if (email.length > CONFIGURATION_VALUE_MAX) problems.push({ pointer: '/body/wfirma_email', detail: `At most ${CONFIGURATION_VALUE_MAX} characters` });
    if (password.length > CONFIGURATION_VALUE_MAX) problems.push({ pointer: '/body/wfirma_password', detail: `At most ${CONFIGURATION_VALUE_MAX} characters` });
    if (problems.length > 0) return problems;
    return { config: { wfirma_email: email }, secrets: { wfirma_password: password } };
  },

  async verify(config, context) {
    try {
      await findPage(context.fetch, context.urls, credentialsOf(config), 1, 1);
    } catch (error) {
      if (error instanceof CannotConnectError) throw error;
      // Not reachable (network) or not answering as wFirma does.
      throw refused();
    }
  },

  async sync(ctx: SyncContext) {
    const credentials = credentialsOf(ctx);
    let page = typeof ctx.cursor?.page === 'number' && ctx.cursor.page >= 1 ? ctx.cursor.page : 1;
    await ctx.log('wfirma.read', { from_page: page, mode: ctx.mode });
    for (;;) {
      if (ctx.signal.aborted) return;
      const found = await findPage(ctx.fetch, ctx.urls, credentials, page, LIMIT, ctx.signal);
      const read = (page - 1) * LIMIT + found.invoices.length;
      const last = found.invoices.length < LIMIT || (found.total !== null && read >= found.total);
      const next = last ? null : { page: page + 1 };
      await ctx.commit({ invoiceItems: found.invoices.flatMap(itemsOf) }, { cursor: next, ...(ctx.mode === 'initial' ? { progress: last ? 100 : progressOf(read, found.total) } : {}) });
      if (last) return;
      page += 1;
    }
  },
};
