import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import type { DataCategory, Resolution, SectionDataType } from '../db/schema';
import { ApiError, type ApiErrorEntry } from '../http/errors';
import { TOTAL_NAME, TOTAL_SEGMENTER_ID, type SectionDefinitionItem } from '../metrics/definitions/segmenters';
import { canEdit } from '../reports/access';
import { accountConfigProblems, customFieldsOf, customSegmentIds, readableConfig } from '../reports/customSections';
import { CUSTOM_SECTION_CHOICES, USER_FILTERED_DEFINITION_ID, normalizedConfig, type CustomSectionConfig } from '../../models/customSections';
import { REPORT_NOT_FOUND, reportExists, SECTION_NOT_FOUND } from '../reports/reports';
import {
  addSection,
  computedSegment,
  deleteSection,
  deleteSectionSegment,
  findSection,
  sectionCount,
  updateSection,
  type SectionChange,
  type SectionRow,
} from '../reports/sections';

/**
 * Section editing (second spec document, sections 4, 6, 7): add a chart to a report, change a
 * section (title, description, position, chart type with hierarchy and resolution, data
 * category, segments), remove a segment, expand a segment, delete a section. The report's
 * editors only (`can_edit`: a full user of its account; other users of the account 403, another
 * account's section or report 404, no token 401). A change that alters the numbers (a new
 * section, its segments, chart type, hierarchy, resolution, data category) starts a
 * recalculation of the report.
 */

export const SEGMENT_NOT_FOUND = 'Segment not found';
export const UNKNOWN_DEFINITION = 'There is no chart of this kind';
export const UNAVAILABLE_DEFINITION = 'This chart is not available for your account';
export const UNKNOWN_SEGMENT = 'This chart cannot be split by this segment';
export const UNSUPPORTED_DATA_TYPE = 'This chart cannot be shown this way';
export const UNSUPPORTED_RESOLUTION = 'This chart does not support this resolution';
export const UNSUPPORTED_DATA_CATEGORY = 'This chart does not support this data category';
export const POSITION_OUT_OF_RANGE = 'There is no such position in this report';
export const NOT_EDITABLE = 'You are not allowed to change this report';
export const NOTHING_TO_CHANGE = 'Nothing to change';

const DataTypeSchema = Type.Union([Type.Literal('line_chart'), Type.Literal('bar_chart'), Type.Literal('stacked_bar_chart'), Type.Literal('cohort')]);
const ResolutionSchema = Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')]);
const DataCategorySchema = Type.Union([
  Type.Literal('values'),
  Type.Literal('counts'),
  Type.Literal('units'),
  Type.Literal('month_over_month_growth'),
  Type.Literal('month_over_month_retention'),
  Type.Literal('moving_average3'),
]);
const SegmentIdsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description: 'Segmenter ids of the definition (`segmenters` of GET /business_report/section_definitions); the total is always shown' });

const SectionSettingsSchema = Type.Object({
  id: Type.String(),
  report_id: Type.String(),
  definition_id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  data_type: DataTypeSchema,
  use_hierarchy: Type.Boolean(),
  resolution: ResolutionSchema,
  position: Type.Integer(),
  data_categories: Type.Array(DataCategorySchema),
  segment_ids: Type.Array(Type.String()),
  recalculation_status: Type.Union([Type.Literal('recalculated'), Type.Literal('recalculating'), Type.Literal('failed')]),
});

const UpdateBody = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 200 })),
    summary: Type.Optional(Type.String({ maxLength: 10_000, description: 'The section’s description' })),
    position: Type.Optional(Type.Integer({ minimum: 0, description: '0 is the first section; the others shift to keep 0..n-1' })),
    data_type: Type.Optional(DataTypeSchema),
    use_hierarchy: Type.Optional(Type.Boolean()),
    resolution: Type.Optional(ResolutionSchema),
    data_categories: Type.Optional(Type.Array(DataCategorySchema, { minItems: 1, maxItems: 1, description: 'The data category shown (one)' })),
    segment_ids: Type.Optional(SegmentIdsSchema),
    definition_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "'user_filtered' with `config`: a custom section's new calculation" })),
    config: Type.Optional(Type.Unknown({ description: 'A custom section’s {groups, series} (docs/custom-sections.md); its groups become its segments' })),
  },
  {
    additionalProperties: false,
    description: 'One of: summary; title; position; data_type with use_hierarchy and resolution; data_categories; segment_ids; for a custom section definition_id user_filtered with config',
  },
);

