import { Client } from '@hubspot/api-client';
import { CONFIGURATION_VALUE_MAX, HubspotConfiguration } from '../../../models/integrations';
import { currencyDigits } from '../../../models/money';
import { fieldFailures } from '../../../models/validation';
import type { ProviderUrls } from '../../config';
import type { JsonObject } from '../../db/schema';
import type { OauthGrant, OauthProviderSpec } from '../types';
import { ProviderHttpError, type ConfigProblem, type IntegrationProvider, type SyncContext, type SyncDeal } from '../types';

/**
 * HubSpot (a CRM): connected by OAuth, then configured by its dialog with the company property
 * that holds each customer's public id (`public_id_attribute_name`). A sync reads, through
 * HubSpot's documented CRM v3 REST API with the held OAuth token (refreshed when it expires):
 *
 * 1. the companies (`GET /crm/v3/objects/companies`, 100 a page): each with a value of the
 *    configured property gives that customer the attributes 'HubSpot industry', 'HubSpot
 *    country', … (a company whose public id no customer has is skipped);
 * 2. the deals (`GET /crm/v3/objects/deals?associations=companies`, 100 a page): each a deal
 *    with its amount in minor units, its stage's label (from the deal pipelines), its owner's
 *    name (from the owners), a link to it in HubSpot, and its customer: the public id of its
 *    first associated company, matched to a customer the account has (never created).
 *
 * An incremental sync asks the search endpoints (`POST /crm/v3/objects/{type}/search`) for what
 * was modified since the last successful sync started (a minute's overlap); search answers carry
 * no associations, so the companies of the deals found are read in a batch (v4 associations).
 * The first sync's percent is by pages, from the totals a one-row search gives at its start.
 * Every sync ends by listing the archived deals (`archived=true`: search never answers them) and
 * removing them from the deals section.
 *
 * The reads use HubSpot's REST API through the sync's fetch (retries, Retry-After, the sync's
 * abort): @hubspot/api-client takes no custom fetch. The OAuth calls (code and refresh-token
 * exchange, the token's hub id) go through the SDK with `basePath` at `urls.hubspotApi`.
 */

export const PAGE_LIMIT = 100;
/**
 * HubSpot's search answers at most 10,000 results a query (paging past them is a 400): before
 * an incremental read crosses that, it queries again from the last result's modification time.
 * Tests may lower it.
 */
export const hubspotSearchSettings = { window: 10_000 };
/** An incremental sync re-reads a minute before the last successful one started. */
const OVERLAP_MS = 60_000;
export const HUBSPOT_SCOPES = ['oauth', 'crm.objects.companies.read', 'crm.objects.deals.read', 'crm.objects.owners.read'];
export const DEAL_PROPERTIES = ['dealname', 'amount', 'deal_currency_code', 'dealstage', 'hubspot_owner_id', 'hs_v2_date_entered_current_stage', 'hs_lastmodifieddate'];
/** Company properties kept as customer attributes, with the attribute's name. */
export const COMPANY_ATTRIBUTES: Record<string, string> = {
  name: 'HubSpot name',
  industry: 'HubSpot industry',
  country: 'HubSpot country',
  city: 'HubSpot city',
  numberofemployees: 'HubSpot number of employees',
  lifecyclestage: 'HubSpot lifecycle stage',
};

export interface HubspotObject {
  id: string;
  properties: Record<string, string | null | undefined>;
  associations?: { companies?: { results?: { id: string; type?: string }[] } };
}

interface Page {
  results: HubspotObject[];
  total?: number;
  paging?: { next?: { after?: string } };
}

interface Stage {
  id: string;
  label: string;
}

const text = (value: unknown): string | null => {
  if (value === null || value === undefined) return null;
  const trimmed = String(value).replaceAll('\u0000', '').trim();
  return trimmed === '' ? null : trimmed;
};

/** A decimal amount in major units ('1200.50') in minor units of its currency. */
export function amountInMinorUnits(amount: unknown, currency: string): number {
  const number = Number(text(amount) ?? 0);
  if (!Number.isFinite(number)) return 0;
  return Math.round(number * 10 ** currencyDigits(currency));
}

/** The public-id property the dialog saved. */
export const publicIdPropertyOf = (config: JsonObject): string | null => text(config.public_id_attribute_name);

