import type { ImportPreview, ImportStatus } from '../../../machines/mappingWizard/types';

/**
 * The import API's answers (server/routes/csvImports.ts) for the machine's model payloads, so
 * the view suites make the model's done events happen through a fake server.
 */

/** POST /subscriptions/csv_import without column_order: the preview. */
export function apiUploadAnswer(preview: ImportPreview) {
  return {
    id: preview.importId,
    import_id: preview.importId,
    status: 'preview',
    total_rows: preview.totalRows,
    preview_rows: preview.rows,
    columns: preview.columns,
    delimiter: preview.delimiter,
    encoding: preview.encoding,
  };
}

/** GET /subscriptions/csv_import/{id} (and the finalize answer) for a status. */
export function apiImportView(importId: string, status: ImportStatus) {
  const importStatus = status.status === 'done' || status.status === 'failed' ? status.status : 'in_progress';
  return {
    id: importId,
    status: importStatus,
    progress: status.progress,
    file_name: 'payments.csv',
    total_rows: 3,
    delimiter: ',',
    encoding: 'UTF-8',
    result: {
      status: status.status,
      success_count: status.successCount,
      failure_count: status.failureCount,
      failures: status.failures.map((failure) => ({ row_number: failure.rowNumber, row: failure.row, message: failure.message })),
      ...(status.error ? { error: status.error } : {}),
    },
    validation_failures: [],
    audit_log: [],
    created_at: '2026-01-05T10:00:00.000Z',
    finished_at: importStatus === 'in_progress' ? null : '2026-01-05T10:01:00.000Z',
  };
}
