import { createHash } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app';
import { cableChannels } from '../../../server/cable/registry';
import { setImportStatus } from '../../../server/imports/auditLog';
import { API_PREFIX } from '../../../server/version';
import { createAuthTestApp, signIn, type AuthTestApp } from '../auth/support';
import { CableClient, listen, tokenOf, type CableFrame } from '../cable/support';
import { TEST_CONFIG } from '../helpers/app';
import { testEngine } from '../helpers/database';
import {
  answerText,
  appRoutes,
  describeAnswer,
  describeProbe,
  fastifyUrlOf,
  fieldNames,
  fieldValues,
  graphqlQueries,
  ID_LIKE,
  idsOf,
  inAttackOrder,
  inject,
  multipart,
  openApiOperations,
  PATH_PARAMS,
  pathParams,
  queryParams,
  sampleObject,
  sampleValue,
  seedAccount,
  SHARED_PATH_PARAMS,
  typeOf,
  urlOf,
  type Operation,
  type Probe,
  type RouteEntry,
  type SeededAccount,
  type ValueTable,
} from './support';

/**
 * Tenant isolation, generated from docs/openapi.json (read at test time: a new operation is
 * attacked without a new test). Accounts A and B hold real data; B's names, titles and comments
 * carry a marker string. Every operation is called as A with B's ids and secrets in every path
 * parameter, query parameter and body field (and `account_id`, `report_id`, `user_id`, `id` added
 * to the body), then without a token and with forged tokens; as A also with each of B's other ids
 * in each id parameter, and A's own request with one field B's (A's section, B's segment). An answer fails the test when it
 * carries B's marker, B's API token or JWT, or one of B's ids A did not send itself; a call fails
 * it when any of B's rows (every table with `account_id`, and B's account row) changed. Live
 * channels (/cable) are attacked the same way, and the endpoints outside the document are listed.
 */

const OPERATIONS = inAttackOrder(openApiOperations());

/**
 * Operations registered only outside production (server/app.ts), which serve every account's
 * rows by design (the development e-mail outbox). Their answers are not searched for B's data;
 * instead a production build must not serve them (last test). Nothing else may be listed here.
 */
const DEV_ONLY = new Set(['GET /dev/outbox']);

/**
 * Leaks or 5xx the suite found in routes owned by others (sessions, passwords, users,
 * invitations, csvImports, segmentImports): the operation, the finding (a regular expression over
 * its problem and probe) and why. Each is reported, not fixed here; the list is to be emptied,
 * and a test fails when an entry no longer happens.
 */
const KNOWN_ELSEWHERE: Array<{ operation: string; problem: RegExp; why: string }> = [];

/**
 * Operations a provider calls, authenticated by its signature over the raw body rather than by a
 * token: a generated request carries no valid signature, so its 400 is the answer by design. The
 * rest of the probes still run (no B data with any token or none); signed events are tested in the
 * operation's own suite.
 */
const SIGNED_BY_PROVIDER: Record<string, string> = {
  'POST /integrations/stripe/webhooks': 'Stripe-Signature (tests/server/integrations/stripeConnect.test.ts)',
};

/** Keys added to every JSON body: none may reach a write. */
const EXTRA_KEYS = ['account_id', 'report_id', 'user_id', 'id'] as const;

type Variant = 'A' | 'no token' | 'forged: wrong secret' | 'forged: B claims, A signature' | 'forged: alg none';
const VARIANTS: readonly Variant[] = ['A', 'no token', 'forged: wrong secret', 'forged: B claims, A signature', 'forged: alg none'];

