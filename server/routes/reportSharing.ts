import { createHash } from 'node:crypto';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { mustBeKnownCurrency, REPORT_NOT_FOUND, reportExists, reportView, type ReportView } from '../reports/reports';
import {
  checkedPin,
  createGroupSecret,
  createShareSecret,
  latestReportByGroupSecret,
  listGroupSecrets,
  listShareSecrets,
  revokeGroupSecret,
  revokeShareSecret,
  shareBySecret,
  sharedFilterItem,
  sharedFilterOf,
} from '../reports/sharing';
import { MAX_FILTER_VALUE_LENGTH } from '../../models/reportFilter';
import { NotModified, ReportSchema, SecretQuery, sectionsInCurrency, sendCached } from './businessReports';

/**
 * Report sharing (second spec document, sections 2, 3, 6, 7; docs/sharing.md). The owner routes
 * (`/business_reports/{id}/share_secret(s)`, `/group_secret(s)`) are for full users of the
 * report's account; another account's report is 404. The public routes answer anyone holding a
 * link, signed in or not, whatever the account's anonymous access says: the link is the
 * credential. They only read; every public read looks the link up in the database, so a revoked
 * link is 404 at once on every server process (nothing maps a secret to a report in memory).
 */

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const SecretIdParams = Type.Object({ id: Type.String({ maxLength: 64 }), secretId: Type.String({ maxLength: 64 }) });
const CurrencyQuery = Type.Object({ currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, any case' })) });

const ShareSecretSchema = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'The shared page is /reports/shared/{secret}' }),
  segmenter_id: Type.Union([Type.String(), Type.Null()], { description: 'The segment the link is pinned to; null: the whole report' }),
  segmenter_name: Type.Union([Type.String(), Type.Null()], { description: 'That segment’s name (null when unpinned, or the segment no longer exists)' }),
  segment_value: Type.Union([Type.String(), Type.Null()], { description: 'The segment value the link shows' }),
  created_at: Type.String({ format: 'date-time' }),
});

const GroupSecretSchema = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'The group page is /reports/group/{secret}' }),
  created_at: Type.String({ format: 'date-time' }),
});

const SharedFilterSchema = Type.Object(
  {
    segmenter_id: Type.String(),
    segmenter_name: Type.Union([Type.String(), Type.Null()]),
    segment_value: Type.String(),
  },
  { description: 'The segment value a share link is pinned to: every section is computed with the report view’s filter AND it' },
);

const SharedReportSchema = Type.Composite([
  ReportSchema,
  Type.Object({
    shared_filter: Type.Optional(Type.Union([SharedFilterSchema, Type.Null()], { description: 'The link’s pinned segment value; null: the whole report' })),
  }),
]);

const NullableText = Type.Optional(Type.Union([Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH }), Type.Null()]));