/** A company's customer attributes by its public id (none without one). */
export function companyAttributes(company: HubspotObject, publicIdProperty: string): { publicId: string; values: Record<string, string | null> } | null {
  const publicId = text(company.properties[publicIdProperty]);
  if (!publicId) return null;
  const values: Record<string, string | null> = {};
  for (const [property, attribute] of Object.entries(COMPANY_ATTRIBUTES)) values[attribute] = text(company.properties[property]);
  return { publicId, values };
}

export interface DealLookups {
  hubId: string | null;
  stages: Map<string, string>;
  owners: Map<string, string>;
  /** Public id of each company (by HubSpot company id) that has one. */
  companyPublicIds: Map<string, string>;
  /** Company ids of each deal (search answers have no associations). */
  dealCompanies?: Map<string, string[]>;
  defaultCurrency: string;
}

export function dealOf(deal: HubspotObject, lookups: DealLookups): SyncDeal {
  const props = deal.properties;
  const currencyText = text(props.deal_currency_code)?.toUpperCase() ?? lookups.defaultCurrency;
  const currency = /^[A-Z]{3}$/.test(currencyText) ? currencyText : lookups.defaultCurrency;
  const stageId = text(props.dealstage);
  const ownerId = text(props.hubspot_owner_id);
  const companies = lookups.dealCompanies?.get(deal.id) ?? (deal.associations?.companies?.results ?? []).map((company) => String(company.id));
  const publicId = companies.map((id) => lookups.companyPublicIds.get(id)).find((value) => value !== undefined) ?? null;
  const changed = text(props.hs_v2_date_entered_current_stage);
  return {
    externalId: deal.id,
    name: (text(props.dealname) ?? `Deal ${deal.id}`).slice(0, 500),
    value: amountInMinorUnits(props.amount, currency),
    currency,
    stage: stageId ? (lookups.stages.get(stageId) ?? stageId) : 'Unknown',
    stageChangedAt: changed && !Number.isNaN(Date.parse(changed)) ? new Date(changed).toISOString() : null,
    ownerName: ownerId ? (lookups.owners.get(ownerId) ?? null) : null,
    externalUrl: lookups.hubId ? `https://app.hubspot.com/contacts/${lookups.hubId}/deal/${deal.id}` : null,
    customerExternalId: null,
    customerPublicId: publicId,
  };
}

// ------------------------------------------------------------------------------ REST

class HubspotApi {
  constructor(private readonly ctx: SyncContext) {}

  private get base(): string {
    return this.ctx.urls.hubspotApi.replace(/\/+$/, '');
  }