interface Finding {
  operation: string;
  variant: string;
  probe: string;
  problem: string;
  answer: string;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let a: SeededAccount;
let b: SeededAccount;
/** A's current `Authorization` value (sign-out revokes one: A signs in again). */
let aAuthorization: string;
let tenantTables: string[];
const called = new Set<string>();
const controls = new Map<string, number>();
const knownSeen = new Set<(typeof KNOWN_ELSEWHERE)[number]>();

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function forgedToken(variant: Variant): Promise<string> {
  const now = Math.floor(harness.clock.now().getTime() / 1000);
  const claims = { acc: b.accountId, sub: b.userId, jti: `forged${now}`, iat: now, exp: now + 3600 };
  if (variant === 'forged: wrong secret') {
    return new SignJWT({ acc: b.accountId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(b.userId)
      .setJti(claims.jti)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode('not-the-server-secret-but-long-enough-to-sign'));
  }
  if (variant === 'forged: B claims, A signature') {
    const [header, , signature] = tokenOf(aAuthorization).split('.');
    return `${header}.${base64url(claims)}.${signature}`;
  }
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
}

async function authorizationOf(variant: Variant): Promise<string | undefined> {
  if (variant === 'A') return aAuthorization;
  if (variant === 'no token') return undefined;
  return `Bearer ${await forgedToken(variant)}`;
}

/** Everything a probe sent, as text (URL decoded, the JWT's claims read): B's ids in it may come back. */
function sentText(probe: Probe): string {
  let url = probe.url;
  try {
    url = decodeURIComponent(probe.url);
  } catch {
    // Left encoded.
  }
  const claims = (probe.headers.authorization ?? '').split('.')[1] ?? '';
  return `${url}\n${String(probe.payload ?? '')}\n${Buffer.from(claims, 'base64url').toString('utf8')}`.toLowerCase();
}

/**
 * Operations that answer anyone holding a share or a group link (docs/sharing.md): the link is a
 * credential B's owner hands out, so the answer to B's link is B's shared report by design. For
 * a probe that sent B's link of that kind, only B's credentials count as a leak: the API token,
 * the JWT, and on a share link the report's own secret (a group link opens the newest report's
 * page by its secret, as the spec has it).
 */
const PUBLIC_BY_LINK: Record<string, 'share' | 'group'> = {
  'GET /business_reports/by_shared_secret': 'share',
  'GET /business_reports/by_secret/key_numbers': 'share',
  'GET /business_reports/settings_by_secret': 'share',
  'GET /business_report_groups/by_secret': 'group',
};

/** B's data in an answer: the marker, B's credentials, or B's ids A did not send. */
function leaksIn(response: LightMyRequestResponse, probe: Probe, operation?: string): string[] {
  const text = answerText(response).toLowerCase();
  const sent = sentText(probe);
  const found: string[] = [];
  if (text.includes(b.apiToken.toLowerCase())) found.push("B's API token");
  if (text.includes(tokenOf(b.owner.authorization).toLowerCase())) found.push("B's JWT");
  const link = operation === undefined ? undefined : PUBLIC_BY_LINK[operation];
  if (link === 'share' && sent.includes(b.shareSecret.toLowerCase())) {
    if (text.includes(b.reportSecret.toLowerCase()) && !sent.includes(b.reportSecret.toLowerCase())) found.push("B's report secret through a share link");
    return found;
  }
  if (link === 'group' && sent.includes(b.groupSecret.toLowerCase())) return found;
  if (text.includes(b.marker.toLowerCase())) found.push(`B's marker ${b.marker}`);
  for (const [name, value] of Object.entries(idsOf(b))) {
    const needle = value.toLowerCase();
    if (text.includes(needle) && !sent.includes(needle)) found.push(`B's ${name} ${value}`);
  }
  return found;
}

// ------------------------------------------------------------------- B's rows

async function tablesWithAccountId(): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select distinct table_name from information_schema.columns
    where column_name = 'account_id' and table_schema = current_schema()
    order by table_name`.execute(harness.db.kysely);
  return rows.map((row) => row.table_name);
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof Uint8Array) return `bytes:${createHash('sha256').update(item).digest('hex')}`;
    if (item && typeof item === 'object' && (item as { type?: unknown }).type === 'Buffer' && Array.isArray((item as { data?: unknown }).data)) {
      return `bytes:${createHash('sha256').update(Buffer.from((item as { data: number[] }).data)).digest('hex')}`;
    }
    return item;
  });
}

/** B's rows of every tenant table and B's account row, each table's rows sorted. */
async function snapshotOfB(): Promise<Record<string, string[]>> {
  const db = harness.db.kysely;
  const snapshot: Record<string, string[]> = {};
  for (const table of tenantTables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where account_id = ${b.accountId}`.execute(db);
    snapshot[table] = rows.map(stable).sort();
  }
  const { rows } = await sql<Record<string, unknown>>`select * from accounts where id = ${b.accountId}`.execute(db);
  snapshot.accounts = rows.map(stable);
  return snapshot;
}

