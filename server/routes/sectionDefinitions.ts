import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';

const SegmenterSchema = Type.Object({
  id: Type.String({ description: "'total', 'customer_segment:<id>', 'subscription_segment:product|item_type|currency|attribute:<id>', 'cost_segment:<id>', or a segmentation's id" }),
  name: Type.String(),
  is_total: Type.Boolean(),
  type: Type.Union([Type.Literal('total'), Type.Literal('customer_segment'), Type.Literal('subscription_segment'), Type.Literal('cost_segment')]),
  group_label: Type.String(),
});

const SectionDefinitionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  formula: Type.String({ description: 'How the number is computed (docs/metrics.md, the section catalogue)' }),
  available: Type.Boolean({ description: 'False for deals while the account has no CRM deals' }),
  segmenters: Type.Array(SegmenterSchema, { description: "The account's segmenters this definition accepts, the total first" }),
  supported_grouping_periods: Type.Array(Type.String(), { description: 'Resolutions: week, month, quarter, year' }),
  supported_data_types: Type.Array(Type.String(), { description: 'line_chart, bar_chart, stacked_bar_chart, cohort' }),
  default_data_type: Type.String(),
  data_categories: Type.Array(Type.String(), { description: 'The first is the default' }),
  underlying_data: Type.String({ description: 'subscriptions, costs or deals: what the details list' }),
  decimals: Type.Integer({ description: '0, or 2 where the section shows decimals' }),
  key_number_kind: Type.Union([Type.String(), Type.Null()], { description: 'currency, percent or other; null when the section has no key number' }),
  default_call_to_action: Type.String(),
  segmenter_call_to_action: Type.String(),
});

/** The section catalogue of the caller's account. */
export const sectionDefinitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/business_report/section_definitions',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'listSectionDefinitions',
        summary: 'Every chart a report can hold, with the segmenters of the caller’s account',
        description: 'One customer_segment segmenter per customer attribute, the payment built-ins (product, item type, currency) and one per payment attribute, one cost_segment per cost attribute, and the account’s own segmentations.',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(SectionDefinitionSchema) }), ...errorResponses(401) },
      },
    },
    async (request) => ({ items: await app.metrics.sectionDefinitions(authOf(request).accountId) }),
  );
};
