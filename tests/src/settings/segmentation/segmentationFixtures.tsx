import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { QueryClient } from '@tanstack/react-query';
import type { SegmentationDefinition, SegmentationInput, SegmenterTypeInfo } from '../../../../models/segmentation';
import { createGraphqlClient, createSegmentationService, SegmentationServiceProvider } from '../../../../src/api/graphql';
import { SegmentationSection } from '../../../../src/settings/segmentation/SegmentationSection';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';
import type { FakeApi } from '../../support/fakeApi';

/**
 * The segmentation definitions service faked at the fetch level: the app's own GraphQL client
 * (graphql-request) posts to a fake endpoint that answers each operation by name, records it,
 * and can hold an answer until the test releases it.
 */

export const GRAPHQL_URL = 'http://localhost/api/v11/graphql';
export const FAKE_TOKEN = 'graphql.test.token';

export type OperationName = 'SegmentationDefinitions' | 'SegmenterTypes' | 'SegmenterValues' | 'CreateSegmentation' | 'UpdateSegmentation' | 'DeleteSegmentation';

export interface GraphqlCall {
  operationName: OperationName;
  variables: Record<string, unknown>;
  headers: Headers;
}

/** An answer: status 200 with data, or a failure with the server's error items. */
export interface GraphqlAnswer {
  status: number;
  body: unknown;
}

export type GraphqlHandler = (call: GraphqlCall) => GraphqlAnswer | Promise<GraphqlAnswer>;

export const ok = (data: unknown): GraphqlAnswer => ({ status: 200, body: { data } });
/** An ApiError as the GraphQL endpoint answers it (contract: status, data null, errors with detail and pointer). */
export const refused = (status: number, ...items: { pointer?: string; detail: string }[]): GraphqlAnswer => ({
  status,
  body: { data: null, errors: items.map(({ pointer, detail }) => ({ message: detail, detail, status, ...(pointer ? { source: { pointer } } : {}) })) },
});

export interface FakeGraphql {
  calls: GraphqlCall[];
  on(operation: OperationName, handler: GraphqlHandler): void;
  callsOf(operation: OperationName): GraphqlCall[];
  hold(operation: OperationName): void;
  release(operation: OperationName, answer: GraphqlAnswer): void;
  fetch(request: Request): Promise<Response>;
}

export function createFakeGraphql(handlers: Partial<Record<OperationName, GraphqlHandler>> = {}): FakeGraphql {
  const routes = new Map<OperationName, GraphqlHandler>(Object.entries(handlers) as [OperationName, GraphqlHandler][]);
  const held = new Map<OperationName, ((answer: GraphqlAnswer) => void)[]>();
  const calls: GraphqlCall[] = [];
  return {
    calls,
    on(operation, handler) {
      routes.set(operation, handler);
    },
    callsOf(operation) {
      return calls.filter((call) => call.operationName === operation);
    },
    hold(operation) {
      routes.set(operation, () => new Promise<GraphqlAnswer>((resolve) => held.set(operation, [...(held.get(operation) ?? []), resolve])));
    },
    release(operation, answer) {
      const [first, ...rest] = held.get(operation) ?? [];
      if (!first) throw new Error(`No ${operation} call is waiting`);
      held.set(operation, rest);
      first(answer);
    },
    async fetch(request) {
      request.signal.throwIfAborted();
      if (request.url !== GRAPHQL_URL || request.method !== 'POST') return new Response('not found', { status: 404 });
      const body = (await request.json()) as { operationName?: OperationName; variables?: Record<string, unknown> };
      const operationName = body.operationName as OperationName;
      const call: GraphqlCall = { operationName, variables: body.variables ?? {}, headers: request.headers };
      calls.push(call);
      const handler = routes.get(operationName);
      const answer = handler ? await handler(call) : refused(500, { detail: `No fake answer for ${operationName}` });
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': 'application/json' } });
    },
  };
}

// ------------------------------------------------------------------ the account

export const PLAN: SegmenterTypeInfo = { name: 'customer_segment', segment_id: 'attr_plan', label: 'Plan', group_label: 'Customer attributes', allowed_configuration: ['mappings', 'buckets'] };
export const EMPLOYEES: SegmenterTypeInfo = { name: 'customer_segment', segment_id: 'attr_employees', label: 'Employees', group_label: 'Customer attributes', allowed_configuration: ['mappings', 'buckets'] };
export const PRODUCT: SegmenterTypeInfo = { name: 'subscription_segment', segment_id: 'product', label: 'Product', group_label: 'Payment attributes', allowed_configuration: ['products'] };
export const CURRENCY: SegmenterTypeInfo = { name: 'subscription_segment', segment_id: 'currency', label: 'Currency', group_label: 'Payment attributes', allowed_configuration: ['mappings'] };
export const TYPES = [PLAN, EMPLOYEES, PRODUCT, CURRENCY];

const stamp = '2026-03-01T10:00:00.000Z';

