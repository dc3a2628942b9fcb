import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { FaultInjector, listenFake } from './server';
import type { FakeProvider } from './types';

/**
 * A fake Intercom: its OAuth and the REST API (version 2.11) endpoints a sync reads, in
 * Intercom's documented wire format (developers.intercom.com):
 *
 * - `GET /oauth?client_id&state&redirect_uri`: the consent screen, approved at once: 302 to
 *   `redirect_uri?code=…&state=…` (an unknown client id: `?error=access_denied&state=…`);
 * - `POST /auth/eagle/token` (form: code, client_id, client_secret) → `{token_type: 'Bearer',
 *   token, access_token}` (the same token twice; Intercom tokens neither expire nor refresh); a
 *   bad code or client is 400 with an `error.list`;
 * - `GET /me` → the admin of the token with its workspace (`app.id_code`);
 * - `GET /contacts?per_page&starting_after` (cursor pages: `pages.next.starting_after`, absent
 *   on the last page), `POST /contacts/search` (`query` a single filter or `{operator: 'AND'|'OR',
 *   value: [filters]}` on `updated_at`/`created_at` with `>`, `<`, `=`, `!=`; `pagination.per_page`
 *   and `starting_after`), `POST /companies/list?page&per_page` (offset pages: `pages.page`,
 *   `pages.total_pages`), `GET /companies/{id}/contacts?page&per_page` (a company's contacts,
 *   offset pages); a contact shows its companies (`companies.data`, up to 10);
 * - every API call needs `Authorization: Bearer {a token given}`, else 401 `{type: 'error.list',
 *   request_id, errors: [{code: 'unauthorized', message: 'Access Token Invalid'}]}`; 429 is
 *   `errors: [{code: 'rate_limit_exceeded'}]` with Intercom's `X-RateLimit-Limit`,
 *   `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds) headers and `Retry-After`.
 *
 * Controls (in process) and their HTTP twins (POST /__fake/…) for e2e: `addContacts` /
 * `contacts` {contacts}, `addCompanies` / `companies` {companies}, `revokeTokens` /
 * `revoke_tokens`, `rateLimit` / `rate_limit`, `failNext` / `fail`, `delay` / `delay`, `reset` /
 * `reset`.
 */

export const INTERCOM_CLIENT_ID = 'intercom_client_test';
export const INTERCOM_CLIENT_SECRET = 'intercom_secret_test';
export const INTERCOM_WORKSPACE_ID = 'ecahpwf5';

type Scalar = string | number | boolean | null;

export interface FakeContactInput {
  id?: string;
  external_id?: string | null;
  email?: string | null;
  name?: string | null;
  role?: 'user' | 'lead';
  location?: { country?: string | null; city?: string | null; region?: string | null };
  custom_attributes?: Record<string, Scalar>;
  /** The `company_id`s of the companies the contact belongs to, first the one Intercom lists first. */
  companies?: string[];
  /** Epoch seconds; now by default. */
  updated_at?: number;
}

export interface FakeCompanyInput {
  id?: string;
  company_id: string;
  name?: string | null;
  plan?: string | null;
  size?: number | null;
  industry?: string | null;
  website?: string | null;
  custom_attributes?: Record<string, Scalar>;
  /** Epoch seconds; now by default. */
  updated_at?: number;
}

export interface FakeIntercom extends FakeProvider {
  /** Adds (or, by id, updates) contacts; their ids. */
  addContacts(contacts: FakeContactInput[]): string[];
  addCompanies(companies: FakeCompanyInput[]): string[];
  /** Every token given so far answers 401 from now on (the app was uninstalled). */
  revokeTokens(): void;
  rateLimit(count: number, retryAfterSeconds?: number): void;
  failNext(count: number, status?: number): void;
  delay(ms: number): void;
  reset(): void;
  /** Every API call received (method, path with its query, and the Intercom-Version header), oldest first. */
  readonly calls: { method: string; path: string; version: string | null }[];
}

interface StoredContact extends Required<Omit<FakeContactInput, 'location'>> {
  location: { country: string | null; city: string | null; region: string | null };
  created_at: number;
}

interface StoredCompany {
  id: string;
  company_id: string;
  name: string | null;
  plan: string | null;
  size: number | null;
  industry: string | null;
  website: string | null;
  custom_attributes: Record<string, Scalar>;
  created_at: number;
  updated_at: number;
}

interface Filter {
  field?: string;
  operator?: string;
  value?: unknown;
}

