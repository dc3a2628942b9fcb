import { IntercomClient, IntercomError, type Intercom } from 'intercom-client';
import { ATTRIBUTE_NAME_EMPTY, CONFIGURATION_VALUE_MAX, IntercomConfiguration } from '../../../models/integrations';
import { fieldFailures } from '../../../models/validation';
import type { ProviderUrls } from '../../config';
import type { JsonObject } from '../../db/schema';
import { ProviderHttpError, type ConfigProblem, type IntegrationProvider, type OauthProviderSpec, type ProviderFetch, type SyncContext } from '../types';

/**
 * Intercom (a support tool): connected by OAuth, then configured by its dialog with where each
 * customer's public id is in Intercom (`customer_public_id_path`: `object_type` `customer`, the
 * contacts, or `company`, the companies; `attribute_name` the field holding it: `external_id`,
 * `email`, `custom_attributes.X` of a contact, `company_id`, `name`, `custom_attributes.X` of a
 * company; a bare name that is no standard field means the custom attribute of that name).
 *
 * A sync reads the configured objects through `intercom-client` (its base URL at
 * `urls.intercomApi`, Intercom-Version 2.11, the sync's fetch for retries and Retry-After, its
 * own retries off) and gives each one with a public id the customer attributes
 * 'Intercom {name}' of its other custom attributes and a few standard fields (a contact's
 * country and city; a company's plan, size and industry). A contact also gives its company's
 * (the first Intercom lists on it): the same plan, size and industry, and the company's custom
 * attributes as 'Intercom company {name}'. A public id no customer of the account has is
 * skipped; nothing is created.
 *
 * - contacts: the first sync lists them (`GET /contacts`, 150 a page, cursor
 *   `pages.next.starting_after`); an incremental one searches those updated since the last
 *   successful sync started, a minute's overlap (`POST /contacts/search`, `updated_at >`).
 * - companies: listed by page (`POST /companies/list`, 50 a page) every sync (Intercom cannot
 *   search companies); an incremental sync keeps only those updated since. With contacts, the
 *   companies are read once a run, when the first contact with a company comes; an incremental
 *   sync then also reads the contacts of each company updated since
 *   (`GET /companies/{id}/contacts`), whose company values changed without them.
 *
 * Intercom's tokens do not expire: the held token is used as is; one Intercom stops accepting
 * (the app was uninstalled) fails the sync with "please connect again".
 */

export const CONTACTS_PER_PAGE = 150;
export const COMPANIES_PER_PAGE = 50;
export const INTERCOM_VERSION = '2.11';
const OVERLAP_S = 60;
/** Longest attribute name kept ('Intercom ' and Intercom's name). */
const ATTRIBUTE_NAME_MAX = 200;
/** The message of an object type that is neither customer nor company (only an API client can send one: the dialog is a select). */
export const OBJECT_TYPE_INVALID = 'Choose where the public id is: customer or company';

export type ObjectType = 'customer' | 'company';
export interface PublicIdPath {
  objectType: ObjectType;
  attributeName: string;
}

/** Standard fields kept as customer attributes, with the attribute's name. */
const CONTACT_FIELDS: Record<string, (contact: Record<string, unknown>) => unknown> = {
  'Intercom country': (contact) => (contact.location as Record<string, unknown> | undefined)?.country,
  'Intercom city': (contact) => (contact.location as Record<string, unknown> | undefined)?.city,
};
const COMPANY_FIELDS: Record<string, (company: Record<string, unknown>) => unknown> = {
  'Intercom plan': (company) => (company.plan as Record<string, unknown> | undefined)?.name,
  'Intercom company size': (company) => company.size,
  'Intercom industry': (company) => company.industry,
};

const text = (value: unknown): string | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return null;
  const trimmed = String(value).replaceAll('\u0000', '').trim();
  return trimmed === '' ? null : trimmed;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The dialog's setting from a saved config, or null while it is not saved. */
