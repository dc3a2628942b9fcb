import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { findDefinition } from '../metrics/definitions/catalogue';
import type { SectionResult } from '../metrics/definitions/types';
import {
  computeEach,
  createReport,
  hasFinanceData,
  latestReports,
  lockReport,
  mustBeKnownCurrency,
  REPORT_NOT_FOUND,
  reportBySecret,
  reportExists,
  reportSettings,
  reportSummary,
  reportView,
  sectionRequests,
  type ReportSettingsView,
  type ReportView,
} from '../reports/reports';
import { canEdit, mustBeReadable } from '../reports/access';
import { reportStampBySecret, type CachedAnswer, type ReportStamp } from '../reports/answerCache';
import { FilterQuerySchema, pickedFilterItem, resolveViewFilter, storedViewFilter, viewFields } from '../reports/reportFilters';
import { filterItemKey, MAX_FILTER_VALUE_LENGTH, MAX_VIEW_FILTER_ITEMS, type FilterItem, type ReportViewFilter } from '../../models/reportFilter';
import { REPORT_TEMPLATES } from '../reports/templates';
import { shareBySecret } from '../reports/sharing';
import { MAX_REPORT_TAG_LENGTH, MAX_REPORT_TAGS } from '../../models/constants';
import { periodEndingIn, rangeError, showsCurrentMonth, type ReportPeriod } from '../../models/reportRange';

/**
 * Business reports (spec: first document 2, 3, 4, 6, 7; second document 2, 3, 6, 7): the
 * reports list, the library's templates, creating, reading by secret, editing, settings,
 * recalculation and `GET /data_existence`. Every query is scoped by the caller's account; a
 * report of another account is 404. Reading a report computes nothing: sections keep their
 * last computed result (server/reports/reports.ts), recomputed by a recalculation
 * (server/reports/recalculations.ts) that a new report, a new range or currency, or Refresh
 * starts. Editing is for full users of the report's account (`can_edit`).
 */

/** Months a new report shows, ending with the current month. */
export const NEW_REPORT_MONTHS = 12;
export const UNKNOWN_DEFINITION = 'There is no chart of this kind';
export const NO_DEMO_REPORT = 'There is no demo report on this server';

const PeriodSchema = Type.Object(
  {
    start_year: Type.Integer({ minimum: 1900, maximum: 9999 }),
    start_month: Type.Integer({ minimum: 1, maximum: 12, description: '1 = January' }),
    end_year: Type.Integer({ minimum: 1900, maximum: 9999 }),
    end_month: Type.Integer({ minimum: 1, maximum: 12, description: '1 = January' }),
  },
  { description: 'A report’s range: its first and last month, both shown' },
);

const RecalculationStatusSchema = Type.Union([Type.Literal('recalculated'), Type.Literal('recalculating'), Type.Literal('failed')]);
const FreshnessSchema = Type.Union([Type.Literal('fresh'), Type.Literal('stale')], { description: 'stale once the account’s data changed after the last recalculation' });

const SummarySchema = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'Its page is /reports/{secret}' }),
  title: Type.String(),
  summary: Type.String(),
  tags: Type.Array(Type.String()),
  owner: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
  period: PeriodSchema,
  created_at: Type.String({ format: 'date-time' }),
  refreshed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  recalculation_status: RecalculationStatusSchema,
  freshness_status: FreshnessSchema,
  can_edit: Type.Boolean(),
});

const SettingsSchema = Type.Object({
  repeatable: Type.Boolean({ description: 'A new report like this one each month' }),
  auto_refresh: Type.Boolean({ description: 'Refreshed daily; off for a report that does not show the current month' }),
  display_quarters: Type.Boolean(),
  subtract_forever_discount_from_mrr: Type.Boolean(),
  subtract_finite_discount_from_mrr: Type.Boolean(),
  currency: Type.Union([Type.String({ pattern: '^[A-Z]{3}$' }), Type.Null()], { description: 'null: the account’s currency' }),
});

