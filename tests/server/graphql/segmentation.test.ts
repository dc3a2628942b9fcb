import type { FastifyInstance } from 'fastify';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectAttribute } from '../../../models/attributes';
import {
  BUCKET_MAX_BELOW_MIN,
  BUCKET_MAX_NOT_NUMBER,
  REQUIRED,
  SEGMENTATION_ATTRIBUTE_REQUIRED,
  SEGMENTATION_NAME_REQUIRED,
  SEGMENTATION_NAME_TOO_SHORT,
  SEGMENTATION_PRODUCT_REQUIRED,
  type SegmentationDefinition,
  type SegmentationInput,
  type SegmenterTypeInfo,
} from '../../../models/segmentation';
import { SEGMENTATION_NOT_FOUND, SEGMENTER_TYPE_NOT_FOUND } from '../../../server/segmentation/definitions';
import {
  CREATE_SEGMENTATION_MUTATION,
  DELETE_SEGMENTATION_MUTATION,
  SEGMENTATION_DEFINITION_QUERY,
  SEGMENTATION_DEFINITIONS_QUERY,
  SEGMENTER_TYPES_QUERY,
  SEGMENTER_VALUES_QUERY,
  UPDATE_SEGMENTATION_MUTATION,
} from '../../../src/api/graphql';
import type { DocumentNode } from 'graphql';
import { createAuthTestApp, expectSignInRequired, sharedReportOnlyColleague, signUp, type AuthTestApp, type SignedUp } from '../auth/support';
import { testEngine } from '../helpers/database';

/** The segmentation service as GraphQL at /api/v11/graphql, called with the client's own operations. */

interface GraphqlError {
  message: string;
  detail: string;
  source?: { pointer: string };
  status: string;
}

let harness: AuthTestApp;
let app: FastifyInstance;
let owner: SignedUp;
let stranger: SignedUp;
let plan: ObjectAttribute;
let theirs: SegmentationDefinition;

const graphql = (document: DocumentNode, variables: Record<string, unknown> = {}, who?: SignedUp) =>
  app.inject({ method: 'POST', url: '/api/v11/graphql', headers: { 'content-type': 'application/json', ...(who ? { authorization: who.authorization } : {}) }, payload: JSON.stringify({ query: print(document), variables }) });

