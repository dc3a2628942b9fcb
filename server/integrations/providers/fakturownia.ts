import {
  CANNOT_CONNECT_MESSAGES,
  CONFIGURATION_VALUE_MAX,
  FakturowniaConfiguration,
  SITE_INVALID,
  SITE_PATTERN,
} from '../../../models/integrations';
import { fieldFailures } from '../../../models/validation';
import { CannotConnectError, ProviderHttpError, type ConfigProblem, type IntegrationProvider, type ProviderFetch, type SyncContext, type SyncInvoiceItem } from '../types';
import type { ProviderUrls } from '../../config';

/**
 * Fakturownia (docs/invoices.md): an invoicing tool, read through its documented REST API,
 * `GET {base}/invoices.json?api_token=&page=&per_page=100&include_positions=true`. Every line
 * (position) of every sales invoice becomes an invoice item; the import rules turn the items
 * into payments. Every sync reads every invoice (`period=all`): the list cannot be asked for
 * what changed since a time (its date filters are on the issue date, and an invoice can be
 * issued with an earlier date or edited later), and lines are keyed by invoice id and position
 * id, so a line read again unchanged writes nothing. Lists carry no totals: the first sync's
 * percent is an estimate that grows with each page and never goes back.
 */

export const PER_PAGE = 100;
/** Kinds of documents that are not sales: not read. */
export const SKIPPED_KINDS = new Set(['proforma', 'estimate', 'kp', 'kw', 'correction', 'client_order', 'maintenance_request', 'payment_summary', 'accounting_note']);

interface Position {
  id?: number | string | null;
  name?: string | null;
  quantity?: string | number | null;
  total_price_gross?: string | number | null;
}

export interface FakturowniaInvoiceJson {
  id: number | string;
  kind?: string | null;
  number?: string | null;
  issue_date?: string | null;
  currency?: string | null;
  buyer_name?: string | null;
  buyer_tax_no?: string | null;
  client_id?: number | string | null;
  positions?: Position[] | null;
}

const blank = (value: unknown): string | null => {
  if (value === null || value === undefined) return null;
  const text = String(value).replaceAll('\u0000', '').trim();
  return text === '' ? null : text;
};

/** A decimal amount in major units ('123.45', 123.45) in minor units (two decimals). */
export function minorUnits(value: string | number | null | undefined): number {
  const number = Number(value ?? 0);
  return Number.isFinite(number) ? Math.round(number * 100) : 0;
}

/** The subdomain alone from what a user may paste ('acme', 'acme.fakturownia.pl', 'https://acme.fakturownia.pl/'). */
export function subdomainOf(text: string): string {
  return text
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/.*$/, '')
    .replace(/\.fakturownia\.pl$/i, '');
}

export function baseUrl(urls: ProviderUrls, subdomain: string): string {
  return urls.fakturownia.replace('{subdomain}', encodeURIComponent(subdomain)).replace(/\/+$/, '');
}

/** The invoice's lines as invoice items (none for a document that is not a sale). */
export function itemsOf(invoice: FakturowniaInvoiceJson): SyncInvoiceItem[] {
  if (invoice.kind && SKIPPED_KINDS.has(invoice.kind)) return [];
  const buyerId = blank(invoice.buyer_tax_no) ?? (blank(invoice.client_id) ? `client-${blank(invoice.client_id)}` : null);
  const currency = (blank(invoice.currency) ?? 'PLN').toUpperCase();
  const issueDate = blank(invoice.issue_date);
  return (invoice.positions ?? []).flatMap((position, index) => {
    const name = blank(position.name);
    if (!name) return [];
    return [
      {
        externalId: `${invoice.id}:${blank(position.id) ?? `#${index}`}`,
        name: name.slice(0, 500),
        value: minorUnits(position.total_price_gross),
        currency: /^[A-Z]{3}$/.test(currency) ? currency : 'PLN',
        quantity: Math.max(1, Math.round(Number(position.quantity ?? 1) || 1)),
        invoiceNumber: blank(invoice.number),
        buyerName: blank(invoice.buyer_name),
        buyerId,
        issueDate: issueDate && /^\d{4}-\d{2}-\d{2}$/.test(issueDate) ? issueDate : null,
      },
    ];
  });
}