const DataPointSchema = Type.Object(
  {
    time: Type.String({ description: 'YYYY-MM-DD: the first day of the period (a cohort cell: of the period cohort + `column`; the initial cell: of the cohort period)' }),
    value: Type.Union([Type.Number(), Type.Null()], {
      description:
        'In the section’s `unit`: money as whole minor units of the section’s `currency` (cents: 123456 USD is $1,234.56), rates and shares as fractions (0.05 = 5 %), counts, ratios. ' +
        'In mrr_movements contraction and churn are negative and the other components positive, so they add up to `net`; churned customers and churned MRR elsewhere are positive. ' +
        'A cohort cell is a fraction of its cohort’s initial value (1 = 100 %); the initial cell is the initial value itself. ' +
        'null where the number is undefined (a rate over 0, growth after 0, a moving average without three points).',
    }),
    count: Type.Optional(Type.Number({ description: 'Customers (or costs, deals) behind the value, where the definition counts them; positive for every movement' })),
    quantity: Type.Optional(Type.Number({ description: 'Item quantities behind the value (the units data category, revenue sections)' })),
    amount: Type.Optional(Type.Number({ description: 'Cohort cells: the cohort’s MRR at that column, in minor units (the initial cell: its new MRR)' })),
    column: Type.Optional(
      Type.Union([Type.Literal('initial'), Type.Integer()], {
        description: "Cohort cells: 'initial' (the cohort’s new MRR, or its size for customer cohorts), then k = 0, 1, 2 … for k periods after the cohort period (0: at its end)",
      }),
    ),
  },
  { description: 'One period of a series' },
);

export const SegmentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  is_total: Type.Boolean(),
  grouped_segment_names: Type.Array(Type.String()),
  series: Type.Array(
    Type.Object({
      name: Type.String({ description: 'As the legend shows it: the definition’s name, a component’s name, or “segment value · component”' }),
      segment_value: Type.Optional(Type.String({ description: 'The segment value of this series (not on the total segment); “Other” last, so the values add up to the total' })),
      component: Type.Optional(
        Type.String({
          description:
            'The part of a multi-series definition: in mrr_movements new_business, expansion, reactivation, contraction, churn, fx_adjustment (only when the account matches movements by currency; not in the counts category) and net; ' +
            'in a cohort table the cohort’s period label (one series per cohort, one point per column); in deals the stage',
        }),
      ),
      data_points: Type.Array(DataPointSchema, { description: 'One per period of the range, oldest first (a cohort row: its initial cell, then columns 0, 1, …)' }),
      unit: Type.Optional(Type.String({ description: 'Custom sections: this series’ unit (minor_units, count or units); series of one custom section may differ' })),
      hidden: Type.Optional(Type.Boolean({ description: 'Custom sections: a series the chart does not draw' })),
      y_reference_line: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Custom sections: a horizontal line at this value, in the series’ unit' })),
    }),
  ),
}, { description: 'A segmenter’s view of the section: the total (one series per component), or one series per segment value and component' });

export const PeriodResultSchema = Type.Object(
  {
    label: Type.String({ description: "Week '2025-W01' (ISO 8601, Monday to Sunday), month '2025-01', quarter '2025-Q1', year '2025'" }),
    first_day: Type.String({ description: 'YYYY-MM-DD' }),
    last_day: Type.String({ description: 'YYYY-MM-DD' }),
    measure_day: Type.String({ description: 'YYYY-MM-DD: the day stocks (MRR, customers) are measured: the last day, or today for the current period' }),
    current: Type.Boolean({ description: 'The period holds today' }),
    complete: Type.Boolean({ description: 'The period is over (its last day is before today)' }),
  },
  { description: 'One period of the section’s resolution, in the order of every series’ data points' },
);

const SectionSchema = Type.Object({
  id: Type.String(),
  definition_id: Type.String({ description: "A catalogue definition's id, or 'user_filtered' for a custom section" }),
  title: Type.String(),
  config: Type.Optional(Type.Unknown({ description: 'Custom sections: the stored {groups, series} (docs/custom-sections.md); null when missing' })),
  summary: Type.String(),
  data_type: Type.String({ description: 'line_chart, bar_chart, stacked_bar_chart or cohort' }),
  use_hierarchy: Type.Boolean(),
  resolution: Type.String({ description: 'week, month, quarter or year' }),
  position: Type.Integer(),
  data_categories: Type.Array(Type.String()),
  decimal: Type.Boolean(),
  reference_value: Type.Union([Type.Number(), Type.Null()]),
  segment_ids: Type.Array(Type.String()),
  underlying_data: Type.String({ description: 'subscriptions, costs or deals' }),
  recalculation_status: RecalculationStatusSchema,
  error: Type.Union([Type.String(), Type.Null()]),
  computed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  unit: Type.Union(
    [Type.String({ description: 'minor_units (whole minor units of `currency`: cents for USD), fraction (0.05 = 5 %), ratio, count or units' }), Type.Null()],
    { description: 'The unit of every value of the section; null before its first computation' },
  ),
  currency: Type.Union([Type.String(), Type.Null()], { description: 'ISO 4217: the currency of money values (the report’s)' }),
  periods: Type.Array(PeriodResultSchema),
  segments: Type.Array(SegmentSchema, { description: 'The total first (is_total), then one per segmenter of the section' }),
  key_number: Type.Union(
    [
      Type.Object({
        value: Type.Union([Type.Number(), Type.Null()], { description: 'The total’s value at the last complete period of the range, in `unit`' }),
        kind: Type.String({ description: 'currency, percent or other' }),
        time: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD: first day of that period; null when no period of the range is complete' }),
      }),
      Type.Null(),
    ],
    { description: 'null for cohort tables and before the first computation' },
  ),
});

