import { timingSafeEqual } from 'node:crypto';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { randomAlphanumeric } from '../auth/secrets';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import type { JobQueue } from '../jobs/queue';
import { findDefinition } from '../metrics/definitions/catalogue';
import type { SectionResult } from '../metrics/definitions/types';
import { dayFromIso } from '../metrics/days';
import { detailsCountUnits } from '../metrics/details';
import { contentDisposition, CSV_CONTENT_TYPE, fileStem, toCsv, toXlsx, XLSX_CONTENT_TYPE } from '../reports/exports/files';
import {
  checkDetailsRequest,
  DETAILS_VARIANTS,
  runDetailsExport,
  SECTION_DETAILS_EXPORT_JOB,
  statusMessage,
  type DetailsExportJob,
  type DetailsExportParams,
} from '../reports/exports/sectionDetails';
import { DATA_VARIANTS, ExportRequestError, sectionDataTable } from '../reports/exports/tables';
import { SECTION_NOT_FOUND } from '../reports/reports';

/**
 * Section exports (second spec document, section 7; docs/exports.md):
 * - `GET /business_report/sections/{id}/export_data`: the section's series as the chart shows
 *   them, as CSV (default) or XLSX (`format=xlsx`), from the section's stored result;
 * - `POST /business_report/sections/{id}/export_details`: starts the details export (a job);
 *   its end is told over SectionDetailsExportChannel;
 * - `GET /section_exports/{id}`: an export's status; `GET /section_exports/{id}/download`: its file.
 *
 * Access (spec section 6): full users of the section's own account; shared and demo viewers
 * get none. Another account's section or export is 404, no token 401.
 */

export const EXPORT_NOT_FOUND = 'Export not found';
export const NOT_CALCULATED = 'The section has not been calculated yet';
export const EXPORTS_NOT_ALLOWED = 'You are not allowed to export this section';
export const UNITS_PER_CUSTOMER_UNAVAILABLE = 'Units sold per customer are not available for this section';

/** Details exports one account may have waiting or running at once; more answer 429 until one ends. */
export const MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT = 3;
/** An export still 'in_progress' after this long was lost with its process and no longer counts. */
const EXPORT_IN_PROGRESS_WINDOW_MS = 15 * 60 * 1000;

export function tooManyExportsMessage(limit: number): string {
  return `Your account already has ${limit} exports in progress. Download one of them, then try again.`;
}

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: "'YYYY-MM-DD'" });
const Format = Type.Union([Type.Literal('csv'), Type.Literal('xlsx')], { description: 'The file: csv (default) or xlsx' });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const ExportStatus = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('in_progress'), Type.Literal('done'), Type.Literal('failed')]),
  url: Type.Union([Type.String(), Type.Null()], { description: 'Downloads the file (no token needed); set once done' }),
  file_name: Type.Union([Type.String(), Type.Null()]),
});

const FileResponse = {
  description: 'The file, as an attachment (Content-Disposition)',
  content: {
    [CSV_CONTENT_TYPE]: { schema: Type.Unsafe<string | Uint8Array>({ type: 'string' }) },
    [XLSX_CONTENT_TYPE]: { schema: Type.Unsafe<string | Uint8Array>({ type: 'string', format: 'binary' }) },
  },
};

export interface SectionExportRoutesOptions {
  /** The job queue; without one (tests, an embedded PGlite server with workers off) details exports run in this process. */
  queue?: JobQueue;
}

/** 422 at the first of these query dates that has the form YYYY-MM-DD but is no calendar day (2026-02-30, 9999-99-99). */
function mustBeCalendarDays(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    try {
      dayFromIso(value);
    } catch {
      throw ApiError.of(422, `${name} is not a calendar day (YYYY-MM-DD)`, `/querystring/${name}`);
    }
  }
}