function differences(before: Record<string, string[]>, after: Record<string, string[]>): string[] {
  const changed: string[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[table] ?? [];
    const is = after[table] ?? [];
    if (stable(was) === stable(is)) continue;
    const gone = was.filter((row) => !is.includes(row));
    const added = is.filter((row) => !was.includes(row));
    changed.push(`${table}: ${gone.length} row(s) changed or removed, ${added.length} changed or added; first: ${(added[0] ?? gone[0] ?? '').slice(0, 400)}`);
  }
  return changed;
}

async function settled(): Promise<void> {
  await app.reports.settled();
  await app.imports.settled();
}

/** A signs in again when a call (sign-out) revoked its token. */
async function keepASignedIn(): Promise<void> {
  const me = await app.inject({ method: 'GET', url: `${API_PREFIX}/users/me`, headers: { authorization: aAuthorization } });
  if (me.statusCode === 200) return;
  const again = await signIn(app, a.owner.email, a.owner.password);
  expect(again.statusCode, again.body).toBe(200);
  aAuthorization = String(again.headers.authorization);
}

// ------------------------------------------------------------------- probes of one operation

interface Built {
  probe: Probe;
  variant: Variant;
  /** Whether a path parameter names one of B's resources: A must get 404. */
  bPath: boolean;
  extras: boolean;
}

function unknownNames(op: Operation): string[] {
  const problems: string[] = [];
  for (const param of pathParams(op)) {
    const resolve = PATH_PARAMS[param.name];
    if (!resolve || resolve(b, op) === undefined) problems.push(`path parameter {${param.name}} of ${op.key} is not in PATH_PARAMS (or ID_BY_PATH): add B's value for it`);
  }
  const table = fieldValues(b, true);
  const names = [...queryParams(op).map((p) => p.name), ...fieldNames(op.body)];
  for (const name of names) {
    if (ID_LIKE.test(name) && !(name in table)) problems.push(`field ${name} of ${op.key} looks like an id or secret and is not in fieldValues: add B's value for it`);
  }
  return problems;
}

function queryOf(op: Operation, values: ValueTable): Array<[string, string]> {
  return queryParams(op).map((param) => {
    const value = sampleValue(param.schema, param.name, values);
    return [param.name, Array.isArray(value) ? String(value[0]) : String(value)];
  });
}

/** The JSON or multipart bodies of an operation: plain, and with the extra keys. */
function bodiesOf(op: Operation, values: ValueTable): Array<{ payload?: string | Buffer; contentType?: string; extras: boolean }> {
  if (op.upload) {
    // The file names customers of the uploader's own (customer ids are the account's own namespace).
    const csv = 'customer_id,started_at,ended_at,monthly_amount\nprobe-customer,2025-01-01,2025-02-01,10\n';
    const file = { name: 'file', filename: 'probe.csv', type: 'text/csv', content: csv };
    const extras = EXTRA_KEYS.map((key) => ({ name: key, content: String(values[key]) }));
    return [
      { ...multipart([file]), extras: false },
      { ...multipart([{ name: 'column_order', content: 'customer_id,started_at,ended_at,monthly_amount' }, ...extras, file]), extras: true },
    ];
  }
  if (!op.body) return [{ extras: false }];
  const body = typeOf(op.body) === 'object' ? sampleObject(op.body, values) : sampleValue(op.body, 'body', values);
  const withExtras = typeOf(op.body) === 'object' ? { ...(body as object), ...Object.fromEntries(EXTRA_KEYS.map((key) => [key, values[key]])) } : body;
  return [
    { payload: JSON.stringify(body), contentType: 'application/json', extras: false },
    { payload: JSON.stringify(withExtras), contentType: 'application/json', extras: true },
  ];
}

