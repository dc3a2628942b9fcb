import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CSV_IMPORT_MAX_FILE_BYTES } from '../../models/constants';
import { CUSTOMER_COLUMN_REQUIRED_MESSAGE } from '../../models/customers';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { importAuditLog, setImportStatus } from '../imports/auditLog';
import { expired, NO_DATA_ROWS, UPLOAD_EXPIRED } from '../imports/messages';
import { discard, receiveCsvUpload } from '../imports/upload';

/**
 * The attribute values import (`/import-segments`, second spec document): a draft (the file
 * staged, its first rows previewed), then the mapping of one column to the customer and one to
 * the values of a customer segment; a job writes them (server/imports/segmentImport.ts).
 * `GET /segments_importer/{id}` answers the import's status, result and audit log (for polling
 * and the state inspector).
 */

export const MAPPING_INCOMPLETE = 'Looks like import mapping is incomplete - make sure you map your columns correctly';
export const SEGMENT_NOT_FOUND = 'Customer segment not found';
export const SEGMENT_IMPORT_NOT_FOUND = 'Import not found';

const FailureSchema = Type.Object({ row_number: Type.Integer(), row: Type.String(), message: Type.String() });

const SegmentImportSchema = Type.Object({
  id: Type.String(),
  status: Type.String(),
  progress: Type.Integer(),
  total_rows: Type.Integer(),
  customer_segment_id: Type.Union([Type.String(), Type.Null()]),
  result: Type.Object({
    status: Type.String(),
    success_count: Type.Integer(),
    failure_count: Type.Integer(),
    failures: Type.Array(FailureSchema),
    error: Type.Optional(Type.String()),
  }),
  audit_log: Type.Array(
    Type.Object({ event: Type.String(), status: Type.Union([Type.String(), Type.Null()]), details: Type.Record(Type.String(), Type.Unknown()), created_at: Type.String({ format: 'date-time' }) }),
  ),
});

export interface SegmentImportRoutesOptions {
  uploadLimitBytes?: number;
}

export const segmentImportRoutes: FastifyPluginAsyncTypebox<SegmentImportRoutesOptions> = async (app, options) => {
  const uploadLimit = options.uploadLimitBytes ?? CSV_IMPORT_MAX_FILE_BYTES;

  app.post(
    '/segments_importer/draft',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'draftSegmentsImport',
        summary: 'Upload a CSV of attribute values and preview it',
        description:
          'Multipart: the file in `csv` (or `file`); the same reading and limits as the payments import. 400 for a broken multipart body (no boundary, cut off) or a NUL in the file name.',
        consumes: ['multipart/form-data'],
        security: BEARER,
        response: {
          200: Type.Object({ import_id: Type.String(), preview_rows: Type.Array(Type.Array(Type.String())), total_rows: Type.Integer(), columns: Type.Integer(), delimiter: Type.String(), encoding: Type.String() }),
          ...errorResponses(400, 401, 403, 413, 415, 422),
        },
      },
    },
    async (request) => {
      const { accountId, userId } = authOf(request);
      const { importId, staged } = await receiveCsvUpload(app.db, request, { accountId, userId, kind: 'segments', fileFields: ['csv', 'file'], uploadLimit });
      await setImportStatus(app.db.kysely, accountId, importId, 'preview', 'waiting for the mapping');
      return { import_id: importId, preview_rows: staged.preview.map((row) => row.cells), total_rows: staged.rows, columns: staged.widest, delimiter: staged.delimiter, encoding: staged.encoding };
    },
  );

  app.post(
    '/segments_importer/finalize',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'finalizeSegmentsImport',
        summary: 'Map the customer and value columns and import the values',
        security: BEARER,
        body: Type.Object({
          import_id: Type.String({ minLength: 1, maxLength: 64 }),
          public_id_column_index: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
          segment_column_index: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
          skip_headers: Type.Boolean(),
          customer_segment_id: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 200: SegmentImportSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const db = app.db.kysely;
      const body = request.body;
      const found = await db
        .selectFrom('imports')
        .select(['id', 'status', 'total_rows', 'result'])
        .where('account_id', '=', accountId)
        .where('id', '=', body.import_id)
        .where('kind', '=', 'segments')
        .executeTakeFirst();
      if (!found) throw ApiError.of(404, SEGMENT_IMPORT_NOT_FOUND, '/import_id');
      if (found.status !== 'preview') throw ApiError.of(422, expired(found.result) ? UPLOAD_EXPIRED : 'This import is not waiting for its mapping', '/import_id');
      if (typeof body.public_id_column_index !== 'number') throw ApiError.of(422, CUSTOMER_COLUMN_REQUIRED_MESSAGE, '/public_id_column_index');
      if (typeof body.segment_column_index !== 'number' || body.segment_column_index === body.public_id_column_index) {
        throw ApiError.of(422, MAPPING_INCOMPLETE, '/segment_column_index');
      }
      const segment = await db.selectFrom('customer_segments').select('id').where('account_id', '=', accountId).where('id', '=', body.customer_segment_id).executeTakeFirst();
      if (!segment) throw ApiError.of(404, SEGMENT_NOT_FOUND, '/customer_segment_id');
      if (found.total_rows <= (body.skip_headers ? 1 : 0)) {
        await discard(db, accountId, found.id, new Error(NO_DATA_ROWS));
        throw ApiError.of(422, NO_DATA_ROWS, '/skip_headers', 'no_rows');
      }
      await db
        .updateTable('imports')
        .set({
          column_mapping: JSON.stringify({ customer_column: body.public_id_column_index, value_column: body.segment_column_index }),
          skip_headers: body.skip_headers,
          customer_segment_id: segment.id,
        })
        .where('account_id', '=', accountId)
        .where('id', '=', found.id)
        .execute();
      await setImportStatus(db, accountId, found.id, 'in_progress', 'queued', { customer_column: body.public_id_column_index, value_column: body.segment_column_index, segment_id: segment.id });
      await app.imports.start(accountId, found.id);
      return view(accountId, found.id);
    },
  );

  app.get(
    '/segments_importer/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'getSegmentsImport',
        summary: 'Status, result and audit log of an attribute values import',
        security: BEARER,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: SegmentImportSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => view(authOf(request).accountId, request.params.id),
  );

  async function view(accountId: string, id: string) {
    const found = await app.db.kysely.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('kind', '=', 'segments').executeTakeFirst();
    if (!found) throw ApiError.of(404, SEGMENT_IMPORT_NOT_FOUND, '/params/id');
    const stored = (found.result ?? {}) as { failures?: { row_number: number; row: string; message: string }[]; error?: string };
    return {
      id: found.id,
      status: found.status,
      progress: found.progress,
      total_rows: found.total_rows,
      customer_segment_id: found.customer_segment_id,
      result: {
        status: found.status,
        success_count: found.success_count,
        failure_count: found.failure_count,
        failures: stored.failures ?? [],
        ...(typeof stored.error === 'string' ? { error: stored.error } : {}),
      },
      audit_log: await importAuditLog(app.db.kysely, accountId, found.id),
    };
  }
};
