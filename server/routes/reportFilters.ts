import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { reportStampBySecret } from '../reports/answerCache';
import { mustBeReadable } from '../reports/access';
import { filterSegmentations } from '../reports/reportFilters';
import { CUSTOMER_SEGMENT_PREFIX, MAX_FILTER_VALUE_LENGTH, PAYMENT_ATTRIBUTE_PREFIX } from '../../models/reportFilter';
import { SEGMENTATION_SEGMENT_PREFIX } from '../../models/segmentation';

/**
 * What the report filter picker lists (second spec document, sections 2, 7, 9): the segment
 * values of a report's account (read by the report's secret, so shared and demo pages can
 * filter too) and the groups of its segmentations, the account's deal owners and its products. Every query is scoped by the
 * report's or the caller's account.
 */

/** The most values a picker list answers (spec: segment and product search limit 100). */
export const FILTER_LIST_LIMIT = 100;

const SearchText = Type.Optional(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH, description: 'Case-insensitive text the value or its name contains; empty: every one' }));
const Limit = (fallback: number) => Type.Optional(Type.Integer({ minimum: 1, maximum: FILTER_LIST_LIMIT, default: fallback, description: `At most this many (default ${fallback})` }));

export const reportFilterRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/business_report_segment_values/by_secret',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['filters'],
        operationId: 'listReportSegmentValues',
        summary: 'The segment values a report can be filtered by: its account’s customer segment and payment attribute values, and its segmentations’ groups',
        description:
          'Readable like GET /business_reports/by_secret_filtered (the report’s users, anyone when the account allows anonymous access, anyone for the demo account). ' +
          '`id` is the filter item’s segment id: customer_segment:{segmentId}, subscription_segment:attribute:{attributeId}, or segmentation:{segmentationId} for a group of one of the account’s segmentations ' +
          '(`name` the segmentation’s name, `value` a group name or Other; segmentations of cost attributes are not listed). Ordered by name, then value.',
        security: [...BEARER, {}],
        querystring: Type.Object({ secret: Type.String({ minLength: 1, maxLength: 128 }), query: SearchText, limit: Limit(FILTER_LIST_LIMIT) }),
        response: {
          200: Type.Object({ items: Type.Array(Type.Object({ id: Type.String(), name: Type.String({ description: 'The segment’s name' }), value: Type.String() })) }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const stamp = await reportStampBySecret(db, request.query.secret);
      const report = stamp?.is_demo ? stamp : mustBeReadable(request, stamp);
      const text = (request.query.query ?? '').trim().toLowerCase();
      const limit = request.query.limit ?? FILTER_LIST_LIMIT;
      const accountId = report.account_id;
      // The groups of the account's segmentations, matched and ordered with the raw values.
      const groups = (await filterSegmentations(db, accountId)).flatMap((segmentation) =>
        (segmentation.groups ?? []).map((group) => ({ id: `${SEGMENTATION_SEGMENT_PREFIX}${segmentation.id}`, name: segmentation.name, value: group })),
      );
      const matches = (value: string, name: string) => (text === '' ? sql`true` : sql`(strpos(lower(${sql.ref(value)}), ${text}) > 0 or strpos(lower(${sql.ref(name)}), ${text}) > 0)`);
      const rows = await sql<{ id: string; name: string; value: string }>`
        select id, name, value from (
          select distinct ${CUSTOMER_SEGMENT_PREFIX} || s.id as id, s.name, v.value
            from customer_segment_values v
            join customer_segments s on s.account_id = v.account_id and s.id = v.segment_id
           where v.account_id = ${accountId} and v.value is not null and ${matches('v.value', 's.name')}
          union
          select distinct ${PAYMENT_ATTRIBUTE_PREFIX} || a.id as id, a.name, v.value
            from payment_segment_values v
            join object_attributes a on a.account_id = v.account_id and a.id = v.attribute_id and a.object = 'subscription_history'
           where v.account_id = ${accountId} and v.value is not null and ${matches('v.value', 'a.name')}
          union
          select g.id, g.name, g.value
            from jsonb_to_recordset(${JSON.stringify(groups)}::jsonb) as g(id text, name text, value text)
           where ${matches('g.value', 'g.name')}
        ) found
        order by name, value, id
        limit ${limit}`.execute(db);
      return { items: rows.rows };
    },
  );

  app.get(
    '/deal_owners',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['filters'],
        operationId: 'listDealOwners',
        summary: 'The owners of the account’s deals (distinct names, sorted): the deal owner filter',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(Type.Object({ owner_name: Type.String() })) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const rows = await db.selectFrom('deals').select('owner_name').distinct().where('account_id', '=', accountId).where('owner_name', 'is not', null).orderBy('owner_name').execute();
      return { items: rows.map((row) => ({ owner_name: row.owner_name as string })) };
    },
  );

  app.get(
    '/product/search',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['filters'],
        operationId: 'searchProducts',
        summary: 'The account’s products whose key or name contains the text (case-insensitive), by name: the product filter',
        security: BEARER,
        querystring: Type.Object({ query: SearchText, limit: Limit(FILTER_LIST_LIMIT) }),
        response: { 200: Type.Object({ items: Type.Array(Type.Object({ key: Type.String(), name: Type.String() })) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const text = (request.query.query ?? '').trim().toLowerCase();
      const items = await db
        .selectFrom('products')
        .select(['key', 'name'])
        .where('account_id', '=', accountId)
        .$if(text !== '', (q) => q.where(sql<boolean>`(strpos(lower(key), ${text}) > 0 or strpos(lower(name), ${text}) > 0)`))
        .orderBy('name')
        .orderBy('key')
        .limit(request.query.limit ?? FILTER_LIST_LIMIT)
        .execute();
      return { items };
    },
  );
};