function pathValuesOf(op: Operation, owner: SeededAccount): Record<string, string> {
  return Object.fromEntries(pathParams(op).map((param) => [param.name, PATH_PARAMS[param.name]?.(owner, op) ?? '']));
}

async function probesOf(op: Operation): Promise<Built[]> {
  const built: Built[] = [];
  const pathValues = pathValuesOf(op, b);
  const bPath = pathParams(op).some((param) => !SHARED_PATH_PARAMS.has(param.name));
  for (const variant of VARIANTS) {
    const authorization = await authorizationOf(variant);
    const values = fieldValues(b, variant === 'A');
    for (const body of bodiesOf(op, values)) {
      const headers: Record<string, string> = { ...(authorization ? { authorization } : {}), ...(body.contentType ? { 'content-type': body.contentType } : {}) };
      built.push({ variant, bPath, extras: body.extras, probe: { method: op.method, url: urlOf(op, pathValues, queryOf(op, values)), headers, ...(body.payload === undefined ? {} : { payload: body.payload }) } });
    }
  }
  // As A, every other id and secret of B in each path parameter and id-like query parameter.
  const values = fieldValues(b, true);
  const [plain] = bodiesOf(op, values);
  const headers: Record<string, string> = { authorization: aAuthorization, ...(plain?.contentType ? { 'content-type': plain.contentType } : {}) };
  const others = Object.values(idsOf(b));
  for (const param of pathParams(op)) {
    for (const other of others) {
      if (other === pathValues[param.name]) continue;
      built.push({ variant: 'A', bPath: true, extras: false, probe: { method: op.method, url: urlOf(op, { ...pathValues, [param.name]: other }, queryOf(op, values)), headers, ...(plain?.payload === undefined ? {} : { payload: plain.payload }) } });
    }
  }
  for (const param of queryParams(op).filter((p) => ID_LIKE.test(p.name))) {
    for (const other of others) {
      const query = queryOf(op, values).map(([name, value]): [string, string] => [name, name === param.name ? other : value]);
      built.push({ variant: 'A', bPath, extras: false, probe: { method: op.method, url: urlOf(op, pathValues, query), headers, ...(plain?.payload === undefined ? {} : { payload: plain.payload }) } });
    }
  }
  // A's own request with one field B's (A's section with B's segment, A's import with B's
  // attribute, ...): the handler finds A's resource, and must not reach B's through the other id.
  const aPath = pathValuesOf(op, a);
  const aValues = fieldValues(a, true);
  const one = (values: ValueTable, pathOverride: Record<string, string>, bInPath: boolean) => {
    const [body] = bodiesOf(op, values);
    const bodyHeaders: Record<string, string> = { authorization: aAuthorization, ...(body?.contentType ? { 'content-type': body.contentType } : {}) };
    built.push({ variant: 'A', bPath: bInPath, extras: false, probe: { method: op.method, url: urlOf(op, { ...aPath, ...pathOverride }, queryOf(op, values)), headers: bodyHeaders, ...(body?.payload === undefined ? {} : { payload: body.payload }) } });
  };
  for (const param of pathParams(op)) if (!SHARED_PATH_PARAMS.has(param.name)) one(aValues, { [param.name]: pathValues[param.name] ?? '' }, true);
  const mixable = new Set([...queryParams(op).map((p) => p.name), ...fieldNames(op.body)].filter((name) => name in values));
  for (const name of mixable) one({ ...aValues, [name]: values[name] }, {}, false);
  return built;
}