export function publicIdPathOf(config: JsonObject): PublicIdPath | null {
  const path = config.customer_public_id_path;
  if (!isRecord(path)) return null;
  const objectType = path.object_type;
  const attributeName = text(path.attribute_name);
  if ((objectType !== 'customer' && objectType !== 'company') || !attributeName) return null;
  return { objectType, attributeName };
}

/** The value at a dotted path (`custom_attributes.plan_id`); a bare name no object has is looked up among the custom attributes. */
export function valueAt(object: Record<string, unknown>, path: string): unknown {
  let value: unknown = object;
  for (const segment of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[segment];
  }
  if (value === undefined && !path.includes('.') && isRecord(object.custom_attributes)) return object.custom_attributes[path];
  return value;
}

/** A custom attribute's value as text: Intercom's dates (`*_at`, epoch seconds) as YYYY-MM-DD. */
function attributeValue(name: string, value: unknown): string | null {
  if (typeof value === 'number' && /(_at|_date)$/.test(name) && Number.isInteger(value) && value > 100_000_000 && value < 10_000_000_000) {
    return new Date(value * 1000).toISOString().slice(0, 10);
  }
  return text(value);
}

/** The custom attribute holding the public id (not copied as an attribute of itself). */
function customAttributeOfPath(object: Record<string, unknown>, path: string): string | null {
  if (path.startsWith('custom_attributes.')) return path.slice('custom_attributes.'.length);
  if (!path.includes('.') && !(path in object)) return path;
  return null;
}

/** One contact's or company's attribute values by its public id; null without a public id. */
export function attributesOf(object: Record<string, unknown>, path: PublicIdPath): { publicId: string; values: Record<string, string | null> } | null {
  const publicId = text(valueAt(object, path.attributeName));
  if (!publicId) return null;
  const values: Record<string, string | null> = {};
  const standard = path.objectType === 'customer' ? CONTACT_FIELDS : COMPANY_FIELDS;
  for (const [attribute, read] of Object.entries(standard)) values[attribute] = text(read(object));
  addCustomValues(values, object, 'Intercom', customAttributeOfPath(object, path.attributeName));
  return { publicId: publicId.slice(0, CONFIGURATION_VALUE_MAX), values };
}

/** An object's custom attributes (not objects, not `skip`) into `values`, each named `{prefix} {name}`. */
function addCustomValues(values: Record<string, string | null>, object: Record<string, unknown>, prefix: string, skip: string | null = null): void {
  const custom = isRecord(object.custom_attributes) ? object.custom_attributes : {};
  for (const [name, value] of Object.entries(custom)) {
    if (name === skip || (value !== null && typeof value === 'object')) continue;
    const attribute = `${prefix} ${name.replaceAll('\u0000', '').trim()}`.slice(0, ATTRIBUTE_NAME_MAX);
    if (attribute === prefix) continue;
    values[attribute] = attributeValue(name, value);
  }
}

/** A company's values as its contacts get them: plan, size and industry, and its custom attributes as 'Intercom company {name}'. */
export function companyValuesOf(company: Record<string, unknown>): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  for (const [attribute, read] of Object.entries(COMPANY_FIELDS)) values[attribute] = text(read(company));
  addCustomValues(values, company, 'Intercom company');
  return values;
}

/** The Intercom ids of a contact's companies, as Intercom lists them on the contact (up to 10). */
export function companyIdsOf(contact: Record<string, unknown>): string[] {
  const list = contact.companies;
  if (!isRecord(list) || !Array.isArray(list.data)) return [];
  return list.data.flatMap((entry) => (isRecord(entry) && typeof entry.id === 'string' && entry.id !== '' ? [entry.id] : []));
}

/**
 * A contact's values with its first known company's (companyValuesOf). A contact without a
 * company gives no company values: a workspace without companies then gets no empty company
 * attributes (a contact that leaves its company keeps the last values it had).
 */
