import Chargebee from 'chargebee';
import {
  CANNOT_CONNECT_MESSAGES,
  CHARGEBEE_API_KEY_EMPTY,
  CHARGEBEE_SITE_EMPTY,
  CONFIGURATION_VALUE_MAX,
  SITE_INVALID,
  SITE_PATTERN,
} from '../../../models/integrations';
import { durationInMonthsOf, endDateOf } from '../../../models/payments';
import type { ItemType, JsonObject } from '../../db/schema';
import { CannotConnectError, ProviderHttpError, type ConfigProblem, type IntegrationProvider, type ProviderConfig, type ProviderFetch, type SyncContext, type SyncPayment } from '../types';

/**
 * Chargebee (API v2 through the `chargebee` SDK; docs/integrations.md "Chargebee"). The SDK's
 * requests go through the sync's fetch (retries, abort) to the configured origin
 * (CHARGEBEE_API_URL, `https://{site}.chargebee.com` by default).
 *
 * A sync reads, 100 at a time by `offset` / `next_offset`: coupons (whole, to type discounts),
 * customers, then invoices; an incremental sync only what was updated since the last successful
 * sync started (a minute's overlap). Every line of a billed invoice (paid, or due: BILLED_STATUSES) becomes a payment:
 * - its period is the line's date_from to date_to; its monthly amount divides the line by the
 *   months of its subscription's billing period (billing_period x billing_period_unit, a year 12
 *   months, a week 12/52, a day 12/365) when the line covers one whole term, else by the months
 *   its dates span;
 * - plans and addons are 'recurring' ('metered' when the line is metered), charges, setup fees
 *   and ad hoc lines 'one_time' (a one-time line of no length covers one month);
 * - its coupon discount is 'forever' for a forever coupon, else 'finite' over the line;
 * - the invoice's currency is kept; a voided or deleted invoice removes its lines' payments.
 * Chargebee lists carry no totals, so the first sync's percent is an estimate by phase that
 * only grows: coupons and customers up to 30 %, invoices up to 99 %.
 */

const PAGE = 100;
/** An incremental sync reads from this long before the last successful sync started (clock skew). */
const OVERLAP_SECONDS = 60;

interface ChargebeeCursor extends JsonObject {
  phase: 'customers' | 'invoices';
  offset: string | null;
  pages: number;
}

// ------------------------------------------------------------------------------ configuration

/** The site name from what a user pastes: `acme`, `acme.chargebee.com`, `https://acme.chargebee.com/`. */
export function normaliseSite(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '')
    .replace(/\.chargebee\.com$/, '');
}

function text(body: unknown, key: string): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'string' ? value.replace(/\0/g, '').trim() : null;
}

export function parseChargebeeConfig(body: unknown): ConfigProblem[] | ProviderConfig {
  const problems: ConfigProblem[] = [];
  const apiKey = text(body, 'chargebee_api_key');
  const rawSite = text(body, 'chargebee_site');
  if (!apiKey) problems.push({ pointer: '/body/chargebee_api_key', detail: CHARGEBEE_API_KEY_EMPTY });
  else if (apiKey.length > CONFIGURATION_VALUE_MAX || /\s/.test(apiKey)) problems.push({ pointer: '/body/chargebee_api_key', detail: CANNOT_CONNECT_MESSAGES.cannot_connect_to_chargebee });
  const site = rawSite ? normaliseSite(rawSite) : '';
  if (!rawSite) problems.push({ pointer: '/body/chargebee_site', detail: CHARGEBEE_SITE_EMPTY });
  else if (!SITE_PATTERN.test(site)) problems.push({ pointer: '/body/chargebee_site', detail: SITE_INVALID });
  if (problems.length > 0) return problems;
  return { config: { chargebee_site: site }, secrets: { chargebee_api_key: apiKey as string } };
}

// ------------------------------------------------------------------------------ the client

/** The base URL of a site: the CHARGEBEE_API_URL template with the site in it. */
export function chargebeeBase(template: string, site: string): string {
  return template.replace('{site}', encodeURIComponent(site)).replace(/\/+$/, '');
}

