import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import {
  buildClientSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type IntrospectionQuery,
} from 'graphql';
import { expect } from 'vitest';
import { API_PREFIX } from '../../../server/version';
import { signUp, type SignedUp } from '../auth/support';
import type { TestDatabase } from '../helpers/database';

/**
 * What the attack suites (tenantIsolation.test.ts, robustness.test.ts) share: the operations of
 * docs/openapi.json read at test time (a new route is attacked without a new test), request
 * values generated from their schemas, the app's full route list, multipart bodies, an account
 * seeded with real data through the API, and the decoding of any answer to text.
 */

// ------------------------------------------------------------------- the OpenAPI document

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
  format?: string;
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  method: Method;
  /** As the document writes it, relative to the API prefix: `/business_reports/{id}`. */
  path: string;
  /** `GET /business_reports/{id}`: what the coverage proofs count. */
  key: string;
  params: Parameter[];
  /** The JSON request body's schema, when the operation takes one. */
  body: JsonSchema | undefined;
  /** A multipart file upload: no JSON body, and the document lists 413 (too large) or 415 answers. */
  upload: boolean;
  /** Whether a token is required, optional (anonymous readers too) or not asked for. */
  security: 'required' | 'optional' | 'none';
}

const ROOT = path.resolve(import.meta.dirname, '../../..');
const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface RawOperation {
  parameters?: Array<{ name: string; in: Parameter['in']; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, unknown>;
}

/** Every operation of docs/openapi.json, as the document has it now. */
export function openApiOperations(): Operation[] {
  const document = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, RawOperation>> };
  const operations: Operation[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [name, raw] of Object.entries(item)) {
      const method = name.toUpperCase() as Method;
      if (!METHODS.includes(method)) continue;
      const body = raw.requestBody?.content?.['application/json']?.schema;
      const responses = Object.keys(raw.responses ?? {});
      const security = raw.security ?? [];
      operations.push({
        method,
        path: route,
        key: `${method} ${route}`,
        params: (raw.parameters ?? []).map((p) => ({ name: p.name, in: p.in, required: p.required === true || p.in === 'path', schema: p.schema ?? {} })),
        body,
        upload: !body && method !== 'GET' && (responses.includes('413') || responses.includes('415')),
        security: security.length === 0 ? 'none' : security.some((s) => Object.keys(s).length === 0) ? 'optional' : 'required',
      });
    }
  }
  return operations;
}

/** Deletions last (deepest paths first), sign-out at the very end: what they remove is then no longer needed. */
export function inAttackOrder(operations: readonly Operation[]): Operation[] {
  const rank = (op: Operation) => (op.key === 'DELETE /users/sign_out' ? 3 : op.method === 'DELETE' ? 2 : 1);
  const depth = (op: Operation) => op.path.split('/').length;
  return [...operations].sort((a, b) => rank(a) - rank(b) || (rank(a) === 2 ? depth(b) - depth(a) : 0));
}

export const pathParams = (op: Operation) => op.params.filter((p) => p.in === 'path');
export const queryParams = (op: Operation) => op.params.filter((p) => p.in === 'query');

// ------------------------------------------------------------------- the app's routes

export interface RouteEntry {
  method: string;
  /** Fastify's form: `/api/v11/business_reports/:id`. */
  url: string;
}

/** Every (method, url) the app serves, HEAD left out, read from `printRoutes` (Fastify lists no routes otherwise). */
export function appRoutes(app: FastifyInstance): RouteEntry[] {
  const stack: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!match) continue;
    const level = (match[1] ?? '').length / 4;
    stack.length = level;
    stack.push(match[2] ?? '');
    const url = stack.join('');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') routes.push({ method, url });
    }
  }
  return routes;
}

/** `/business_reports/{id}` -> `/api/v11/business_reports/:id`. */
export const fastifyUrlOf = (op: Operation) => `${API_PREFIX}${op.path.replace(/\{([^}]+)\}/g, ':$1')}`;

// ------------------------------------------------------------------- values from schemas

/** Values by field name; a function answers per operation path. Undefined: generate from the schema. */
export type ValueTable = Record<string, unknown>;

const ALTERNATIVES = (schema: JsonSchema) => schema.anyOf ?? schema.oneOf;

