import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { deleteCustomer, mergeCustomers, updateCustomer } from '../customers/changes';
import { customerRows, CustomerRowSchema } from '../customers/rows';
import { CustomerId, IdParams, NAME_MAX, Text, VALUE_MAX } from '../customers/schemas';
import { ApiError } from '../http/errors';
import { CUSTOMER_NOT_FOUND } from './customerMetrics';

/**
 * The customer drawer's actions (first spec document 3, 5; second document 2; docs/customers.md
 * "Changes"): `PUT /customers/{id}` (name, parent, exclusion from the numbers, attribute values
 * now), `DELETE /customers/{id}` and `POST /customers/{id}/merge`. Each changes the account's
 * numbers: its reports turn stale and the latest recalculate. For the full users of the
 * account; another account's customer (in the path or the body) is 404.
 */

/** Attribute values one PUT sets at most. */
export const SEGMENTS_MAX = 100;

export const customerChangesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  async function answerRow(accountId: string, id: string) {
    const [row] = await customerRows(app, accountId, [id]);
    if (!row) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
    return row;
  }

  app.put(
    '/customers/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'updateCustomer',
        summary: 'Renames a customer, sets or removes its parent, excludes it from the numbers or sets attribute values now',
        description:
          'A parent must be a customer of the account (else 404), not the customer itself nor one of its descendants, and a customer with children cannot have a parent (422). `segments` name attributes by name; a time-sensitive one gets the value from this month on.',
        security: BEARER,
        params: IdParams,
        body: Type.Object({
          name: Type.Optional(Text(NAME_MAX, { description: 'Not blank' })),
          parent_id: Type.Optional(Type.Union([CustomerId(), Type.Null()], { description: 'The new parent; null removes the parent' })),
          include_in_calculations_by_default: Type.Optional(Type.Boolean({ description: 'False leaves the customer (and its children) out of every number' })),
          segments: Type.Optional(
            Type.Array(Type.Object({ name: Text(NAME_MAX, { minLength: 1 }), value: Type.Union([Text(VALUE_MAX), Type.Null()]) }), { maxItems: SEGMENTS_MAX, description: 'Attribute values to set now, by attribute name' }),
          ),
        }),
        response: { 200: CustomerRowSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await updateCustomer(app, accountId, request.params.id, request.body);
      return answerRow(accountId, request.params.id);
    },
  );

  app.delete(
    '/customers/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'deleteCustomer',
        summary: 'Deletes a customer: it leaves every list and number (its payments are deleted); its children lose their parent',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteCustomer(app, authOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/customers/:id/merge',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'mergeCustomer',
        summary: 'Merges another customer into this one: its payments, attribute values, children and links move here and it is deleted',
        security: BEARER,
        params: IdParams,
        body: Type.Object({ source_id: CustomerId('The customer merged into this one (deleted after)') }),
        response: { 200: CustomerRowSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await mergeCustomers(app, accountId, request.params.id, request.body.source_id);
      return answerRow(accountId, request.params.id);
    },
  );
};
