import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import {
  CSV_IMPORT_MAX_FILE_BYTES,
  CSV_IMPORT_COLUMN_ORDER,
  SUBSCRIPTION_CSV_AMOUNT_FIELDS,
  SUBSCRIPTION_CSV_BOTH_AMOUNTS_MESSAGE,
  SUBSCRIPTION_CSV_FIELDS,
  SUBSCRIPTION_CSV_MAPPING_INCOMPLETE_MESSAGE,
  SUBSCRIPTION_CSV_PERIOD_FIELDS,
  SUBSCRIPTION_CSV_REQUIRED_FIELDS,
  type SubscriptionCsvField,
} from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, ErrorSchema, errorResponses } from '../auth/schemas';
import { ApiError, errorBody } from '../http/errors';
import type { AuditEntry } from '../imports/auditLog';
import type { StoredMapping } from '../imports/subscriptionImport';
import type { FileFacts } from '../imports/staging';
import { expired, NO_DATA_ROWS, UPLOAD_EXPIRED } from '../imports/messages';
import { receiveCsvUpload } from '../imports/upload';
import { FIELD_LABELS, looksLikeHeader } from '../imports/subscriptionRows';
import { subscriptionImportsRepository, type SubscriptionImportsRepository } from '../repositories/subscriptionImports';

/**
 * The subscription CSV import (docs/imports.md):
 * - the import dialog posts the file with `column_order` and polls the import until it is done;
 * - the import page posts the file alone, gets a preview to map, and finalizes the mapping.
 * Both stream the file into staged rows; a job validates and commits them (server/imports/).
 */

export const IMPORT_NOT_FOUND = 'Import not found';
export const MAPPING_INCOMPLETE = SUBSCRIPTION_CSV_MAPPING_INCOMPLETE_MESSAGE;
export const BOTH_AMOUNTS = SUBSCRIPTION_CSV_BOTH_AMOUNTS_MESSAGE;
export const NOT_IN_PREVIEW = 'This import is not waiting for its mapping';

const FailureSchema = Type.Object({
  row_number: Type.Integer({ description: 'Row of the file (1 = its first line)' }),
  row: Type.String({ description: 'The row as read, cells joined by its delimiter' }),
  message: Type.String({ description: 'The column and the reason' }),
});

/** The dialog's 400 lists the rows without its columns; any other 400 (a broken multipart body) has the error alone. */
const ValidationFailedSchema = Type.Object({
  ...ErrorSchema.properties,
  validation_failures: Type.Optional(Type.Array(FailureSchema)),
});

const ImportSchema = Type.Object({
  id: Type.String(),
  status: Type.Union(['uploaded', 'preview', 'in_progress', 'finalizing', 'done', 'failed'].map((s) => Type.Literal(s))),
  progress: Type.Integer({ description: 'Percent' }),
  file_name: Type.String(),
  total_rows: Type.Integer(),
  delimiter: Type.Union([Type.String(), Type.Null()]),
  encoding: Type.Union([Type.String(), Type.Null()]),
  result: Type.Union([
    Type.Object({
      status: Type.String({ description: "'done' once committed, 'failed' when the import failed, else the import's status" }),
      success_count: Type.Integer(),
      failure_count: Type.Integer(),
      created: Type.Optional(Type.Integer()),
      updated: Type.Optional(Type.Integer()),
      unchanged: Type.Optional(Type.Integer()),
      failures: Type.Array(FailureSchema, { description: `The first ${1_000} failed rows` }),
      error: Type.Optional(Type.String()),
    }),
  ]),
  validation_failures: Type.Array(FailureSchema),
  audit_log: Type.Array(
    Type.Object({
      event: Type.String(),
      status: Type.Union([Type.String(), Type.Null()]),
      details: Type.Record(Type.String(), Type.Unknown()),
      created_at: Type.String({ format: 'date-time' }),
    }),
    { description: 'Every status change, oldest first' },
  ),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const UploadedSchema = Type.Object({
  id: Type.String(),
  import_id: Type.String({ description: 'The same id (the import page reads this name)' }),
  status: Type.String(),
  total_rows: Type.Integer(),
  preview_rows: Type.Array(Type.Array(Type.String()), { description: 'The first 10 rows, cells as read' }),
  columns: Type.Integer({ description: 'Cells of the widest row' }),
  delimiter: Type.String(),
  encoding: Type.String(),
});

const FIELDS: readonly SubscriptionCsvField[] = SUBSCRIPTION_CSV_FIELDS;

// One type list, not a union: with type coercion on, a union's integer branch reads null as column 0 (and its null branch 0 as null).
const FinalizeSchema = Type.Object({
  skip_headers: Type.Boolean(),
  ...Object.fromEntries(FIELDS.map((field) => [field, Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: 10_000, description: `Column index of ${FIELD_LABELS[field]}; null or absent: not mapped` }))])),
});