async function rawBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Intercom's cursors are opaque; this one is the offset, base64-encoded. */
const cursorOf = (offset: number) => Buffer.from(JSON.stringify({ offset }), 'utf8').toString('base64url');
const offsetOf = (cursor: unknown): number => {
  if (typeof cursor !== 'string' || cursor === '') return 0;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown };
    return typeof parsed.offset === 'number' && parsed.offset >= 0 ? parsed.offset : -1;
  } catch {
    return -1;
  }
};

function matches(row: Record<string, unknown>, filter: Filter): boolean {
  if ((filter.operator === 'AND' || filter.operator === 'OR') && Array.isArray(filter.value)) {
    const parts = filter.value as Filter[];
    return filter.operator === 'AND' ? parts.every((part) => matches(row, part)) : parts.some((part) => matches(row, part));
  }
  const actual = filter.field ? row[filter.field] : undefined;
  const expected = filter.value;
  switch (filter.operator) {
    case '>':
      return Number(actual) > Number(expected);
    case '<':
      return Number(actual) < Number(expected);
    case '=':
      return String(actual) === String(expected);
    case '!=':
      return String(actual) !== String(expected);
    default:
      return true;
  }
}

export async function startFakeIntercom(): Promise<FakeIntercom> {
  const contacts = new Map<string, StoredContact>();
  const companies = new Map<string, StoredCompany>();
  const codes = new Set<string>();
  const tokens = new Set<string>();
  const faults = new FaultInjector();
  const calls: { method: string; path: string; version: string | null }[] = [];
  let nextId = 1;

  const hexId = () => (0x64f0a000 + nextId++).toString(16).padStart(24, '0');

  const storeContact = (input: FakeContactInput): string => {
    const id = input.id ?? hexId();
    const previous = contacts.get(id);
    const now = nowSeconds();
    contacts.set(id, {
      id,
      external_id: input.external_id !== undefined ? input.external_id : (previous?.external_id ?? null),
      email: input.email !== undefined ? input.email : (previous?.email ?? null),
      name: input.name !== undefined ? input.name : (previous?.name ?? null),
      role: input.role ?? previous?.role ?? 'user',
      location: {
        country: input.location?.country ?? previous?.location.country ?? null,
        city: input.location?.city ?? previous?.location.city ?? null,
        region: input.location?.region ?? previous?.location.region ?? null,
      },
      custom_attributes: { ...(previous?.custom_attributes ?? {}), ...(input.custom_attributes ?? {}) },
      companies: input.companies ?? previous?.companies ?? [],
      created_at: previous?.created_at ?? input.updated_at ?? now,
      updated_at: input.updated_at ?? now,
    });
    return id;
  };

  /** The stored companies a contact belongs to, in its order (a company_id no company has is left out). */
  const companiesOf = (contact: StoredContact) =>
    contact.companies.flatMap((companyId) => [...companies.values()].filter((company) => company.company_id === companyId));

  const storeCompany = (input: FakeCompanyInput): string => {
    const existing = [...companies.values()].find((company) => company.company_id === input.company_id);
    const id = input.id ?? existing?.id ?? hexId();
    const previous = companies.get(id);
    const now = nowSeconds();
    companies.set(id, {
      id,
      company_id: input.company_id,
      name: input.name !== undefined ? input.name : (previous?.name ?? null),
      plan: input.plan !== undefined ? input.plan : (previous?.plan ?? null),
      size: input.size !== undefined ? input.size : (previous?.size ?? null),
      industry: input.industry !== undefined ? input.industry : (previous?.industry ?? null),
      website: input.website !== undefined ? input.website : (previous?.website ?? null),
      custom_attributes: { ...(previous?.custom_attributes ?? {}), ...(input.custom_attributes ?? {}) },
      created_at: previous?.created_at ?? input.updated_at ?? now,
      updated_at: input.updated_at ?? now,
    });
    return id;
  };

  /** A contact as Intercom's API shows it. */
  const contactView = (contact: StoredContact) => ({
    type: 'contact',
    id: contact.id,
    workspace_id: INTERCOM_WORKSPACE_ID,
    external_id: contact.external_id,
    role: contact.role,
    email: contact.email,
    phone: null,
    name: contact.name,
    avatar: null,
    owner_id: null,
    social_profiles: { type: 'list', data: [] },
    has_hard_bounced: false,
    marked_email_as_spam: false,
    unsubscribed_from_emails: false,
    created_at: contact.created_at,
    updated_at: contact.updated_at,
    signed_up_at: contact.created_at,
    last_seen_at: null,
    last_replied_at: null,
    last_contacted_at: null,
    last_email_opened_at: null,
    last_email_clicked_at: null,
    language_override: null,
    browser: null,
    browser_version: null,
    browser_language: null,
    os: null,
    location: { type: 'location', country: contact.location.country, region: contact.location.region, city: contact.location.city, country_code: null, continent_code: null },
    android_app_name: null,
    ios_app_name: null,
    custom_attributes: contact.custom_attributes,
    tags: { type: 'list', data: [], url: `/contacts/${contact.id}/tags`, total_count: 0, has_more: false },
    notes: { type: 'list', data: [], url: `/contacts/${contact.id}/notes`, total_count: 0, has_more: false },
    // Up to 10 of the contact's companies, as Intercom shows them on a contact.
    companies: {
      type: 'list',
      data: companiesOf(contact)
        .slice(0, 10)
        .map((company) => ({ type: 'company', id: company.id, url: `/companies/${company.id}` })),
      url: `/contacts/${contact.id}/companies`,
      total_count: companiesOf(contact).length,
      has_more: companiesOf(contact).length > 10,
    },
    opted_out_subscription_types: { type: 'list', data: [], url: `/contacts/${contact.id}/subscriptions`, total_count: 0, has_more: false },
    opted_in_subscription_types: { type: 'list', data: [], url: `/contacts/${contact.id}/subscriptions`, total_count: 0, has_more: false },
  });

  const companyView = (company: StoredCompany) => ({
    type: 'company',
    id: company.id,
    name: company.name,
    app_id: INTERCOM_WORKSPACE_ID,
    ...(company.plan ? { plan: { type: 'plan', id: `plan-${company.plan}`, name: company.plan } } : {}),
    company_id: company.company_id,
    remote_created_at: company.created_at,
    created_at: company.created_at,
    updated_at: company.updated_at,
    last_request_at: company.updated_at,
    size: company.size,
    website: company.website,
    industry: company.industry,
    monthly_spend: 0,
    session_count: 0,
    user_count: 0,
    custom_attributes: company.custom_attributes,
    tags: { type: 'tag.list', tags: [] },
    segments: { type: 'segment.list', segments: [] },
  });

  /** Cursor pages of contacts: `pages.next.starting_after` while more are left. */
  const contactPage = (rows: StoredContact[], perPageInput: unknown, startingAfter: unknown) => {
    const perPage = Math.min(150, Math.max(1, Number(perPageInput ?? 50) || 50));
    const offset = offsetOf(startingAfter);
    if (offset < 0) return null;
    const slice = rows.slice(offset, offset + perPage);
    const more = offset + perPage < rows.length;
    return {
      type: 'list',
      data: slice.map(contactView),
      total_count: rows.length,
      pages: {
        type: 'pages',
        page: Math.floor(offset / perPage) + 1,
        per_page: perPage,
        total_pages: Math.max(1, Math.ceil(rows.length / perPage)),
        ...(more ? { next: { page: Math.floor(offset / perPage) + 2, starting_after: cursorOf(offset + perPage) } } : {}),
      },
    };
  };

  const reset = () => {
    contacts.clear();
    companies.clear();
    faults.reset();
    calls.length = 0;
  };

  const fake = await listenFake(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    const requestId = `req-${randomUUID().slice(0, 12)}`;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers }).end(JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      send(status, { type: 'error.list', request_id: requestId, errors: [{ code, message }] }, headers);

    if (method === 'POST' && url.pathname.startsWith('/__fake/')) {
      const text = await rawBody(request);
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      if (url.pathname === '/__fake/contacts') return send(201, { ids: (body.contacts as FakeContactInput[]).map(storeContact) });
      if (url.pathname === '/__fake/companies') return send(201, { ids: (body.companies as FakeCompanyInput[]).map(storeCompany) });
      if (url.pathname === '/__fake/revoke_tokens') {
        tokens.clear();
        return send(200, { ok: true });
      }
      if (faults.control(url.pathname, body)) return send(200, { ok: true });
      if (url.pathname === '/__fake/reset') {
        reset();
        return send(200, { ok: true });
      }
      return error(404, 'not_found', 'Resource Not Found');
    }

    // The consent screen, approved at once.
    if (method === 'GET' && url.pathname === '/oauth') {
      const redirect = url.searchParams.get('redirect_uri');
      if (!redirect) return error(400, 'parameter_not_found', 'redirect_uri is required');
      const back = new URL(redirect);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      if (url.searchParams.get('client_id') !== INTERCOM_CLIENT_ID) back.searchParams.set('error', 'access_denied');
      else {
        const code = `ic-code-${randomUUID()}`;
        codes.add(code);
        back.searchParams.set('code', code);
      }
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }

    calls.push({ method, path: `${url.pathname}${url.search}`, version: (request.headers['intercom-version'] as string | undefined) ?? null });

    const fault = faults.next();
    if (fault?.status === 429) {
      return error(429, 'rate_limit_exceeded', 'Exceeded rate limit of 10000 in 60 seconds', {
        'x-ratelimit-limit': '10000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(nowSeconds() + (fault.retryAfter ?? 1)),
        'retry-after': String(fault.retryAfter ?? 1),
      });
    }
    if (fault) return error(fault.status, 'server_error', 'Server Error');
    await faults.wait();

    if (method === 'POST' && url.pathname === '/auth/eagle/token') {
      const form = new URLSearchParams(await rawBody(request));
      if (form.get('client_id') !== INTERCOM_CLIENT_ID || form.get('client_secret') !== INTERCOM_CLIENT_SECRET) {
        return error(400, 'parameter_invalid', 'Invalid client_id or client_secret');
      }
      if (!codes.delete(form.get('code') ?? '')) return error(400, 'parameter_invalid', 'Invalid authorization code');
      const token = `ic-token-${randomUUID()}`;
      tokens.add(token);
      return send(200, { token_type: 'Bearer', token, access_token: token });
    }

    // Everything else is the API: a token given and not revoked.
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !tokens.has(bearer)) return error(401, 'unauthorized', 'Access Token Invalid');

    if (method === 'GET' && url.pathname === '/me') {
      return send(200, {
        type: 'admin',
        id: '991267',
        email: 'owner@example.com',
        name: 'Ola Owner',
        email_verified: true,
        app: { type: 'app', id_code: INTERCOM_WORKSPACE_ID, name: 'Acme Workspace', created_at: 1_700_000_000, secure: false, identity_verification: false, timezone: 'Europe/Warsaw', region: 'US' },
        avatar: { type: 'avatar', image_url: null },
        has_inbox_seat: true,
      });
    }

    const sortedContacts = () => [...contacts.values()].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));

    if (method === 'GET' && url.pathname === '/contacts') {
      const page = contactPage(sortedContacts(), url.searchParams.get('per_page'), url.searchParams.get('starting_after'));
      if (!page) return error(400, 'parameter_invalid', 'starting_after is invalid');
      return send(200, page);
    }

    if (method === 'POST' && url.pathname === '/contacts/search') {
      const body = JSON.parse((await rawBody(request)) || '{}') as { query?: Filter; pagination?: { per_page?: number; starting_after?: string | null } };
      if (!body.query) return error(400, 'parameter_not_found', 'query is required');
      const found = sortedContacts().filter((contact) => matches(contact as unknown as Record<string, unknown>, body.query as Filter));
      const page = contactPage(found, body.pagination?.per_page, body.pagination?.starting_after);
      if (!page) return error(400, 'parameter_invalid', 'starting_after is invalid');
      return send(200, page);
    }

    if (method === 'POST' && url.pathname === '/companies/list') {
      const perPage = Math.min(60, Math.max(1, Number(url.searchParams.get('per_page') ?? 15) || 15));
      const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const rows = [...companies.values()].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
      const totalPages = Math.max(1, Math.ceil(rows.length / perPage));
      const slice = rows.slice((pageNumber - 1) * perPage, pageNumber * perPage);
      return send(200, {
        type: 'list',
        data: slice.map(companyView),
        total_count: rows.length,
        pages: {
          type: 'pages',
          page: pageNumber,
          per_page: perPage,
          total_pages: totalPages,
          ...(pageNumber < totalPages ? { next: `/companies/list?page=${pageNumber + 1}&per_page=${perPage}` } : {}),
        },
      });
    }

    const attached = /^\/companies\/([^/]+)\/contacts$/.exec(url.pathname);
    if (method === 'GET' && attached) {
      const company = companies.get(decodeURIComponent(attached[1] as string));
      if (!company) return error(404, 'company_not_found', 'Company Not Found');
      const rows = sortedContacts().filter((contact) => contact.companies.includes(company.company_id));
      const perPage = Math.min(150, Math.max(1, Number(url.searchParams.get('per_page') ?? 50) || 50));
      const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const totalPages = Math.max(1, Math.ceil(rows.length / perPage));
      return send(200, {
        type: 'list',
        data: rows.slice((pageNumber - 1) * perPage, pageNumber * perPage).map(contactView),
        total_count: rows.length,
        pages: { type: 'pages', page: pageNumber, per_page: perPage, total_pages: totalPages },
      });
    }

    return error(404, 'not_found', 'Resource Not Found');
  });

  return {
    ...fake,
    addContacts: (input) => input.map(storeContact),
    addCompanies: (input) => input.map(storeCompany),
    revokeTokens: () => tokens.clear(),
    rateLimit: (count, retryAfterSeconds) => faults.rateLimit(count, retryAfterSeconds),
    failNext: (count, status) => faults.failNext(count, status),
    delay: (ms) => faults.delay(ms),
    reset,
    calls,
  };
}
