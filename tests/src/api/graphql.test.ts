import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSchema, getOperationAST, validate } from 'graphql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setUnauthorizedHandler } from '../../../src/api/client';
import type { UnauthorizedEvent } from '../../../src/api/client';
import {
  createGraphqlClient,
  createSegmentationService,
  GraphqlCallError,
  SEGMENTATION_OPERATIONS,
  segmentationKeys,
} from '../../../src/api/graphql';
import { tokenStore } from '../../../src/api/tokenStore';

/** The segmentation service's client: its operations fit the server's schema, and its transport behaves like the REST client's. */

const schema = buildSchema(readFileSync(resolve(process.cwd(), 'server/graphql/schema.graphql'), 'utf8'));
const endpoint = 'http://localhost/api/v11/graphql';

function answer(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function fakeFetch(reply: (body: { query: string; variables?: Record<string, unknown> }) => Response) {
  const requests: Request[] = [];
  const bodies: { query: string; variables?: Record<string, unknown> }[] = [];
  const fetch = vi.fn(async (request: Request) => {
    requests.push(request);
    const body = JSON.parse(await request.clone().text()) as { query: string; variables?: Record<string, unknown> };
    bodies.push(body);
    return reply(body);
  });
  return { fetch, requests, bodies };
}

afterEach(() => {
  setUnauthorizedHandler(null);
  tokenStore.clear();
});

describe('segmentation operations', () => {
  it.each(SEGMENTATION_OPERATIONS.map((document) => [getOperationAST(document)?.name?.value ?? '?', document] as const))('%s is valid against server/graphql/schema.graphql', (_name, document) => {
    expect(validate(schema, document)).toEqual([]);
  });

  it('names every query and mutation of the schema', () => {
    const used = new Set(SEGMENTATION_OPERATIONS.flatMap((document) => getOperationAST(document)?.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : [])) ?? []));
    const fields = [...Object.keys(schema.getQueryType()?.getFields() ?? {}), ...Object.keys(schema.getMutationType()?.getFields() ?? {})];
    expect([...used].sort()).toEqual(fields.sort());
  });

  it('query keys nest under segmentationKeys.all', () => {
    for (const key of [segmentationKeys.definitions, segmentationKeys.types, segmentationKeys.values('customer_segment', 'att1', 'go')]) {
      expect(key.slice(0, segmentationKeys.all.length)).toEqual(segmentationKeys.all);
    }
  });
});

describe('segmentation service transport', () => {
  it('posts the operation with the bearer token and answers the data', async () => {
    tokenStore.set('jwt-token');
    const definition = { id: 'sgm1', name: 'Size' };
    const { fetch, requests, bodies } = fakeFetch(() => answer({ data: { segmentation_definitions: [definition] } }));
    const service = createSegmentationService(createGraphqlClient({ endpoint, fetch }));
    expect(await service.definitions()).toEqual([definition]);
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.url).toBe(endpoint);
    expect(requests[0]?.headers.get('Authorization')).toBe('Bearer jwt-token');
    expect(bodies[0]?.query).toContain('segmentation_definitions');
  });

  it('sends the variables of values, create, update and remove', async () => {
    const { fetch, bodies } = fakeFetch((body) => {
      if (body.query.includes('segmenter_values')) return answer({ data: { segmenter_values: ['a'] } });
      if (body.query.includes('delete_segmentation')) return answer({ data: { delete_segmentation: 'sgm1' } });
      return answer({ data: { create_segmentation: { id: 'sgm1' }, update_segmentation: { id: 'sgm1' } } });
    });
    const service = createSegmentationService(createGraphqlClient({ endpoint, fetch }));
    const input = { name: 'Size', type_name: 'customer_segment' as const, segment_id: 'att1', buckets: [{ name: '> -1', from: 0, to: null }] };
    expect(await service.values('customer_segment', 'att1', 'go')).toEqual(['a']);
    await service.create(input);
    await service.update('sgm1', input);
    await expect(service.remove('sgm1')).resolves.toBeUndefined();
    expect(bodies.map((body) => body.variables)).toEqual([{ type_name: 'customer_segment', segment_id: 'att1', query: 'go' }, { input }, { id: 'sgm1', input }, { id: 'sgm1' }]);
  });

  it('fails with the status and the server’s detail (a 422 delete shows it)', async () => {
    const detail = "Segmentation is used by a share link of report 'Investors'. Delete the share link first.";
    const { fetch } = fakeFetch(() => answer({ data: null, errors: [{ message: detail, detail, status: '422' }] }, 422));
    const service = createSegmentationService(createGraphqlClient({ endpoint, fetch }));
    const error = await service.remove('sgm1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphqlCallError);
    expect(error).toMatchObject({ status: 422, detail });
  });

  it('reports a 401 to the unauthorized handler, like the REST client', async () => {
    const events: UnauthorizedEvent[] = [];
    setUnauthorizedHandler((event) => events.push(event));
    const { fetch } = fakeFetch(() => answer({ errors: [{ detail: 'You need to sign in or sign up before continuing.', status: '401' }] }, 401));
    const service = createSegmentationService(createGraphqlClient({ endpoint, fetch }));
    await expect(service.types()).rejects.toMatchObject({ status: 401 });
    expect(events).toHaveLength(1);
    expect(events[0]?.response.status).toBe(401);
  });

  it('a network failure is a GraphqlCallError with status 0', async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const service = createSegmentationService(createGraphqlClient({ endpoint, fetch }));
    await expect(service.definitions()).rejects.toMatchObject({ name: 'GraphqlCallError', status: 0, detail: null });
  });
});