type ImportRow = Awaited<ReturnType<typeof findImport>>;

async function findImport(imports: SubscriptionImportsRepository, id: string) {
  const found = await imports.find(id);
  if (!found) throw ApiError.of(404, IMPORT_NOT_FOUND);
  return found;
}

/** Rows of the file with fewer cells than the dialog's columns: the file is not the table it should be. */
function shortRows(facts: FileFacts, delimiter: string) {
  const columns = CSV_IMPORT_COLUMN_ORDER.length;
  return facts.short_rows.map((row) => ({
    row_number: row.row_number,
    row: row.cells.join(delimiter),
    message: `Row ${row.row_number} has ${row.cells.length} column(s); ${columns} are expected (${CSV_IMPORT_COLUMN_ORDER.map((f) => FIELD_LABELS[f]).join(', ')})`,
  }));
}

function view(found: NonNullable<ImportRow>, audit: AuditEntry[]) {
  const stored = (found.result ?? {}) as Record<string, unknown>;
  const failures = (stored.failures as { row_number: number; row: string; message: string }[] | undefined) ?? [];
  return {
    id: found.id,
    status: found.status,
    progress: found.progress,
    file_name: found.file_name,
    total_rows: found.total_rows,
    delimiter: found.delimiter,
    encoding: found.encoding,
    result: {
      status: found.status,
      success_count: found.success_count,
      failure_count: found.failure_count,
      ...(typeof stored.created === 'number' ? { created: stored.created, updated: stored.updated as number, unchanged: stored.unchanged as number } : {}),
      failures,
      ...(typeof stored.error === 'string' ? { error: stored.error } : {}),
    },
    validation_failures: (stored.validation_failures as typeof failures | undefined) ?? [],
    audit_log: audit,
    created_at: new Date(found.created_at).toISOString(),
    finished_at: found.finished_at ? new Date(found.finished_at).toISOString() : null,
  };
}

export interface CsvImportRoutesOptions {
  uploadLimitBytes?: number;
}

