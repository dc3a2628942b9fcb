import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CSV_IMPORT_MAX_FILE_BYTES } from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { COST_IMPORT_NOT_FOUND, finalizeCostImport } from '../costs/import';
import { ApiError } from '../http/errors';
import { importAuditLog, setImportStatus } from '../imports/auditLog';
import { receiveCsvUpload } from '../imports/upload';

/**
 * The cost CSV import (`/import-costs`; docs/costs.md "Import"): upload (the file streamed into
 * staged rows, its first rows previewed), finalize with the mapping of its columns (the import
 * runs inside that request, in one transaction), and the import's status with its result.
 */

export interface CostImportRoutesOptions {
  uploadLimitBytes?: number;
}

const Column = (description: string) => Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()], { description }));

const FailureSchema = Type.Object({ row_number: Type.Integer(), row: Type.String(), message: Type.String() });

const CostImportSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'preview (waiting for the mapping), done or failed' }),
  file_name: Type.String(),
  total_rows: Type.Integer(),
  result: Type.Object({
    status: Type.String(),
    success_count: Type.Integer(),
    failure_count: Type.Integer(),
    failures: Type.Array(FailureSchema, { description: 'Refused rows (the first 1000), by row number' }),
    error: Type.Optional(Type.String()),
  }),
  audit_log: Type.Array(
    Type.Object({ event: Type.String(), status: Type.Union([Type.String(), Type.Null()]), details: Type.Record(Type.String(), Type.Unknown()), created_at: Type.String({ format: 'date-time' }) }),
  ),
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const costImportRoutes: FastifyPluginAsyncTypebox<CostImportRoutesOptions> = async (app, options) => {
  const uploadLimit = options.uploadLimitBytes ?? CSV_IMPORT_MAX_FILE_BYTES;
  const db = app.db.kysely;

  app.post(
    '/costs/csv_import',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports', 'costs'],
        operationId: 'uploadCostsImport',
        summary: 'Upload a CSV of costs and preview it',
        description: 'Multipart: the file in `file` (or `csv`); the same reading and limits as the payments import. Answers the import id and its first rows.',
        consumes: ['multipart/form-data'],
        security: BEARER,
        response: {
          200: Type.Object({ id: Type.String(), preview_rows: Type.Array(Type.Array(Type.String())), total_rows: Type.Integer(), columns: Type.Integer(), delimiter: Type.String(), encoding: Type.String() }),
          ...errorResponses(400, 401, 403, 413, 415, 422),
        },
      },
    },
    async (request) => {
      const { accountId, userId } = authOf(request);
      const { importId, staged } = await receiveCsvUpload(app.db, request, { accountId, userId, kind: 'costs', fileFields: ['file', 'csv'], uploadLimit });
      await setImportStatus(db, accountId, importId, 'preview', 'waiting for the mapping');
      return { id: importId, preview_rows: staged.preview.map((row) => row.cells), total_rows: staged.rows, columns: staged.widest, delimiter: staged.delimiter, encoding: staged.encoding };
    },
  );

  app.post(
    '/costs/csv_import/:id/finalize',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports', 'costs'],
        operationId: 'finalizeCostsImport',
        summary: 'Map the columns and import the costs',
        description:
          'Columns by index (from 0). `value` and `date` are required; without `currency` every cost is in the account currency. `attributes` maps cost attribute ids to columns. ' +
          'Valid rows are written in one transaction; each refused row is listed with its row number and why.',
        security: BEARER,
        params: IdParams,
        body: Type.Object({
          skip_headers: Type.Boolean({ description: 'The first row is a header' }),
          value: Column('The amount, in major units ("1200.20", "1 200,20 zł")'),
          currency: Column('ISO code; empty cells are the account currency'),
          date: Column('The day of the cost'),
          due_date: Column('Optional'),
          invoice_number: Column('Optional'),
          name: Column('Optional'),
          attributes: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0, maximum: 10_000 }), { maxProperties: 200 })),
        }),
        response: { 200: CostImportSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      await finalizeCostImport(app, accountId, request.params.id, request.body);
      return view(accountId, request.params.id);
    },
  );

  app.get(
    '/costs/csv_import/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports', 'costs'],
        operationId: 'getCostsImport',
        summary: 'Status and result of a costs import',
        security: BEARER,
        params: IdParams,
        response: { 200: CostImportSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => view(authOf(request).accountId, request.params.id),
  );

  async function view(accountId: string, id: string) {
    const found = await db.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('kind', '=', 'costs').executeTakeFirst();
    if (!found) throw ApiError.of(404, COST_IMPORT_NOT_FOUND, '/params/id');
    const stored = (found.result ?? {}) as { failures?: { row_number: number; row: string; message: string }[]; error?: string };
    return {
      id: found.id,
      status: found.status,
      file_name: found.file_name,
      total_rows: found.total_rows,
      result: {
        status: found.status,
        success_count: found.success_count,
        failure_count: found.failure_count,
        failures: stored.failures ?? [],
        ...(typeof stored.error === 'string' ? { error: stored.error } : {}),
      },
      audit_log: await importAuditLog(db, accountId, found.id),
    };
  }
};
