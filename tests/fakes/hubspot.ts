import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { FaultInjector, listenFake } from './server';
import type { FakeProvider } from './types';

/**
 * A fake HubSpot: OAuth v1 and the CRM v3 endpoints a sync reads, in HubSpot's documented wire
 * format (developers.hubspot.com, CRM API v3, OAuth v1):
 *
 * - `GET /oauth/authorize?client_id&redirect_uri&scope&state`: the consent screen, approved at
 *   once: 302 to `redirect_uri?code=…&state=…` (a wrong client id: `?error=invalid_client`);
 * - `POST /oauth/v1/token` (form: grant_type authorization_code with code and redirect_uri, or
 *   refresh_token with refresh_token; client_id, client_secret) → `{token_type, access_token,
 *   refresh_token, expires_in}`; a bad code or refresh token is 400 `{status: 'BAD_AUTH_CODE' |
 *   'BAD_REFRESH_TOKEN', message, correlationId}`;
 * - `GET /oauth/v1/access-tokens/{token}` → `{token, hub_id, hub_domain, app_id, scopes, expires_in, user, token_type}`;
 * - `GET /crm/v3/objects/{companies|deals}?limit&after&properties&associations=companies`,
 *   `POST /crm/v3/objects/{type}/search` (filterGroups on hs_lastmodifieddate GTE, `total`; a
 *   query pages through at most `searchWindow` results, 10,000 as HubSpot's, else 400),
 *   `POST /crm/v3/objects/companies/batch/read`, `POST /crm/v4/associations/deals/companies/batch/read`,
 *   `GET /crm/v3/objects/deals?archived=true` (the archived ones only, with `archivedAt`),
 *   `GET /crm/v3/pipelines/deals`, `GET /crm/v3/owners`, `GET /account-info/v3/details`;
 *   pages by `paging.next.after`; every CRM call needs `Authorization: Bearer {a live access
 *   token}`, else 401 `{status: 'error', category: 'INVALID_AUTHENTICATION', message}`; 429
 *   `{status: 'error', errorType: 'RATE_LIMIT', policyName: 'SECONDLY'}` with Retry-After.
 *
 * Controls (in process) and their HTTP twins (POST /__fake/…) for e2e: `addCompanies` /
 * `companies`, `addDeals` / `deals`, `archiveDeals` / `archive_deals {ids}`, `setOwners` / `owners`, `expireTokens` / `expire_tokens`
 * (every access token given so far is expired), `rateLimit` / `rate_limit`, `failNext` / `fail`,
 * `reset` / `reset`.
 */

export const HUBSPOT_CLIENT_ID = 'hubspot_client_test';
export const HUBSPOT_CLIENT_SECRET = 'hubspot_secret_test';
export const HUBSPOT_HUB_ID = 62515;
/** Seconds an access token lives (HubSpot's: 30 minutes). */
export const TOKEN_LIFETIME_S = 1800;

export interface FakeCompanyInput {
  id?: string;
  properties: Record<string, string | null>;
  /** ISO time; now by default. */
  updatedAt?: string;
}

export interface FakeDealInput {
  id?: string;
  properties: Record<string, string | null>;
  companyIds?: string[];
  updatedAt?: string;
}

export interface FakeOwner {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}

interface StoredObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  companyIds: string[];
  /** When the object was archived (deleted in HubSpot's UI), else undefined. */
  archivedAt?: string;
}

export interface FakeHubspot extends FakeProvider {
  addCompanies(companies: FakeCompanyInput[]): string[];
  addDeals(deals: FakeDealInput[]): string[];
  /** How many results one search query pages through at most (HubSpot: 10,000; past them a 400). */
  searchWindow: number;
  /** Archives these deals: gone from lists and search, listed with `archived=true`. */
  archiveDeals(ids: string[]): void;
  setOwners(owners: FakeOwner[]): void;
  /** Every access token given so far answers 401 from now on (as one past its expiry). */
  expireTokens(): void;
  rateLimit(count: number, retryAfterSeconds?: number): void;
  failNext(count: number, status?: number): void;
  reset(): void;
  /** Every call received (method and path with its query), oldest first. */
  readonly calls: { method: string; path: string }[];
  /** How many tokens were given for a refresh token. */
  readonly refreshes: number;
}

export const DEFAULT_PIPELINE = {
  id: 'default',
  label: 'Sales Pipeline',
  displayOrder: 0,
  archived: false,
  stages: [
    { id: 'appointmentscheduled', label: 'Appointment Scheduled', displayOrder: 0, archived: false, metadata: { isClosed: 'false', probability: '0.2' } },
    { id: 'qualifiedtobuy', label: 'Qualified To Buy', displayOrder: 1, archived: false, metadata: { isClosed: 'false', probability: '0.4' } },
    { id: 'closedwon', label: 'Closed Won', displayOrder: 2, archived: false, metadata: { isClosed: 'true', probability: '1.0' } },
    { id: 'closedlost', label: 'Closed Lost', displayOrder: 3, archived: false, metadata: { isClosed: 'true', probability: '0.0' } },
  ],
};