const FilterText = (description: string) => Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description });
const Negated = Type.Boolean({ description: 'true: the item matches everything its value does not (“is not”)' });

const FilterItemSchema = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('segment'),
        id: Type.String({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH, description: 'customer_segment:{segmentId} (a customer attribute) or subscription_segment:attribute:{attributeId} (a payment attribute)' }),
        name: FilterText('The segment’s name (filled in by the server)'),
        value: FilterText('The segment value'),
        negated: Negated,
      },
      { description: 'Customers (month by month) or payments with this segment value' },
    ),
    Type.Object({ type: Type.Literal('deal_owner'), owner_name: Type.String({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH }), negated: Negated }, { description: 'Customers with at least one deal owned by `owner_name`' }),
    Type.Object(
      { type: Type.Literal('product'), product_key: Type.String({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH }), name: Type.Optional(FilterText('The product’s name, when the account has the product')), negated: Negated },
      { description: 'Payment lines of the product `product_key`' },
    ),
  ],
  { description: 'One report filter item: a segment value, a deal owner or a product; each can be negated' },
);

const ReportViewFilterSchema = Type.Object(
  {
    operator: Type.Union([Type.Literal('and'), Type.Literal('or')], { description: 'and: every item must match; or: one is enough' }),
    arguments: Type.Array(FilterItemSchema, { maxItems: 100, description: `At most ${MAX_VIEW_FILTER_ITEMS} items (more is 422)` }),
  },
  { description: 'A report view’s filter: every section of the report is computed with it' },
);

const ViewFieldsSchema = Type.Object({
  filter: Type.Union([ReportViewFilterSchema, Type.Null()], { description: 'The report view’s filter; null: the report is not filtered' }),
  filtered_segmenter_name: Type.Union([Type.String(), Type.Null()], { description: 'The name of the segment of the view filter’s first segment item; null without one' }),
  filtered_segment_value: Type.Union([Type.String(), Type.Null()], { description: 'The value of the view filter’s first segment item; null without one' }),
});

const ReportViewSummarySchema = Type.Composite([SummarySchema, ViewFieldsSchema]);

export const ReportSchema = Type.Composite([
  SummarySchema,
  ViewFieldsSchema,
  Type.Object({
    account_id: Type.String(),
    currency: Type.String({ description: 'The currency of its numbers' }),
    settings: SettingsSchema,
    sections: Type.Array(SectionSchema),
  }),
]);


export const NotModified = Type.Null({ description: 'Not modified: the answer is the one of the `ETag` sent in `If-None-Match`' });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const SecretQuery = Type.Object({ secret: Type.String({ minLength: 1, maxLength: 128 }) });



/** Whether the client takes gzip (`Accept-Encoding`, without `gzip;q=0`). */
function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  return typeof header === 'string' && /(^|,)\s*gzip\s*(;\s*q=(?!0(\.0*)?\s*(,|$))[\d.]+)?\s*(,|$)/i.test(header);
}

/** A kept answer as it is, with its ETag (304 when the client has it) and gzip when asked. */
export function sendCached(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer): FastifyReply {
  reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'private, no-cache').header('vary', 'Authorization, Accept-Encoding').header('etag', answer.etag);
  if (request.headers['if-none-match'] === answer.etag) return reply.code(304).send();
  if (acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(answer.gzip());
  return reply.send(answer.json);
}