export function withCompanyValues(values: Record<string, string | null>, contact: Record<string, unknown>, companies: ReadonlyMap<string, { values: Record<string, string | null> }>): Record<string, string | null> {
  const company = companyIdsOf(contact)
    .map((id) => companies.get(id))
    .find((found) => found !== undefined);
  return company ? { ...values, ...company.values } : values;
}

// ------------------------------------------------------------------------------ the SDK

/** The SDK at `urls.intercomApi` with the token, through `fetch` (the sync's retries), its own retries off. */
export function intercomClient(options: { urls: ProviderUrls; token: () => Promise<string> | string; fetch?: ProviderFetch }): IntercomClient {
  return new IntercomClient({
    baseUrl: options.urls.intercomApi.replace(/\/+$/, ''),
    token: options.token,
    version: INTERCOM_VERSION,
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch as typeof fetch } : {}),
  });
}

/** The SDK's refusal as a ProviderHttpError (the runner's sentences); anything else as is. */
async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof IntercomError && typeof error.statusCode === 'number') {
      throw new ProviderHttpError(error.statusCode, typeof error.body === 'string' ? error.body : JSON.stringify(error.body ?? ''));
    }
    throw error;
  }
}

// ------------------------------------------------------------------------------ OAuth

/**
 * Intercom OAuth: the browser goes to `{intercomAuthorize}/oauth?client_id&state&redirect_uri`;
 * the code is exchanged at `POST {intercomApi}/auth/eagle/token` (form: code, client_id,
 * client_secret) for a token that does not expire; the workspace comes from `GET /me`
 * (`app.id_code`).
 */