export const reportSharingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  /** The caller's account, when its report `reportId` exists; else 404. */
  const ownReport = async (request: Parameters<typeof authOf>[0], reportId: string): Promise<string> => {
    const { accountId } = authOf(request);
    if (!(await reportExists(db, accountId, reportId))) throw ApiError.of(404, REPORT_NOT_FOUND);
    return accountId;
  };

  // ----------------------------------------------------------------- share links (owners)

  app.post(
    '/business_reports/:id/share_secret',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'createShareSecret',
        summary: 'Creates a share link of the report, optionally pinned to one segment value',
        description:
          'A public, read-only link (/reports/shared/{secret}). `segmenter_id` and `segment_value` go together (one without the other is 422 at the missing one); ' +
          'the segment is a customer segment (customer_segment:{id}), a payment attribute (subscription_segment:attribute:{id}) or a segmentation (segmentation:{id}, not of a cost attribute) of the report’s account, else 422 at /segmenter_id; ' +
          'for a segmentation the value is one of its groups or Other, else 422 at /segment_value. ' +
          'A pinned link shows every section computed with the report view’s filter AND that value, nothing unfiltered.',
        security: BEARER,
        params: IdParams,
        body: Type.Object({ segmenter_id: NullableText, segment_value: NullableText }),
        response: { 201: ShareSecretSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const accountId = await ownReport(request, request.params.id);
      const pin = await checkedPin(db, accountId, request.body.segmenter_id, request.body.segment_value);
      return reply.code(201).send(await createShareSecret(db, accountId, request.params.id, pin));
    },
  );

  app.get(
    '/business_reports/:id/share_secrets',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'listShareSecrets',
        summary: 'The report’s share links, newest first',
        security: BEARER,
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(ShareSecretSchema) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const accountId = await ownReport(request, request.params.id);
      return { items: await listShareSecrets(db, accountId, request.params.id) };
    },
  );

  app.delete(
    '/business_reports/:id/share_secrets/:secretId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'revokeShareSecret',
        summary: 'Revokes a share link: it answers 404 from now on, on every server',
        security: BEARER,
        params: SecretIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const accountId = await ownReport(request, request.params.id);
      if (!(await revokeShareSecret(db, accountId, request.params.id, request.params.secretId))) throw ApiError.of(404, 'Share link not found');
      return reply.code(204).send(null);
    },
  );

  // ----------------------------------------------------------------- group links (owners)

  app.post(
    '/business_reports/:id/group_secret',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'createGroupSecret',
        summary: 'Creates a group link: it always opens the newest report of the report’s line (its monthly successors)',
        description: 'A report without a group gets one (named after its title) first. The link resolves with GET /business_report_groups/by_secret.',
        security: BEARER,
        params: IdParams,
        response: { 201: GroupSecretSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const accountId = await ownReport(request, request.params.id);
      return reply.code(201).send(await createGroupSecret(db, accountId, request.params.id));
    },
  );

  app.get(
    '/business_reports/:id/group_secrets',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'listGroupSecrets',
        summary: 'The group links of the report’s group, newest first (none when it has no group)',
        security: BEARER,
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(GroupSecretSchema) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const accountId = await ownReport(request, request.params.id);
      return { items: await listGroupSecrets(db, accountId, request.params.id) };
    },
  );

  app.delete(
    '/business_reports/:id/group_secrets/:secretId',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['sharing'],
        operationId: 'revokeGroupSecret',
        summary: 'Revokes a group link: it answers 404 from now on, on every server',
        security: BEARER,
        params: SecretIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const accountId = await ownReport(request, request.params.id);
      if (!(await revokeGroupSecret(db, accountId, request.params.id, request.params.secretId))) throw ApiError.of(404, 'Group link not found');
      return reply.code(204).send(null);
    },
  );

  // ----------------------------------------------------------------- public reads

  app.get(
    '/business_reports/by_shared_secret',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['sharing'],
        operationId: 'getReportBySharedSecret',
        summary: 'A shared report, read only, for anyone with the link',
        description:
          'Public: signed in or not, whatever the account’s anonymous access. An unknown or revoked link is 404. The answer is the shape of GET /business_reports/by_secret with `can_edit` false, ' +
          '`secret` the share link’s (the report’s own secret is never sent), and `shared_filter`: for a link pinned to a segment value every section is computed with the report view’s filter AND it. ' +
          'With `currency` the sections are computed in it (nothing is stored). Answers are kept while the report and the account’s data are unchanged (`ETag`, 304 on `If-None-Match`, gzip when asked).',
        security: [...BEARER, {}],
        querystring: Type.Composite([SecretQuery, CurrencyQuery]),
        response: { 200: SharedReportSchema, 304: NotModified, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      // Looked up in the database on every call: a revoked link is not found, whatever is cached.
      const share = await shareBySecret(db, request.query.secret);
      if (!share) throw ApiError.of(404, REPORT_NOT_FOUND);
      const currency = request.query.currency?.toUpperCase();
      if (currency) await mustBeKnownCurrency(db, currency);
      const sharedFilter = await sharedFilterOf(db, share);
      // Keyed apart from by_secret_filtered's keys (which begin with a currency or nothing), and by link (its answer carries the link's
      // secret): by the link's id, never its secret, and only ever reached after the lookup above.
      const key = ['shared', share.share_id, currency ?? '', sharedFilter ? JSON.stringify(sharedFilter) : ''].join('\u0000');
      const answer = await app.filteredAnswers.answer(share, key, async () => {
        const view = (await reportView(db, share.account_id, share.id)) as ReportView;
        const target = currency ?? view.currency;
        const item = sharedFilter ? sharedFilterItem(sharedFilter) : undefined;
        // The stored sections only for the whole report in its own currency; else computed for this answer.
        const sections = item || target !== view.currency ? await sectionsInCurrency(app, view, target, item) : view.sections;
        return reply.serialize({ ...view, can_edit: false, secret: share.secret, currency: target, sections, shared_filter: sharedFilter }) as string;
      });
      return sendCached(request, reply as FastifyReply, answer);
    },
  );

  app.get(
    '/business_report_groups/by_secret',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['sharing'],
        operationId: 'getReportGroupBySecret',
        summary: 'Which report a group link opens: the newest report of the group',
        description:
          'Public: signed in or not. An unknown or revoked link (or a group without reports) is 404. The page then opens /reports/{latest_report.secret}, which is read like GET /business_reports/by_secret ' +
          '(the account’s users, or anyone when the account allows anonymous access); `currency` is echoed (upper case) for that page, or null.',
        security: [...BEARER, {}],
        querystring: Type.Composite([SecretQuery, CurrencyQuery]),
        response: {
          200: Type.Object({
            latest_report: Type.Object({ secret: Type.String(), title: Type.String() }),
            currency: Type.Union([Type.String(), Type.Null()]),
          }),
          304: NotModified,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const latest = await latestReportByGroupSecret(db, request.query.secret);
      if (!latest) throw ApiError.of(404, REPORT_NOT_FOUND);
      const body = { latest_report: latest, currency: request.query.currency?.toUpperCase() ?? null };
      const etag = `"${createHash('sha1').update(JSON.stringify(body)).digest('base64url')}"`;
      reply.header('cache-control', 'private, no-cache').header('vary', 'Authorization').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return body;
    },
  );
};
