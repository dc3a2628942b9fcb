import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COST_ID_INVALID, COST_ID_PATTERN, COST_TEXT_MAX } from '../../models/costs';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { COSTS_PAGE_DEFAULT, COSTS_PAGE_MAX, deleteCost, listCosts, upsertCost } from '../costs/costs';
import { ApiError } from '../http/errors';

/**
 * Costs (second spec document: the Costs page; docs/costs.md): the paged list, create (the
 * server names it), create-or-replace under a client's id, delete. Money is in minor units of
 * the cost's currency, days are YYYY-MM-DD. Every write moves the account's numbers: its
 * reports turn stale and the latest recalculate. For the full users of the account; another
 * account's cost is 404.
 */

const Day = (description: string) => Type.String({ maxLength: 64, description });
const OptionalText = (description: string) => Type.Optional(Type.Union([Type.String({ maxLength: COST_TEXT_MAX * 4 }), Type.Null()], { description }));

export const CostSchema = Type.Object({
  id: Type.String({ description: "'cost' + 12 letters or digits" }),
  name: Type.Union([Type.String(), Type.Null()]),
  value: Type.Integer({ description: 'Minor units of `currency`' }),
  currency: Type.String({ description: 'ISO 4217' }),
  date: Type.String({ format: 'date' }),
  due_date: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  invoice_number: Type.Union([Type.String(), Type.Null()]),
  segments: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), value: Type.Union([Type.String(), Type.Null()]) }), {
    description: 'Every cost attribute of the account with this cost’s value (null: none)',
  }),
  source: Type.String({ description: "'manual' (typed) or 'csv' (imported)" }),
});

const CostBodySchema = Type.Object({
  // Any JSON here (not number | null, which Ajv's type coercion would turn 0 into null or null into 0): the rule below words the refusal.
  value: Type.Optional(Type.Unknown({ description: "Minor units, a whole number >= 0 (else 'Should be a number ex. 1200.20'); missing or null: 'Cost value is required'" })),
  currency: Type.Optional(Type.Union([Type.String({ maxLength: 16 }), Type.Null()], { description: 'ISO 4217 (any case); one the server knows' })),
  date: Type.Optional(Type.Union([Day("YYYY-MM-DD; missing: 'Date is required'"), Type.Null()])),
  due_date: Type.Optional(Type.Union([Day('YYYY-MM-DD'), Type.Null()])),
  invoice_number: OptionalText('Blank is none'),
  name: OptionalText('Blank is none'),
  segments: Type.Optional(
    Type.Array(Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), value: Type.Union([Type.String({ maxLength: COST_TEXT_MAX * 4 }), Type.Null()]) }), {
      maxItems: 200,
      description: 'Cost attribute values (object attributes of object `cost`): the cost’s values become the listed non-empty ones; null or blank is no value',
    }),
  ),
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const costRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/costs',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['costs'],
        operationId: 'listCosts',
        summary: 'The account’s costs, a page at a time',
        description: '`sort_by` is `date` or `value`, then `:asc` or `:desc` (default `date:desc`); ties by id. `next` is the cursor the previous page gave.',
        security: BEARER,
        querystring: Type.Object({
          sort_by: Type.Optional(Type.Union(['date:desc', 'date:asc', 'value:desc', 'value:asc'].map((value) => Type.Literal(value)), { default: 'date:desc' })),
          next: Type.Optional(Type.String({ maxLength: 1000 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: COSTS_PAGE_MAX, default: COSTS_PAGE_DEFAULT })),
        }),
        response: { 200: Type.Object({ items: Type.Array(CostSchema), next: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => listCosts(db, authOf(request).accountId, { sort: request.query.sort_by, next: request.query.next, limit: request.query.limit }),
  );

  app.post(
    '/costs',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['costs'],
        operationId: 'createCost',
        summary: 'Adds a cost (the server names it)',
        description: "422 with the form's messages: 'Cost value is required', 'Should be a number ex. 1200.20', 'Date is required'. An attribute id the account has not (object cost) is 404.",
        security: BEARER,
        body: CostBodySchema,
        response: { 201: CostSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await upsertCost(app, authOf(request).accountId, null, request.body)),
  );

  app.put(
    '/costs/upsert/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['costs'],
        operationId: 'upsertCost',
        summary: 'Creates the cost of this id, or replaces it',
        description:
          "The id is the client's: 'cost' + 12 letters or digits (any other id is 404 at /params/id, as no cost can have it). Another account's cost id is 404. Omitted optional fields become null; `segments`, when given, replace the cost's attribute values.",
        security: BEARER,
        params: IdParams,
        body: CostBodySchema,
        response: { 200: CostSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      // No cost can have such an id: like any id the account has no cost of, 404 (what another tenant's ids of every kind get).
      if (!COST_ID_PATTERN.test(request.params.id)) throw ApiError.of(404, COST_ID_INVALID, '/params/id');
      return upsertCost(app, authOf(request).accountId, request.params.id, request.body);
    },
  );

  app.delete(
    '/costs/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['costs'],
        operationId: 'deleteCost',
        summary: 'Deletes a cost and its attribute values',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteCost(app, authOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