  /** One call with the access token; a 401 refreshes the token once and tries again. */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.ctx.accessToken(attempt > 0 ? { forceRefresh: true } : undefined);
      const response = await this.ctx.fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: this.ctx.signal,
      });
      const answer = await response.text();
      if (response.status === 401 && attempt === 0) continue;
      if (!response.ok) throw new ProviderHttpError(response.status, answer);
      return JSON.parse(answer) as T;
    }
  }

  list(type: 'companies' | 'deals', properties: string[], after: string | null, associations?: string, archived = false): Promise<Page> {
    const query = new URLSearchParams({ limit: String(PAGE_LIMIT), properties: properties.join(',') });
    if (after) query.set('after', after);
    if (associations) query.set('associations', associations);
    if (archived) query.set('archived', 'true');
    return this.call<Page>('GET', `/crm/v3/objects/${type}?${query.toString()}`);
  }

  search(type: 'companies' | 'deals', properties: string[], since: Date | null, after: string | null, limit = PAGE_LIMIT): Promise<Page> {
    return this.call<Page>('POST', `/crm/v3/objects/${type}/search`, {
      filterGroups: since ? [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(since.getTime()) }] }] : [],
      sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
      properties,
      limit,
      ...(after ? { after } : {}),
    });
  }

  async stages(): Promise<Map<string, string>> {
    const answer = await this.call<{ results: { id: string; label: string; stages?: Stage[] }[] }>('GET', '/crm/v3/pipelines/deals');
    const stages = new Map<string, string>();
    for (const pipeline of answer.results ?? []) for (const stage of pipeline.stages ?? []) stages.set(String(stage.id), stage.label);
    return stages;
  }

  async owners(): Promise<Map<string, string>> {
    const owners = new Map<string, string>();
    let after: string | null = null;
    do {
      const query = new URLSearchParams({ limit: String(PAGE_LIMIT), ...(after ? { after } : {}) });
      const answer: { results: { id: string; firstName?: string | null; lastName?: string | null; email?: string | null }[]; paging?: { next?: { after?: string } } } = await this.call(
        'GET',
        `/crm/v3/owners?${query.toString()}`,
      );
      for (const owner of answer.results ?? []) {
        const name = [text(owner.firstName), text(owner.lastName)].filter(Boolean).join(' ') || text(owner.email);
        if (name) owners.set(String(owner.id), name);
      }
      after = answer.paging?.next?.after ?? null;
    } while (after);
    return owners;
  }

  async defaultCurrency(): Promise<string> {
    try {
      const answer = await this.call<{ companyCurrency?: string }>('GET', '/account-info/v3/details');
      const code = text(answer.companyCurrency)?.toUpperCase();
      return code && /^[A-Z]{3}$/.test(code) ? code : 'USD';
    } catch (error) {
      if (error instanceof ProviderHttpError && (error.status === 403 || error.status === 404)) return 'USD';
      throw error;
    }
  }

  /** Public ids of these companies (the configured property), read in one batch. */
  async companyPublicIds(ids: string[], property: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let k = 0; k < ids.length; k += PAGE_LIMIT) {
      const part = ids.slice(k, k + PAGE_LIMIT);
      const answer = await this.call<{ results: HubspotObject[] }>('POST', '/crm/v3/objects/companies/batch/read', { properties: [property], inputs: part.map((id) => ({ id })) });
      for (const company of answer.results ?? []) {
        const publicId = text(company.properties?.[property]);
        if (publicId) found.set(String(company.id), publicId);
      }
    }
    return found;
  }

  /** The companies associated with these deals (v4 associations batch read). */
  async dealCompanies(dealIds: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (let k = 0; k < dealIds.length; k += PAGE_LIMIT) {
      const part = dealIds.slice(k, k + PAGE_LIMIT);
      const answer = await this.call<{ results: { from: { id: string }; to: { toObjectId: string | number }[] }[] }>('POST', '/crm/v4/associations/deals/companies/batch/read', {
        inputs: part.map((id) => ({ id })),
      });
      for (const row of answer.results ?? []) found.set(String(row.from.id), (row.to ?? []).map((to) => String(to.toObjectId)));
    }
    return found;
  }
}

// ------------------------------------------------------------------------------ OAuth

const sdk = (urls: ProviderUrls) => new Client({ basePath: urls.hubspotApi.replace(/\/+$/, ''), numberOfApiCallRetries: 0 });

/** The SDK's refusal (an ApiException with `code`) as a ProviderHttpError; a 400 of the token endpoint (a bad code or refresh token) counts as 401. */
function refusal(error: unknown): unknown {
  const code = typeof error === 'object' && error !== null ? Number((error as { code?: unknown }).code) : NaN;
  if (!Number.isFinite(code)) return error;
  const body = (error as { body?: unknown }).body;
  return new ProviderHttpError(code === 400 ? 401 : code, typeof body === 'string' ? body : JSON.stringify(body ?? ''));
}

async function grantOf(urls: ProviderUrls, tokens: { accessToken: string; refreshToken: string; expiresIn: number }, withHub: boolean): Promise<OauthGrant> {
  const secrets = { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, expires_at: String(Date.now() + Number(tokens.expiresIn) * 1000) };
  if (!withHub) return { config: {}, secrets, externalAccountId: null };
  const info = await sdk(urls).oauth.accessTokensApi.get(tokens.accessToken);
  const hubId = String(info.hubId);
  return { config: { hub_id: hubId }, secrets, externalAccountId: hubId };
}

/**
 * HubSpot OAuth v1: the browser goes to `{hubspotAuthorize}/oauth/authorize` with the scopes; the
 * code is exchanged at `POST {hubspotApi}/oauth/v1/token` (form: grant_type, client_id,
 * client_secret, redirect_uri, code) for an access token (30 minutes) and a refresh token; the
 * hub (HubSpot account) id comes from `GET /oauth/v1/access-tokens/{token}`.
 */