async function data<T>(document: DocumentNode, variables: Record<string, unknown> = {}, who: SignedUp = owner): Promise<T> {
  const response = await graphql(document, variables, who);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { data: T; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

async function failure(document: DocumentNode, variables: Record<string, unknown>, who: SignedUp = owner): Promise<{ status: number; errors: GraphqlError[] }> {
  const response = await graphql(document, variables, who);
  const body = response.json() as { data: unknown; errors: GraphqlError[] };
  expect(body.data).toBeNull();
  return { status: response.statusCode, errors: body.errors };
}

const input = (change: Partial<SegmentationInput> = {}): SegmentationInput => ({ name: 'Plans', type_name: 'customer_segment', segment_id: plan.id, mappings: [{ value: 'gold', name: 'Premium' }], ...change });

async function attribute(name: string, object: ObjectAttribute['object'], who: SignedUp): Promise<ObjectAttribute> {
  const response = await app.inject({ method: 'POST', url: '/api/v11/object_attributes', headers: { authorization: who.authorization }, payload: { name, object } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ObjectAttribute;
}

beforeAll(async () => {
  harness = await createAuthTestApp();
  app = harness.app;
  owner = await signUp(app);
  stranger = await signUp(app);
  plan = await attribute('Plan', 'customer', owner);
  const db = harness.db.kysely;
  const account = owner.user.account_id;
  for (const [customer, value] of [
    ['c1', 'gold'],
    ['c2', 'silver'],
    ['c3', 'Golden'],
  ] as const) {
    await db.insertInto('customers').values({ account_id: account, id: customer, name: customer, public_id: null }).execute();
    await db.insertInto('customer_segment_values').values({ account_id: account, customer_id: customer, segment_id: plan.segment_id as string, year: 2025, month: 1, value }).execute();
  }
  const strangerPlan = await attribute('Plan', 'customer', stranger);
  theirs = (await data<{ create_segmentation: SegmentationDefinition }>(CREATE_SEGMENTATION_MUTATION, { input: input({ name: 'Their plans', segment_id: strangerPlan.id }) }, stranger)).create_segmentation;
});
afterAll(() => harness?.close());

describe(`GraphQL segmentation service on ${testEngine}`, () => {
  it('answers 401 without a token and 403 for a share-only user, as REST does', async () => {
    expectSignInRequired(await graphql(SEGMENTATION_DEFINITIONS_QUERY));
    expectSignInRequired(await graphql(CREATE_SEGMENTATION_MUTATION, { input: input() }));
    expectSignInRequired(await app.inject({ method: 'POST', url: '/api/v11/graphql', headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-token' }, payload: JSON.stringify({ query: '{ __typename }' }) }));
    const colleague = await sharedReportOnlyColleague(app, harness.db, owner);
    expect((await graphql(SEGMENTER_TYPES_QUERY, {}, colleague)).statusCode).toBe(403);
  });

  it('is not part of the OpenAPI document (that describes REST)', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/v11/docs/json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('graphql'))).toEqual([]);
  });

  it('segmenter_types: the attributes and built-ins of the caller’s account', async () => {
    const { segmenter_types } = await data<{ segmenter_types: SegmenterTypeInfo[] }>(SEGMENTER_TYPES_QUERY);
    expect(segmenter_types.map((type) => [type.name, type.segment_id, type.label])).toEqual([
      ['customer_segment', plan.id, 'Plan'],
      ['subscription_segment', 'product', 'Product'],
      ['subscription_segment', 'currency', 'Currency'],
      ['subscription_segment', 'item_type', 'Item type'],
    ]);
  });

  it('segmenter_values: the distinct values, filtered case-insensitively, limited; 404 for another account’s attribute', async () => {
    const all = await data<{ segmenter_values: string[] }>(SEGMENTER_VALUES_QUERY, { type_name: 'customer_segment', segment_id: plan.id });
    expect(all.segmenter_values).toEqual(['Golden', 'gold', 'silver'].sort());
    const gold = await data<{ segmenter_values: string[] }>(SEGMENTER_VALUES_QUERY, { type_name: 'customer_segment', segment_id: plan.id, query: 'GOLD', limit: 1 });
    expect(gold.segmenter_values).toHaveLength(1);
    const itemTypes = await data<{ segmenter_values: string[] }>(SEGMENTER_VALUES_QUERY, { type_name: 'subscription_segment', segment_id: 'item_type' });
    expect(itemTypes.segmenter_values).toContain('recurring');
    const foreign = await failure(SEGMENTER_VALUES_QUERY, { type_name: 'customer_segment', segment_id: theirs.segment_id });
    expect(foreign).toEqual({ status: 404, errors: [{ message: SEGMENTER_TYPE_NOT_FOUND, detail: SEGMENTER_TYPE_NOT_FOUND, status: '404' }] });
  });

  it('create, list, read, update and delete a segmentation', async () => {
    const { create_segmentation: created } = await data<{ create_segmentation: SegmentationDefinition }>(CREATE_SEGMENTATION_MUTATION, { input: input() });
    expect(created).toMatchObject({ name: 'Plans', type_name: 'customer_segment', segment_id: plan.id, allowed_configuration: ['mappings', 'buckets'], mappings: [{ value: 'gold', name: 'Premium' }], buckets: [], products: [] });

    const listed = await data<{ segmentation_definitions: SegmentationDefinition[] }>(SEGMENTATION_DEFINITIONS_QUERY);
    expect(listed.segmentation_definitions).toEqual([created]);
    expect((await data<{ segmentation_definition: SegmentationDefinition }>(SEGMENTATION_DEFINITION_QUERY, { id: created.id })).segmentation_definition).toEqual(created);
    // REST sees the same segmentation.
    const rest = await app.inject({ method: 'GET', url: `/api/v11/segmenter_definitions/${created.id}`, headers: { authorization: owner.authorization } });
    expect(rest.json()).toEqual(created);

    const buckets = [
      { name: 'Low', from: 0, to: 9 },
      { name: '> 9', from: 10, to: null },
    ];
    const { update_segmentation: updated } = await data<{ update_segmentation: SegmentationDefinition }>(UPDATE_SEGMENTATION_MUTATION, { id: created.id, input: input({ name: 'Plan levels', mappings: [], buckets }) });
    expect(updated).toMatchObject({ id: created.id, name: 'Plan levels', mappings: [], buckets });

    expect(await data(DELETE_SEGMENTATION_MUTATION, { id: created.id })).toEqual({ delete_segmentation: created.id });
    expect(await failure(SEGMENTATION_DEFINITION_QUERY, { id: created.id })).toEqual({ status: 404, errors: [{ message: SEGMENTATION_NOT_FOUND, detail: SEGMENTATION_NOT_FOUND, status: '404' }] });
  });

  it('answers 404 for another account’s segmentation in every field, and leaves it unchanged', async () => {
    const notFound = { status: 404, errors: [{ message: SEGMENTATION_NOT_FOUND, detail: SEGMENTATION_NOT_FOUND, status: '404' }] };
    expect(await failure(SEGMENTATION_DEFINITION_QUERY, { id: theirs.id })).toEqual(notFound);
    expect(await failure(UPDATE_SEGMENTATION_MUTATION, { id: theirs.id, input: input() })).toEqual(notFound);
    expect(await failure(DELETE_SEGMENTATION_MUTATION, { id: theirs.id })).toEqual(notFound);
    expect((await data<{ segmentation_definitions: SegmentationDefinition[] }>(SEGMENTATION_DEFINITIONS_QUERY)).segmentation_definitions.map((d) => d.id)).not.toContain(theirs.id);
    expect((await data<{ segmentation_definition: SegmentationDefinition }>(SEGMENTATION_DEFINITION_QUERY, { id: theirs.id }, stranger)).segmentation_definition).toEqual(theirs);
  });

  it.each([
    [{ name: '  ' }, [['/name', SEGMENTATION_NAME_REQUIRED]]],
    [{ name: 'ab' }, [['/name', SEGMENTATION_NAME_TOO_SHORT]]],
    [{ segment_id: 'nobody' }, [['/segment_id', SEGMENTATION_ATTRIBUTE_REQUIRED]]],
    [{ type_name: 'subscription_segment', segment_id: 'product', products: [] }, [['/products', SEGMENTATION_PRODUCT_REQUIRED]]],
    [{ mappings: [{ value: '', name: 'X' }] }, [['/mappings/0/value', REQUIRED]]],
    [{ mappings: [{ value: 'gold', name: ' ' }] }, [['/mappings/0/name', REQUIRED]]],
    [{ mappings: [], buckets: [{ name: 'A', from: 0, to: null }, { name: 'B', from: 1, to: null }] }, [['/buckets/0/to', REQUIRED]]],
    [{ mappings: [], buckets: [{ name: 'A', from: 0, to: 2.5 }, { name: 'B', from: 3, to: null }] }, [['/buckets/0/to', BUCKET_MAX_NOT_NUMBER]]],
    [{ mappings: [], buckets: [{ name: 'A', from: 0, to: 10 }, { name: 'B', from: 11, to: 3 }, { name: 'C', from: 4, to: null }] }, [['/buckets/1/to', BUCKET_MAX_BELOW_MIN]]],
  ] as const)('create_segmentation refuses %j with status 422 and the message at its pointer', async (change, expected) => {
    const result = await failure(CREATE_SEGMENTATION_MUTATION, { input: input(change as Partial<SegmentationInput>) });
    expect(result.status).toBe(422);
    expect(result.errors).toEqual(expected.map(([pointer, detail]) => ({ message: detail, detail, source: { pointer }, status: '422' })));
  });

  it('update_segmentation validates like create', async () => {
    const { create_segmentation: created } = await data<{ create_segmentation: SegmentationDefinition }>(CREATE_SEGMENTATION_MUTATION, { input: input({ name: 'To validate' }) });
    const result = await failure(UPDATE_SEGMENTATION_MUTATION, { id: created.id, input: input({ name: 'no' }) });
    expect(result).toEqual({ status: 422, errors: [{ message: SEGMENTATION_NAME_TOO_SHORT, detail: SEGMENTATION_NAME_TOO_SHORT, source: { pointer: '/name' }, status: '422' }] });
  });

  it('delete_segmentation refused (422) while a share link pins one of its segments, with a detail to show', async () => {
    const { create_segmentation: created } = await data<{ create_segmentation: SegmentationDefinition }>(CREATE_SEGMENTATION_MUTATION, { input: input({ name: 'Pinned' }) });
    const report = await app.inject({ method: 'POST', url: '/api/v11/business_reports', headers: { authorization: owner.authorization }, payload: { title: 'Investors', sections: [] } });
    const { id: reportId } = report.json() as { id: string };
    await harness.db.kysely
      .insertInto('report_share_secrets')
      .values({ account_id: owner.user.account_id, id: 'shr-pinned', report_id: reportId, secret: 'pinned-secret-0123456789abcdef', segmenter_id: `segmentation:${created.id}`, segment_value: 'Premium' })
      .execute();
    const detail = "Segmentation is used by a share link of report 'Investors'. Delete the share link first.";
    expect(await failure(DELETE_SEGMENTATION_MUTATION, { id: created.id })).toEqual({ status: 422, errors: [{ message: detail, detail, status: '422' }] });
  });

  it('a malformed operation is a GraphQL error, not a server failure', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v11/graphql', headers: { 'content-type': 'application/json', authorization: owner.authorization }, payload: JSON.stringify({ query: '{ segmentation_definitions { nope } }' }) });
    expect(response.statusCode).toBe(400);
    expect((response.json() as { errors: { message: string }[] }).errors[0]?.message).toMatch(/nope/);
  });
});