/** The same call with A's own ids, once: shows the generated requests reach the handlers (not a 400). */
async function control(op: Operation): Promise<number> {
  const values = fieldValues(a, true);
  const [plain] = bodiesOf(op, values);
  const headers: Record<string, string> = { authorization: aAuthorization, ...(plain?.contentType ? { 'content-type': plain.contentType } : {}) };
  const response = await inject(app, { method: op.method, url: urlOf(op, pathValuesOf(op, a), queryOf(op, values)), headers, ...(plain?.payload === undefined ? {} : { payload: plain.payload }) });
  return response.statusCode;
}

beforeAll(async () => {
  harness = await createAuthTestApp({ config: { ...TEST_CONFIG, testRoutes: false } });
  app = harness.app;
  a = await seedAccount(app, harness.db, 'A');
  b = await seedAccount(app, harness.db, 'B');
  aAuthorization = a.owner.authorization;
  await settled();
  tenantTables = await tablesWithAccountId();
}, 300_000);
afterAll(() => harness?.close());

describe(`tenant isolation on ${testEngine}: every operation of docs/openapi.json`, () => {
  it('knows every tenant table and sees B’s data in B’s own answers (the checks can see a leak)', async () => {
    expect(tenantTables).toEqual(expect.arrayContaining(['business_reports', 'customers', 'payments', 'comments', 'imports', 'key_numbers', 'report_sections', 'section_exports', 'users', 'invitations']));
    const own = await app.inject({ method: 'GET', url: `${API_PREFIX}/business_reports/by_secret?secret=${b.reportSecret}`, headers: { authorization: b.owner.authorization } });
    const probe: Probe = { method: 'GET', url: '/', headers: {} };
    expect(leaksIn(own, probe)).toEqual(expect.arrayContaining([`B's marker ${b.marker}`, `B's reportId ${b.reportId}`]));
    const snapshot = await snapshotOfB();
    expect(snapshot.comments?.join()).toContain(b.marker);
  });

  for (const op of OPERATIONS) {
    it(`${op.key}: as A with B's ids, without a token and with forged tokens`, async () => {
      called.add(op.key);
      expect(unknownNames(op)).toEqual([]);
      const findings: Finding[] = [];
      const before = await snapshotOfB();
      for (const { probe, variant, bPath, extras } of await probesOf(op)) {
        const response = await inject(app, probe);
        const report = (problem: string) => findings.push({ operation: op.key, variant, probe: describeProbe(probe), problem, answer: describeAnswer(response) });
        if (response.statusCode >= 500) report('answered 5xx');
        if (!DEV_ONLY.has(op.key)) for (const leak of leaksIn(response, probe, op.key)) report(`carries ${leak}`);
        if (variant !== 'A' && variant !== 'no token' && op.security !== 'none' && response.statusCode !== 401) report('a forged token was not refused with 401');
        if (variant === 'no token' && op.security === 'required' && response.statusCode !== 401) report('no token, yet not 401');
        if (variant === 'A' && bPath && !extras && response.statusCode !== 404) report("B's resource in the path, yet not 404");
      }
      await settled();
      for (const change of differences(before, await snapshotOfB())) findings.push({ operation: op.key, variant: 'any', probe: 'the calls above', problem: `changed B's rows: ${change}`, answer: '' });
      await keepASignedIn();
      controls.set(op.key, await control(op));
      await settled();
      await keepASignedIn();
      const open = findings.filter((finding) => {
        const known = KNOWN_ELSEWHERE.find((entry) => entry.operation === op.key && entry.problem.test(`${finding.problem} ${finding.probe}`));
        if (known) knownSeen.add(known);
        return !known;
      });
      expect(open, JSON.stringify(open, null, 2)).toEqual([]);
    });
  }

  it('KNOWN_ELSEWHERE lists only what still happens', () => {
    expect(KNOWN_ELSEWHERE.filter((entry) => !knownSeen.has(entry)).map((entry) => entry.operation)).toEqual([]);
  });

  it('generated valid requests: with A’s own ids no operation answered 400 (the probes reach the handlers)', () => {
    const refused = [...controls].filter(([key, status]) => (status === 400 && !(key in SIGNED_BY_PROVIDER)) || status >= 500);
    expect(refused).toEqual([]);
  });
});