const CreateBody = Type.Object(
  {
    definition_id: Type.String({ minLength: 1, maxLength: 100, description: "A catalogue definition, or 'user_filtered' for a custom section (with `config`)" }),
    segment_ids: Type.Optional(SegmentIdsSchema),
    config: Type.Optional(Type.Unknown({ description: 'A custom section’s {groups, series} (docs/custom-sections.md); its groups become its segments' })),
    title: Type.Optional(Type.String({ maxLength: 200, description: 'A custom section’s title (default: Custom section)' })),
  },
  { additionalProperties: false },
);

/** What a custom section can be: its charts, resolutions and data category. */
const CUSTOM_DATA_TYPES: readonly string[] = CUSTOM_SECTION_CHOICES.supported_data_types;
const CUSTOM_RESOLUTIONS: readonly string[] = CUSTOM_SECTION_CHOICES.supported_grouping_periods;
const CUSTOM_DATA_CATEGORIES: readonly string[] = CUSTOM_SECTION_CHOICES.data_categories;
export const NOT_CUSTOM = 'Only a custom section’s calculation can be edited';

const SectionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const SegmentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), segmentId: Type.String({ minLength: 1, maxLength: 200 }) });

const ExpandedSegmentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  is_total: Type.Boolean(),
  grouped_segment_names: Type.Array(Type.String(), { description: 'The segment values the segment groups (one series each), as last computed; empty until computed' }),
});

const settingsOf = (row: SectionRow): Static<typeof SectionSettingsSchema> => ({
  id: row.id,
  report_id: row.report_id,
  definition_id: row.definition_id,
  title: row.title,
  summary: row.summary,
  data_type: row.data_type,
  use_hierarchy: row.use_hierarchy,
  resolution: row.resolution,
  position: row.position,
  data_categories: row.data_categories,
  segment_ids: row.segment_ids,
  recalculation_status: row.recalculation_status,
});

type Entry = Omit<ApiErrorEntry, 'status'>;

/** 422 entries for segment ids the definition does not accept. */
function segmentProblems(definition: SectionDefinitionItem, segmentIds: readonly string[] | undefined, pointer: string): Entry[] {
  if (!segmentIds) return [];
  const known = new Set(definition.segmenters.map((s) => s.id));
  return segmentIds.flatMap((id, k) => (known.has(id) ? [] : [{ detail: UNKNOWN_SEGMENT, source: { pointer: `${pointer}/${k}` } }]));
}