export const csvImportRoutes: FastifyPluginAsyncTypebox<CsvImportRoutesOptions> = async (app, options) => {
  const uploadLimit = options.uploadLimitBytes ?? CSV_IMPORT_MAX_FILE_BYTES;
  app.post(
    '/subscriptions/csv_import',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'createSubscriptionCsvImport',
        summary: 'Upload a CSV of payments',
        description:
          'Multipart: the file (field `paying_customers`, `csv` or `file`, a .csv of at most 200 MB, rows of at most 64 KB; UTF-8, UTF-16 or Windows-1250/1252; comma, semicolon or tab). ' +
          'With `column_order` (`customer_id,started_at,ended_at,monthly_amount`) the import starts at once: 400 lists rows that do not have those columns, otherwise poll GET /subscriptions/csv_import/{id}. ' +
          'A broken multipart body (no boundary, cut off) or a NUL in the file name is a 400 without that list; a file that is not CSV text, or a header alone, a 422. ' +
          'Without it the answer previews the first rows for the mapping of POST /subscriptions/csv_import/{id}/finalize.',
        consumes: ['multipart/form-data'],
        security: BEARER,
        response: { 200: UploadedSchema, 400: ValidationFailedSchema, ...errorResponses(401, 403, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { accountId, userId } = authOf(request);
      const imports = subscriptionImportsRepository(app.db.kysely, accountId);
      const { importId, staged, fields: formFields, facts } = await receiveCsvUpload(app.db, request, { accountId, userId, kind: 'subscriptions', fileFields: ['paying_customers', 'csv', 'file'], uploadLimit });
      const columnOrder = formFields.column_order;
      const { delimiter, encoding } = staged;

      if (columnOrder === undefined) {
        await imports.setStatus(importId, 'preview', 'waiting for the mapping');
        return {
          id: importId,
          import_id: importId,
          status: 'preview',
          total_rows: staged.rows,
          preview_rows: staged.preview.map((row) => row.cells),
          columns: staged.widest,
          delimiter,
          encoding,
        };
      }

      const order = columnOrder.split(',').map((field) => field.trim());
      if (order.join(',') !== CSV_IMPORT_COLUMN_ORDER.join(',')) {
        await imports.discard(importId, new Error('unknown column_order'));
        throw ApiError.of(422, `column_order must be ${CSV_IMPORT_COLUMN_ORDER.join(',')}`, '/body/column_order');
      }
      const failures = facts ? shortRows(facts, delimiter) : [];
      if (failures.length > 0) {
        await imports.recordValidationFailures(importId, failures);
        await imports.discard(importId, new Error(`${facts?.short_row_count ?? failures.length} row(s) do not have the columns ${order.join(', ')}`));
        return reply.code(400).send({
          ...(errorBody(400, [{ detail: `${facts?.short_row_count ?? failures.length} row(s) of the file cannot be imported`, source: { pointer: '/body/paying_customers' }, code: 'validation_failed' }]) as Static<typeof ErrorSchema>),
          validation_failures: failures,
        } as Static<typeof ValidationFailedSchema>);
      }
      const fields = Object.fromEntries(order.map((field, index) => [field, index]));
      const skipHeaders = looksLikeHeader(staged.preview[0]?.cells ?? [], fields);
      if (skipHeaders && staged.rows === 1) {
        await imports.discard(importId, new Error(NO_DATA_ROWS));
        throw ApiError.of(422, NO_DATA_ROWS, '/body/paying_customers', 'no_rows');
      }
      const mapping: StoredMapping = { fields };
      await imports.setMapping(importId, mapping, skipHeaders);
      await imports.setStatus(importId, 'in_progress', 'queued', { column_order: order.join(','), skip_headers: skipHeaders });
      await app.imports.start(accountId, importId);
      return { id: importId, import_id: importId, status: 'in_progress', total_rows: staged.rows, preview_rows: staged.preview.map((row) => row.cells), columns: staged.widest, delimiter, encoding };
    },
  );

  app.post(
    '/subscriptions/csv_import/:id/finalize',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'finalizeSubscriptionCsvImport',
        summary: 'Map the columns of an uploaded CSV and import it',
        description:
          `Column index per field. Required: ${SUBSCRIPTION_CSV_REQUIRED_FIELDS.join(', ')}, exactly one of ${SUBSCRIPTION_CSV_AMOUNT_FIELDS.join(', ')} ` +
          `and at least one of ${SUBSCRIPTION_CSV_PERIOD_FIELDS.join(', ')}; invoice_number and the rest are optional (422 '${MAPPING_INCOMPLETE}', or '${BOTH_AMOUNTS}'). ` +
          'A row with an empty ended_at (and no months) is an open-ended payment. The import then runs as a job: poll GET /subscriptions/csv_import/{id}.',
        security: BEARER,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: FinalizeSchema,
        response: { 200: ImportSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const imports = subscriptionImportsRepository(app.db.kysely, accountId);
      const found = await findImport(imports, request.params.id);
      if (found.status !== 'preview') throw ApiError.of(422, expired(found.result) ? UPLOAD_EXPIRED : NOT_IN_PREVIEW, '/params/id');
      const body = request.body as Record<string, number | null | boolean | undefined>;
      const fields: Record<string, number> = {};
      for (const field of FIELDS) {
        const index = body[field];
        if (typeof index === 'number') fields[field] = index;
      }
      const missing = [
        ...SUBSCRIPTION_CSV_REQUIRED_FIELDS.filter((field) => fields[field] === undefined),
        ...[SUBSCRIPTION_CSV_AMOUNT_FIELDS, SUBSCRIPTION_CSV_PERIOD_FIELDS].filter((group) => group.every((field) => fields[field] === undefined)).map((group) => group[0]),
      ];
      if (missing.length > 0) throw new ApiError(422, [{ detail: MAPPING_INCOMPLETE, source: { pointer: `/${missing[0]}` }, code: 'mapping_incomplete' }]);
      if (SUBSCRIPTION_CSV_AMOUNT_FIELDS.every((field) => fields[field] !== undefined)) throw ApiError.of(422, BOTH_AMOUNTS, '/total_value');
      const used = new Map<number, string>();
      for (const [field, index] of Object.entries(fields)) {
        const other = used.get(index);
        if (other) throw ApiError.of(422, `${FIELD_LABELS[field as SubscriptionCsvField]} and ${FIELD_LABELS[other as SubscriptionCsvField]} are mapped to the same column`, `/${field}`);
        used.set(index, field);
      }
      if (found.total_rows <= (body.skip_headers === true ? 1 : 0)) {
        await imports.discard(found.id, new Error(NO_DATA_ROWS));
        throw ApiError.of(422, NO_DATA_ROWS, '/skip_headers', 'no_rows');
      }
      const mapping: StoredMapping = { fields };
      await imports.setMapping(found.id, mapping, body.skip_headers === true);
      await imports.setStatus(found.id, 'in_progress', 'queued', { mapping: fields, skip_headers: body.skip_headers === true });
      await app.imports.start(accountId, found.id);
      return view(await findImport(imports, found.id), await imports.auditLog(found.id));
    },
  );

  app.get(
    '/subscriptions/csv_import/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['imports'],
        operationId: 'getSubscriptionCsvImport',
        summary: 'Status, progress, result and audit log of a CSV import',
        security: BEARER,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: ImportSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const imports = subscriptionImportsRepository(app.db.kysely, accountId);
      const found = await findImport(imports, request.params.id);
      return view(found, await imports.auditLog(found.id));
    },
  );
};