describe(`tenant isolation on ${testEngine}: live channels at /cable`, () => {
  const clients: CableClient[] = [];
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = await listen(app);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  async function connected(authorization: string): Promise<CableClient> {
    const client = await CableClient.connect(baseUrl, { api_version: '11', token: tokenOf(authorization) });
    clients.push(client);
    await client.waitFor((frame) => frame.type === 'welcome' || frame.type === 'disconnect', 5_000, 'welcome');
    return client;
  }

  /** Every identifier A might try: each channel with each of B's ids and secrets under each key, and all at once. */
  function attackIdentifiers(): string[] {
    const keys = ['secret', 'id', 'report_id', 'account_id', 'user_id', 'import_id', 'section_id', 'export_id', 'token'];
    const values = Object.values(idsOf(b));
    const identifiers = new Set<string>();
    for (const channel of cableChannels.names()) {
      for (const key of keys) for (const value of values) identifiers.add(JSON.stringify({ channel, [key]: value }));
      identifiers.add(JSON.stringify({ channel, secret: b.reportSecret, id: b.segmentImportId, account_id: b.accountId, user_id: b.userId, report_id: b.reportId }));
      identifiers.add(JSON.stringify({ channel, id: b.exportId, account_id: b.accountId, user_id: b.userId }));
    }
    return [...identifiers];
  }

  it('refuses connections without a token and with forged tokens', async () => {
    called.add('GET /cable');
    for (const variant of VARIANTS.filter((v) => v !== 'A')) {
      const authorization = await authorizationOf(variant);
      const client = await CableClient.connect(baseUrl, { api_version: '11', ...(authorization ? { token: tokenOf(authorization) } : {}) }).catch(() => null);
      if (!client) continue;
      clients.push(client);
      const first = await client.waitFor((frame) => frame.type === 'welcome' || frame.type === 'disconnect', 5_000, 'an answer to the connection');
      expect(first, variant).toMatchObject({ type: 'disconnect', reason: 'unauthorized' });
    }
  });

  it("rejects A's subscriptions to B's channels, and no event of B reaches A", async () => {
    await keepASignedIn();
    const bClient = await connected(b.owner.authorization);
    const aClient = await connected(aAuthorization);
    const bReport = JSON.stringify({ channel: 'BusinessReportChannel', secret: b.reportSecret });
    const bImport = JSON.stringify({ channel: 'SegmentsImportChannel', id: b.segmentImportId });
    // A's seeded report went with the deletions above: a new one.
    const created = await app.inject({ method: 'POST', url: `${API_PREFIX}/business_reports`, headers: { authorization: aAuthorization }, payload: { title: 'A again', sections: [{ definition_id: 'mrr' }] } });
    expect(created.statusCode, created.body).toBe(201);
    const aReportRow = created.json() as { id: string; secret: string };
    await app.reports.settled();
    const aReport = JSON.stringify({ channel: 'BusinessReportChannel', secret: aReportRow.secret });
    expect(await bClient.subscribeAndWait(bReport)).toBe('confirm_subscription');
    expect(await bClient.subscribeAndWait(bImport)).toBe('confirm_subscription');
    expect(await aClient.subscribeAndWait(aReport)).toBe('confirm_subscription');

    const identifiers = attackIdentifiers();
    for (const identifier of identifiers) aClient.subscribe(identifier);
    const answered = (identifier: string) => (frame: CableFrame) => frame.identifier === identifier && (frame.type === 'confirm_subscription' || frame.type === 'reject_subscription');
    for (const identifier of identifiers) await aClient.waitFor(answered(identifier), 10_000, `an answer to ${identifier}`);
    const confirmed = identifiers.filter((identifier) => aClient.frames.some((frame) => frame.identifier === identifier && frame.type === 'confirm_subscription'));
    expect(confirmed).toEqual([]);

    // B's events: a recalculation of B's report and a status change of B's import, seen by B.
    const bSeen = bClient.frames.length;
    const refresh = await app.inject({ method: 'POST', url: `${API_PREFIX}/business_reports/${b.reportId}/refresh`, headers: { authorization: b.owner.authorization } });
    expect(refresh.statusCode, refresh.body).toBe(202);
    await app.reports.settled();
    await bClient.waitFor((frame) => bClient.frames.indexOf(frame) >= bSeen && frame.identifier === bReport && (frame.message as { object?: string } | undefined)?.object === 'business_report_section', 10_000, "B's recalculation");
    await setImportStatus(harness.db.kysely, b.accountId, b.segmentImportId, 'preview', `${b.marker} probe event`);
    await bClient.waitFor((frame) => frame.identifier === bImport && JSON.stringify(frame.message ?? '').includes(`${b.marker} probe event`), 10_000, "B's import event");
    // Then A's own event: delivered after B's (one listener, in order), so anything of B's for A has arrived by now.
    const aRefresh = await app.inject({ method: 'POST', url: `${API_PREFIX}/business_reports/${aReportRow.id}/refresh`, headers: { authorization: aAuthorization } });
    expect(aRefresh.statusCode, aRefresh.body).toBe(202);
    await app.reports.settled();
    const aMessages = () => aClient.frames.filter((frame) => frame.identifier === aReport && frame.type === undefined);
    await aClient.waitFor(() => aMessages().some((frame) => (frame.message as { object?: string }).object === 'business_report_section'), 10_000, "A's recalculation");

    const foreign = aClient.frames.filter((frame) => frame.type !== 'ping' && frame.type !== 'welcome' && frame.identifier !== aReport && frame.type !== 'reject_subscription');
    expect(foreign).toEqual([]);
    const received = JSON.stringify(aClient.frames.filter((frame) => frame.type === undefined || frame.type === 'confirm_subscription')).toLowerCase();
    const leaked = [b.marker, ...Object.values(idsOf(b))].filter((value) => received.includes(value.toLowerCase()));
    expect(leaked).toEqual([]);
  });
});

