import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CUSTOM_VALUES, FILTER_OBJECTS, normalizedConfig } from '../../models/customSections';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import type { Resolution } from '../db/schema';
import { ApiError } from '../http/errors';
import type { SectionResult } from '../metrics/definitions/types';
import { canEdit } from '../reports/access';
import { accountConfigProblems, customFieldsOf, possibleValues, UNKNOWN_FIELD_ID } from '../reports/customSections';
import { customPreviewRequest, REPORT_NOT_FOUND } from '../reports/reports';
import { PeriodResultSchema, SegmentSchema } from './businessReports';

/**
 * Custom sections (docs/custom-sections.md): what a series can show, group and filter by in the
 * caller's account (`GET /user_filtered_config`), a field's values
 * (`GET /user_filtered_config/possible_values`), and the editor's live preview of a config in a
 * report (`POST /business_report/{reportId}/sections/preview`), computed by the same engine as
 * the report. Saving is `POST /business_report/{reportId}/sections` and
 * `PUT /business_report/sections/{id}` with `definition_id` 'user_filtered' (reportSections.ts).
 */

export const NOT_PREVIEWABLE = 'You are not allowed to change this report';

const ArgumentSchema = Type.Object({
  name: Type.String(),
  label: Type.String(),
  type: Type.Literal('number'),
  min: Type.Integer(),
  max: Type.Integer(),
  default: Type.Integer(),
  description: Type.String(),
});

const ValueSchema = Type.Object({
  object: Type.String({ description: 'payments, customers or costs' }),
  attribute: Type.String(),
  label: Type.String(),
  unit: Type.String({ description: 'money (minor units of the report currency), count or units' }),
  arguments: Type.Array(ArgumentSchema),
});

const FieldSchema = Type.Object({
  object: Type.String({ description: 'customer, payment or cost' }),
  field: Type.String({ description: 'customer: segment, segmentation, deal_owner; payment: product, item_type, currency, attribute, segmentation; cost: attribute, segmentation' }),
  field_id: Type.Union([Type.String(), Type.Null()], { description: 'The attribute (customer segment), payment or cost attribute, or segmentation; null for the others' }),
  name: Type.String(),
  operators: Type.Array(Type.String(), { description: 'eq, in, and for customer attributes in_reporting_month' }),
  groupable: Type.Boolean({ description: 'It can split a series' }),
  filterable: Type.Boolean({ description: 'It can filter a series' }),
});

export const customSectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  async function fields(accountId: string) {
    const definitions = await app.metrics.sectionDefinitions(accountId);
    return { definitions, fields: customFieldsOf(definitions) };
  }

  app.get(
    '/user_filtered_config',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getUserFilteredConfig',
        summary: 'What a custom section’s series can show (values), and group or filter by in the caller’s account (filters)',
        security: BEARER,
        response: { 200: Type.Object({ values: Type.Array(ValueSchema), filters: Type.Array(FieldSchema) }), ...errorResponses(401) },
      },
    },
    async (request) => {
      const { fields: found } = await fields(authOf(request).accountId);
      return {
        values: CUSTOM_VALUES.map((value) => ({ ...value, arguments: [...value.arguments] })),
        filters: found.map(({ segmenter_id: _segmenter, segmenter_type: _type, ...rest }) => rest),
      };
    },
  );

  app.get(
    '/user_filtered_config/possible_values',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getUserFilteredPossibleValues',
        summary: 'The values a field of GET /user_filtered_config takes in the caller’s account (at most 1,000, sorted)',
        security: BEARER,
        querystring: Type.Object(
          {
            object: Type.Union(FILTER_OBJECTS.map((object) => Type.Literal(object))),
            field: Type.String({ minLength: 1, maxLength: 40 }),
            field_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Type.Object({ value: Type.String() })) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { fields: found } = await fields(accountId);
      const values = await possibleValues(db, accountId, found, request.query);
      if (values === undefined) throw ApiError.of(404, UNKNOWN_FIELD_ID);
      return { items: values.map((value) => ({ value })) };
    },
  );

  app.post(
    '/business_report/:reportId/sections/preview',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'previewCustomSection',
        summary: 'Computes a custom section’s config in the report (its range, settings and view filter) without saving it: the editor’s live preview',
        security: BEARER,
        params: Type.Object({ reportId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object(
          {
            config: Type.Unknown({ description: '{groups, series} (docs/custom-sections.md)' }),
            resolution: Type.Optional(Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ unit: Type.String(), currency: Type.String(), periods: Type.Array(PeriodResultSchema), segments: Type.Array(SegmentSchema) }),
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { definitions, fields: found } = await fields(accountId);
      const problems = accountConfigProblems(request.body.config, found, definitions);
      const base = await customPreviewRequest(db, accountId, request.params.reportId, problems.length === 0 ? normalizedConfig(request.body.config) : { groups: [], series: [] }, (request.body.resolution ?? 'month') as Resolution);
      if (!base) throw ApiError.of(404, REPORT_NOT_FOUND);
      if (!canEdit(request, accountId)) throw ApiError.of(403, NOT_PREVIEWABLE);
      if (problems.length > 0) throw new ApiError(422, problems.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })));
      const [result] = (await app.metrics.sections(accountId, [base])) as SectionResult[];
      if (!result) throw ApiError.of(404, REPORT_NOT_FOUND);
      return { unit: result.unit, currency: result.currency, periods: result.periods, segments: result.segments };
    },
  );
};
