import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EXPLORE_GROWTH_BUCKETS } from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { MissingExchangeRateError } from '../metrics/currency';
import { dayFromInstant, isoFromDay } from '../metrics/days';
import { SectionRequestError } from '../metrics/definitions/types';
import type { ExploreResult } from '../metrics/explore';
import { FilterQuerySchema, pickedFilterItem, withPickedItem } from '../reports/reportFilters';
import { mustBeKnownCurrency, SECTION_NOT_FOUND, sectionRequests } from '../reports/reports';

/**
 * Explore (second spec document 1 "/explore/{sectionId}/{segmentId}/{date}", 3 "Customer
 * metrics for explore"): `GET /customer_metrics` the customers behind one data point of a
 * report section, each with its months as a customer, new MRR when it occurred, MRR, accrued
 * total and growth since start, bucketed (server/metrics/explore.ts). The section is computed
 * as its details are (server/routes/sectionDetails.ts): its report's settings and filter, the
 * picked filter item, and the day it was last computed unless another currency is asked for.
 */

const DAY = '^\\d{4}-\\d{2}-\\d{2}$';
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const ExploreQuery = Type.Composite([
  Type.Object({
    section_id: Type.String({ minLength: 1, maxLength: 64, description: 'A report section of the account' }),
    segment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The segment (segmenter) shown; default total' })),
    segment_value: Type.Optional(Type.String({ maxLength: 500, description: 'Only the customers of this segment value' })),
    date: Type.String({ pattern: DAY, description: 'A day of the point’s period, YYYY-MM-DD' }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'The report shown in another currency' })),
  }),
  FilterQuerySchema,
]);

const ExploreSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      customer: Type.Object({ id: Type.String(), name: Type.String(), deleted: Type.Boolean() }),
      months_being_customer: Type.Integer({ description: 'Whole months from the start of the paid run that made it a customer to the point' }),
      new_mrr_when_occurred: Type.Number({ description: 'MRR when it became a customer; minor units of `currency`' }),
      mrr: Type.Number({ description: 'MRR at the point; minor units of `currency`' }),
      accrued_total: Type.Number({ description: 'Recognized recurring revenue up to the point; minor units of `currency`' }),
      growth_since_start: Nullable(Type.Number({ description: 'mrr / new_mrr_when_occurred - 1; null when the starting MRR is 0' })),
      growth_bucket: Type.Union(EXPLORE_GROWTH_BUCKETS.map((bucket) => Type.Literal(bucket))),
    }),
  ),
  currency: Type.String({ description: 'ISO 4217: the currency of money values' }),
  title: Type.String({ description: 'The section’s title and the point’s period' }),
});

export const customerExploreRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/customer_metrics',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'exploreCustomerMetrics',
        summary: 'The customers behind a data point of a report section, with the figures of the explore chart',
        security: BEARER,
        querystring: ExploreQuery,
        response: { 200: ExploreSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { section_id, segment_id, segment_value, date, currency: asked, ...filterQuery } = request.query;
      const currency = asked?.toUpperCase();
      const row = await db
        .selectFrom('report_sections')
        .select(['report_id', 'definition_id', 'computed_at', 'title'])
        .where('account_id', '=', accountId)
        .where('id', '=', section_id)
        .executeTakeFirst();
      if (!row) throw ApiError.of(404, SECTION_NOT_FOUND, '/querystring/section_id');
      const own = await sectionRequests(db, accountId, row.report_id);
      const account = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
      const other = currency && currency !== (own?.requests[0]?.currency ?? account.currency) ? currency : undefined;
      if (other) await mustBeKnownCurrency(db, other);
      const input = other ? await sectionRequests(db, accountId, row.report_id, other) : own;
      const k = input?.sections.findIndex((section) => section.id === section_id) ?? -1;
      const ownRequest = input?.requests[k];
      if (!ownRequest) throw ApiError.of(404, SECTION_NOT_FOUND, '/querystring/section_id');
      const item = await pickedFilterItem(db, accountId, filterQuery);
      const sectionRequest = item ? { ...ownRequest, filter: withPickedItem(ownRequest.filter, item) } : ownRequest;
      const today = !other && !item && row.computed_at ? isoFromDay(dayFromInstant(row.computed_at)) : undefined;
      let result: ExploreResult;
      try {
        result = await app.metrics.explore(accountId, {
          ...sectionRequest,
          ...(today ? { today } : {}),
          date,
          ...(segment_id !== undefined && { segment_id }),
          ...(segment_value !== undefined && { segment_value }),
        });
      } catch (error) {
        if (error instanceof SectionRequestError) throw ApiError.of(422, error.message, `/querystring${error.pointer}`);
        if (error instanceof MissingExchangeRateError) throw ApiError.of(422, error.message, '/querystring/currency');
        throw error;
      }
      const name = row.title.trim() || row.definition_id;
      return { items: result.points, currency: result.currency, title: `${name}: ${result.period.label}` };
    },
  );
};