/** A Chargebee SDK client whose requests go to `base` through `fetch`. */
export function chargebeeClient(options: { base: string; site: string; apiKey: string; fetch: ProviderFetch }): Chargebee {
  return new Chargebee({
    site: options.site,
    apiKey: options.apiKey,
    timeout: 60_000,
    httpClient: {
      async makeApiRequest(request: Request) {
        const url = new URL(request.url);
        const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
        return options.fetch(`${options.base}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
      },
    },
  });
}

/** A Chargebee error answer (`{message, api_error_code, http_status_code}`) or the SDK's error as a ProviderHttpError / CannotConnectError. */
export function chargebeeError(error: unknown): Error {
  if (error instanceof Error && !('http_status_code' in error)) return error;
  const raw = (error ?? {}) as { http_status_code?: unknown; api_error_code?: unknown; message?: unknown };
  const status = Number(raw.http_status_code ?? 0);
  if (status === 401 || status === 403 || raw.api_error_code === 'api_authentication_failed' || raw.api_error_code === 'site_not_found') {
    return new CannotConnectError('cannot_connect_to_chargebee', 'Chargebee refused the API key or site');
  }
  return new ProviderHttpError(status || 500, JSON.stringify({ api_error_code: raw.api_error_code ?? null, message: typeof raw.message === 'string' ? raw.message.slice(0, 200) : null }));
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw chargebeeError(error);
  }
}

// ------------------------------------------------------------------------------ mapping

type CbCustomer = { id: string; first_name?: string; last_name?: string; email?: string; company?: string };
type CbLine = {
  id?: string;
  subscription_id?: string;
  date_from: number;
  date_to: number;
  amount?: number;
  quantity?: number;
  discount_amount?: number;
  metered?: boolean;
  description: string;
  entity_type: string;
  entity_id?: string;
};
type CbInvoice = {
  id: string;
  customer_id: string;
  status: string;
  deleted?: boolean;
  currency_code: string;
  line_items?: CbLine[];
  line_item_discounts?: { line_item_id: string; discount_type: string; coupon_id?: string; discount_amount: number }[];
};
type CbCoupon = { id: string; name: string; duration_type: 'one_time' | 'forever' | 'limited_period'; duration_month?: number; period?: number; period_unit?: string };
type CbSubscription = { id: string; billing_period?: number; billing_period_unit?: 'day' | 'week' | 'month' | 'year' };

export function customerName(customer: CbCustomer): string {
  const person = [customer.first_name, customer.last_name].filter((part) => part?.trim()).join(' ');
  return customer.company?.trim() || person || customer.email?.trim() || customer.id;
}

/** A billing period in months (METRICS.md section 1): a year is 12, a week 12/52, a day 12/365. */
export function billingPeriodInMonths(period: number | undefined, unit: string | undefined): number | null {
  if (!period || period <= 0 || !unit) return null;
  const perUnit: Record<string, number> = { year: 12, month: 1, week: 12 / 52, day: 12 / 365 };
  return unit in perUnit ? period * (perUnit[unit] as number) : null;
}

const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

export function itemTypeOf(line: CbLine): ItemType {
  if (['charge_item_price', 'plan_setup', 'adhoc'].includes(line.entity_type)) return 'one_time';
  return line.metered ? 'metered' : 'recurring';
}

/** The payments of a paid invoice's lines (zero-value lines carry nothing and are left out). */
export function invoicePayments(invoice: CbInvoice, coupons: Map<string, CbCoupon>, subscriptions: Map<string, CbSubscription>): SyncPayment[] {
  const payments: SyncPayment[] = [];
  for (const [index, line] of (invoice.line_items ?? []).entries()) {
    const amount = Math.round(line.amount ?? 0);
    if (amount <= 0) continue;
    const itemType = itemTypeOf(line);
    const startedAt = dayOf(line.date_from);
    let endedAt = dayOf(line.date_to);
    if (endedAt <= startedAt) endedAt = endDateOf(startedAt, 1);
    const spanned = durationInMonthsOf(startedAt, endedAt);
    const subscription = line.subscription_id ? subscriptions.get(line.subscription_id) : undefined;
    const term = itemType === 'one_time' ? null : billingPeriodInMonths(subscription?.billing_period, subscription?.billing_period_unit);
    // A whole term (within a few days: months differ in length) divides by the plan's months, a part of one by its days.
    const months = term !== null && Math.abs(spanned - term) <= Math.max(0.1, term * 0.1) ? term : spanned;
    const lineId = line.id ?? String(index);
    const couponDiscount = (invoice.line_item_discounts ?? []).filter((discount) => discount.line_item_id === lineId && discount.coupon_id && discount.discount_amount > 0);
    const discountAmount = couponDiscount.reduce((sum, discount) => sum + discount.discount_amount, 0);
    const coupon = couponDiscount[0]?.coupon_id ? coupons.get(couponDiscount[0].coupon_id) : undefined;
    payments.push({
      externalId: `${invoice.id}:${lineId}`,
      customerExternalId: invoice.customer_id,
      startedAt,
      endedAt,
      totalValue: amount,
      monthlyAmount: amount / months,
      currency: invoice.currency_code.toUpperCase(),
      invoiceNumber: invoice.id,
      productKey: line.entity_id || line.description || 'Chargebee',
      itemType,
      quantity: Math.max(1, Math.round(line.quantity ?? 1)),
      discount:
        discountAmount > 0
          ? {
              kind: coupon?.duration_type === 'forever' ? 'forever' : 'finite',
              monthlyAmount: Math.min(discountAmount, amount) / months,
              months: coupon?.duration_type === 'forever' ? null : Math.max(1, Math.round(spanned)),
              name: coupon?.name ?? couponDiscount[0]?.coupon_id ?? null,
            }
          : null,
    });
  }
  return payments;
}

/**
 * Invoice statuses whose lines are payments: paid, and billed but not (yet) paid — `posted`,
 * `payment_due`, `not_paid`. A customer in dunning still has the subscription the invoice bills
 * (as a past-due Stripe subscription's current period counts); the invoice leaves MRR when it is
 * voided or deleted. A `pending` invoice (still collecting charges) is not final and not read.
 */
export const BILLED_STATUSES: ReadonlySet<string> = new Set(['paid', 'posted', 'payment_due', 'not_paid']);

/** A line's payment id, for removing the payments of a voided or deleted invoice. */
const lineIds = (invoice: CbInvoice) => (invoice.line_items ?? []).map((line, index) => `${invoice.id}:${line.id ?? String(index)}`);

// ------------------------------------------------------------------------------ the provider

/** The percent after `pages` pages of a phase spanning [from, to): grows with every page, never reaching `to`. */
export function phaseProgress(from: number, to: number, pages: number): number {
  return from + (to - from) * (pages / (pages + 8));
}

async function sync(ctx: SyncContext): Promise<void> {
  const site = String(ctx.config.chargebee_site ?? '');
  const apiKey = ctx.secrets.chargebee_api_key ?? '';
  if (!site || !apiKey) throw new CannotConnectError('cannot_connect_to_chargebee', 'Chargebee is not configured');
  const client = chargebeeClient({ base: chargebeeBase(ctx.urls.chargebee, site), site, apiKey, fetch: ctx.fetch });
  const updatedAfter = ctx.mode === 'incremental' && ctx.since ? { updated_at: { after: Math.floor(ctx.since.getTime() / 1000) - OVERLAP_SECONDS } } : {};

  const coupons = new Map<string, CbCoupon>();
  for (let offset: string | undefined; ; ) {
    const page = await call(() => client.coupon.list({ limit: PAGE, ...(offset ? { offset } : {}) }));
    for (const entry of page.list) coupons.set(entry.coupon.id, entry.coupon as CbCoupon);
    offset = page.next_offset;
    if (!offset) break;
  }

  let cursor = (ctx.cursor as ChargebeeCursor | null) ?? { phase: 'customers', offset: null, pages: 0 };
  if (cursor.phase === 'customers') {
    for (;;) {
      const offset = cursor.offset;
      const page = await call(() => client.customer.list({ limit: PAGE, ...(offset ? { offset } : {}), ...updatedAfter, 'sort_by[asc]': 'updated_at' }));
      const customers = page.list.map(({ customer }) => ({ externalId: customer.id, name: customerName(customer as CbCustomer) }));
      const pages = cursor.pages + 1;
      cursor = page.next_offset ? { phase: 'customers', offset: page.next_offset, pages } : { phase: 'invoices', offset: null, pages: 0 };
      await ctx.commit({ customers }, { cursor, progress: page.next_offset ? phaseProgress(0, 30, pages) : 30 });
      if (cursor.phase !== 'customers') break;
    }
  }

  for (;;) {
    const offset = cursor.offset;
    const page = await call(() => client.invoice.list({ limit: PAGE, ...(offset ? { offset } : {}), ...updatedAfter, ...(ctx.mode === 'incremental' ? { include_deleted: true } : {}), 'sort_by[asc]': 'updated_at' }));
    const invoices = page.list.map(({ invoice }) => invoice as unknown as CbInvoice);
    const subscriptionIds = [...new Set(invoices.flatMap((invoice) => (invoice.line_items ?? []).flatMap((line) => (line.subscription_id ? [line.subscription_id] : []))))];
    const subscriptions = new Map<string, CbSubscription>();
    if (subscriptionIds.length > 0) {
      const found = await call(() => client.subscription.list({ limit: PAGE, id: { in: subscriptionIds } }));
      for (const { subscription } of found.list) subscriptions.set(subscription.id, subscription as CbSubscription);
    }
    const payments: SyncPayment[] = [];
    const deletedPayments: string[] = [];
    for (const invoice of invoices) {
      if (invoice.deleted || invoice.status === 'voided') deletedPayments.push(...lineIds(invoice));
      else if (BILLED_STATUSES.has(invoice.status)) payments.push(...invoicePayments(invoice, coupons, subscriptions));
    }
    const pages = cursor.pages + 1;
    cursor = { phase: 'invoices', offset: page.next_offset ?? null, pages };
    await ctx.commit({ payments, deletedPayments }, { cursor: page.next_offset ? cursor : null, progress: page.next_offset ? phaseProgress(30, 99, pages) : 99 });
    if (!page.next_offset) break;
  }
}

export const chargebeeProvider: IntegrationProvider = {
  name: 'chargebee',
  configurable: true,
  connect: 'dialog',
  parseConfig: parseChargebeeConfig,
  async verify(config, { urls, fetch }) {
    const site = String(config.config.chargebee_site);
    const client = chargebeeClient({ base: chargebeeBase(urls.chargebee, site), site, apiKey: config.secrets.chargebee_api_key ?? '', fetch });
    try {
      await call(() => client.customer.list({ limit: 1 }));
    } catch (error) {
      // Whatever keeps us from reading the site (a wrong key or site, an unknown host) is the same answer to the user.
      if (error instanceof CannotConnectError) throw error;
      throw new CannotConnectError('cannot_connect_to_chargebee', error instanceof Error ? error.message : String(error));
    }
  },
  sync,
};