/** The first alternative that is not null (a nullable field gets a value). */
export function mainSchema(schema: JsonSchema): JsonSchema {
  const alternatives = ALTERNATIVES(schema);
  if (alternatives) return mainSchema(alternatives.find((s) => s.type !== 'null') ?? alternatives[0] ?? {});
  return schema;
}

export function typeOf(schema: JsonSchema): string | undefined {
  const main = mainSchema(schema);
  if (Array.isArray(main.type)) return main.type.find((t) => t !== 'null');
  if (main.type) return main.type;
  if (main.properties) return 'object';
  if (main.enum) return typeof main.enum[0];
  return undefined;
}

const PATTERN_EXAMPLES: Record<string, string> = {
  '^[A-Za-z]{3}$': 'EUR',
  '^[A-Z]{3}$': 'EUR',
  '^\\d{4}-\\d{2}-\\d{2}$': '2026-02-01',
};

/** Plausible values by name for fields that are not ids (ranges the routes accept). */
const PLAIN_VALUES: Record<string, unknown> = {
  password: 'quiet-orbit-lantern-42',
  password_confirmation: 'quiet-orbit-lantern-42',
  title: 'Probe',
  summary: 'Probe summary',
  content: 'Probe comment',
  name: 'Probe',
  currency: 'USD',
  start_year: 2025,
  start_month: 4,
  end_year: 2026,
  end_month: 3,
  limit: 10,
  position: 0,
  date: '2026-02-01',
  start_date: '2026-01-01',
  end_date: '2026-02-28',
  cohort_date: '2025-09-01',
  column: 0,
  component: 'new',
  segment_value: 'Gold',
  tags: ['probe'],
  pinned: true,
  skip_headers: true,
  marketing_ref: 'probe',
  // An exchange rate (PUT /account_settings): greater than 0.
  rate: 4.2,
};

/** A value of `schema` for the field `name`: from `values` (ids), else plausible for its name, else from the schema. */
export function sampleValue(schema: JsonSchema, name: string, values: ValueTable, depth = 0): unknown {
  const type = typeOf(schema);
  if (name in values && fits(values[name], type)) {
    const value = values[name];
    return type === 'array' && !Array.isArray(value) ? [value] : value;
  }
  if (name in PLAIN_VALUES && fits(PLAIN_VALUES[name], type)) return PLAIN_VALUES[name];
  const main = mainSchema(schema);
  if (main.const !== undefined) return main.const;
  if (main.enum) return main.enum[0];
  if (main.default !== undefined) return main.default;
  switch (typeOf(main)) {
    case 'string': {
      const example = main.pattern ? PATTERN_EXAMPLES[main.pattern] : undefined;
      if (example) return example;
      return 'probe'.padEnd(main.minLength ?? 0, 'x').slice(0, main.maxLength ?? 100);
    }
    case 'integer':
    case 'number':
      return Math.min(Math.max(0, main.minimum ?? 0), main.maximum ?? Number.MAX_SAFE_INTEGER);
    case 'boolean':
      return true;
    case 'array':
      return depth > 6 || !main.items ? [] : [sampleValue(main.items, singular(name), values, depth + 1)];
    case 'object':
      return sampleObject(main, values, depth + 1);
    default:
      return 'probe';
  }
}

/** Whether a table's value suits a field of this type (a column index named customer_id is no id). */
function fits(value: unknown, type: string | undefined): boolean {
  if (type === undefined || type === 'array') return true;
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === type;
}

const singular = (name: string) => (name.endsWith('s') ? name.slice(0, -1) : name);

/** An object with every property of the schema (required and optional). */
export function sampleObject(schema: JsonSchema, values: ValueTable, depth = 0): Record<string, unknown> {
  const main = mainSchema(schema);
  return Object.fromEntries(Object.entries(main.properties ?? {}).map(([name, property]) => [name, sampleValue(property, name, values, depth)]));
}

/** Names that carry an id, a secret or a credential: the isolation suite must know what to put there. */
export const ID_LIKE = /(^|_)ids?$|secret|token|(^|_)key$|email|(^|_)to$/;

/** Every field name of a schema, nested ones included. */
export function fieldNames(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || depth > 8) return [];
  const main = mainSchema(schema);
  const own = Object.entries(main.properties ?? {}).flatMap(([name, property]) => [name, ...fieldNames(property, depth + 1)]);
  return [...own, ...fieldNames(main.items, depth + 1)];
}