async function rawBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const DEFAULT_PROPERTIES = ['hs_object_id', 'createdate', 'hs_lastmodifieddate'];

export async function startFakeHubspot(): Promise<FakeHubspot> {
  const companies = new Map<string, StoredObject>();
  const deals = new Map<string, StoredObject>();
  let owners: FakeOwner[] = [];
  let nextId = 9_000;
  const codes = new Set<string>();
  const refreshTokens = new Set<string>();
  /** Access token → when it expires (ms). */
  const accessTokens = new Map<string, number>();
  const faults = new FaultInjector();
  const state = { searchWindow: 10_000 };
  const calls: { method: string; path: string }[] = [];
  let refreshes = 0;

  const store = (target: Map<string, StoredObject>, input: FakeCompanyInput | FakeDealInput): string => {
    const id = input.id ?? String(nextId++);
    const now = input.updatedAt ?? new Date().toISOString();
    const previous = target.get(id);
    target.set(id, {
      id,
      properties: { ...(previous?.properties ?? {}), ...input.properties },
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
      companyIds: 'companyIds' in input && input.companyIds ? input.companyIds : (previous?.companyIds ?? []),
    });
    return id;
  };

  const archive = (target: Map<string, StoredObject>, ids: string[]) => {
    const now = new Date().toISOString();
    for (const id of ids) {
      const object = target.get(id);
      if (object) target.set(id, { ...object, archivedAt: now, updatedAt: now });
    }
  };

  const issueTokens = () => {
    const access = `hs-access-${randomUUID()}`;
    const refresh = `hs-refresh-${randomUUID()}`;
    accessTokens.set(access, Date.now() + TOKEN_LIFETIME_S * 1000);
    refreshTokens.add(refresh);
    return { token_type: 'bearer', access_token: access, refresh_token: refresh, expires_in: TOKEN_LIFETIME_S };
  };

  const view = (object: StoredObject, properties: string[], associations: boolean) => {
    const wanted = new Set([...DEFAULT_PROPERTIES, ...properties]);
    const props: Record<string, string | null> = { hs_object_id: object.id, createdate: object.createdAt, hs_lastmodifieddate: object.updatedAt };
    for (const name of wanted) if (name in object.properties) props[name] = object.properties[name] ?? null;
    for (const name of wanted) if (!(name in props)) props[name] = null;
    return {
      id: object.id,
      properties: props,
      createdAt: object.createdAt,
      updatedAt: object.updatedAt,
      archived: object.archivedAt !== undefined,
      ...(object.archivedAt ? { archivedAt: object.archivedAt } : {}),
      ...(associations && object.companyIds.length > 0
        ? { associations: { companies: { results: object.companyIds.map((id) => ({ id, type: 'deal_to_company' })) } } }
        : {}),
    };
  };

  /** A page of `rows` from the offset `after`, HubSpot's paging shape. */
  const paged = <T>(rows: T[], after: string | null, limit: number, link: string) => {
    const start = Math.max(0, Number(after ?? 0) || 0);
    const size = Math.min(100, Math.max(1, limit || 10));
    const slice = rows.slice(start, start + size);
    const next = start + size < rows.length ? String(start + size) : null;
    return { results: slice, ...(next ? { paging: { next: { after: next, link: `${link}?after=${next}` } } } : {}) };
  };

  const reset = () => {
    companies.clear();
    deals.clear();
    owners = [];
    faults.reset();
    state.searchWindow = 10_000;
    calls.length = 0;
    refreshes = 0;
  };

  const fake = await listenFake(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers }).end(JSON.stringify(body));
    };
    const correlationId = randomUUID();

    if (method === 'POST' && url.pathname.startsWith('/__fake/')) {
      const text = await rawBody(request);
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      if (url.pathname === '/__fake/companies') return send(201, { ids: (body.companies as FakeCompanyInput[]).map((company) => store(companies, company)) });
      if (url.pathname === '/__fake/deals') return send(201, { ids: (body.deals as FakeDealInput[]).map((deal) => store(deals, deal)) });
      if (url.pathname === '/__fake/archive_deals') {
        archive(deals, (body.ids as string[] | undefined) ?? []);
        return send(200, { ok: true });
      }
      if (url.pathname === '/__fake/owners') {
        owners = body.owners as FakeOwner[];
        return send(200, { ok: true });
      }
      if (url.pathname === '/__fake/expire_tokens') {
        for (const token of accessTokens.keys()) accessTokens.set(token, 0);
        return send(200, { ok: true });
      }
      if (faults.control(url.pathname, body)) return send(200, { ok: true });
      if (url.pathname === '/__fake/reset') {
        reset();
        return send(200, { ok: true });
      }
      return send(404, { status: 'error', message: 'Not found', correlationId });
    }

    calls.push({ method, path: `${url.pathname}${url.search}` });

    // The consent screen, approved at once.
    if (method === 'GET' && url.pathname === '/oauth/authorize') {
      const redirect = url.searchParams.get('redirect_uri');
      if (!redirect) return send(400, { status: 'error', message: 'redirect_uri is required', correlationId });
      const back = new URL(redirect);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      if (url.searchParams.get('client_id') !== HUBSPOT_CLIENT_ID) back.searchParams.set('error', 'invalid_client');
      else {
        const code = `hs-code-${randomUUID()}`;
        codes.add(code);
        back.searchParams.set('code', code);
      }
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }

    const fault = faults.next();
    if (fault?.status === 429) {
      return send(429, { status: 'error', message: 'You have reached your secondly limit.', errorType: 'RATE_LIMIT', correlationId, policyName: 'SECONDLY' }, { 'retry-after': String(fault.retryAfter) });
    }
    if (fault) return send(fault.status, { status: 'error', message: 'internal error', correlationId, category: 'INTERNAL_ERROR' });
    await faults.wait();

    if (method === 'POST' && url.pathname === '/oauth/v1/token') {
      const form = new URLSearchParams(await rawBody(request));
      if (form.get('client_id') !== HUBSPOT_CLIENT_ID || form.get('client_secret') !== HUBSPOT_CLIENT_SECRET) {
        return send(400, { status: 'BAD_CLIENT_ID', message: 'missing or unknown client id', correlationId });
      }
      if (form.get('grant_type') === 'authorization_code') {
        const code = form.get('code') ?? '';
        if (!codes.delete(code)) return send(400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code', correlationId });
        return send(200, issueTokens());
      }
      if (form.get('grant_type') === 'refresh_token') {
        const refresh = form.get('refresh_token') ?? '';
        if (!refreshTokens.has(refresh)) return send(400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token', correlationId });
        refreshes += 1;
        // HubSpot keeps the refresh token: a new access token for the same refresh token.
        const access = `hs-access-${randomUUID()}`;
        accessTokens.set(access, Date.now() + TOKEN_LIFETIME_S * 1000);
        return send(200, { token_type: 'bearer', access_token: access, refresh_token: refresh, expires_in: TOKEN_LIFETIME_S });
      }
      return send(400, { status: 'BAD_GRANT_TYPE', message: 'unknown grant_type', correlationId });
    }

    const tokenInfo = /^\/oauth\/v1\/access-tokens\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && tokenInfo) {
      const token = decodeURIComponent(tokenInfo[1] as string);
      const expires = accessTokens.get(token);
      if (!expires || expires <= Date.now()) return send(404, { status: 'error', message: 'The token is expired or does not exist', correlationId });
      return send(200, {
        token,
        user: 'owner@example.com',
        hub_domain: 'acme.example.com',
        scopes: ['oauth', 'crm.objects.companies.read', 'crm.objects.deals.read', 'crm.objects.owners.read'],
        hub_id: HUBSPOT_HUB_ID,
        app_id: 1_000_001,
        expires_in: Math.round((expires - Date.now()) / 1000),
        user_id: 77,
        token_type: 'access',
      });
    }

    // Everything else is the CRM: a live bearer token.
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const expires = bearer ? accessTokens.get(bearer) : undefined;
    if (!expires || expires <= Date.now()) {
      return send(401, {
        status: 'error',
        message: 'Authentication credentials not found. This API supports OAuth 2.0 authentication.',
        correlationId,
        category: 'INVALID_AUTHENTICATION',
      });
    }

    if (method === 'GET' && url.pathname === '/account-info/v3/details') {
      return send(200, { portalId: HUBSPOT_HUB_ID, accountType: 'STANDARD', timeZone: 'Europe/Warsaw', companyCurrency: 'USD', additionalCurrencies: ['EUR'], utcOffset: '+01:00', utcOffsetMilliseconds: 3_600_000, uiDomain: 'app.hubspot.com', dataHostingLocation: 'na1' });
    }
    if (method === 'GET' && url.pathname === '/crm/v3/pipelines/deals') return send(200, { results: [DEFAULT_PIPELINE] });
    if (method === 'GET' && url.pathname === '/crm/v3/owners') {
      const rows = owners.map((owner) => ({ ...owner, userId: Number(owner.id) + 1, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', archived: false }));
      return send(200, paged(rows, url.searchParams.get('after'), Number(url.searchParams.get('limit') ?? 100), '/crm/v3/owners'));
    }

    const objects = /^\/crm\/v3\/objects\/(companies|deals)(\/search|\/batch\/read)?$/.exec(url.pathname);
    if (objects) {
      const target = objects[1] === 'companies' ? companies : deals;
      const all = [...target.values()].sort((a, b) => Number(a.id) - Number(b.id));
      // Lists, search and batch reads answer live objects; `archived=true` lists only the archived ones.
      const sorted = all.filter((object) => object.archivedAt === undefined);
      if (method === 'GET' && !objects[2] && url.searchParams.get('archived') === 'true') {
        const page = paged(
          all.filter((object) => object.archivedAt !== undefined),
          url.searchParams.get('after'),
          Number(url.searchParams.get('limit') ?? 10),
          `/crm/v3/objects/${objects[1]}`,
        );
        return send(200, { ...page, results: page.results.map((object) => view(object, [], false)) });
      }
      if (method === 'GET' && !objects[2]) {
        const properties = (url.searchParams.get('properties') ?? '').split(',').filter(Boolean);
        const associations = (url.searchParams.get('associations') ?? '').split(',').includes('companies');
        const page = paged(sorted, url.searchParams.get('after'), Number(url.searchParams.get('limit') ?? 10), `/crm/v3/objects/${objects[1]}`);
        return send(200, { ...page, results: page.results.map((object) => view(object, properties, associations)) });
      }
      if (method === 'POST' && objects[2] === '/search') {
        const body = JSON.parse((await rawBody(request)) || '{}') as {
          filterGroups?: { filters?: { propertyName: string; operator: string; value: string }[] }[];
          properties?: string[];
          limit?: number;
          after?: string;
        };
        const filters = (body.filterGroups ?? []).flatMap((group) => group.filters ?? []);
        const matching = sorted
          .filter((object) =>
            filters.every((filter) => {
              if (filter.propertyName !== 'hs_lastmodifieddate') return true;
              const at = Date.parse(object.updatedAt);
              const value = Number(filter.value);
              return filter.operator === 'GTE' ? at >= value : filter.operator === 'LTE' ? at <= value : filter.operator === 'GT' ? at > value : true;
            }),
          )
          .sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || Number(a.id) - Number(b.id));
        if ((Number(body.after ?? 0) || 0) + Math.min(100, Number(body.limit ?? 10)) > state.searchWindow) {
          return send(400, { status: 'error', message: `Paging past ${state.searchWindow} results is not supported`, correlationId, category: 'VALIDATION_ERROR' });
        }
        const page = paged(matching, body.after ?? null, Number(body.limit ?? 10), '');
        const after = 'paging' in page ? page.paging?.next.after : undefined;
        return send(200, { total: matching.length, results: page.results.map((object) => view(object, body.properties ?? [], false)), ...(after ? { paging: { next: { after } } } : {}) });
      }
      if (method === 'POST' && objects[2] === '/batch/read') {
        const body = JSON.parse((await rawBody(request)) || '{}') as { properties?: string[]; inputs?: { id: string }[] };
        const found = sorted.filter((object) => (body.inputs ?? []).some((input) => String(input.id) === object.id));
        const now = new Date().toISOString();
        return send(200, { status: 'COMPLETE', results: found.map((object) => view(object, body.properties ?? [], false)), startedAt: now, completedAt: now });
      }
    }

    if (method === 'POST' && url.pathname === '/crm/v4/associations/deals/companies/batch/read') {
      const body = JSON.parse((await rawBody(request)) || '{}') as { inputs?: { id: string }[] };
      const now = new Date().toISOString();
      const results = (body.inputs ?? []).flatMap((input) => {
        const deal = deals.get(String(input.id));
        if (!deal || deal.companyIds.length === 0) return [];
        return [{ from: { id: deal.id }, to: deal.companyIds.map((id) => ({ toObjectId: Number(id), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 5, label: 'Primary' }] })) }];
      });
      return send(200, { status: 'COMPLETE', results, startedAt: now, completedAt: now });
    }

    return send(404, { status: 'error', message: `Unable to route ${method} ${url.pathname}`, correlationId, category: 'OBJECT_NOT_FOUND' });
  });

  return {
    ...fake,
    addCompanies: (input) => input.map((company) => store(companies, company)),
    addDeals: (input) => input.map((deal) => store(deals, deal)),
    archiveDeals: (ids) => archive(deals, ids),
    get searchWindow() {
      return state.searchWindow;
    },
    set searchWindow(value: number) {
      state.searchWindow = value;
    },
    setOwners: (input) => {
      owners = input;
    },
    expireTokens: () => {
      for (const token of accessTokens.keys()) accessTokens.set(token, 0);
    },
    rateLimit: (count, retryAfterSeconds) => faults.rateLimit(count, retryAfterSeconds),
    failNext: (count, status) => faults.failNext(count, status),
    reset,
    calls,
    get refreshes() {
      return refreshes;
    },
  };
}