export function definition(overrides: Partial<SegmentationDefinition> & Pick<SegmentationDefinition, 'id' | 'name'>): SegmentationDefinition {
  return { type_name: 'customer_segment', segment_id: PLAN.segment_id, allowed_configuration: ['mappings', 'buckets'], mappings: [], buckets: [], products: [], created_at: stamp, updated_at: stamp, ...overrides };
}

export const COMPANY_SIZE = definition({
  id: 'seg_size',
  name: 'Company size',
  segment_id: EMPLOYEES.segment_id,
  buckets: [
    { name: 'Small', from: 0, to: 49 },
    { name: '50 - 199', from: 50, to: 199 },
    { name: '> 199', from: 200, to: null },
  ],
});
export const PLAN_GROUPS = definition({
  id: 'seg_plan',
  name: 'Plan groups',
  mappings: [
    { value: 'gold', name: 'Premium' },
    { value: 'platinum', name: 'Premium' },
    { value: 'free', name: 'Free' },
  ],
});
export const FLAGSHIPS = definition({ id: 'seg_products', name: 'Flagship products', type_name: 'subscription_segment', segment_id: 'product', allowed_configuration: ['products'], products: ['pro', 'team'] });

/** The values of each attribute (what SegmenterValues searches). */
export const VALUES: Record<string, string[]> = {
  attr_plan: ['free', 'gold', 'platinum', 'starter'],
  currency: ['EUR', 'PLN', 'USD'],
};

/** A service over `definitions` that stores creates, updates and deletes as the server would. */
export function accountGraphql(definitions: SegmentationDefinition[] = [COMPANY_SIZE, PLAN_GROUPS, FLAGSHIPS]): FakeGraphql {
  let stored = [...definitions];
  const saved = (id: string, input: SegmentationInput): SegmentationDefinition => {
    const type = TYPES.find((candidate) => candidate.name === input.type_name && candidate.segment_id === input.segment_id);
    return definition({ id, ...input, allowed_configuration: type?.allowed_configuration ?? [], mappings: input.mappings ?? [], buckets: input.buckets ?? [], products: input.products ?? [] });
  };
  const byName = () => [...stored].sort((a, b) => a.name.localeCompare(b.name));
  return createFakeGraphql({
    SegmentationDefinitions: () => ok({ segmentation_definitions: byName() }),
    SegmenterTypes: () => ok({ segmenter_types: TYPES }),
    SegmenterValues: ({ variables }) => {
      const query = String(variables.query ?? '').toLowerCase();
      return ok({ segmenter_values: (VALUES[String(variables.segment_id)] ?? []).filter((value) => value.toLowerCase().includes(query)) });
    },
    CreateSegmentation: ({ variables }) => {
      const created = saved(`seg_${stored.length + 1}`, variables.input as SegmentationInput);
      stored = [...stored, created];
      return ok({ create_segmentation: created });
    },
    UpdateSegmentation: ({ variables }) => {
      const updated = saved(String(variables.id), variables.input as SegmentationInput);
      stored = stored.map((item) => (item.id === updated.id ? updated : item));
      return ok({ update_segmentation: updated });
    },
    DeleteSegmentation: ({ variables }) => {
      stored = stored.filter((item) => item.id !== variables.id);
      return ok({ delete_segmentation: variables.id });
    },
  });
}

/** The REST calls of the drawer (product search). */
export function restApi(): FakeApi {
  const api = defaultFakeApi(fullAccessUser);
  const products = [
    { key: 'pro', name: 'Pro plan' },
    { key: 'team', name: 'Team plan' },
    { key: 'starter', name: 'Starter plan' },
  ];
  api.on('GET /product/search', () => ({ status: 200, body: { items: products } }));
  return api;
}

interface RenderOptions {
  graphql?: FakeGraphql;
  api?: FakeApi;
  queryClient?: QueryClient;
}

/** The Segmentation section over the fake service, as a signed-in full user sees it. */
export function renderSection({ graphql = accountGraphql(), api = restApi(), queryClient }: RenderOptions = {}) {
  const service = createSegmentationService(createGraphqlClient({ endpoint: GRAPHQL_URL, fetch: (request) => graphql.fetch(request), tokens: { get: () => FAKE_TOKEN } }));
  const view = renderWithProviders(
    <SegmentationServiceProvider service={service}>
      <SegmentationSection />
    </SegmentationServiceProvider>,
    { user: fullAccessUser, api, ...(queryClient ? { queryClient } : {}) },
  );
  return { ...view, graphql, user: userEvent.setup({ delay: null }) };
}

export type User = ReturnType<typeof userEvent.setup>;

export const card = (name: string) => within(screen.getByRole('listitem', { name }));
export const drawer = (title: string) => within(screen.getByRole('dialog', { name: title }));

/** Picks an option of a Select (or MultiSelect) in `scope`. */
export async function choose(user: User, scope: ReturnType<typeof within>, label: string, option: string) {
  await user.click(scope.getByRole('combobox', { name: label }));
  await user.click(await screen.findByRole('option', { name: option }));
}