// ------------------------------------------------------------------- requests

export interface Probe {
  method: Method | 'HEAD';
  url: string;
  headers: Record<string, string>;
  /** Sent as is (a string or bytes); JSON is serialised by the caller. */
  payload?: string | Buffer;
}

/** The URL of an operation with these path and query values (each value URL-encoded unless `raw`). */
export function urlOf(op: Operation, pathValues: Record<string, string>, query: Array<[string, string]>, raw = false): string {
  const encode = (value: string) => (raw ? value : encodeURIComponent(value));
  const route = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(pathValues[name] ?? ''));
  const search = query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return `${API_PREFIX}${route}${search ? `?${search}` : ''}`;
}

export function inject(app: FastifyInstance, probe: Probe): Promise<LightMyRequestResponse> {
  const options: InjectOptions = { method: probe.method, url: probe.url, headers: probe.headers };
  if (probe.payload !== undefined) options.payload = probe.payload;
  return app.inject(options);
}

/** A short, printable description of a probe (huge values cut). */
export function describeProbe(probe: Probe): string {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...(${text.length} chars)` : text);
  const headers = Object.entries(probe.headers)
    .filter(([name]) => name !== 'authorization')
    .map(([name, value]) => `${name}: ${cut(value)}`);
  const auth = probe.headers.authorization ? ` [${probe.headers.authorization.slice(0, 20)}...]` : ' [no token]';
  const payload = probe.payload === undefined ? '' : ` body=${cut(String(probe.payload))}`;
  return `${probe.method} ${cut(probe.url)}${auth}${headers.length ? ` {${headers.join('; ')}}` : ''}${payload}`;
}

export function describeAnswer(response: LightMyRequestResponse): string {
  const body = response.body.length > 500 ? `${response.body.slice(0, 500)}...` : response.body;
  return `${response.statusCode} ${body}`;
}

/** A multipart/form-data body. */
export function multipart(parts: Array<{ name: string; filename?: string; type?: string; content: string | Buffer }>, boundary = `----attack${randomBytes(8).toString('hex')}`): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.type ? `\r\nContent-Type: ${part.type}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

// ------------------------------------------------------------------- answers as text

/** The entries of a ZIP archive (an XLSX file) inflated, so a search sees the cells' text. */
function unzipText(bytes: Buffer): string {
  const texts: string[] = [];
  let offset = 0;
  while (offset + 30 <= bytes.length && bytes.readUInt32LE(offset) === 0x04034b50) {
    const method = bytes.readUInt16LE(offset + 8);
    let size = bytes.readUInt32LE(offset + 18);
    const nameLength = bytes.readUInt16LE(offset + 26);
    const extraLength = bytes.readUInt16LE(offset + 28);
    const start = offset + 30 + nameLength + extraLength;
    const flags = bytes.readUInt16LE(offset + 6);
    if (flags & 0x08) {
      // Sizes follow the data: find the next header instead.
      const next = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), start);
      size = (next < 0 ? bytes.length : next) - start;
    }
    const data = bytes.subarray(start, start + size);
    try {
      texts.push((method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    } catch {
      texts.push(data.toString('latin1'));
    }
    offset = start + size + (flags & 0x08 ? 16 : 0);
  }
  return texts.join('\n');
}

/** Everything an answer carries, as text: headers, and the body gunzipped or unzipped. */
export function answerText(response: LightMyRequestResponse): string {
  let body = response.rawPayload;
  if (response.headers['content-encoding'] === 'gzip') {
    try {
      body = gunzipSync(body);
    } catch {
      // Not gzip after all: search the bytes as sent.
    }
  }
  const text = body.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? unzipText(body) : body.toString('utf8');
  return `${JSON.stringify(response.headers)}\n${text}`;
}

/** Whether a 4xx answer is in the API's error shape. */
export function isErrorShape(response: LightMyRequestResponse): boolean {
  try {
    const body = response.json() as { errors?: Array<{ detail?: unknown; title?: unknown; status?: unknown }> };
    return Array.isArray(body.errors) && body.errors.length > 0 && body.errors.every((e) => typeof e.detail === 'string' && typeof e.title === 'string' && e.status === String(response.statusCode));
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------- a seeded account

/** Polls `check` until it holds (a condition, not a fixed wait); fails after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface SeededAccount {
  owner: SignedUp;
  accountId: string;
  userId: string;
  /** Appears in every name, title and comment of the account's own content (never in an id). */
  marker: string;
  reportId: string;
  reportSecret: string;
  /** The MRR section, split by the customer segment, with a key number. */
  sectionId: string;
  cohortSectionId: string;
  sectionIds: string[];
  attributeId: string;
  segmentId: string;
  /** `customer_segment:<segmentId>`: how sections name the segment. */
  segmenterId: string;
  /** A segmentation of the customer attribute (POST /segmenter_definitions). */
  segmentationId: string;
  commentId: string;
  customerIds: string[];
  /** A payment of the first import (the payment calls' `{id}`). */
  paymentId: string;
  /** A payments import waiting for its mapping, and one that is done. */
  subscriptionImportId: string;
  doneSubscriptionImportId: string;
  /** An attribute values import waiting for its mapping, and one that is done. */
  segmentImportId: string;
  doneSegmentImportId: string;
  exportId: string;
  downloadKey: string;
  invitationId: string;
  inviteeEmail: string;
  /** A share link of the report pinned to the segment value Gold (made with POST /business_reports/{id}/share_secret). */
  shareSecret: string;
  shareSecretId: string;
  /** A group link of the report's group (POST /business_reports/{id}/group_secret). */
  groupSecret: string;
  groupSecretId: string;
  apiToken: string;
  /** A calculated customer column (POST /customer_related_metric_definitions). */
  definitionId: string;
  /** A customer made with POST /customers, a child of the first customer. */
  childCustomerId: string;
  /** Its public id (unique in its account only). */
  childPublicId: string;
  /** A cost (POST /costs) with a cost attribute value, and a costs import waiting for its mapping. */
  costId: string;
  costImportId: string;
  /** The cost attribute the cost has a value of. */
  costAttributeId: string;
}

const PAYMENTS_CSV_HEADER = 'customer_id,invoice_number,started_at,months,monthly_amount,customer_name,product,units';

/**
 * An account with real data made the way users make it (API calls; the attribute, which has no
 * API yet, written to the database): payments of
 * three customers from a CSV import, an attribute with values from an attribute import, a
 * computed report (MRR split by the attribute, customers, cohorts) with a comment, a key number,
 * settings, a share link pinned to a segment value and a group link, a finished details export, a pending colleague invitation, and one import of
 * each kind waiting for its mapping.
 */
export async function seedAccount(app: FastifyInstance, db: TestDatabase, label: string): Promise<SeededAccount> {
  const tag = randomBytes(4).toString('hex');
  const marker = `ZQ${label.toUpperCase()}MARK${tag}`;
  const prefix = `${label.toLowerCase()}${tag}`;
  const owner = await signUp(app, { name: `${marker} Owner`, email: `owner.${prefix}@example.com` });
  const auth = { authorization: owner.authorization };
  const accountId = owner.user.account_id;
  const call = async (method: Method, url: string, payload?: object, expected = 200) => {
    const response = await app.inject({ method, url: `${API_PREFIX}${url}`, headers: auth, ...(payload ? { payload } : {}) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(expected);
    return response.statusCode === 204 ? {} : (response.json() as Record<string, unknown>);
  };
  const upload = async (url: string, field: string, csv: string) => {
    const form = multipart([{ name: field, filename: `${prefix}.csv`, type: 'text/csv', content: csv }]);
    const response = await app.inject({ method: 'POST', url: `${API_PREFIX}${url}`, headers: { ...auth, 'content-type': form.contentType }, payload: form.payload });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { id?: string; import_id: string };
  };

  const attributeId = `${prefix}-att`;
  const segmentId = `${prefix}-seg`;
  await db.kysely.insertInto('object_attributes').values({ account_id: accountId, id: attributeId, name: `${marker} Plan attribute`, object: 'customer' }).execute();
  await db.kysely.insertInto('customer_segments').values({ account_id: accountId, id: segmentId, object_attribute_id: attributeId, name: `${marker} Plan` }).execute();

  const customerIds = [1, 2, 3].map((k) => `${prefix}-cus${k}`);
  const csv = [
    PAYMENTS_CSV_HEADER,
    `${customerIds[0]},${prefix}-inv1,2025-06-01,12,100,${marker} Customer One,pro,2`,
    `${customerIds[1]},${prefix}-inv2,2025-09-01,3,50,${marker} Customer Two,pro,1`,
    `${customerIds[2]},${prefix}-inv3,2025-10-01,12,30,${marker} Customer Three,basic,3`,
  ].join('\n');
  const mapping = { skip_headers: true, customer_id: 0, invoice_number: 1, started_at: 2, months: 3, monthly_amount: 4, customer_name: 5, product: 6, units: 7 };
  const done = await upload('/subscriptions/csv_import', 'paying_customers', csv);
  await call('POST', `/subscriptions/csv_import/${done.import_id}/finalize`, mapping);
  await app.imports.settled();
  expect((await call('GET', `/subscriptions/csv_import/${done.import_id}`)).status).toBe('done');
  const pending = await upload('/subscriptions/csv_import', 'paying_customers', csv);

  const values = `customer,plan\n${customerIds[0]},Gold\n${customerIds[1]},Silver\n${customerIds[2]},Gold\n`;
  const doneSegments = await upload('/segments_importer/draft', 'csv', values);
  await call('POST', '/segments_importer/finalize', { import_id: doneSegments.import_id, public_id_column_index: 0, segment_column_index: 1, skip_headers: true, customer_segment_id: segmentId });
  await app.imports.settled();
  expect((await call('GET', `/segments_importer/${doneSegments.import_id}`)).status).toBe('done');
  const pendingSegments = await upload('/segments_importer/draft', 'csv', values);
  // A segmentation of the customer attribute (REST and GraphQL name it by id).
  const segmentation = (await call('POST', '/segmenter_definitions', { name: `${marker} Plan groups`, type_name: 'customer_segment', segment_id: attributeId, mappings: [{ value: 'Gold', name: `${marker} Premium` }] }, 201)) as { id: string };
  // A deal and a payment attribute value: what the report filter picker lists (deal owners, segment values).
  await db.kysely
    .insertInto('deals')
    .values({ account_id: accountId, id: `${prefix}-deal`, customer_id: customerIds[0] ?? null, name: `${marker} Deal`, currency: 'USD', stage: 'open', owner_name: `${marker} Deal owner` })
    .execute();
  await db.kysely.insertInto('object_attributes').values({ account_id: accountId, id: `${prefix}-patt`, name: `${marker} Channel`, object: 'subscription_history' }).execute();
  const payment = await db.kysely.selectFrom('payments').select('id').where('account_id', '=', accountId).orderBy('id').executeTakeFirstOrThrow();
  await db.kysely.insertInto('payment_segment_values').values({ account_id: accountId, payment_id: payment.id, attribute_id: `${prefix}-patt`, value: `${marker} web` }).execute();

  const report = (await call('POST', '/business_reports', { title: `${marker} Report`, sections: ['mrr', 'customers', 'customer_cohorts'].map((definition_id) => ({ definition_id })) }, 201)) as { id: string; secret: string };
  await app.reports.settled();
  const read = (await call('GET', `/business_reports/by_secret?secret=${report.secret}`)) as { sections: Array<{ id: string; definition_id: string }> };
  const sectionIds = read.sections.map((s) => s.id);
  const mrr = read.sections.find((s) => s.definition_id === 'mrr')?.id ?? '';
  const cohorts = read.sections.find((s) => s.definition_id === 'customer_cohorts')?.id ?? '';
  const segmenterId = `customer_segment:${segmentId}`;
  await call('PUT', `/business_report/sections/${mrr}`, { segment_ids: [segmenterId] });
  await call('PUT', `/business_report/sections/${mrr}`, { title: `${marker} MRR section` });
  await call('PUT', `/business_reports/${report.id}`, { summary: `${marker} summary`, tags: [`${marker}tag`] });
  await call('PUT', `/business_reports/${report.id}/settings`, { display_quarters: true });
  await app.reports.settled();
  const comment = (await call('POST', '/comments', { commented_id: report.id, content: `${marker} comment` }, 201)) as { id: string };
  await call('PUT', `/comments/${comment.id}`, { pinned: true });
  await call('POST', '/business_reports/by_secret/key_numbers', { secret: report.secret, section_id: mrr, definition_id: 'mrr' }, 201);

  const started = (await call('POST', `/business_report/sections/${mrr}/export_details?date=2026-02-01`, undefined, 202)) as { id: string };
  let url: string | null = null;
  await until(async () => {
    const status = (await call('GET', `/section_exports/${started.id}`)) as { status: string; url: string | null };
    url = status.url;
    return status.status !== 'in_progress';
  }, 'the details export to finish');
  const downloadKey = new URL(String(url), 'http://localhost').searchParams.get('key') ?? '';
  expect(downloadKey).not.toBe('');

  const inviteeEmail = `invitee.${prefix}@example.com`;
  await call('POST', '/users', { email: inviteeEmail, name: `${marker} Invitee` }, 201);
  const invitation = await db.kysely.selectFrom('invitations').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow();
  const share = (await call('POST', `/business_reports/${report.id}/share_secret`, { segmenter_id: segmenterId, segment_value: 'Gold' }, 201)) as { id: string; secret: string };
  const group = (await call('POST', `/business_reports/${report.id}/group_secret`, undefined, 201)) as { id: string; secret: string };
  const me = (await call('GET', '/users/me')) as { user: { api_token: string } };
  // A calculated customer column (its values computed by a job: waited for), and a customer of
  // no payments that is a child of the first (the customers table's parent, merge and delete).
  const definition = (await call(
    'POST',
    '/customer_related_metric_definitions',
    { name: `${marker} Column`, formula: 'mrr', variables: [{ fetcher: 'Mrr', name: 'mrr', start_month: 1, start_year: 2026, end_month: 1, end_year: 2026 }] },
    201,
  )) as { id: string };
  await app.customerColumns.settled();
  const child = (await call('POST', '/customers', { name: `${marker} Child`, public_id: `${prefix}-pub-child` }, 201)) as { id: string };
  await call('PUT', `/customers/${child.id}`, { parent_id: customerIds[0] });
  const costAttribute = (await call('POST', '/object_attributes', { name: `${marker} Cost category`, object: 'cost' }, 201)) as { id: string };
  const cost = (await call('POST', '/costs', { value: 12_000, currency: 'USD', date: '2026-02-01', invoice_number: `${marker} FV/1`, name: `${marker} Ads`, segments: [{ id: costAttribute.id, value: `${marker} Marketing` }] }, 201)) as { id: string };
  const costImport = await upload('/costs/csv_import', 'file', `value,date,name\n10,2026-02-01,${marker} Imported cost\n`);
  await app.reports.settled();

  return {
    owner,
    accountId,
    userId: owner.user.id,
    marker,
    reportId: report.id,
    reportSecret: report.secret,
    sectionId: mrr,
    cohortSectionId: cohorts,
    sectionIds,
    attributeId,
    segmentId,
    segmenterId,
    segmentationId: segmentation.id,
    commentId: comment.id,
    customerIds,
    paymentId: payment.id,
    subscriptionImportId: pending.import_id,
    doneSubscriptionImportId: done.import_id,
    segmentImportId: pendingSegments.import_id,
    doneSegmentImportId: doneSegments.import_id,
    exportId: started.id,
    downloadKey,
    invitationId: invitation.id,
    inviteeEmail,
    shareSecret: share.secret,
    shareSecretId: share.id,
    groupSecret: group.secret,
    groupSecretId: group.id,
    apiToken: me.user.api_token,
    definitionId: definition.id,
    childCustomerId: child.id,
    childPublicId: `${prefix}-pub-child`,
    costId: cost.id,
    costImportId: costImport.id ?? '',
    costAttributeId: costAttribute.id,
  };
}

// ------------------------------------------------------------------- an account's ids by parameter name

/** The resource of an account an `{id}` path parameter names, by the path it is in (the most specific first). */
export const ID_BY_PATH: Array<[RegExp, (account: SeededAccount) => string]> = [
  [/^\/business_reports\/\{id\}/, (account) => account.reportId],
  [/^\/business_report\/sections\/\{id\}\/cohort_details$/, (account) => account.cohortSectionId],
  [/^\/business_report\/sections\/\{id\}/, (account) => account.sectionId],
  // The third customer: it has no children (the first is the seeded child's parent), so PUT may give it a parent.
  [/^\/customers\/\{id\}/, (account) => account.customerIds[2] ?? ''],
  [/^\/customer_segments\/\{id\}/, (account) => account.segmentId],
  [/^\/customer_metrics\/\{id\}/, (account) => account.customerIds[0] ?? ''],
  [/^\/customer_related_metric_definitions\/\{id\}/, (account) => account.definitionId],
  [/^\/comments\/\{id\}/, (account) => account.commentId],
  [/^\/subscriptions\/csv_import\/\{id\}/, (account) => account.subscriptionImportId],
  [/^\/segments_importer\/\{id\}/, (account) => account.segmentImportId],
  [/^\/section_exports\/\{id\}/, (account) => account.exportId],
  [/^\/object_attributes\/\{id\}/, (account) => account.attributeId],
  [/^\/subscriptions\/history\/upsert\/\{id\}/, (account) => account.paymentId],
  [/^\/subscriptions\/history\/\{id\}/, (account) => account.paymentId],
  [/^\/segmenter_definitions\/\{id\}/, (account) => account.segmentationId],
  // Plans are the product's, shared by every account: no account has an id of its own to leak, so
  // the probe is an id no plan has (404 for anyone); the plan routes' own tests cover the rest.
  [/^\/plans\/\{id\}/, () => 'no-such-plan'],
  [/^\/costs\/csv_import\/\{id\}/, (account) => account.costImportId],
  [/^\/costs\/(upsert\/)?\{id\}/, (account) => account.costId],
];

/**
 * Path parameters by name -> the account's value. In the isolation suite an operation with a
 * parameter this table does not know (or an `{id}` under a path ID_BY_PATH does not know)
 * fails its test: add it here.
 */
export const PATH_PARAMS: Record<string, (account: SeededAccount, op: Operation) => string | undefined> = {
  id: (account, op) => ID_BY_PATH.find(([pattern]) => pattern.test(op.path))?.[1](account),
  reportId: (account) => account.reportId,
  sectionId: (account) => account.sectionId,
  // A section's segment is a segmenter id; a customer's attribute value is by the attribute (customer segment) id.
  segmentId: (account, op) => (op.path.startsWith('/customer_segment_values/') ? account.segmentId : account.segmenterId),
  customerId: (account) => account.customerIds[0],
  commentId: (account) => account.commentId,
  secret: (account) => account.reportSecret,
  // A share or a group link of the report, by the path it is under.
  secretId: (account, op) => (op.path.includes('/group_secrets/') ? account.groupSecretId : account.shareSecretId),
  // An invitation's token is a credential (whoever holds the link may accept it): another account knows its id only.
  token: (account) => account.invitationId,
  // Integrations are named alike in every account (/integrations/chargebee is each account's own).
  name: () => 'chargebee',
};

/**
 * Path parameters that name the same thing in every account (an integration's name): B's value is
 * A's too, so A's call with it reaches A's own and is not a 404. B's ids in their place still are.
 */
export const SHARED_PATH_PARAMS: ReadonlySet<string> = new Set(['name']);

/**
 * Query and body fields by name -> the account's value. In the isolation suite a field whose
 * name looks like an id, secret or e-mail (ID_LIKE) and is not here fails its operation's test.
 * `signedIn`: whether the caller sends a token (credentials that work without one are left out).
 */
export function fieldValues(account: SeededAccount, signedIn: boolean): ValueTable {
  return {
    secret: account.reportSecret,
    // GET /demo?token=: a report secret of an account that is not the demo.
    token: account.reportSecret,
    // The download key works without a token by design (a link): only a signed-in caller is sent it.
    key: signedIn ? account.downloadKey : account.shareSecret,
    commented_id: account.reportId,
    section_id: account.sectionId,
    report_id: account.reportId,
    account_id: account.accountId,
    user_id: account.userId,
    id: account.reportId,
    import_id: account.segmentImportId,
    customer_segment_id: account.segmentId,
    // GET /user_filtered_config/possible_values: a customer attribute (segment) of the account.
    field: 'segment',
    field_id: account.segmentId,
    segment_id: account.segmenterId,
    segment_ids: [account.segmenterId],
    // GET /business_reports/by_secret_filtered: a segment item of the account, or one of its products.
    filter_segmenter_id: account.segmenterId,
    // POST /business_reports/{id}/share_secret: a segment of the account to pin the link to.
    segmenter_id: account.segmenterId,
    filter_product_key: 'pro',
    // A payment's item (PUT /subscriptions/history/...): a product key of the account (keys are per account).
    product_key: 'pro',
    ids: account.customerIds,
    customer_id: account.customerIds[0],
    // PUT /customers/{id} (the third customer): a parent of the account; POST /customers/{id}/merge: the child made with POST /customers.
    parent_id: account.customerIds[1],
    source_id: account.childCustomerId,
    // POST /customers: a public id (unique within an account; another account's is no conflict).
    public_id: account.childPublicId,
    // The chart of the account's MRR section (a catalogue name, not an id).
    definition_id: 'mrr',
    // The account's colleague whose invitation is pending: invitations, sign-in, password reset.
    email: account.inviteeEmail,
    reset_password_token: account.invitationId,
    to: account.owner.email,
    // POST /integrations/{provider}: a data source's credentials, not the account's ids; left empty, so the
    // configuration is refused (422) before any call to the provider.
    chargebee_api_key: '',
    fakturownia_api_token: '',
    wfirma_email: '',
  };
}

/** Every id and secret of the account, the values an attacker might send (named, for messages). */
export function idsOf(account: SeededAccount): Record<string, string> {
  return {
    accountId: account.accountId,
    userId: account.userId,
    reportId: account.reportId,
    reportSecret: account.reportSecret,
    ...Object.fromEntries(account.sectionIds.map((id, k) => [`sectionId${k}`, id])),
    attributeId: account.attributeId,
    segmentId: account.segmentId,
    segmenterId: account.segmenterId,
    commentId: account.commentId,
    ...Object.fromEntries(account.customerIds.map((id, k) => [`customerId${k}`, id])),
    subscriptionImportId: account.subscriptionImportId,
    doneSubscriptionImportId: account.doneSubscriptionImportId,
    segmentImportId: account.segmentImportId,
    doneSegmentImportId: account.doneSegmentImportId,
    exportId: account.exportId,
    downloadKey: account.downloadKey,
    invitationId: account.invitationId,
    inviteeEmail: account.inviteeEmail,
    ownerEmail: account.owner.email,
    shareSecret: account.shareSecret,
    shareSecretId: account.shareSecretId,
    groupSecret: account.groupSecret,
    groupSecretId: account.groupSecretId,
    definitionId: account.definitionId,
    childCustomerId: account.childCustomerId,
    costId: account.costId,
    costImportId: account.costImportId,
  };
}

// ------------------------------------------------------------------- GraphQL

/**
 * One document per query and mutation field of an introspected GraphQL schema: its arguments
 * filled by name from `values` (ids and secrets), else `fallbackId` for strings and ids, and
 * every argument-free field selected three levels deep.
 */
export function graphqlQueries(introspection: IntrospectionQuery, values: ValueTable, fallbackId: string): string[] {
  const schema = buildClientSchema(introspection);
  const literal = (name: string, type: GraphQLInputType, depth: number): string => {
    const named = getNamedType(type);
    const nullable = getNullableType(type);
    if (isListType(nullable)) return `[${literal(name, nullable.ofType as GraphQLInputType, depth)}]`;
    if (isEnumType(named)) return named.getValues()[0]?.name ?? 'null';
    if (isInputObjectType(named)) {
      if (depth > 3) return '{}';
      return `{${Object.values(named.getFields())
        .map((field) => `${field.name}: ${literal(field.name, field.type, depth + 1)}`)
        .join(', ')}}`;
    }
    if (named.name === 'Int' || named.name === 'Float') return '1';
    if (named.name === 'Boolean') return 'true';
    const value = values[name] ?? fallbackId;
    return JSON.stringify(Array.isArray(value) ? value[0] : value);
  };
  const selection = (type: GraphQLOutputType, depth: number): string => {
    const named = getNamedType(type);
    if (!isObjectType(named) && !isInterfaceType(named)) return '';
    if (depth > 2) return '{ __typename }';
    const fields = Object.values(named.getFields()).filter((field) => field.args.every((arg) => !isNonNullType(arg.type)));
    return `{ __typename ${fields.map((field) => `${field.name} ${selection(field.type, depth + 1)}`.trim()).join(' ')} }`;
  };
  const documents: string[] = [];
  for (const [kind, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const args = field.args.map((arg) => `${arg.name}: ${literal(arg.name, arg.type, 0)}`).join(', ');
      documents.push(`${kind} { ${field.name}${args ? `(${args})` : ''} ${selection(field.type, 0)} }`.replace(/\s+}/g, ' }'));
    }
  }
  return documents;
}
