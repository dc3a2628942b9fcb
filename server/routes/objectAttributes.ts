import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { createAttribute, deleteAttribute, listAttributes, renameAttribute } from '../segmentation/attributes';
import { ATTRIBUTE_NAME_MAX_LENGTH } from '../../models/attributes';

/**
 * Custom attributes (spec: Settings, custom attributes): named fields of customers, payments
 * (subscription histories) or costs. Full users of the account list, add, rename and delete
 * them; another account's id is 404.
 */

const AttributeObjectSchema = Type.Union([Type.Literal('customer'), Type.Literal('subscription_history'), Type.Literal('cost')], {
  description: 'customer, subscription_history (a payment attribute) or cost',
});

// Longer than the rule allows, so a long name is the rule's 422, not a schema 400.
const NameSchema = Type.String({ maxLength: ATTRIBUTE_NAME_MAX_LENGTH * 10, description: `Not blank, at most ${ATTRIBUTE_NAME_MAX_LENGTH} characters (trimmed); unique per object, case-insensitively` });

export const ObjectAttributeSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  object: AttributeObjectSchema,
  segment_id: Type.Union([Type.String(), Type.Null()], { description: 'The customer segment of a customer attribute (what the values import and the customer drawer name); null for payment and cost attributes' }),
  created_at: Type.String({ format: 'date-time' }),
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const objectAttributeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/object_attributes',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['attributes'],
        operationId: 'listObjectAttributes',
        summary: 'The account’s custom attributes, by object (customer, payment, cost) then name',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(ObjectAttributeSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: await listAttributes(db, authOf(request).accountId) }),
  );

  app.post(
    '/object_attributes',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['attributes'],
        operationId: 'createObjectAttribute',
        summary: 'Adds a custom attribute (a customer attribute also gets its customer segment)',
        description: "A blank name is 422 'Name is required' at /name; a name another attribute of the same object has (case-insensitively) is 422 'An attribute with this name already exists'.",
        security: BEARER,
        body: Type.Object({ name: NameSchema, object: AttributeObjectSchema }, { additionalProperties: false }),
        response: { 201: ObjectAttributeSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const attribute = await createAttribute(app, authOf(request).accountId, request.body);
      return reply.code(201).send(attribute);
    },
  );

  app.put(
    '/object_attributes/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['attributes'],
        operationId: 'renameObjectAttribute',
        summary: 'Renames a custom attribute (and its customer segment); reports split by it are recalculated',
        description: 'The same 422s as creating one.',
        security: BEARER,
        params: IdParams,
        body: Type.Object({ name: NameSchema }, { additionalProperties: false }),
        response: { 200: ObjectAttributeSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => renameAttribute(app, authOf(request).accountId, request.params.id, request.body),
  );

  app.delete(
    '/object_attributes/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['attributes'],
        operationId: 'deleteObjectAttribute',
        summary: 'Deletes a custom attribute with its values',
        description:
          'Refused with 422 (a `detail` to show) while a segmentation groups the attribute or a share link pins one of its values. ' +
          'Sections split by it lose that segment and view filters their items about it; those reports are recalculated.',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await deleteAttribute(app, authOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
