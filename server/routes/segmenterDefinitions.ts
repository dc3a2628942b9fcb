import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { createSegmentation, deleteSegmentation, getSegmentation, listSegmentations, segmenterTypes, updateSegmentation } from '../segmentation/definitions';
import type { SegmentationInput, SegmenterTypeName } from '../../models/segmentation';

/**
 * Segmenter definitions (spec: Settings, segmentation): the account's segmentations over REST.
 * The same service answers GraphQL at /graphql. Full users of the account only; another
 * account's id is 404.
 */

const TypeNameSchema = Type.Union([Type.Literal('customer_segment'), Type.Literal('subscription_segment'), Type.Literal('cost_segment')]);
const ConfigurationSchema = Type.Union([Type.Literal('mappings'), Type.Literal('buckets'), Type.Literal('products')]);
const Text = (description?: string) => Type.String({ maxLength: 255, ...(description ? { description } : {}) });

const MappingSchema = Type.Object({ value: Text('A raw value of the attribute'), name: Text('The segment it is counted in') }, { additionalProperties: false });
const BucketSchema = Type.Object(
  {
    name: Text(),
    from: Type.Number({ description: 'Whole number: 0 for the first bucket, the previous bucket’s `to` + 1 for the next' }),
    // One schema with both types: the API coerces types, and in a union null would turn into 0 (or 0 into null).
    to: Type.Unsafe<number | null>({ type: ['number', 'null'], description: 'Whole number not below `from`; null (up to infinity) for the last bucket only' }),
  },
  { additionalProperties: false },
);

export const SegmenterTypeSchema = Type.Object({
  name: TypeNameSchema,
  label: Type.String(),
  group_label: Type.String({ description: 'Customer attributes, Payment attributes or Cost attributes' }),
  segment_id: Type.String({ description: 'The custom attribute’s id, or product, currency or item_type for the payment built-ins' }),
  allowed_configuration: Type.Array(ConfigurationSchema),
});

export const SegmentationDefinitionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type_name: TypeNameSchema,
  segment_id: Type.String(),
  allowed_configuration: Type.Array(ConfigurationSchema),
  mappings: Type.Array(MappingSchema),
  buckets: Type.Array(BucketSchema),
  products: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const SegmentationInputSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 1000, description: 'At least 3 characters (trimmed), at most 100' })),
    type_name: Type.Optional(Type.String({ maxLength: 64, description: 'customer_segment, subscription_segment or cost_segment: with segment_id, one of GET /segmenter_definitions/types' })),
    segment_id: Type.Optional(Type.String({ maxLength: 64 })),
    mappings: Type.Optional(Type.Array(MappingSchema, { maxItems: 1000, description: 'When the type allows mappings: raw value -> segment name; a value in no mapping is counted in Other' })),
    buckets: Type.Optional(
      Type.Array(BucketSchema, { maxItems: 100, description: 'When the type allows buckets: contiguous whole-number ranges from 0, the last one open; a value outside every bucket (or not a number) is counted in Other' }),
    ),
    products: Type.Optional(Type.Array(Text(), { maxItems: 1000, description: 'When the type allows products (at least one): a segment per product, the rest in Other' })),
  },
  { additionalProperties: false },
);

type InputBody = Static<typeof SegmentationInputSchema>;

/** The body as the service's input: absent fields blank (the service answers 422 for them). */
const inputOf = (body: InputBody): SegmentationInput => ({
  ...body,
  name: body.name ?? '',
  // Checked against the account's types: an unknown name is 422 'Attribute is required'.
  type_name: (body.type_name ?? '') as SegmenterTypeName,
  segment_id: body.segment_id ?? '',
});

const VALIDATION =
  "422 at the field: /name 'Name is required' or 'At least 3 characters required'; /segment_id 'Attribute is required' (no type of this account); " +
  "/products 'You must select a product to create this segmentation'; /mappings/{k}/value and /mappings/{k}/name 'Required'; " +
  "/buckets/{k}/to 'Required', 'Value should be a number ex. 1200' or 'Max value can not be smaller than its min value'; /buckets/{k}/from when the buckets are not contiguous.";

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const segmenterDefinitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/segmenter_definitions/types',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'listSegmenterTypes',
        summary: 'What a segmentation can group: one type per custom attribute, and the payment built-ins (product, currency, item type)',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(SegmenterTypeSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: await segmenterTypes(db, authOf(request).accountId) }),
  );

  app.get(
    '/segmenter_definitions',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'listSegmenterDefinitions',
        summary: 'The account’s segmentations, by name',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(SegmentationDefinitionSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: await listSegmentations(db, authOf(request).accountId) }),
  );

  app.get(
    '/segmenter_definitions/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'getSegmenterDefinition',
        summary: 'One segmentation',
        security: BEARER,
        params: IdParams,
        response: { 200: SegmentationDefinitionSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getSegmentation(db, authOf(request).accountId, request.params.id),
  );

  app.post(
    '/segmenter_definitions',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'createSegmenterDefinition',
        summary: 'Adds a segmentation; sections can then be split by its id',
        description: `Configurations the type does not allow are ignored. ${VALIDATION}`,
        security: BEARER,
        body: SegmentationInputSchema,
        response: { 201: SegmentationDefinitionSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const created = await createSegmentation(app, authOf(request).accountId, inputOf(request.body));
      return reply.code(201).send(created);
    },
  );

  app.put(
    '/segmenter_definitions/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'updateSegmenterDefinition',
        summary: 'Replaces a segmentation; reports split by it are recalculated',
        description: VALIDATION,
        security: BEARER,
        params: IdParams,
        body: SegmentationInputSchema,
        response: { 200: SegmentationDefinitionSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => updateSegmentation(app, authOf(request).accountId, request.params.id, inputOf(request.body)),
  );

  app.delete(
    '/segmenter_definitions/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['segmentation'],
        operationId: 'deleteSegmenterDefinition',
        summary: 'Deletes a segmentation',
        description: 'Refused with 422 (a `detail` to show) while a share link pins one of its segments. Sections split by it lose that segment; those reports are recalculated.',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await deleteSegmentation(app, authOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