export const reportSectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  const definitionOf = async (accountId: string, definitionId: string) => (await app.metrics.sectionDefinitions(accountId)).find((d) => d.id === definitionId);

  /** A custom section's config as sent, checked against the account and normalized; a 422 naming each problem's field otherwise. */
  async function checkedConfig(accountId: string, config: unknown): Promise<CustomSectionConfig> {
    const definitions = await app.metrics.sectionDefinitions(accountId);
    const problems = accountConfigProblems(config, customFieldsOf(definitions), definitions);
    if (problems.length > 0) throw new ApiError(422, problems.map((problem) => ({ detail: problem.detail, source: { pointer: problem.pointer } })));
    return normalizedConfig(config);
  }

  /** The caller's section, for one of the report's editors; another account's section is not found. */
  async function editableSection(request: FastifyRequest, sectionId: string): Promise<{ accountId: string; section: SectionRow }> {
    const { accountId } = authOf(request);
    const section = await findSection(db, accountId, sectionId);
    if (!section) throw ApiError.of(404, SECTION_NOT_FOUND);
    if (!canEdit(request, accountId)) throw ApiError.of(403, NOT_EDITABLE);
    return { accountId, section };
  }

  app.post(
    '/business_report/:reportId/sections',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'addReportSection',
        summary: 'Adds a chart at the end of the report and recalculates it',
        security: BEARER,
        params: Type.Object({ reportId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: CreateBody,
        response: { 201: SectionSettingsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      const { reportId } = request.params;
      if (!(await reportExists(db, accountId, reportId))) throw ApiError.of(404, REPORT_NOT_FOUND);
      if (!canEdit(request, accountId)) throw ApiError.of(403, NOT_EDITABLE);
      const { definition_id: definitionId, segment_ids: segmentIds = [] } = request.body;
      if (definitionId === USER_FILTERED_DEFINITION_ID) {
        const config = await checkedConfig(accountId, request.body.config);
        const id = await addSection(db, { accountId, reportId, definitionId, segmentIds: customSegmentIds(config), config, title: request.body.title?.trim() ?? '' });
        await app.reports.start(accountId, reportId);
        const created = await findSection(db, accountId, id);
        if (!created) throw ApiError.of(404, SECTION_NOT_FOUND);
        return reply.code(201).send(settingsOf(created));
      }
      if (request.body.config !== undefined) throw ApiError.of(422, NOT_CUSTOM, '/config');
      const definition = await definitionOf(accountId, definitionId);
      if (!definition) throw ApiError.of(422, UNKNOWN_DEFINITION, '/definition_id');
      if (!definition.available) throw ApiError.of(422, UNAVAILABLE_DEFINITION, '/definition_id');
      const problems = segmentProblems(definition, segmentIds, '/segment_ids');
      if (problems.length > 0) throw new ApiError(422, problems);
      const id = await addSection(db, { accountId, reportId, definitionId, segmentIds });
      await app.reports.start(accountId, reportId);
      const created = await findSection(db, accountId, id);
      if (!created) throw ApiError.of(404, SECTION_NOT_FOUND);
      return reply.code(201).send(settingsOf(created));
    },
  );

  app.put(
    '/business_report/sections/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'updateReportSection',
        summary: 'Changes a section: its title, description, position, chart type, data category or segments',
        description: 'A change of chart type, hierarchy, resolution, data category or segments recalculates the report.',
        security: BEARER,
        params: SectionParams,
        body: UpdateBody,
        response: { 200: SectionSettingsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId, section } = await editableSection(request, request.params.id);
      const { definition_id: definitionId, config: sentConfig, ...rest } = request.body;
      const change: SectionChange = rest;
      if (Object.keys(request.body).length === 0) throw ApiError.of(422, NOTHING_TO_CHANGE, '/');
      const problems: Entry[] = [];
      const custom = section.definition_id === USER_FILTERED_DEFINITION_ID;
      if (definitionId !== undefined && definitionId !== section.definition_id) throw ApiError.of(422, NOT_CUSTOM, '/definition_id');
      if (sentConfig !== undefined && !custom) throw ApiError.of(422, NOT_CUSTOM, '/config');
      if (custom && sentConfig !== undefined) {
        change.config = await checkedConfig(accountId, sentConfig);
        change.segment_ids = customSegmentIds(change.config);
      }
      const numbersChange =
        change.config !== undefined || change.data_type !== undefined || change.use_hierarchy !== undefined || change.resolution !== undefined || change.data_categories !== undefined || change.segment_ids !== undefined;
      if (numbersChange && custom) {
        // A custom section: line or bar charts at any resolution, its values as they are, its groups as its segments.
        const config = change.config ?? readableConfig(section.config);
        const groups = config ? customSegmentIds(config) : [];
        if (change.data_type !== undefined && !CUSTOM_DATA_TYPES.includes(change.data_type)) problems.push({ detail: UNSUPPORTED_DATA_TYPE, source: { pointer: '/data_type' } });
        if (change.resolution !== undefined && !CUSTOM_RESOLUTIONS.includes(change.resolution)) problems.push({ detail: UNSUPPORTED_RESOLUTION, source: { pointer: '/resolution' } });
        change.data_categories?.forEach((category, k) => {
          if (!CUSTOM_DATA_CATEGORIES.includes(category)) problems.push({ detail: UNSUPPORTED_DATA_CATEGORY, source: { pointer: `/data_categories/${k}` } });
        });
        if (sentConfig === undefined) change.segment_ids?.forEach((id, k) => {
          if (id !== TOTAL_SEGMENTER_ID && !groups.includes(id)) problems.push({ detail: UNKNOWN_SEGMENT, source: { pointer: `/segment_ids/${k}` } });
        });
      } else if (numbersChange) {
        const definition = await definitionOf(accountId, section.definition_id);
        if (!definition) throw ApiError.of(422, UNKNOWN_DEFINITION, '/definition_id');
        if (change.data_type !== undefined && !definition.supported_data_types.includes(change.data_type)) problems.push({ detail: UNSUPPORTED_DATA_TYPE, source: { pointer: '/data_type' } });
        if (change.resolution !== undefined && !definition.supported_grouping_periods.includes(change.resolution)) problems.push({ detail: UNSUPPORTED_RESOLUTION, source: { pointer: '/resolution' } });
        change.data_categories?.forEach((category, k) => {
          if (!definition.data_categories.includes(category)) problems.push({ detail: UNSUPPORTED_DATA_CATEGORY, source: { pointer: `/data_categories/${k}` } });
        });
        problems.push(...segmentProblems(definition, change.segment_ids, '/segment_ids'));
      }
      if (change.position !== undefined && change.position >= (await sectionCount(db, accountId, section.report_id))) {
        problems.push({ detail: POSITION_OUT_OF_RANGE, source: { pointer: '/position' } });
      }
      if (problems.length > 0) throw new ApiError(422, problems);
      await updateSection(db, accountId, section, {
        ...change,
        ...(change.data_type !== undefined ? { data_type: change.data_type as SectionDataType } : {}),
        ...(change.resolution !== undefined ? { resolution: change.resolution as Resolution } : {}),
        ...(change.data_categories !== undefined ? { data_categories: change.data_categories as DataCategory[] } : {}),
      });
      if (numbersChange) await app.reports.start(accountId, section.report_id);
      const updated = await findSection(db, accountId, section.id);
      if (!updated) throw ApiError.of(404, SECTION_NOT_FOUND);
      return settingsOf(updated);
    },
  );

  app.delete(
    '/business_report/sections/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'deleteReportSection',
        summary: 'Deletes a section (the sections after it move up)',
        security: BEARER,
        params: SectionParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountId, section } = await editableSection(request, request.params.id);
      await deleteSection(db, accountId, section);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/business_report/sections/:id/segments/:segmentId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'deleteReportSectionSegment',
        summary: 'Removes a segment from a section and recalculates the report',
        security: BEARER,
        params: SegmentParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountId, section } = await editableSection(request, request.params.id);
      if (!(await deleteSectionSegment(db, accountId, section, request.params.segmentId))) throw ApiError.of(404, SEGMENT_NOT_FOUND);
      await app.reports.start(accountId, section.report_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/business_report/sections/:id/segments/:segmentId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'expandReportSectionSegment',
        summary: 'A section’s segment with the segment values it groups',
        security: BEARER,
        params: SegmentParams,
        response: { 200: ExpandedSegmentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId, section } = await editableSection(request, request.params.id);
      const { segmentId } = request.params;
      if (segmentId !== TOTAL_SEGMENTER_ID && !section.segment_ids.includes(segmentId)) throw ApiError.of(404, SEGMENT_NOT_FOUND);
      const computed = await computedSegment(db, accountId, section.id, segmentId);
      const names = [...new Set((computed?.series ?? []).flatMap((serie) => (serie.segment_value === undefined ? [] : [serie.segment_value])))];
      let name = computed?.name;
      if (name === undefined) {
        const definition = await definitionOf(accountId, section.definition_id);
        name = segmentId === TOTAL_SEGMENTER_ID ? TOTAL_NAME : (definition?.segmenters.find((s) => s.id === segmentId)?.name ?? segmentId);
      }
      return { id: segmentId, name, is_total: segmentId === TOTAL_SEGMENTER_ID, grouped_segment_names: names };
    },
  );
};