export const hubspotOauth: OauthProviderSpec = {
  authorizeUrl({ urls, client, state, redirectUri }) {
    const url = new URL('/oauth/authorize', urls.hubspotAuthorize);
    url.search = new URLSearchParams({ client_id: client.clientId, redirect_uri: redirectUri, scope: HUBSPOT_SCOPES.join(' '), state }).toString();
    return url.toString();
  },
  async exchange({ urls, client, code, redirectUri }) {
    try {
      const tokens = await sdk(urls).oauth.tokensApi.create('authorization_code', code, redirectUri, client.clientId, client.clientSecret);
      return await grantOf(urls, tokens, true);
    } catch (error) {
      throw refusal(error);
    }
  },
  async refresh({ urls, client, refreshToken }) {
    try {
      const tokens = await sdk(urls).oauth.tokensApi.create('refresh_token', undefined, undefined, client.clientId, client.clientSecret, refreshToken);
      return await grantOf(urls, { ...tokens, refreshToken: tokens.refreshToken || refreshToken }, false);
    } catch (error) {
      throw refusal(error);
    }
  },
};

// ------------------------------------------------------------------------------ the provider

type Phase = 'companies' | 'deals' | 'archived';

interface Cursor {
  phase: Phase;
  after: string | null;
  /** Pages committed so far in this run, and how many there are (initial sync: the percent). */
  pages: number;
  total_pages: number | null;
  /** An incremental read's search window: modified at or after this (ms), null for the sync's own start. */
  since: number | null;
}

function cursorOf(value: JsonObject | null): Cursor | null {
  if (!value || (value.phase !== 'companies' && value.phase !== 'deals' && value.phase !== 'archived')) return null;
  return {
    phase: value.phase,
    after: typeof value.after === 'string' ? value.after : null,
    pages: typeof value.pages === 'number' ? value.pages : 0,
    total_pages: typeof value.total_pages === 'number' ? value.total_pages : null,
    since: typeof value.since === 'number' ? value.since : null,
  };
}

const asJson = (cursor: Cursor): JsonObject => ({ phase: cursor.phase, after: cursor.after, pages: cursor.pages, total_pages: cursor.total_pages, since: cursor.since });

/**
 * Where an incremental read goes after a search page: the next page, or (before the search's
 * 10,000-result window would be crossed) a new query from the last result's modification time,
 * which re-reads the results modified at that very time (writing them again changes nothing).
 * Null when the page was the last. Results all modified at one instant cannot move the window.
 */
function nextSearch(page: Page, cursor: Cursor): { after: string | null; since: number | null } | null {
  const after = page.paging?.next?.after ?? null;
  if (!after) return null;
  if (Number(after) + PAGE_LIMIT <= hubspotSearchSettings.window) return { after, since: cursor.since };
  const last = Date.parse(String((page.results ?? []).at(-1)?.properties.hs_lastmodifieddate ?? ''));
  if (!Number.isFinite(last) || last === cursor.since) return { after, since: cursor.since };
  return { after: null, since: last };
}