/** Endpoints outside docs/openapi.json, each with how this suite covers it. */
const NON_OPENAPI_ENDPOINTS: Record<string, string> = {
  'GET /cable': 'the /cable tests above',
  [`GET ${API_PREFIX}/openapi.json`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/static/index.html`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/static/swagger-initializer.js`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/*`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/json`]: 'read as A and without a token: no B data',
  [`GET ${API_PREFIX}/docs/yaml`]: 'read as A and without a token: no B data',
  // Browser navigations at the root, outside the API document (tests/server/integrations/stripeConnect.test.ts).
  'GET /users/auth/:provider': 'OAuth connect start: read as A and without a token: no B data',
  'GET /users/auth/:provider/callback': 'OAuth callback, bound to its one-use state: read as A and without a token: no B data',
};

/** A GraphQL endpoint, present or future, is attacked by introspection: see graphqlAttack. */
const isGraphql = (route: RouteEntry) => /\/graphql$/.test(route.url);

describe(`tenant isolation on ${testEngine}: endpoints outside the document`, () => {
  it('lists every route the app serves that docs/openapi.json does not, and covers each', async () => {
    const documented = new Set(OPERATIONS.map((op) => `${op.method} ${fastifyUrlOf(op)}`));
    const extra = appRoutes(app).filter((route) => !documented.has(`${route.method} ${route.url}`));
    const graphql = extra.filter(isGraphql);
    const others = extra.filter((route) => !isGraphql(route)).map((route) => `${route.method} ${route.url}`);
    expect(others.sort()).toEqual(Object.keys(NON_OPENAPI_ENDPOINTS).sort());
    const findings: string[] = [];
    for (const key of others.filter((k) => k !== 'GET /cable')) {
      const url = key.slice(4).replace('*', 'index.css');
      for (const authorization of [aAuthorization, undefined]) {
        const probe: Probe = { method: 'GET', url, headers: authorization ? { authorization } : {} };
        const response = await inject(app, probe);
        called.add(key);
        if (response.statusCode >= 500) findings.push(`${describeProbe(probe)}: ${describeAnswer(response)}`);
        for (const leak of leaksIn(response, probe)) findings.push(`${describeProbe(probe)} carries ${leak}`);
      }
    }
    for (const route of graphql) {
      findings.push(...(await graphqlAttack(route)));
      called.add(`${route.method} ${route.url}`);
    }
    expect(findings).toEqual([]);
  });

  it('every operation of docs/openapi.json and every other endpoint was attacked', () => {
    const expected = [...OPERATIONS.map((op) => op.key), ...Object.keys(NON_OPENAPI_ENDPOINTS)];
    const graphql = appRoutes(app).filter(isGraphql).map((route) => `${route.method} ${route.url}`);
    expect([...called].sort()).toEqual([...expected, ...graphql].sort());
  });

  it('a production build does not serve the development-only operations', async () => {
    const production = await buildApp({ config: { ...TEST_CONFIG, production: true }, db: harness.db, now: harness.clock.now });
    try {
      await production.ready();
      const served = appRoutes(production).map((route) => `${route.method} ${route.url}`);
      for (const key of DEV_ONLY) {
        const [method, route] = key.split(' ');
        expect(served).not.toContain(`${method} ${API_PREFIX}${route}`);
        expect(OPERATIONS.map((op) => op.key)).toContain(key);
      }
    } finally {
      await production.close();
    }
  });
});

/**
 * A GraphQL endpoint attacked as the HTTP operations are: its schema read by introspection, each
 * query and mutation field called as A with B's values in its arguments (by name, ids otherwise),
 * and the answers searched for B's data; B's rows must not change.
 */
async function graphqlAttack(route: RouteEntry): Promise<string[]> {
  const findings: string[] = [];
  const post = (query: string, authorization?: string): Probe =>
    route.method === 'GET'
      ? { method: 'GET', url: `${route.url}?query=${encodeURIComponent(query)}`, headers: authorization ? { authorization } : {} }
      : { method: 'POST', url: route.url, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, payload: JSON.stringify({ query }) };
  const check = async (probe: Probe) => {
    const response = await inject(app, probe);
    if (response.statusCode >= 500) findings.push(`${describeProbe(probe)}: ${describeAnswer(response)}`);
    for (const leak of leaksIn(response, probe)) findings.push(`${describeProbe(probe)} carries ${leak}`);
    return response;
  };
  const before = await snapshotOfB();
  const introspection = await check(post(getIntrospectionQuery(), aAuthorization));
  let data: IntrospectionQuery | undefined;
  try {
    data = (introspection.json() as { data?: IntrospectionQuery }).data;
  } catch {
    data = undefined;
  }
  if (!data) return [...findings, `${route.url}: no introspection answer (${describeAnswer(introspection)}); attack it by hand`];
  for (const text of graphqlQueries(data, fieldValues(b, true), b.reportId)) {
    for (const variant of VARIANTS) await check(post(text, await authorizationOf(variant)));
  }
  await settled();
  for (const change of differences(before, await snapshotOfB())) findings.push(`${route.url}: changed B's rows: ${change}`);
  return findings;
}