/** The report's sections computed in `currency` (and with `item`, filtered by it too, AND the view's filter) for one answer; nothing is stored. */
export async function sectionsInCurrency(app: FastifyInstance, view: ReportView, currency: string, item?: FilterItem): Promise<ReportView['sections']> {
  const db = app.db.kysely;
  await mustBeKnownCurrency(db, currency);
  const input = await sectionRequests(db, view.account_id, view.id, currency, item);
  const results = input ? await computeEach(app.metrics, view.account_id, input.requests) : [];
  return view.sections.map((section, k) => {
    const result = results[k];
    if (!result || result instanceof Error) return { ...section, recalculation_status: 'failed' as const, error: result?.message ?? null, segments: [], periods: [], key_number: null };
    const computed = result as SectionResult;
    return { ...section, unit: computed.unit, currency: computed.currency, periods: computed.periods, segments: computed.segments, key_number: computed.key_number ?? null };
  });
}

function todayOf(now: Date): { year: number; month: number } {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
}

export const businessReportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const mustExist = async (accountId: string, reportId: string) => {
    if (!(await reportExists(db, accountId, reportId))) throw ApiError.of(404, REPORT_NOT_FOUND);
  };

  app.get(
    '/business_reports/latest',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'listLatestReports',
        summary: 'The account’s reports, newest first (at most 200)',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(SummarySchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const items = await latestReports(db, accountId);
      return { items: items.map((item) => ({ ...item, can_edit: canEdit(request, accountId) })) };
    },
  );

  app.get(
    '/business_report/templates',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'listReportTemplates',
        summary: 'The report library: templates of sections',
        security: BEARER,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), name_suffix: Type.String(), definitions: Type.Array(Type.String()) }),
            ),
          }),
          ...errorResponses(401, 403),
        },
      },
    },
    async () => ({ items: REPORT_TEMPLATES.map((template) => ({ ...template, definitions: [...template.definitions] })) }),
  );

  app.post(
    '/business_reports',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'createReport',
        summary: 'Creates a report of the given sections over `period` (default the last 12 months), and starts computing it',
        description:
          '`period` is optional and follows the rules of PUT /business_reports/{id}: not past the current month, from not after to, at least 3 and at most 72 months; ' +
          'a range that breaks one is 422 at /period with the rule’s message. A range that does not show the current month creates the report with auto refresh off.',
        security: BEARER,
        body: Type.Object({
          title: Type.String({ maxLength: 200 }),
          sections: Type.Array(Type.Object({ definition_id: Type.String({ maxLength: 64 }) }), { maxItems: 60 }),
          period: Type.Optional(PeriodSchema),
        }),
        response: { 201: Type.Object({ id: Type.String(), secret: Type.String() }), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const unknown = request.body.sections.flatMap((section, k) => (findDefinition(section.definition_id) ? [] : [{ detail: UNKNOWN_DEFINITION, source: { pointer: `/sections/${k}/definition_id` } }]));
      const today = todayOf(app.now());
      const { period } = request.body;
      const problem = period ? rangeError(period, today) : null;
      if (problem) unknown.push({ detail: problem, source: { pointer: '/period' } });
      if (unknown.length > 0) throw new ApiError(422, unknown);
      const created = await createReport(db, {
        accountId: auth.accountId,
        ownerUserId: auth.userId,
        title: request.body.title,
        definitionIds: request.body.sections.map((section) => section.definition_id),
        period: period ?? periodEndingIn(today, NEW_REPORT_MONTHS),
        today,
      });
      await app.reports.start(auth.accountId, created.id);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/business_reports/by_secret',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['reports'],
        operationId: 'getReportBySecret',
        summary: 'One report with its sections’ last computed results',
        description:
          'For the users of its account, or anyone when the account allows anonymous access (read only). With `currency` other than the report’s, the sections are computed in it for this answer (nothing is stored).',
        security: [...BEARER, {}],
        querystring: Type.Composite([SecretQuery, Type.Object({ currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })) })]),
        response: { 200: ReportSchema, 304: NotModified, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const report = mustBeReadable(request, await reportStampBySecret(db, request.query.secret));
      const editable = canEdit(request, report.account_id);
      const currency = request.query.currency?.toUpperCase();
      if (currency) {
        const view = (await reportView(db, report.account_id, report.id)) as ReportView;
        if (currency !== view.currency) return { ...view, can_edit: editable, currency, sections: await inCurrency(view, currency) };
      }
      return sendReport(request, reply as FastifyReply, report, editable);
    },
  );

  app.get(
    '/business_reports/by_secret_filtered',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['reports'],
        operationId: 'getFilteredReportBySecret',
        summary: 'A report’s sections computed with one filter item (a segment value, a deal owner or a product, each negatable)',
        description:
          'Readable like GET /business_reports/by_secret, and by anyone for a report of the demo account. Every section is computed with the report view’s filter (if any) AND the item, ' +
          'in `currency` (default the report’s); nothing is stored. The item travels as `filter_type` (default segment) and its fields; a missing field or a segment the account does not have is 422 ' +
          'naming the parameter. Answers are kept while the report and the account’s data are unchanged (`ETag`, 304 on `If-None-Match`).',
        security: [...BEARER, {}],
        querystring: Type.Composite([SecretQuery, Type.Object({ currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })) }), FilterQuerySchema]),
        response: {
          200: Type.Object({
            sections: Type.Array(SectionSchema, { description: 'The report’s sections in its order, each computed with the filter' }),
            filter: FilterItemSchema,
          }),
          304: NotModified,
          ...errorResponses(400, 401, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const { secret, currency: asked, ...query } = request.query;
      const stamp = await reportStampBySecret(db, secret);
      // The public demo page filters too: a demo report is readable by anyone.
      const report = stamp?.is_demo ? stamp : mustBeReadable(request, stamp);
      const filterItem = await pickedFilterItem(db, report.account_id, query, true);
      if (!filterItem) throw ApiError.of(422, 'filter_segmenter_id is required', '/querystring/filter_segmenter_id');
      const currency = asked?.toUpperCase();
      if (currency) await mustBeKnownCurrency(db, currency);
      const key = `${currency ?? ''}\u0000${filterItemKey(filterItem)}\u0000${filterItem.negated}\u0000${JSON.stringify(filterItem)}`;
      const answer = await app.filteredAnswers.answer(report, key, async () => {
        const view = (await reportView(db, report.account_id, report.id)) as ReportView;
        const sections = await inCurrency(view, currency ?? view.currency, filterItem);
        return reply.serialize({ sections, filter: filterItem }) as string;
      });
      return sendCached(request, reply as FastifyReply, answer);
    },
  );

  app.get(
    '/demo',
    {
      schema: {
        tags: ['reports'],
        operationId: 'getDemoReport',
        summary: 'A report of the demo account, for anyone (the public demo at /demo/{secret})',
        description: 'Read only: `can_edit` is false, and the demo page keeps its visitor’s edits in the browser.',
        security: [],
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: ReportSchema, 304: NotModified, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const report = await reportStampBySecret(db, request.query.token);
      if (!report?.is_demo) throw ApiError.of(404, REPORT_NOT_FOUND);
      return sendReport(request, reply as FastifyReply, report, false);
    },
  );

  app.get(
    '/demo/report',
    {
      schema: {
        tags: ['reports'],
        operationId: 'getDemoReportLink',
        summary: 'Which report the public demo shows: the demo account’s first report (Getting started opens /demo/{secret})',
        description: '404 when this server has no demo account (SEED_DEMO=false).',
        security: [],
        response: { 200: Type.Object({ secret: Type.String(), title: Type.String() }), ...errorResponses(404) },
      },
    },
    async () => {
      const found = await db
        .selectFrom('business_reports as r')
        .innerJoin('accounts as a', 'a.id', 'r.account_id')
        .select(['r.secret', 'r.title'])
        .where('a.is_demo', '=', true)
        .orderBy('r.created_at')
        .orderBy('r.id')
        .limit(1)
        .executeTakeFirst();
      if (!found) throw ApiError.of(404, NO_DEMO_REPORT);
      return found;
    },
  );

  /**
   * A report in its own currency: its stored results, served as last serialised while nothing
   * it is made of changed (server/reports/answerCache.ts), with an ETag and gzip when asked.
   * The bytes are sent as they are (the route's serializer is not run again).
   */
  async function sendReport(request: FastifyRequest, reply: FastifyReply, report: ReportStamp, editable: boolean): Promise<FastifyReply> {
    const answer = await app.reportAnswers.answer(report, editable, async () => {
      const view = (await reportView(db, report.account_id, report.id)) as ReportView;
      return reply.serialize({ ...view, can_edit: editable }) as string;
    });
    return sendCached(request, reply, answer);
  }

  /** The report's sections computed in another currency (and with `item`, filtered by it too) for one answer. */
  const inCurrency = (view: ReportView, currency: string, item?: FilterItem) => sectionsInCurrency(app, view, currency, item);

  app.get(
    '/business_reports/settings_by_secret',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['reports'],
        operationId: 'getReportSettingsBySecret',
        summary: 'A report’s settings, read by its secret or by one of its share links',
        description:
          'With the report’s own secret: readable like GET /business_reports/by_secret. With a share link’s secret (POST /business_reports/{id}/share_secret): for anyone, signed in or not, while the link is not revoked.',
        security: [...BEARER, {}],
        querystring: SecretQuery,
        response: { 200: SettingsSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { secret } = request.query;
      const report = await reportBySecret(db, secret);
      if (!report) {
        // A share link is public: its report's settings for anyone holding it.
        const share = await shareBySecret(db, secret);
        if (share) return reportSettings(db, share.account_id, share.id);
      }
      const found = mustBeReadable(request, report);
      return reportSettings(db, found.account_id, found.id);
    },
  );

  app.get(
    '/business_reports/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getReport',
        summary: 'A report’s summary with its view: the view filter and the name and value of its first segment item',
        security: BEARER,
        params: IdParams,
        response: { 200: ReportViewSummarySchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      return viewSummary(accountId, request.params.id, canEdit(request, accountId));
    },
  );

  /** A report's summary and view fields; 404 when the account has no such report. */
  async function viewSummary(accountId: string, reportId: string, editable: boolean) {
    const summary = await reportSummary(db, accountId, reportId);
    if (!summary) throw ApiError.of(404, REPORT_NOT_FOUND);
    const row = await db.selectFrom('business_reports').select('filter').where('account_id', '=', accountId).where('id', '=', reportId).executeTakeFirst();
    return { ...summary, can_edit: editable, ...viewFields(storedViewFilter(row?.filter)) };
  }

  app.get(
    '/business_reports/:id/can_edit',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'canEditReport',
        summary: 'Whether the caller may edit the report',
        security: BEARER,
        params: IdParams,
        response: { 200: Type.Object({ allowed: Type.Boolean() }), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await mustExist(accountId, request.params.id);
      return { allowed: canEdit(request, accountId) };
    },
  );

  app.put(
    '/business_reports/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'updateReport',
        summary: 'Changes the title, summary, tags, range or view filter; a new range or filter is recomputed',
        description:
          'The range follows the range picker’s four rules, in order: not past the current month, from not after to, at least 3 and at most 72 months. A range that no longer shows the current month turns auto refresh off. ' +
          `\`filter\` saves the report view (null clears it): at most ${MAX_VIEW_FILTER_ITEMS} items, each segment one of the account’s (else 422 at /filter/arguments/{k}/id); every section is then recomputed with it.`,
        security: BEARER,
        params: IdParams,
        body: Type.Object({
          title: Type.Optional(Type.String({ maxLength: 200 })),
          summary: Type.Optional(Type.String({ maxLength: 20_000 })),
          tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: MAX_REPORT_TAG_LENGTH }), { maxItems: MAX_REPORT_TAGS })),
          period: Type.Optional(PeriodSchema),
          filter: Type.Optional(Type.Union([ReportViewFilterSchema, Type.Null()], { description: 'The report view’s filter; null: no view filter' })),
        }),
        response: { 200: ReportViewSummarySchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const reportId = request.params.id;
      await mustExist(accountId, reportId);
      const { title, summary, tags, period } = request.body;
      const today = todayOf(app.now());
      if (period) {
        const problem = rangeError(period, today);
        if (problem) throw ApiError.of(422, problem, '/period');
      }
      const asked = request.body.filter as ReportViewFilter | null | undefined;
      const filter = asked ? await resolveViewFilter(db, accountId, asked) : asked;
      const stored = filter === undefined ? {} : { filter: filter === null || filter.arguments.length === 0 ? null : JSON.stringify(filter) };
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('business_reports')
          .set({ ...(title !== undefined && { title }), ...(summary !== undefined && { summary }), ...(tags !== undefined && { tags }), ...(period ?? {}), ...stored, updated_at: new Date() })
          .where('account_id', '=', accountId)
          .where('id', '=', reportId)
          .execute();
        if (period && !showsCurrentMonth(period, today)) await autoRefreshOff(trx, accountId, reportId);
      });
      if (period || filter !== undefined) await app.reports.start(accountId, reportId);
      return viewSummary(accountId, reportId, true);
    },
  );

  app.delete(
    '/business_reports/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'deleteReport',
        summary: 'Deletes a report with its sections, settings, comments and share links',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      const deleted = await db.deleteFrom('business_reports').where('account_id', '=', accountId).where('id', '=', request.params.id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) throw ApiError.of(404, REPORT_NOT_FOUND);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/business_reports/:id/settings',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getReportSettings',
        summary: 'A report’s settings',
        security: BEARER,
        params: IdParams,
        response: { 200: SettingsSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await mustExist(accountId, request.params.id);
      return reportSettings(db, accountId, request.params.id);
    },
  );

  app.put(
    '/business_reports/:id/settings',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'updateReportSettings',
        summary: 'Changes some settings; a new currency or discount choice is recomputed',
        description: 'Auto refresh stays off for a report that does not show the current month.',
        security: BEARER,
        params: IdParams,
        body: Type.Partial(SettingsSchema),
        response: { 200: SettingsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const reportId = request.params.id;
      await mustExist(accountId, reportId);
      const change = request.body as Partial<Static<typeof SettingsSchema>>;
      if (change.currency) await mustBeKnownCurrency(db, change.currency);
      const before = await reportSettings(db, accountId, reportId);
      const report = await db.selectFrom('business_reports').select(['start_year', 'start_month', 'end_year', 'end_month']).where('account_id', '=', accountId).where('id', '=', reportId).executeTakeFirstOrThrow();
      // Only the named setting columns are written, and the key columns come last: nothing in
      // the body can name another report or account.
      const after: ReportSettingsView = {
        repeatable: change.repeatable ?? before.repeatable,
        auto_refresh: change.auto_refresh ?? before.auto_refresh,
        display_quarters: change.display_quarters ?? before.display_quarters,
        subtract_forever_discount_from_mrr: change.subtract_forever_discount_from_mrr ?? before.subtract_forever_discount_from_mrr,
        subtract_finite_discount_from_mrr: change.subtract_finite_discount_from_mrr ?? before.subtract_finite_discount_from_mrr,
        currency: change.currency === undefined ? before.currency : change.currency,
      };
      if (!showsCurrentMonth(report as ReportPeriod, todayOf(app.now()))) after.auto_refresh = false;
      await db.transaction().execute(async (trx) => {
        // The report row first, as every writer of its parts (server/reports/reports.ts lockReport).
        await lockReport(trx, accountId, reportId);
        await trx
          .insertInto('report_settings')
          .values({ ...after, account_id: accountId, report_id: reportId })
          .onConflict((conflict) => conflict.columns(['account_id', 'report_id']).doUpdateSet({ ...after, updated_at: new Date() }))
          .execute();
      });
      const numbersChanged =
        after.currency !== before.currency ||
        after.subtract_forever_discount_from_mrr !== before.subtract_forever_discount_from_mrr ||
        after.subtract_finite_discount_from_mrr !== before.subtract_finite_discount_from_mrr;
      if (numbersChanged) await app.reports.start(accountId, reportId);
      return after;
    },
  );

  app.post(
    '/business_reports/:id/refresh',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'refreshReport',
        summary: 'Recomputes every section of the report (in the background; BusinessReportChannel tells when done)',
        security: BEARER,
        params: IdParams,
        response: { 202: Type.Object({ recalculation_status: Type.Literal('recalculating') }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      await mustExist(accountId, request.params.id);
      await app.reports.start(accountId, request.params.id);
      return reply.code(202).send({ recalculation_status: 'recalculating' as const });
    },
  );

  app.get(
    '/data_existence',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getDataExistence',
        summary: 'Whether the account has finance data (payments or costs): the report page prompts to import when not',
        security: BEARER,
        response: { 200: Type.Object({ finance: Type.Boolean() }), ...errorResponses(401) },
      },
    },
    async (request) => ({ finance: await hasFinanceData(db, authOf(request).accountId) }),
  );
};

async function autoRefreshOff(trx: Transaction<DB>, accountId: string, reportId: string) {
  await sql`update report_settings set auto_refresh = false, updated_at = now() where account_id = ${accountId} and report_id = ${reportId}`.execute(trx);
}