export const hubspotProvider: IntegrationProvider = {
  name: 'hubspot',
  configurable: true,
  connect: 'oauth',

  needsConfiguration: (config) => publicIdPropertyOf(config) === null,

  parseConfig(body) {
    const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const given = { public_id_attribute_name: typeof record.public_id_attribute_name === 'string' ? record.public_id_attribute_name.replaceAll('\u0000', '') : '' };
    const problems: ConfigProblem[] = fieldFailures(HubspotConfiguration, given).map((failure) => ({ pointer: `/body/${failure.path}`, detail: failure.message }));
    if (problems.length > 0) return problems;
    const name = given.public_id_attribute_name.trim();
    if (name.length > CONFIGURATION_VALUE_MAX) return [{ pointer: '/body/public_id_attribute_name', detail: `At most ${CONFIGURATION_VALUE_MAX} characters` }];
    return { config: { public_id_attribute_name: name }, secrets: {} };
  },

  // The tokens were checked by the OAuth connect, and the property is HubSpot's to have: nothing to call.
  async verify() {},

  async sync(ctx) {
    const property = publicIdPropertyOf(ctx.config);
    if (!property) return;
    const api = new HubspotApi(ctx);
    const incremental = ctx.mode === 'incremental' && ctx.since !== null;
    const since = incremental ? new Date((ctx.since as Date).getTime() - OVERLAP_MS) : null;
    const companyProperties = [...new Set([...Object.keys(COMPANY_ATTRIBUTES), property, 'hs_lastmodifieddate'])];
    let cursor: Cursor = cursorOf(ctx.cursor) ?? { phase: 'companies', after: null, pages: 0, total_pages: null, since: null };
    const windowOf = (at: Cursor) => (at.since !== null ? new Date(at.since) : since);
    if (ctx.mode === 'initial' && cursor.total_pages === null) {
      const [companies, deals] = await Promise.all([api.search('companies', ['hs_object_id'], null, null, 1), api.search('deals', ['hs_object_id'], null, null, 1)]);
      const pagesOf = (total: number | undefined) => Math.max(1, Math.ceil(Number(total ?? 0) / PAGE_LIMIT));
      cursor = { ...cursor, total_pages: pagesOf(companies.total) + pagesOf(deals.total) };
    }
    await ctx.log('hubspot.read', { mode: ctx.mode, phase: cursor.phase, from: cursor.after, ...(since ? { since: since.toISOString() } : {}) });
    const progress = (pages: number) => (ctx.mode === 'initial' && cursor.total_pages ? { progress: Math.min(99, (100 * pages) / cursor.total_pages) } : {});

    if (cursor.phase === 'companies') {
      for (;;) {
        if (ctx.signal.aborted) return;
        const page = incremental ? await api.search('companies', companyProperties, windowOf(cursor), cursor.after) : await api.list('companies', companyProperties, cursor.after);
        const more = incremental ? nextSearch(page, cursor) : page.paging?.next?.after ? { after: page.paging.next.after, since: null } : null;
        const customerAttributes = (page.results ?? []).flatMap((company) => companyAttributes(company, property) ?? []);
        const next: Cursor = more ? { ...cursor, ...more, pages: cursor.pages + 1 } : { ...cursor, phase: 'deals', after: null, since: null, pages: cursor.pages + 1 };
        await ctx.commit({ customerAttributes }, { cursor: asJson(next), ...progress(next.pages) });
        cursor = next;
        if (!more) break;
      }
    }

    if (cursor.phase === 'deals') {
      const [stages, owners, defaultCurrency] = await Promise.all([api.stages(), api.owners(), api.defaultCurrency()]);
      const hubId = text(ctx.config.hub_id);
      for (;;) {
        if (ctx.signal.aborted) return;
        const page = incremental ? await api.search('deals', DEAL_PROPERTIES, windowOf(cursor), cursor.after) : await api.list('deals', DEAL_PROPERTIES, cursor.after, 'companies');
        const results = page.results ?? [];
        const dealCompanies = incremental ? await api.dealCompanies(results.map((deal) => deal.id)) : undefined;
        const companyIds = [
          ...new Set(results.flatMap((deal) => dealCompanies?.get(deal.id) ?? (deal.associations?.companies?.results ?? []).map((company) => String(company.id)))),
        ];
        const companyPublicIds = companyIds.length > 0 ? await api.companyPublicIds(companyIds, property) : new Map<string, string>();
        const deals = results.map((deal) => dealOf(deal, { hubId, stages, owners, companyPublicIds, dealCompanies, defaultCurrency }));
        const more = incremental ? nextSearch(page, cursor) : page.paging?.next?.after ? { after: page.paging.next.after, since: null } : null;
        const next: Cursor = more ? { ...cursor, ...more, pages: cursor.pages + 1 } : { ...cursor, phase: 'archived', after: null, since: null, pages: cursor.pages + 1 };
        await ctx.commit({ deals }, { cursor: asJson(next), ...progress(next.pages) });
        cursor = next;
        if (!more) break;
      }
    }

    // Deals archived (or deleted) in HubSpot: search never answers them, so they are listed (HubSpot keeps them 90 days) and removed here.
    for (;;) {
      if (ctx.signal.aborted) return;
      const page = await api.list('deals', ['hs_object_id'], cursor.after, undefined, true);
      const deletedDeals = (page.results ?? []).map((deal) => String(deal.id));
      const after = page.paging?.next?.after ?? null;
      const next: Cursor = { ...cursor, after, pages: cursor.pages + 1 };
      await ctx.commit({ deletedDeals }, { cursor: after ? asJson(next) : null, ...progress(next.pages) });
      cursor = next;
      if (!after) return;
    }
  },
};