export const intercomOauth: OauthProviderSpec = {
  authorizeUrl({ urls, client, state, redirectUri }) {
    const url = new URL('/oauth', urls.intercomAuthorize);
    url.search = new URLSearchParams({ client_id: client.clientId, state, redirect_uri: redirectUri }).toString();
    return url.toString();
  },
  async exchange({ urls, client, code }) {
    const response = await fetch(`${urls.intercomApi.replace(/\/+$/, '')}/auth/eagle/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ code, client_id: client.clientId, client_secret: client.clientSecret }).toString(),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await response.text();
    if (!response.ok) throw new ProviderHttpError(response.status === 400 ? 401 : response.status, body);
    const answer = JSON.parse(body) as { access_token?: string; token?: string };
    const token = answer.access_token ?? answer.token;
    if (!token) throw new Error('Intercom answered the code without a token');
    const me = await call(() => intercomClient({ urls, token: () => token }).admins.identify());
    const workspace = text(me?.app?.id_code);
    const config: JsonObject = workspace ? { workspace_id: workspace } : {};
    return { config, secrets: { access_token: token }, externalAccountId: workspace };
  },
};

// ------------------------------------------------------------------------------ the provider

interface Cursor {
  /** Contacts: where the next page starts (null: the first); companies: the next page number. */
  starting_after: string | null;
  page: number;
  total_pages: number | null;
}

function cursorOf(value: JsonObject | null): Cursor | null {
  if (!value) return null;
  return {
    starting_after: typeof value.starting_after === 'string' ? value.starting_after : null,
    page: typeof value.page === 'number' && value.page >= 1 ? value.page : 1,
    total_pages: typeof value.total_pages === 'number' ? value.total_pages : null,
  };
}

const asJson = (cursor: Cursor): JsonObject => ({ starting_after: cursor.starting_after, page: cursor.page, total_pages: cursor.total_pages });

/** A company as its contacts need it: its values (companyValuesOf) and when it changed (epoch seconds). */
interface KnownCompany {
  values: Record<string, string | null>;
  updatedAt: number;
}

/** Every company of the workspace (all pages of `POST /companies/list`), by Intercom id. */
async function readCompanies(ctx: SyncContext, client: IntercomClient): Promise<Map<string, KnownCompany>> {
  const companies = new Map<string, KnownCompany>();
  for (let page = 1; ; page += 1) {
    if (ctx.signal.aborted) return companies;
    const answer = await call(() => client.companies.list({ page, per_page: COMPANIES_PER_PAGE }, { abortSignal: ctx.signal }));
    const list: Intercom.CompanyList = answer.response;
    const rows = (list.data ?? []) as unknown as Record<string, unknown>[];
    for (const company of rows) if (typeof company.id === 'string') companies.set(company.id, { values: companyValuesOf(company), updatedAt: Number(company.updated_at ?? 0) });
    if (rows.length === 0 || page >= (list.pages?.total_pages ?? 1)) return companies;
  }
}

/** A page of contacts as customer attributes, each with its company's values. */
function contactAttributes(rows: Record<string, unknown>[], path: PublicIdPath, companies: ReadonlyMap<string, KnownCompany>) {
  return rows.flatMap((contact) => {
    const found = attributesOf(contact, path);
    return found ? [{ publicId: found.publicId, values: withCompanyValues(found.values, contact, companies) }] : [];
  });
}

async function syncContacts(ctx: SyncContext, client: IntercomClient, path: PublicIdPath, since: number | null): Promise<void> {
  let cursor: Cursor = cursorOf(ctx.cursor) ?? { starting_after: null, page: 1, total_pages: null };
  // Read when the first contact with a company comes (or, on an incremental sync, at once: its
  // companies updated since have contacts to write again).
  let companies: Map<string, KnownCompany> | null = since !== null ? await readCompanies(ctx, client) : null;
  const companiesFor = async (rows: Record<string, unknown>[]): Promise<ReadonlyMap<string, KnownCompany>> => {
    if (companies === null && rows.some((contact) => companyIdsOf(contact).length > 0)) companies = await readCompanies(ctx, client);
    return companies ?? new Map();
  };
  for (;;) {
    if (ctx.signal.aborted) return;
    const options = { abortSignal: ctx.signal };
    const page = await call(() =>
      since === null
        ? client.contacts.list({ per_page: CONTACTS_PER_PAGE, ...(cursor.starting_after ? { starting_after: cursor.starting_after } : {}) }, options)
        : client.contacts.search(
            {
              query: { field: 'updated_at', operator: '>', value: since },
              pagination: { per_page: CONTACTS_PER_PAGE, ...(cursor.starting_after ? { starting_after: cursor.starting_after } : {}) },
            },
            options,
          ),
    );
    const list: Intercom.ContactList = page.response;
    const rows = (list.data ?? []) as unknown as Record<string, unknown>[];
    const customerAttributes = contactAttributes(rows, path, await companiesFor(rows));
    const after = list.pages?.next?.starting_after ?? null;
    const totalPages = cursor.total_pages ?? list.pages?.total_pages ?? null;
    const next: Cursor = { starting_after: after, page: cursor.page + 1, total_pages: totalPages };
    await ctx.commit({ customerAttributes }, { cursor: after ? asJson(next) : null, ...progress(ctx, cursor.page, totalPages) });
    cursor = next;
    if (!after) break;
  }
  if (since === null || companies === null) return;
  // Companies changed since the last sync: their contacts' company values changed with them.
  const known: ReadonlyMap<string, KnownCompany> = companies;
  for (const [id, company] of known) {
    if (company.updatedAt <= since) continue;
    for (let page = 1; ; page += 1) {
      if (ctx.signal.aborted) return;
      // The SDK's request names the company only; Intercom pages the list by `page` and `per_page`.
      const list: Intercom.CompanyAttachedContacts = await call(() =>
        client.companies.listAttachedContacts({ company_id: id }, { abortSignal: ctx.signal, queryParams: { page, per_page: CONTACTS_PER_PAGE } }),
      );
      const rows = (list.data ?? []) as unknown as Record<string, unknown>[];
      const customerAttributes = contactAttributes(rows, path, known);
      if (customerAttributes.length > 0) await ctx.commit({ customerAttributes }, { cursor: null });
      if (rows.length === 0 || page >= (list.pages?.total_pages ?? 1)) break;
    }
  }
}

async function syncCompanies(ctx: SyncContext, client: IntercomClient, path: PublicIdPath, since: number | null): Promise<void> {
  let cursor: Cursor = cursorOf(ctx.cursor) ?? { starting_after: null, page: 1, total_pages: null };
  for (;;) {
    if (ctx.signal.aborted) return;
    const page = await call(() => client.companies.list({ page: cursor.page, per_page: COMPANIES_PER_PAGE }, { abortSignal: ctx.signal }));
    const list: Intercom.CompanyList = page.response;
    const rows = ((list.data ?? []) as unknown as Record<string, unknown>[]).filter((company) => since === null || Number(company.updated_at ?? 0) > since);
    const customerAttributes = rows.flatMap((company) => attributesOf(company, path) ?? []);
    const totalPages = list.pages?.total_pages ?? cursor.total_pages ?? 1;
    const more = cursor.page < totalPages && (list.data ?? []).length > 0;
    const next: Cursor = { starting_after: null, page: cursor.page + 1, total_pages: totalPages };
    await ctx.commit({ customerAttributes }, { cursor: more ? asJson(next) : null, ...progress(ctx, cursor.page, totalPages) });
    cursor = next;
    if (!more) return;
  }
}

/** The first sync's percent after `pagesDone` pages of `totalPages`. */
function progress(ctx: SyncContext, pagesDone: number, totalPages: number | null): { progress?: number } {
  if (ctx.mode !== 'initial' || !totalPages) return {};
  return { progress: Math.min(99, (100 * pagesDone) / Math.max(1, totalPages)) };
}

export const intercomProvider: IntegrationProvider = {
  name: 'intercom',
  configurable: true,
  connect: 'oauth',

  needsConfiguration: (config) => publicIdPathOf(config) === null,

  parseConfig(body) {
    const record = isRecord(body) ? body : {};
    const path = isRecord(record.customer_public_id_path) ? record.customer_public_id_path : {};
    const given = {
      customer_public_id_path: {
        object_type: typeof path.object_type === 'string' ? path.object_type : '',
        attribute_name: typeof path.attribute_name === 'string' ? path.attribute_name.replaceAll('\u0000', '') : '',
      },
    };
    const problems: ConfigProblem[] = fieldFailures(IntercomConfiguration, given).map((failure) => ({
      pointer: `/body/${failure.path.split('.').join('/')}`,
      detail: failure.path.endsWith('object_type') ? OBJECT_TYPE_INVALID : failure.path.endsWith('attribute_name') ? ATTRIBUTE_NAME_EMPTY : failure.message,
    }));
    if (problems.length > 0) return problems;
    const attributeName = given.customer_public_id_path.attribute_name.trim();
    if (attributeName.length > CONFIGURATION_VALUE_MAX) return [{ pointer: '/body/customer_public_id_path/attribute_name', detail: `At most ${CONFIGURATION_VALUE_MAX} characters` }];
    return { config: { customer_public_id_path: { object_type: given.customer_public_id_path.object_type, attribute_name: attributeName } }, secrets: {} };
  },

  // The token was checked by the OAuth connect, and the attribute is the workspace's to have: nothing to call.
  async verify() {},

  async sync(ctx) {
    const path = publicIdPathOf(ctx.config);
    if (!path) return;
    const client = intercomClient({ urls: ctx.urls, token: () => ctx.accessToken(), fetch: ctx.fetch });
    const since = ctx.mode === 'incremental' && ctx.since ? Math.floor(ctx.since.getTime() / 1000) - OVERLAP_S : null;
    await ctx.log('intercom.read', { mode: ctx.mode, object_type: path.objectType, ...(ctx.cursor ? { from: ctx.cursor } : {}), ...(since !== null ? { since: new Date(since * 1000).toISOString() } : {}) });
    if (path.objectType === 'customer') await syncContacts(ctx, client, path, since);
    else await syncCompanies(ctx, client, path, since);
  },
};