/** Constant-time equality of two strings (the download key). */
function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const sectionExportRoutes: FastifyPluginAsyncTypebox<SectionExportRoutesOptions> = async (app, options) => {
  const db = app.db.kysely;
  const running = new Set<Promise<void>>();
  const log = { error: (message: string) => app.log.error(message) };

  app.addHook('onClose', async () => {
    while (running.size > 0) await Promise.all([...running]);
  });

  /** The section for an exporting user: its account's full users; else 404 (another account) or 403. */
  async function exportableSection(request: FastifyRequest, sectionId: string) {
    const auth = request.auth;
    if (!auth) throw ApiError.of(401, 'You need to sign in or sign up before continuing.');
    const section = await db
      .selectFrom('report_sections')
      .select(['account_id', 'id', 'report_id', 'definition_id', 'title', 'result'])
      .where('account_id', '=', auth.accountId)
      .where('id', '=', sectionId)
      .executeTakeFirst();
    if (!section) throw ApiError.of(404, SECTION_NOT_FOUND);
    if (auth.permissionLevel !== 'user') throw ApiError.of(403, EXPORTS_NOT_ALLOWED);
    const result = section.result as SectionResult | null;
    if (!result) throw ApiError.of(422, NOT_CALCULATED, '/id');
    return { ...section, result, title: section.title || findDefinition(section.definition_id)?.name || section.definition_id };
  }

  const asApiError = (error: unknown): unknown => (error instanceof ExportRequestError ? ApiError.of(422, error.message, error.pointer) : error);

  app.get(
    '/business_report/sections/:id/export_data',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'exportSectionData',
        summary: 'The section’s series as the chart shows them, as a CSV (or XLSX) file',
        description:
          'A row per period, a column per series (the total, each segment value or component). `variant`: money (the value, default), customer_count or units_sold. CSV text cells starting with = + - @ tab or carriage return get a leading single quote.',
        security: BEARER,
        params: IdParams,
        querystring: Type.Object({
          segment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          segment_value: Type.Optional(Type.String({ maxLength: 500 })),
          variant: Type.Optional(Type.Union(DATA_VARIANTS.map((v) => Type.Literal(v)))),
          format: Type.Optional(Format),
        }),
        response: { 200: FileResponse, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const section = await exportableSection(request, request.params.id);
      const { segment_id: segmentId, segment_value: segmentValue, variant, format } = request.query;
      let table;
      try {
        table = sectionDataTable(section.result, { segmentId, segmentValue, variant });
      } catch (error) {
        throw asApiError(error);
      }
      const stem = `${fileStem(section.title)}-data${variant && variant !== 'money' ? `-${variant.replace('_', '-')}` : ''}`;
      reply.header('cache-control', 'no-store');
      if (format === 'xlsx') {
        const content = await toXlsx(table, section.title);
        return reply.type(XLSX_CONTENT_TYPE).header('content-disposition', contentDisposition(`${stem}.xlsx`)).send(content);
      }
      return reply.type(CSV_CONTENT_TYPE).header('content-disposition', contentDisposition(`${stem}.csv`)).send(toCsv(table));
    },
  );

  app.post(
    '/business_report/sections/:id/export_details',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'exportSectionDetails',
        summary: 'Starts the export of the customers (costs, deals) behind the section’s points',
        description:
          'The periods between start_date and end_date, or the one of `date`; a cohort table needs cohort_date. `variant`: money (each row’s value), sub (each row’s subscriptions) or units_sold. Answers 202 at once; the end comes over SectionDetailsExportChannel `{id, status, url, file_name}` (and `GET /section_exports/{id}`).',
        security: BEARER,
        params: IdParams,
        querystring: Type.Object({
          start_date: Type.Optional(Day),
          end_date: Type.Optional(Day),
          date: Type.Optional(Day),
          segment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          segment_value: Type.Optional(Type.String({ maxLength: 500 })),
          cohort_date: Type.Optional(Day),
          variant: Type.Optional(Type.Union(DETAILS_VARIANTS.map((v) => Type.Literal(v)))),
          format: Type.Optional(Format),
        }),
        response: { 202: ExportStatus, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const section = await exportableSection(request, request.params.id);
      const query = request.query;
      mustBeCalendarDays(query, ['start_date', 'end_date', 'date', 'cohort_date']);
      const startDate = query.start_date ?? query.date;
      const endDate = query.end_date ?? query.date ?? query.start_date;
      if (!startDate || !endDate) throw ApiError.of(422, 'Give a date, or a start date and an end date', query.start_date ? '/querystring/end_date' : '/querystring/date');
      const variant = query.variant ?? 'money';
      if (variant === 'units_sold' && !detailsCountUnits(section.definition_id)) throw ApiError.of(422, UNITS_PER_CUSTOMER_UNAVAILABLE, '/querystring/variant');
      const params: DetailsExportParams = {
        report_id: section.report_id,
        start_date: startDate,
        end_date: endDate,
        ...(query.segment_id ? { segment_id: query.segment_id } : {}),
        ...(query.segment_value !== undefined ? { segment_value: query.segment_value } : {}),
        ...(query.cohort_date ? { cohort_date: query.cohort_date } : {}),
        variant,
        format: query.format ?? 'csv',
        download_key: randomAlphanumeric(32),
      };
      try {
        checkDetailsRequest(section.result, params);
      } catch (error) {
        throw asApiError(error);
      }
      const id = `sxp${randomAlphanumeric(32)}`;
      const accountId = section.account_id;
      // One account's flood of exports cannot queue ahead of everyone else's: a few at a
      // time per account, counted under a per-account lock so parallel requests agree.
      await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext(${`section_exports:${accountId}`}))`.execute(trx);
        const since = new Date(Date.now() - EXPORT_IN_PROGRESS_WINDOW_MS);
        const inProgress = await trx
          .selectFrom('section_exports')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .where('account_id', '=', accountId)
          .where('status', '=', 'in_progress')
          .where('created_at', '>', since)
          .executeTakeFirstOrThrow();
        if (Number(inProgress.count) >= MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT) {
          throw ApiError.of(429, tooManyExportsMessage(MAX_EXPORTS_IN_PROGRESS_PER_ACCOUNT), undefined, 'exports_in_progress');
        }
        await trx
          .insertInto('section_exports')
          .values({ account_id: accountId, id, section_id: section.id, user_id: auth?.userId as string, params: JSON.stringify(params) })
          .execute();
      });
      const job: DetailsExportJob = { accountId, exportId: id };
      if (options.queue) await options.queue.send(SECTION_DETAILS_EXPORT_JOB, job, { singletonKey: id });
      else {
        const run = runDetailsExport(db, app.metrics, job, log).finally(() => running.delete(run));
        running.add(run);
      }
      return reply.code(202).send({ id, status: 'in_progress', url: null, file_name: null });
    },
  );

  app.get(
    '/section_exports/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['reports'],
        operationId: 'getSectionExport',
        summary: 'A details export’s status (the user who started it)',
        security: BEARER,
        params: IdParams,
        response: { 200: ExportStatus, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const auth = request.auth;
      const row = await db
        .selectFrom('section_exports')
        .select(['id', 'status', 'file_name', 'params', 'user_id'])
        .where('account_id', '=', auth?.accountId as string)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!row || row.user_id !== auth?.userId) throw ApiError.of(404, EXPORT_NOT_FOUND);
      return statusMessage(row);
    },
  );

  app.get(
    '/section_exports/:id/download',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['reports'],
        operationId: 'downloadSectionExport',
        summary: 'A finished details export’s file',
        description:
          'With the `key` of the url SectionDetailsExportChannel sent (a link works without a token), or with the token of the user who started it. A token of another account is 404 even with the key.',
        security: [...BEARER, {}],
        params: IdParams,
        querystring: Type.Object({ key: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) }),
        response: { 200: FileResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      const { key } = request.query;
      if (!auth && !key) throw ApiError.of(401, 'You need to sign in or sign up before continuing.');
      let query = db
        .selectFrom('section_exports')
        .select(['account_id', 'user_id', 'status', 'file_name', 'content_type', 'content', 'params'])
        .where('id', '=', request.params.id)
        .where('status', '=', 'done');
      if (auth) query = query.where('account_id', '=', auth.accountId);
      const row = await query.executeTakeFirst();
      const expectedKey = (row?.params as Partial<DetailsExportParams> | undefined)?.download_key;
      const allowed = row && (key ? expectedKey !== undefined && sameKey(key, expectedKey) : row.user_id === auth?.userId);
      if (!row || !allowed || !row.content) throw ApiError.of(404, EXPORT_NOT_FOUND);
      return reply
        .type(row.content_type ?? 'application/octet-stream')
        .header('cache-control', 'private, no-store')
        .header('content-disposition', contentDisposition(row.file_name ?? 'export'))
        .send(Buffer.from(row.content));
    },
  );
};