function invoicesUrl(base: string, token: string, page: number, perPage: number): string {
  const query = new URLSearchParams({ api_token: token, period: 'all', page: String(page), per_page: String(perPage), include_positions: 'true' });
  return `${base}/invoices.json?${query.toString()}`;
}

const refused = (status: number) => status === 401 || status === 403 || status === 404;

async function page(fetch: ProviderFetch, url: string, signal?: AbortSignal): Promise<FakturowniaInvoiceJson[]> {
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal });
  const text = await response.text();
  if (!response.ok) {
    if (refused(response.status)) throw new CannotConnectError('cannot_connect_to_fakturownia', CANNOT_CONNECT_MESSAGES.cannot_connect_to_fakturownia);
    throw new ProviderHttpError(response.status, text);
  }
  const body = JSON.parse(text) as unknown;
  if (!Array.isArray(body)) throw new ProviderHttpError(response.status, text);
  return body as FakturowniaInvoiceJson[];
}

/** The first sync's percent after `pages` pages: an estimate (no totals), growing and below 100 until the end. */
export function estimatedProgress(pages: number): number {
  return Math.min(95, Math.round((100 * pages) / (pages + 10)));
}

export const fakturowniaProvider: IntegrationProvider = {
  name: 'fakturownia',
  configurable: true,
  connect: 'dialog',

  parseConfig(body) {
    const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const textOf = (value: unknown) => (typeof value === 'string' ? value.replaceAll('\u0000', '') : '');
    const given = { fakturownia_api_token: textOf(record.fakturownia_api_token), fakturownia_subdomain: textOf(record.fakturownia_subdomain) };
    const problems: ConfigProblem[] = fieldFailures(FakturowniaConfiguration, given).map((failure) => ({ pointer: `/body/${failure.path}`, detail: failure.message }));
    if (problems.length > 0) return problems;
    const token = given.fakturownia_api_token.trim();
    const subdomain = subdomainOf(given.fakturownia_subdomain);
    if (token.length > CONFIGURATION_VALUE_MAX) problems.push({ pointer: '/body/fakturownia_api_token', detail: `At most ${CONFIGURATION_VALUE_MAX} characters` });
    if (!SITE_PATTERN.test(subdomain)) problems.push({ pointer: '/body/fakturownia_subdomain', detail: SITE_INVALID });
    if (problems.length > 0) return problems;
    return { config: { fakturownia_subdomain: subdomain.toLowerCase() }, secrets: { fakturownia_api_token: token } };
  },

  async verify(config, context) {
    const subdomain = String(config.config.fakturownia_subdomain ?? '');
    const token = config.secrets.fakturownia_api_token ?? '';
    try {
      await page(context.fetch, invoicesUrl(baseUrl(context.urls, subdomain), token, 1, 1));
    } catch (error) {
      if (error instanceof CannotConnectError) throw error;
      // Not reachable (no such subdomain, network) or not answering as Fakturownia does.
      throw new CannotConnectError('cannot_connect_to_fakturownia', CANNOT_CONNECT_MESSAGES.cannot_connect_to_fakturownia);
    }
  },

  async sync(ctx: SyncContext) {
    const subdomain = String(ctx.config.fakturownia_subdomain ?? '');
    const token = ctx.secrets.fakturownia_api_token ?? '';
    const base = baseUrl(ctx.urls, subdomain);
    let pageNumber = typeof ctx.cursor?.page === 'number' && ctx.cursor.page >= 1 ? ctx.cursor.page : 1;
    await ctx.log('fakturownia.read', { from_page: pageNumber, mode: ctx.mode });
    for (;;) {
      if (ctx.signal.aborted) return;
      const invoices = await page(ctx.fetch, invoicesUrl(base, token, pageNumber, PER_PAGE), ctx.signal);
      const last = invoices.length < PER_PAGE;
      const next = last ? null : { page: pageNumber + 1 };
      await ctx.commit({ invoiceItems: invoices.flatMap(itemsOf) }, { cursor: next, ...(ctx.mode === 'initial' ? { progress: last ? 100 : estimatedProgress(pageNumber) } : {}) });
      if (last) return;
      pageNumber += 1;
    }
  },
};
